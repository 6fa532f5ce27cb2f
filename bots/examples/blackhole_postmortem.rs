//! Where judged Black Hole games lose points: replays every game of a judge record (the brown
//! stones drawn from its seed as the judge does) and, from the position with `LEFT` moves to go
//! (default 10), solves every position exactly. A move's error is how much it lowered its
//! mover's exact margin; prints the mean error per move of each program over its last moves,
//! and the exact margin for A at the first solved position against A's final margin.
//! `cargo run --release -p cupzero-bots --example blackhole_postmortem -- runs/judge-bh.jsonl [LEFT]`

use bots::blackhole::endgame::EndgameSolver;
use bots::blackhole::{BlackHole, TURNS};
use bots::game::Game;

mod common;
use common::{exit_on_error, judged_games, records_from_args};

fn run(left: usize) -> Result<(), String> {
    let text = records_from_args("blackhole_postmortem RECORDS.jsonl [LEFT]")?;
    let mut solver = EndgameSolver::new();
    let (mut games, mut error, mut moves) = (0usize, [0i64; 2], [0i64; 2]);
    let (mut exact_sum, mut final_sum) = (0i64, 0i64);
    for game in judged_games(&text)? {
        let a_seat = game.a_seat;
        // The mover's exact margin at the previous position, from Red's side.
        let mut previous: Option<i32> = None;
        let end: BlackHole = game.replay(|state: &BlackHole, _, _| {
            if state.turn() >= TURNS - left {
                let solved = solver.solve(state, u64::MAX, None).ok_or("unsolved")?;
                let red = if state.to_move() == 0 { solved.margin } else { -solved.margin };
                if let Some(before) = previous {
                    // The player who just moved (the other one) lost this much.
                    let mover = 1 - state.to_move();
                    let drop = if mover == 0 { before - red } else { red - before };
                    let program = usize::from(mover != a_seat);
                    error[program] += drop as i64;
                    moves[program] += 1;
                } else {
                    exact_sum += if a_seat == 0 { red } else { -red } as i64;
                }
                previous = Some(red);
            }
            Ok(())
        })?;
        let s = end.scores();
        let red = ((s[0] - s[1]) / 2.0) as i32;
        if let Some(before) = previous {
            // The last move (Blue's).
            let program = usize::from(1 != a_seat);
            error[program] += (red - before) as i64;
            moves[program] += 1;
        }
        final_sum += if a_seat == 0 { red } else { -red } as i64;
        games += 1;
    }
    let g = games as f64;
    println!("{games} games, solved from {left} moves before the end");
    println!("A's stone margin: exact at the first solved position {:+.2}, final {:+.2}", exact_sum as f64 / g, final_sum as f64 / g);
    for (name, p) in [("A", 0), ("B", 1)] {
        println!("{name}: {} moves, margin lost {:.2} per game ({:.3} per move)", moves[p], error[p] as f64 / g, error[p] as f64 / moves[p].max(1) as f64);
    }
    Ok(())
}

fn main() {
    let left = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    exit_on_error(|| run(left));
}
