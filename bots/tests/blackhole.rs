//! Black Hole rules against data: perft counts and a full game scored by an independent
//! implementation, and random-game invariants.

mod common;

use bots::blackhole::BlackHole;
use bots::game::Game;
use bots::rng::Rng;

#[test]
fn perft_counts_match_the_data_file() {
    common::run_perft_file::<BlackHole>(include_str!("data/blackhole.perft"), 10_000_000);
}

#[test]
fn random_games_keep_the_invariants() {
    common::check_invariants::<BlackHole>(500, 8, |s| s.compute_hash());
}

/// A whole game, scored independently: the hole is D4 with red 18 and blue 14 around it.
#[test]
fn a_recorded_game_scores_79_to_71() {
    let mut g = BlackHole::new_game(&mut Rng::new(0));
    let labels: Vec<String> = g.brown_fields().into_iter().map(bots::blackhole::label).collect();
    assert_eq!(labels, ["A2", "A4", "B4", "B7", "C5"]);
    let game = "B1=8 G1=2 A6=7 A3=7 E2=14 B3=8 B5=5 E1=11 E4=10 D1=5 A7=13 F2=14 C4=6 C6=6 D2=9 H1=12 E3=2 D3=13 C1=1 A1=4 A8=15 C3=9 G2=11 C2=3 F3=3 D5=1 F1=12 B6=10 B2=4 A5=15";
    bots::tools::apply_texts(&mut g, &game.split(' ').collect::<Vec<_>>()).unwrap();
    assert!(g.is_terminal());
    assert_eq!(g.hole().map(bots::blackhole::label).as_deref(), Some("D4"));
    assert_eq!(g.hole_sums(), (18, 14));
    assert_eq!(g.scores(), [79.0, 71.0]);
}
