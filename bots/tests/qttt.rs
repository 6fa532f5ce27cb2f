//! Quantum tic-tac-toe rules against data: perft counts from an independent implementation and
//! random-game invariants (games end, collapses leave one mark per square, scores add up).

mod common;

use bots::game::{ActionList, Game};
use bots::qttt::Qttt;
use bots::rng::Rng;

#[test]
fn perft_counts_match_the_data_file() {
    common::run_perft_file::<Qttt>(include_str!("data/qttt.perft"), 10_000_000);
}

#[test]
fn random_games_keep_the_invariants() {
    common::check_invariants::<Qttt>(2_000, 12, |s| s.compute_hash());
}

#[test]
fn random_games_end_with_official_scores() {
    let mut rng = Rng::new(4);
    let mut list = ActionList::new();
    let (mut lone, mut ties, mut doubles) = (0, 0, 0);
    for _ in 0..5_000 {
        let mut q = Qttt::new();
        while !q.is_terminal() {
            q.legal_actions(&mut list);
            lone += (list.len() == 1 && !q.collapse_pending()) as usize;
            q.apply(list[rng.below(list.len())]);
        }
        let s = q.scores();
        let bonus = q.bonus();
        let base = [s[0] - bonus[0] as f32, s[1] - bonus[1] as f32];
        assert!([[10.0, 10.0], [20.0, 0.0], [0.0, 20.0], [15.0, 5.0], [5.0, 15.0]].contains(&base), "{base:?}");
        ties += (base == [10.0, 10.0]) as usize;
        doubles += (base == [15.0, 5.0] || base == [5.0, 15.0]) as usize;
    }
    assert!(lone > 0, "some games reach the single last square");
    assert!(ties > 0 && doubles > 0, "ties {ties}, double four-lines {doubles}");
}
