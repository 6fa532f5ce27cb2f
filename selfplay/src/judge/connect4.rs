//! CodinGame's Connect 4 referee: the exact per-turn input, 1000 ms on a player's first turn
//! and 100 ms after, and a loss for a timeout, a crash, or an unreadable or illegal answer.

use super::process::{Fault, FaultKind, PlayerProcess};
use super::{scaled, Referee, RefereeResult};
use bots::connect4::{Connect4, STEAL};
use bots::game::{Action, ActionList, Game};
use std::fmt::Write;

pub use bots::connect4::protocol::{FIRST_TURN_MS, TURN_MS};

pub struct Connect4Referee;

fn protocol_int(action: Action) -> i32 {
    if action == STEAL { -2 } else { action as i32 }
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
    let mut list = ActionList::new();
    state.legal_actions(&mut list);
    writeln!(text, "{}", list.len()).unwrap();
    for &a in list.iter() {
        writeln!(text, "{}", protocol_int(a)).unwrap();
    }
    writeln!(text, "{}", previous.map_or(-1, protocol_int)).unwrap();
    text
}

/// Reads a player's answer as the referee does: the action is everything before the first
/// space (a message may follow it), either an integer or STEAL in any case.
pub fn parse_answer(state: &Connect4, line: &str) -> Result<Action, Fault> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let token = line.split(' ').next().unwrap_or("");
    let garbled = |why: &str| Fault { kind: FaultKind::Garbled, detail: format!("{why}: {line:?}") };
    let action = if token.eq_ignore_ascii_case("STEAL") {
        STEAL
    } else {
        match token.parse::<i64>() {
            Ok(-2) => STEAL,
            Ok(col) if (0..9).contains(&col) => col as Action,
            Ok(other) => return Err(Fault { kind: FaultKind::Illegal, detail: format!("column {other} is out of range") }),
            Err(_) if token.is_empty() => return Err(garbled("no action at the start of the line")),
            Err(_) => return Err(garbled("not an action")),
        }
    };
    if !state.is_legal(action) {
        return Err(Fault {
            kind: FaultKind::Illegal,
            detail: format!("{} is not legal at turn {}", Connect4::format_action(action), state.turn()),
        });
    }
    Ok(action)
}

impl Referee for Connect4Referee {
    fn suspends_programs(&self) -> bool {
        false
    }

    fn play(&self, players: &mut [PlayerProcess; 2], _seed: u64, time_scale: f64) -> RefereeResult {
        let mut state = Connect4::new();
        let mut actions = Vec::new();
        let mut has_played = [false; 2];
        let mut previous = None;
        while !state.is_terminal() {
            let seat = state.to_move();
            let first = !has_played[seat];
            players[seat].send(&turn_input(&state, first, previous));
            let limit = scaled(if first { FIRST_TURN_MS } else { TURN_MS }, time_scale);
            let answer = players[seat].receive(limit).and_then(|line| parse_answer(&state, &line));
            let action = match answer {
                Ok(a) => a,
                Err(fault) => {
                    let mut scores = [0.0; 2];
                    scores[1 - seat] = 10.0;
                    return RefereeResult { actions, scores, end: format!("seat {seat} {:?}", fault.kind).to_lowercase(), fault: Some((seat, fault)) };
                }
            };
            has_played[seat] = true;
            actions.push(Connect4::format_action(action));
            state.apply(action);
            previous = Some(action);
        }
        let end = match state.winner() {
            Some(seat) => format!("seat {seat} connects four"),
            None => "draw: board full".to_string(),
        };
        RefereeResult { actions, scores: state.scores(), end, fault: None }
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
        let mut s = Connect4::new();
        assert_eq!(parse_answer(&s, "3"), Ok(3));
        assert_eq!(parse_answer(&s, "3 going centre"), Ok(3));
        assert_eq!(parse_answer(&s, "STEAL").unwrap_err().kind, FaultKind::Illegal);
        assert_eq!(parse_answer(&s, " 3").unwrap_err().kind, FaultKind::Garbled);
        assert_eq!(parse_answer(&s, "three").unwrap_err().kind, FaultKind::Garbled);
        assert_eq!(parse_answer(&s, "9").unwrap_err().kind, FaultKind::Illegal);
        s.apply(0);
        assert_eq!(parse_answer(&s, "steal"), Ok(STEAL));
        assert_eq!(parse_answer(&s, "-2"), Ok(STEAL));
        for _ in 0..6 {
            s.apply(0);
        }
        assert_eq!(parse_answer(&s, "0").unwrap_err().kind, FaultKind::Illegal, "full column");
    }
}
