//! CodeCup's Zero Point One referee: a setup is relayed as one line of sixteen letters, drops
//! in the mover's case; a fault ends the game at once, 0 to the offender and 21 to the other.

use super::{ZeroPointOne, WIN_POINTS};
use crate::game::{Action, Game, Player, NUM_PLAYERS};
use crate::referee::RefereeRules;

impl RefereeRules for ZeroPointOne {
    const TITLE: &'static str = "Zero Point One (0.1), CodeCup 2026 (8x8 leapers, drops, 16-piece setups, 102-move draw)";

    /// `self` is the position after the turn: every turn, a setup or a move, counts one move.
    fn relay(&self, actions: &[Action]) -> String {
        format!("{}\n", self.text_of_turn(self.moves().wrapping_sub(1) % 2, actions))
    }

    fn fault_ends_game() -> bool {
        true
    }

    fn forfeit_scores(&self, faulty: Player) -> [f32; NUM_PLAYERS] {
        let mut scores = [0.0; NUM_PLAYERS];
        scores[1 - faulty] = WIN_POINTS;
        scores
    }

    fn end_text(&self, actions: usize) -> String {
        let how = match self.winner() {
            Some(p) if self.pieces(1 - p, super::WAZIR) == 0 => format!("{} took the wazir", ["Red", "Blue"][p]),
            Some(p) => format!("{} could not move", ["Red", "Blue"][1 - p]),
            None => "drawn".to_string(),
        };
        format!("{how} after {} moves ({actions} actions), scores {:?}", self.moves(), self.scores())
    }

    fn transcripts() -> &'static [&'static str] {
        &[include_str!("transcript-seat0.txt"), include_str!("transcript-seat1.txt")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::Misplay;

    #[test]
    fn setups_are_read_whole_and_relayed_in_the_movers_case() {
        let start = ZeroPointOne::new();
        let red = start.parse_answer("WNFFDDDDAAAAAAAA").unwrap();
        assert_eq!(red.actions.len(), 16);
        assert!(matches!(start.parse_answer("WNFFDDDDAAAAAAA"), Err(Misplay::Garbled(_))));
        assert!(matches!(start.parse_answer("WNFFDDDDAAAAAAAN"), Err(Misplay::Illegal(_))));
        let mut after = start.clone();
        red.actions.iter().for_each(|&a| after.apply(a));
        assert_eq!(after.relay(&red.actions), "WNFFDDDDAAAAAAAA\n");
        let blue = after.parse_answer("wnffddddaaaaaaaa").unwrap();
        blue.actions.iter().for_each(|&a| after.apply(a));
        assert_eq!(after.relay(&blue.actions), "wnffddddaaaaaaaa\n");
        let mv = after.parse_answer("b1d3").unwrap();
        mv.actions.iter().for_each(|&a| after.apply(a));
        assert_eq!(after.relay(&mv.actions), "b1d3\n");
        assert_eq!(after.forfeit_scores(1), [21.0, 0.0]);
    }
}
