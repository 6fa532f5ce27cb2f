//! CodinGame's Ultimate Tic-Tac-Toe referee: each turn the player to move reads the opponent's
//! last action and the valid actions, shuffled; an answer is `row col`, optionally followed by
//! a message. A fault loses the game.

use super::Uttt;
use crate::codingame::CodinGame;
use crate::game::Action;
use crate::referee::{codingame_answer, codingame_valid_actions, Answer, Misplay, RefereeRules};

impl RefereeRules for Uttt {
    const TITLE: &'static str = "Ultimate tic-tac-toe, CodinGame (9 small boards, the sent-to board)";

    fn turn_input(&self, _first_turn: bool, previous: Option<Action>) -> String {
        format!("{}\n{}", previous.map_or("-1 -1".to_string(), Uttt::move_text), codingame_valid_actions(self, true, Uttt::move_text))
    }

    fn parse_answer(&self, line: &str) -> Result<Answer, Misplay> {
        codingame_answer(self, line)
    }

    fn answer(&self, action: Action) -> String {
        Uttt::move_text(action)
    }

    fn end_text(&self, _actions: usize) -> String {
        let won = [self.boards_won(0).count_ones(), self.boards_won(1).count_ones()];
        match self.line_winner() {
            Some(seat) => format!("seat {seat} wins three boards in a line"),
            None if won[0] == won[1] => format!("draw: no cell left, {}-{} boards", won[0], won[1]),
            None => format!("seat {} wins on boards: no cell left, {}-{} boards", (won[1] > won[0]) as usize, won[0], won[1]),
        }
    }

    fn transcripts() -> &'static [&'static str] {
        &[include_str!("transcript-seat0.txt"), include_str!("transcript-seat1.txt")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    #[test]
    fn the_first_turn_lists_every_cell_and_later_ones_the_sent_to_board() {
        let s = Uttt::new();
        let text = s.turn_input(true, None);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(&lines[..2], &["-1 -1", "81"]);
        assert_eq!(lines.len(), 83);
        let mut s = s;
        s.apply(40);
        let text = s.turn_input(true, Some(40));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(&lines[..2], &["4 4", "8"]);
        let mut cells: Vec<&str> = lines[2..].to_vec();
        let order = cells.clone();
        cells.sort();
        assert_eq!(cells, ["3 3", "3 4", "3 5", "4 3", "4 5", "5 3", "5 4", "5 5"]);
        assert_ne!(order, cells, "the order is shuffled");
    }

    #[test]
    fn answers_are_read_like_the_referee_reads_them() {
        let mut s = Uttt::new();
        s.apply(40);
        assert_eq!(s.parse_answer("3 3"), Ok(Answer::single(30)));
        assert_eq!(s.parse_answer("3 3 hello there"), Ok(Answer::single(30)));
        assert_eq!(s.parse_answer("3 3\r"), Ok(Answer::single(30)));
        assert!(matches!(s.parse_answer("0 0"), Err(Misplay::Illegal(_))), "not the sent-to board");
        assert!(matches!(s.parse_answer("4 4"), Err(Misplay::Illegal(_))), "taken");
        assert!(matches!(s.parse_answer("9 0"), Err(Misplay::Illegal(_))));
        for garbled in ["33", "", " 3 3", "three three", "3"] {
            assert!(matches!(s.parse_answer(garbled), Err(Misplay::Garbled(_))), "{garbled:?}");
        }
    }
}
