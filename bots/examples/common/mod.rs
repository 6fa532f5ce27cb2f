//! Shared by the examples: a list out of a judge's record line, one error line on failure,
//! Connect 4 matches in pairs.
// Each example uses a part of this module.
#![allow(dead_code)]

use bots::connect4::Connect4;
use bots::game::{ActionList, Game};
use bots::rng::Rng;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The items of the list `"name":[...]` on one line of a judge's records (no JSON dependency:
/// `bots` has none), quotes removed.
pub fn list<'a>(line: &'a str, name: &str) -> Result<Vec<&'a str>, String> {
    let key = format!("\"{name}\":[");
    let start = line.find(&key).ok_or(format!("no {name} in {line:.60}"))? + key.len();
    let len = line[start..].find(']').ok_or(format!("unclosed {name}"))?;
    Ok(line[start..start + len].split(',').map(|s| s.trim_matches('"')).collect())
}

/// Runs `main`, printing its error as one line and exiting with 1.
pub fn exit_on_error(main: impl FnOnce() -> Result<(), String>) {
    if let Err(e) = main() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// Connect 4 games in pairs, on two threads: pair `p` starts from `open_plies` random columns
/// drawn from `Rng::new(1000 + p)`, and `play(opening, p, seat)` plays it to the end with the
/// player under test in `seat`, once per seat. Returns `(seat, score)` of that player for every
/// game (1 a win, 0.5 a draw, 0 a loss), in the order they finished.
pub fn connect4_pairs(pairs: usize, open_plies: usize, play: impl Fn(&Connect4, usize, usize) -> Connect4 + Sync) -> Vec<(usize, f64)> {
    let results = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let pair = next.fetch_add(1, Ordering::SeqCst);
                if pair >= pairs {
                    break;
                }
                let mut rng = Rng::new(1000 + pair as u64);
                let mut opening = Connect4::new();
                let mut legal = ActionList::new();
                for _ in 0..open_plies {
                    opening.legal_actions(&mut legal);
                    opening.apply(legal[rng.below(9)]);
                }
                for seat in 0..2 {
                    let game = play(&opening, pair, seat);
                    let score = match game.winner() {
                        Some(winner) if winner == seat => 1.0,
                        None => 0.5,
                        _ => 0.0,
                    };
                    results.lock().unwrap().push((seat, score));
                }
            });
        }
    });
    results.into_inner().unwrap()
}
