//! CodinGame's Connect 4 referee: the exact per-turn input, and answers read as the referee
//! reads them ([`codingame_answer`]: a column or STEAL, then optionally a message). A fault
//! loses: the other player scores the win's 10 points.

use super::{Connect4, STEAL};
use crate::game::{Action, Game, Player, NUM_PLAYERS};
use crate::referee::{codingame_answer, codingame_valid_actions, Answer, Misplay, RefereeRules};
use std::fmt::Write;

/// An action as the input writes it: STEAL is `-2`.
fn protocol_int(action: Action) -> String {
    if action == STEAL { "-2".into() } else { action.to_string() }
}

/// Everything the player to move reads this turn. `first` adds the `myId oppId` line.
pub fn turn_input(state: &Connect4, first: bool, previous: Option<Action>) -> String {
    let me = state.to_move();
    let mut text = String::new();
    if first {
        writeln!(text, "{me} {}", 1 - me).unwrap();
    }
    writeln!(text, "{}", state.turn()).unwrap();
    for row in state.rows() {
        writeln!(text, "{row}").unwrap();
    }
    text.push_str(&codingame_valid_actions(state, false, protocol_int));
    writeln!(text, "{}", previous.map_or("-1".into(), protocol_int)).unwrap();
    text
}

impl RefereeRules for Connect4 {
    const TITLE: &'static str = "Connect 4, CodinGame 7x9 with STEAL";
    // Every turn's input is the whole board.
    const ANY_START: bool = true;

    fn turn_input(&self, first_turn: bool, previous: Option<Action>) -> String {
        turn_input(self, first_turn, previous)
    }

    fn parse_answer(&self, line: &str) -> Result<Answer, Misplay> {
        codingame_answer(self, line)
    }

    fn forfeit_scores(&self, faulty: Player) -> [f32; NUM_PLAYERS] {
        let mut scores = [0.0; NUM_PLAYERS];
        scores[1 - faulty] = 10.0;
        scores
    }

    fn end_text(&self, _actions: usize) -> String {
        match self.winner() {
            Some(seat) => format!("seat {seat} connects four"),
            None => "draw: board full".to_string(),
        }
    }

    fn transcripts() -> &'static [&'static str] {
        &[include_str!("transcript-seat0.txt"), include_str!("transcript-seat1.txt")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_turn_input_for_each_seat() {
        let start = Connect4::new();
        let text = turn_input(&start, true, None);
        let expected = "0 1\n0\n.........\n.........\n.........\n.........\n.........\n.........\n.........\n9\n0\n1\n2\n3\n4\n5\n6\n7\n8\n-1\n";
        assert_eq!(text, expected);
        let mut s = start;
        s.apply(4);
        let text = turn_input(&s, true, Some(4));
        assert!(text.starts_with("1 0\n1\n"));
        assert!(text.ends_with("10\n0\n1\n2\n3\n4\n5\n6\n7\n8\n-2\n4\n"), "{text}");
    }

    #[test]
    fn answers_are_read_like_the_referee_reads_them() {
        let illegal = |r: Result<Action, Misplay>| matches!(r, Err(Misplay::Illegal(_)));
        let garbled = |r: Result<Action, Misplay>| matches!(r, Err(Misplay::Garbled(_)));
        let parse_answer = |s: &Connect4, line: &str| s.parse_answer(line).map(|a| a.actions[0]);
        let mut s = Connect4::new();
        assert_eq!(parse_answer(&s, "3"), Ok(3));
        assert_eq!(parse_answer(&s, "3 going centre"), Ok(3));
        assert!(illegal(parse_answer(&s, "STEAL")));
        assert!(garbled(parse_answer(&s, " 3")));
        assert!(garbled(parse_answer(&s, "three")));
        assert!(illegal(parse_answer(&s, "9")));
        s.apply(0);
        assert_eq!(parse_answer(&s, "steal"), Ok(STEAL));
        assert_eq!(parse_answer(&s, "-2"), Ok(STEAL));
        for _ in 0..6 {
            s.apply(0);
        }
        assert!(illegal(parse_answer(&s, "0")), "full column");
    }
}
