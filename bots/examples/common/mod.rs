//! Shared by the examples: reading and replaying a judge's records file (`judge --records`,
//! one JSON object per line) without a JSON dependency, since `bots` has none; Connect 4
//! matches in pairs.
// Each example uses a part of this module.
#![allow(dead_code)]

use bots::connect4::Connect4;
use bots::game::{Action, ActionList, Game};
use bots::rng::Rng;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The items of the list `"name":[...]` on one record line, quotes removed.
pub fn list<'a>(line: &'a str, name: &str) -> Result<Vec<&'a str>, String> {
    let key = format!("\"{name}\":[");
    let start = line.find(&key).ok_or(format!("no {name} in {line:.60}"))? + key.len();
    let len = line[start..].find(']').ok_or(format!("unclosed {name}"))?;
    Ok(line[start..start + len].split(',').map(|s| s.trim_matches('"')).collect())
}

/// One game of a judge's records file (`judge --records`).
pub struct JudgedGame<'a> {
    /// The game's number in the match.
    pub game: &'a str,
    pub seed: u64,
    /// The seat player A sat in.
    pub a_seat: usize,
    /// Points by seat.
    pub points: Vec<f32>,
    pub actions: Vec<&'a str>,
}

impl<'a> JudgedGame<'a> {
    pub fn read(line: &'a str) -> Result<Self, String> {
        let field = |name: &str| line.split(&format!("\"{name}\":")).nth(1).and_then(|rest| rest.split(',').next()).ok_or(format!("no {name} in {line:.60}"));
        Ok(JudgedGame {
            game: field("game")?,
            seed: field("seed")?.parse().map_err(|_| "a seed that is not a number".to_string())?,
            a_seat: list(line, "seats")?.iter().position(|&s| s == "A").ok_or("no seat A")?,
            points: list(line, "scores")?.iter().map(|s| s.parse().unwrap_or(0.0)).collect(),
            actions: list(line, "actions")?,
        })
    }

    /// Whether player A scored less than B.
    pub fn a_lost(&self) -> bool {
        self.points.len() == 2 && self.points[self.a_seat] < self.points[1 - self.a_seat]
    }

    /// Replays the game from its seed (as the judge sets it up), calling `before` with each
    /// position, the action played there and its ply; returns the final position.
    pub fn replay<G: Game>(&self, mut before: impl FnMut(&G, Action, usize) -> Result<(), String>) -> Result<G, String> {
        let mut state = G::new_game(&mut Rng::new(self.seed));
        for (ply, text) in self.actions.iter().enumerate() {
            let action = G::parse_action(text.trim_end_matches('!')).map_err(|e| format!("game {}: {e}", self.game))?;
            if state.is_terminal() || !state.is_legal(action) {
                return Err(format!("game {}: {text} is not legal at ply {ply} (a record of another game?)", self.game));
            }
            before(&state, action, ply)?;
            state.apply(action);
        }
        Ok(state)
    }
}

/// Every game of a records file.
pub fn judged_games(text: &str) -> Result<Vec<JudgedGame<'_>>, String> {
    text.lines().filter(|l| !l.trim().is_empty()).map(JudgedGame::read).collect()
}

/// The records file named by the first argument, or a usage line.
pub fn records_from_args(usage: &str) -> Result<String, String> {
    let path = std::env::args().nth(1).ok_or(format!("usage: {usage}"))?;
    std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))
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
