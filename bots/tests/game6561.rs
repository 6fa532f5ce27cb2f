//! 6561 rules against data: perft counts from an independent implementation, and invariants
//! over random games (which run to their natural end: move 1000 or a stuck player).

mod common;

use bots::game::Game;
use bots::game6561::Game6561;

#[test]
fn perft_counts_match_the_data_file() {
    common::run_perft_file::<Game6561>(include_str!("data/6561.perft"), 10_000_000);
}

#[test]
fn random_games_keep_the_invariants() {
    common::check_invariants::<Game6561>(60, 3, |s| s.compute_hash());
}

#[test]
fn the_score_is_the_best_sum_ever_reached() {
    let mut rng = bots::rng::Rng::new(9);
    let mut list = bots::game::ActionList::new();
    for _ in 0..50 {
        let mut g = Game6561::new();
        let mut best = 0;
        while !g.is_terminal() {
            g.legal_actions(&mut list);
            g.apply(list[rng.below(list.len())]);
            best = best.max(g.board_sum());
            assert_eq!(g.score(), best);
        }
        assert!(g.moves() <= 1000);
        assert_eq!(g.scores(), [best as f32; 2]);
        let u = g.utilities();
        assert!(u[0] == u[1] && (-1.0..=1.0).contains(&u[0]), "cooperative utility {u:?}");
    }
}
