//! Where judged Black Hole games lose points: replays every game of a judge record (the brown
//! stones drawn from its seed as the judge does) and, from the position with `LEFT` moves to go
//! (default 10), solves every position exactly. A move's error is how much it lowered its
//! mover's exact margin; prints the mean error per move of each program over its last moves,
//! and the exact margin for A at the first solved position against A's final margin.
//! `cargo run --release -p cupzero-bots --example blackhole_postmortem -- runs/judge-bh.jsonl [LEFT]`

use bots::blackhole::endgame::EndgameSolver;
use bots::blackhole::{BlackHole, TURNS};
use bots::game::Game;
use bots::rng::Rng;

mod common;
use common::list;

fn run(path: &str, left: usize) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut solver = EndgameSolver::new();
    let (mut games, mut error, mut moves) = (0usize, [0i64; 2], [0i64; 2]);
    let (mut exact_sum, mut final_sum) = (0i64, 0i64);
    for line in text.lines() {
        let seed: u64 = line.split("\"seed\":").nth(1).and_then(|r| r.split(',').next()).and_then(|s| s.parse().ok()).ok_or("no seed")?;
        let a_seat = list(line, "seats")?.iter().position(|&s| s == "A").ok_or("no seat A")?;
        let mut state = BlackHole::new_game(&mut Rng::new(seed));
        // The mover's exact margin at the previous position, from Red's side.
        let mut previous: Option<i32> = None;
        for m in list(line, "actions")? {
            let action = BlackHole::parse_action(m).map_err(|e| e.to_string())?;
            if !state.is_legal(action) {
                return Err(format!("seed {seed}: {m} is not legal (brown stones not from this seed?)"));
            }
            if state.turn() >= TURNS - left {
                let solved = solver.solve(&state, u64::MAX, None).ok_or("unsolved")?;
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
            state.apply(action);
        }
        let s = state.scores();
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let left = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    if let Err(e) = args.first().ok_or_else(|| "usage: blackhole_postmortem RECORDS.jsonl [LEFT]".to_string()).and_then(|p| run(p, left)) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
