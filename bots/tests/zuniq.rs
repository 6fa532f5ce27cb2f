//! Zuniq rules against data: perft counts from an independent implementation, a game that ends
//! with segments left, and invariants (incremental zones equal a flood fill from scratch).

mod common;

use bots::game::{ActionList, Game};
use bots::rng::Rng;
use bots::zuniq::Zuniq;

#[test]
fn perft_counts_match_the_data_file() {
    common::run_perft_file::<Zuniq>(include_str!("data/zuniq.perft"), 10_000_000);
}

#[test]
fn random_games_keep_the_invariants() {
    common::check_invariants::<Zuniq>(300, 5, |s| s.compute_hash());
}

#[test]
fn incremental_zones_equal_a_flood_fill_at_every_move() {
    let mut rng = Rng::new(21);
    let mut list = ActionList::new();
    for _ in 0..300 {
        let mut z = Zuniq::new();
        while !z.is_terminal() {
            assert_eq!(z.zones_from_scratch(), (z.closed_cells(), z.zone_sizes()));
            z.legal_actions(&mut list);
            z.apply(list[rng.below(list.len())]);
        }
        assert_eq!(z.zones_from_scratch(), (z.closed_cells(), z.zone_sizes()));
    }
}

#[test]
fn the_recorded_game_ends_with_the_last_mover_winning() {
    let mut z = Zuniq::new();
    let game = "D1h E1h B2h D2v F4h A5v C1h B1h A5h A2h A4v C4v F1h B3h E3h C6v D3v B1v F3h D4h C3h A1v E5h A3h A6v B3v F2h E2h C2v D5h D1v B6v B4h E5v E1v A2v E4v D6v F5h";
    bots::tools::apply_texts(&mut z, &game.split(' ').collect::<Vec<_>>()).unwrap();
    assert!(z.is_terminal());
    // 39 moves: White made the last one (moves 1, 3, ..., 39) and wins.
    assert_eq!(z.winner(), Some(0));
    assert_eq!(z.scores(), [100.0, 50.0]);
    let sizes: Vec<u32> = (1..=25).filter(|s| z.zone_sizes() >> s & 1 == 1).collect();
    assert_eq!(sizes, vec![1, 2, 3, 6, 9]);
}
