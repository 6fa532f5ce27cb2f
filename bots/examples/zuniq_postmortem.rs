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
use common::{exit_on_error, judged_games, records_from_args};

fn run() -> Result<(), String> {
    let text = records_from_args("zuniq_postmortem RECORDS.jsonl")?;
    let mut legal = ActionList::new();
    for game in judged_games(&text)?.iter().filter(|g| g.a_lost()) {
        let mut solver = Solver::new();
        let mut verdicts = Vec::new();
        game.replay(|state: &Zuniq, _, ply| {
            state.legal_actions(&mut legal);
            if state.to_move() == game.a_seat && legal.len() <= 34 {
                let start = Instant::now();
                let verdict = match solver.solve(state, u64::MAX, Some(start + Duration::from_secs(2))) {
                    Some(Outcome::Win(_)) => "W",
                    Some(Outcome::Loss) => "L",
                    None => "?",
                };
                verdicts.push(format!("{ply}:{}{verdict}", legal.len()));
            }
            Ok(())
        })?;
        println!("game {}, A in seat {}: {}", game.game, game.a_seat, verdicts.join(" "));
    }
    Ok(())
}

fn main() {
    exit_on_error(run);
}
