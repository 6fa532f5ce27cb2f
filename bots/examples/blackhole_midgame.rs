//! Where judged Black Hole games lose points before the exact endgame: replays every game of a
//! judge record and values each position by the net's search at a fixed budget (a long search
//! as the referee), from `EXACT` moves before the end on by the exact margin search. A move's
//! loss is how much it lowered its mover's value; prints the mean loss per game of each
//! program by phase of the game, and how far the referee's value for A moved on each side's
//! moves. Losses a referee cannot see (its own misjudgements) stay hidden: compare with the
//! exact table over the last moves (`blackhole_postmortem`).
//! `cargo run --release -p cupzero-bots --example blackhole_midgame -- RECORDS.jsonl NET.czw [PLAYOUTS] [EXACT] [GAMES]`

use bots::blackhole::endgame::EndgameSolver;
use bots::blackhole::playout::Board;
use bots::blackhole::{BlackHole, TURNS};
use bots::bot::{net_search_config, Contest};
use bots::game::{ActionList, Game};
use bots::mcts::{Evaluator, Mcts, SearchLimits};
use bots::net_eval::NetEvaluator;
use bots::nn::Mlp;
use std::sync::Arc;

mod common;
use common::{exit_on_error, judged_games, records_from_args};

/// Turns per phase in the table.
const PHASE: usize = 6;

fn arg<T: std::str::FromStr>(n: usize, default: T) -> T {
    std::env::args().nth(n).and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn run() -> Result<(), String> {
    let usage = "blackhole_midgame RECORDS.jsonl NET.czw [PLAYOUTS] [EXACT] [GAMES]";
    let text = records_from_args(usage)?;
    let path = std::env::args().nth(2).ok_or(format!("usage: {usage}"))?;
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let net = Arc::new(Mlp::from_bytes(&bytes, "blackhole").map_err(|e| format!("{path}: {e}"))?);
    let (playouts, exact, max_games): (u64, usize, usize) = (arg(3, 20_000), arg(4, 8), arg(5, usize::MAX));
    let mut solver = EndgameSolver::new();
    let mut evaluator = NetEvaluator::averaged(Arc::clone(&net), BlackHole::AVERAGED_VIEWS);
    let mut raw_net = NetEvaluator::averaged(Arc::clone(&net), BlackHole::AVERAGED_VIEWS);
    // Filling-phase positions (exact by the filling rule): how many, from which turn, and how
    // far the net's own value (no search) lies from the exact margin there.
    let (mut filling_positions, mut filling_error, mut first_filling_sum, mut filling_games) = (0usize, 0.0f64, 0usize, 0usize);
    let mut legal = ActionList::new();
    // Red's stone margin (points minus 75) as the referee sees the position.
    let mut referee = |state: &BlackHole| -> Result<f64, String> {
        if state.turn() >= TURNS - exact {
            let solved = solver.solve(state, u64::MAX, None).ok_or("unsolved")?;
            let mover = solved.margin as f64;
            return Ok(if state.to_move() == 0 { mover } else { -mover });
        }
        let mut tree = Mcts::new(state.clone(), net_search_config::<BlackHole>());
        tree.search(&mut evaluator, &SearchLimits::playouts(playouts));
        Ok(tree.root_value()[0] as f64 * 45.0)
    };
    let phases = TURNS.div_ceil(PHASE);
    // loss[program][phase]: value its moves gave away; a_value_start: A's value at turn 0.
    let (mut loss, mut moves) = (vec![vec![0.0f64; phases]; 2], vec![vec![0usize; phases]; 2]);
    let (mut games, mut a_start, mut a_final) = (0usize, 0.0f64, 0.0f64);
    for game in judged_games(&text)?.into_iter().take(max_games) {
        let a_seat = game.a_seat;
        let mut red_values = Vec::with_capacity(TURNS + 1);
        let mut first_filling = None;
        let end: BlackHole = game.replay(|state: &BlackHole, _, _| {
            let board = Board::from_game(state);
            if board.filling() {
                first_filling.get_or_insert(state.turn());
                state.legal_actions(&mut legal);
                let mut priors = vec![0.0; legal.len()];
                let net_red = raw_net.evaluate(state, &legal, &mut priors)[0] as f64 * 45.0;
                filling_error += (net_red - board.filling_margin() as f64).abs();
                filling_positions += 1;
            }
            red_values.push(referee(state)?);
            Ok(())
        })?;
        let s = end.scores();
        red_values.push((s[0] - 75.0) as f64);
        for turn in 0..TURNS {
            // Red moves on even turns.
            let mover = turn % 2;
            let red_drop = red_values[turn] - red_values[turn + 1];
            let drop = if mover == 0 { red_drop } else { -red_drop };
            let program = usize::from(mover != a_seat);
            loss[program][turn / PHASE] += drop;
            moves[program][turn / PHASE] += 1;
        }
        if let Some(turn) = first_filling {
            first_filling_sum += turn;
            filling_games += 1;
        }
        let a_sign = if a_seat == 0 { 1.0 } else { -1.0 };
        a_start += a_sign * red_values[0];
        a_final += a_sign * red_values[TURNS];
        games += 1;
        eprintln!("game {}: A {:+.1} at the start, {:+.0} at the end", game.game, a_sign * red_values[0], a_sign * red_values[TURNS]);
    }
    let g = games.max(1) as f64;
    println!("{games} games; referee: the net's search at {playouts} playouts, exact from {exact} moves before the end");
    println!("A's stone margin: {:+.2} at the start (referee), {:+.2} at the end", a_start / g, a_final / g);
    println!(
        "filling phase reached in {filling_games} games, from turn {:.1} on average (0-based); the net's own value there is off the exact margin by {:.2} stones on average ({filling_positions} positions)",
        first_filling_sum as f64 / filling_games.max(1) as f64,
        filling_error / filling_positions.max(1) as f64
    );
    println!("| turns | A's moves lose (per game) | B's moves lose (per game) | A's value moves by |");
    println!("|---|---|---|---|");
    for phase in 0..phases {
        let (a, b) = (loss[0][phase] / g, loss[1][phase] / g);
        println!("| {}-{} | {a:+.2} ({} moves) | {b:+.2} ({} moves) | {:+.2} |", phase * PHASE + 1, ((phase + 1) * PHASE).min(TURNS), moves[0][phase], moves[1][phase], b - a);
    }
    Ok(())
}

fn main() {
    exit_on_error(run);
}
