//! Experiment: in judged games, the moves of player A with at most 30 empty cells that
//! changed the exact value (endgame mistakes an exact solver would not make).
mod common;

use bots::connect4::classic::classic_search;
use bots::connect4::search::PROVEN;
use bots::connect4::{Connect4, COLS, ROWS};
use bots::game::Game;
fn value(s: &Connect4) -> i32 {
    if let Some(w) = s.winner() { return if w == s.to_move() { 1 } else { -1 }; }
    if s.is_terminal() { return 0; }
    let mut ab = classic_search(Some(30_000_000));
    ab.best_action(s, None);
    let r = ab.last_search();
    if r.score >= PROVEN { 1 } else if r.score <= -PROVEN { -1 } else if r.score == 0 { 0 } else { 9 }
}
fn main() {
    let path = std::env::args().nth(1).unwrap();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let acts = common::list(line, "actions").unwrap();
        let seat_a = if common::list(line, "seats").unwrap()[0] == "A" { 0 } else { 1 };
        let mut g = Connect4::new();
        let mut out = String::new();
        for a in &acts {
            let act = Connect4::parse_action(a).unwrap();
            let empties = (0..ROWS * COLS).filter(|&i| g.cell(i / COLS, i % COLS).is_none()).count();
            if empties <= 30 && g.to_move() == seat_a {
                let before = value(&g);
                let mut next = g.clone();
                next.apply(act);
                let after = -value(&next);
                if before != 9 && after != before && after.abs() != 9 {
                    out += &format!(" [{} empties: {before} -> {after}]", empties);
                }
            }
            g.apply(act);
        }
        let result = match g.winner() { Some(w) if w == seat_a => "A wins", Some(_) => "A loses", None => "draw" };
        println!("A seat {seat_a}: {result}{out}");
    }
}
