//! Ultimate tic-tac-toe rules against data: perft counts from an independent implementation and
//! random-game invariants (games end, the scores follow the boards).

mod common;

use bots::game::{ActionList, Game};
use bots::rng::Rng;
use bots::uttt::Uttt;

#[test]
fn perft_counts_match_the_data_file() {
    common::run_perft_file::<Uttt>(include_str!("data/uttt.perft"), 10_000_000);
}

#[test]
fn random_games_keep_the_invariants() {
    common::check_invariants::<Uttt>(2_000, 21, |s| s.hash_from_scratch());
}

/// A game ends with a line of three boards, or with no cell left and the boards counted;
/// every kind of end happens in random games.
#[test]
fn random_games_end_as_the_referee_ends_them() {
    let mut rng = Rng::new(8);
    let mut list = ActionList::new();
    let (mut lines, mut counted, mut draws) = (0, 0, 0);
    for _ in 0..5_000 {
        let mut s = Uttt::new();
        while !s.is_terminal() {
            s.legal_actions(&mut list);
            s.apply(list[rng.below(list.len())]);
        }
        let won = [s.boards_won(0).count_ones(), s.boards_won(1).count_ones()];
        let scores = s.scores();
        match s.line_winner() {
            Some(p) => {
                lines += 1;
                assert_eq!(scores[p], 1.0);
                assert_eq!(p, 1 - s.to_move(), "the last mover made the line");
            }
            None => {
                assert_eq!(s.closed_boards(), 0x1FF, "no line: every board is closed");
                if won[0] == won[1] {
                    draws += 1;
                    assert_eq!(scores, [0.5, 0.5]);
                } else {
                    counted += 1;
                    assert_eq!(scores[(won[1] > won[0]) as usize], 1.0);
                }
            }
        }
        assert_eq!(scores[0] + scores[1], 1.0);
    }
    assert!(lines > 0 && counted > 0 && draws > 0, "lines {lines}, counted {counted}, draws {draws}");
}
