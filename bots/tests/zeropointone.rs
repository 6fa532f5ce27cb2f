//! Zero Point One rules against data: the perft table of the rules file (the 2026 winner's
//! move generator) and random-game invariants (hash, symmetries, legality, games end).

mod common;

use bots::game::{ActionList, Game};
use bots::referee::RefereeRules;
use bots::rng::Rng;
use bots::tools::perft_ends_as_leaves;
use bots::zeropointone::ZeroPointOne;

#[test]
fn perft_counts_match_the_rules_table() {
    common::run_perft_file_counting::<ZeroPointOne>(include_str!("data/zeropointone.perft"), 200_000_000, perft_ends_as_leaves::<ZeroPointOne>);
}

#[test]
fn random_games_keep_the_invariants() {
    common::check_invariants::<ZeroPointOne>(300, 26, |s| s.hash_from_scratch());
}

/// Random games end by a wazir taken or at move 102, each often; every count of moves and
/// pieces adds up (32 pieces, on the board or in a hand, less a taken wazir).
#[test]
fn random_games_end_as_the_rules_say() {
    let mut rng = Rng::new(2026);
    let mut list = ActionList::new();
    let (mut taken, mut drawn) = (0, 0);
    for _ in 0..500 {
        let mut s = ZeroPointOne::new();
        let mut actions = 0;
        while !s.is_terminal() {
            s.legal_actions(&mut list);
            s.apply(list[rng.below(list.len())]);
            actions += 1;
            if !s.in_setup() {
                let on_board = (s.side(0) | s.side(1)).count_ones() as usize;
                let in_hand: usize = (0..2).map(|p| s.hand(p).iter().map(|&n| n as usize).sum::<usize>()).sum();
                assert_eq!(on_board + in_hand, 32 - s.winner().is_some() as usize);
            }
        }
        match s.winner() {
            Some(p) => {
                taken += 1;
                assert_eq!(s.scores()[p], 21.0);
                assert_eq!(p, 1 - s.to_move(), "the last mover took the wazir");
                let end = format!("{} took the wazir after {} moves ({actions} actions)", ["Red", "Blue"][p], s.moves());
                assert!(s.end_text(actions).starts_with(&end), "{}", s.end_text(actions));
            }
            None => {
                drawn += 1;
                assert_eq!(s.moves(), 102);
                assert_eq!(s.scores(), [11.0, 11.0]);
                assert_eq!(s.end_text(actions), "drawn after 102 moves (132 actions), scores [11.0, 11.0]");
            }
        }
    }
    assert!(taken > 0 && drawn > 0, "taken {taken}, drawn {drawn}");
}
