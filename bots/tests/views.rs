//! What every registered game's pictures share: the move that led to a position is marked in
//! the one last-move colour, inside the picture, and only after a move.

use bots::game::ActionList;
use bots::view::{Picture, Shape, View, LAST_MOVE};

fn marks(p: &Picture) -> usize {
    p.count(|s| matches!(s, Shape::Outline { color, .. } | Shape::Line { color, .. } if *color == LAST_MOVE))
}

fn check<G: View>() {
    let mut rng = bots::rng::Rng::new(11);
    let mut list = ActionList::new();
    for _ in 0..3 {
        let mut state = G::new_game(&mut rng);
        assert_eq!(marks(&state.picture_after(None)), 0, "{}: a mark before any move", G::NAME);
        while !state.is_terminal() {
            state.legal_actions(&mut list);
            let action = list[rng.below(list.len())];
            state.apply(action);
            let after = state.picture_after(Some(action));
            assert_eq!(marks(&state.picture()), 0, "{}: a mark in the plain picture", G::NAME);
            assert!(marks(&after) > 0, "{}: {} is not marked", G::NAME, G::format_action(action));
            assert!(after.fits(), "{}: the mark of {} leaves the picture", G::NAME, G::format_action(action));
        }
    }
}

#[test]
fn every_game_marks_the_last_move() {
    for game in bots::GAMES {
        bots::with_game!(game.name, G => check::<G>()).expect("a registered game");
    }
}
