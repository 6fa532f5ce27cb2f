//! Where judged Zuniq games were lost: replays every game of a judge record that seat `A`
//! lost and, at each of A's moves with at most 34 legal segments, solves the position (2 s,
//! the table kept across one game's positions). Prints `ply:legal` then W (A could still
//! force the win), L (lost) or ? (unsolved) for each.
//! `cargo run --release -p cupzero-bots --example zuniq_postmortem -- runs/judge-zuniq.jsonl`

use bots::game::{ActionList, Game};
use bots::solver::{Outcome, Solver};
use bots::zuniq::Zuniq;
use std::time::{Duration, Instant};

mod common;
use common::list;

fn run(path: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut legal = ActionList::new();
    for line in text.lines() {
        let game = line.split("\"game\":").nth(1).and_then(|rest| rest.split(',').next()).unwrap_or("?");
        let points: Vec<f32> = list(line, "points")?.iter().map(|s| s.parse().unwrap_or(0.0)).collect();
        if points.len() != 2 || points[0] >= points[1] {
            continue;
        }
        let a_seat = list(line, "seats")?.iter().position(|&s| s == "A").ok_or("no seat A")?;
        let mut state = Zuniq::new();
        let mut solver = Solver::new();
        let mut verdicts = Vec::new();
        for (ply, m) in list(line, "actions")?.iter().enumerate() {
            state.legal_actions(&mut legal);
            if state.to_move() == a_seat && legal.len() <= 34 {
                let start = Instant::now();
                let verdict = match solver.solve(&state, u64::MAX, Some(start + Duration::from_secs(2))) {
                    Some(Outcome::Win(_)) => "W",
                    Some(Outcome::Loss) => "L",
                    None => "?",
                };
                verdicts.push(format!("{ply}:{}{verdict}", legal.len()));
            }
            let action = Zuniq::parse_action(m.trim_end_matches('!')).map_err(|e| e.to_string())?;
            state.apply(action);
        }
        println!("game {game}, A in seat {a_seat}: {}", verdicts.join(" "));
    }
    Ok(())
}

fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    if let Err(e) = run(&path) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
