//! Where judged Connect 4 games were lost in the endgame: replays every game of a judge record
//! and, at each of A's moves with at most 30 empty cells, searches the position before and
//! after the move exactly (the classic alpha-beta, up to 30 million nodes). Prints each move
//! that changed the exact value (1 won, 0 drawn, -1 lost, for A): the endgame mistakes an
//! exact solver would not make.
//! `cargo run --release -p cupzero-bots --example connect4_postmortem -- runs/judge-c4.jsonl`

use bots::connect4::classic::classic_search;
use bots::connect4::search::PROVEN;
use bots::connect4::{Connect4, COLS, ROWS};
use bots::game::Game;

mod common;
use common::{exit_on_error, judged_games, records_from_args};

/// The exact value for the player to move, or `None` when the search did not prove it.
fn value(s: &Connect4) -> Option<i32> {
    if let Some(w) = s.winner() {
        return Some(if w == s.to_move() { 1 } else { -1 });
    }
    if s.is_terminal() {
        return Some(0);
    }
    let mut search = classic_search(Some(30_000_000));
    search.best_action(s, None);
    let r = search.last_search();
    if r.score >= PROVEN {
        Some(1)
    } else if r.score <= -PROVEN {
        Some(-1)
    } else {
        (r.score == 0).then_some(0)
    }
}

fn run() -> Result<(), String> {
    let text = records_from_args("connect4_postmortem RECORDS.jsonl")?;
    for game in judged_games(&text)? {
        let mut mistakes = String::new();
        let end: Connect4 = game.replay(|state: &Connect4, action, _| {
            let empties = (0..ROWS * COLS).filter(|&i| state.cell(i / COLS, i % COLS).is_none()).count();
            if empties <= 30 && state.to_move() == game.a_seat {
                let mut next = state.clone();
                next.apply(action);
                if let (Some(before), Some(after)) = (value(state), value(&next).map(|v| -v)) {
                    if after != before {
                        mistakes += &format!(" [{empties} empties: {before} -> {after}]");
                    }
                }
            }
            Ok(())
        })?;
        let result = match end.winner() {
            Some(w) if w == game.a_seat => "A wins",
            Some(_) => "A loses",
            None => "draw",
        };
        println!("game {}, A in seat {}: {result}{mistakes}", game.game, game.a_seat);
    }
    Ok(())
}

fn main() {
    exit_on_error(run);
}
