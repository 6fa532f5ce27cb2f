//! CodinGame's Connect 4 protocol, player side ([`crate::codingame`]).
//!
//! Once: `myId oppId`. Every turn: `turnIndex`, 7 board rows (top first), `numValidActions`
//! and that many actions (`-2` is STEAL), then `oppPreviousAction` (`-1` at turn 0, `-2` after
//! a steal). We answer exactly one line: a column, or `STEAL`.
//!
//! The board is re-read every turn and is the truth; the actions we remember only serve to
//! keep the search tree between turns.

use super::{Connect4, STEAL};
use crate::agent::Agent;
use crate::bot::{Contest, Platform};
use crate::codingame::{read_valid_actions, CodinGame, Turn};
use crate::game::{Action, Game, Player};
use crate::mcts::MctsConfig;
use crate::nn::Mlp;
use crate::protocol::{LineReader, ProtocolError};
use crate::time::{Clock, TimeManager};
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Instant;

/// The weight of one tactical playout's result ([`super::playout`]) in the net bot's value,
/// beside the net's (0: the net alone). Judged on the clock: docs/lab/connect4.md, Tactical
/// playouts in the net's value.
pub const ROLLOUT_WEIGHT: f32 = 0.25;

impl Contest for Connect4 {
    const PLATFORM: Platform = Platform::CodinGame;
    /// The position and its mirror image (docs/lab/connect4.md, A bot that
    /// beats alpha-beta searchers).
    const AVERAGED_VIEWS: usize = 2;

    fn bot_agent(net: Arc<Mlp>, config: MctsConfig, playouts: Option<u64>) -> Box<dyn Agent<Self>> {
        super::playout::mixed_agent(net, config, ROLLOUT_WEIGHT, playouts, crate::rollout::playout_seed(playouts))
    }

    fn clock(time_scale: f64) -> Clock {
        crate::codingame::clock(time_scale)
    }

    fn run_protocol<R: BufRead, W: Write>(input: R, output: W, agent: &mut dyn Agent<Self>, time: &mut TimeManager, log: &mut dyn Write) -> Result<(), ProtocolError> {
        crate::codingame::run(input, output, agent, time, log)
    }
}

impl CodinGame for Connect4 {
    const MOVE_WORDS: usize = 1;

    /// The column, or the word STEAL (the input writes STEAL as `-2`).
    fn move_text(action: Action) -> String {
        Connect4::format_action(action)
    }

    fn read_move(words: &[&str]) -> Result<Option<Action>, String> {
        match words[0].parse::<i64>() {
            Ok(-1) => Ok(None),
            Ok(-2) => Ok(Some(STEAL)),
            Ok(col) if (0..9).contains(&col) => Ok(Some(col as Action)),
            _ if words[0].eq_ignore_ascii_case("STEAL") => Ok(Some(STEAL)),
            _ => Err("a column 0..8, or -2 or STEAL".into()),
        }
    }

    /// `myId oppId`: our seat.
    fn read_intro<R: BufRead>(reader: &mut LineReader<R>) -> Result<Option<Player>, ProtocolError> {
        let line = reader.expect_line("the ids line \"myId oppId\"")?.trim().to_string();
        match line.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["0", "1"] => Ok(Some(0)),
            ["1", "0"] => Ok(Some(1)),
            _ => Err(reader.error(format!("expected \"0 1\" or \"1 0\" for myId oppId, got {line:?}"))),
        }
    }

    fn read_turn<R: BufRead>(reader: &mut LineReader<R>, _followed: &Self) -> Result<Option<Turn<Self>>, ProtocolError> {
        let turn_line = match reader.next_line()?.map(|l| l.trim().to_string()) { Some(v) => v, None => return Ok(None) };
        let start = Instant::now();
        let turn: usize = turn_line.parse().ok().filter(|&t| t <= 63).ok_or_else(|| reader.error(format!("expected turnIndex 0..63, got {turn_line:?}")))?;
        let mut rows = Vec::with_capacity(super::ROWS);
        for _ in 0..super::ROWS {
            rows.push(reader.expect_line("a board row")?.trim().to_string());
        }
        let refs: Vec<&str> = rows.iter().map(|r| r.as_str()).collect();
        let state = Connect4::from_rows(&refs, turn).map_err(|e| reader.error(format!("bad board: {e}")))?;
        if state.is_terminal() {
            return Err(reader.error("the board is already decided or full"));
        }
        read_valid_actions(reader, &state, "numValidActions")?;
        let previous = reader.expect_int("oppPreviousAction")?;
        let previous = match (turn, previous) {
            (0, -1) => None,
            (0, _) => return Err(reader.error(format!("oppPreviousAction must be -1 at turn 0, got {previous}"))),
            (_, -2) if turn == 2 && state.stolen() => Some(STEAL),
            (_, p @ 0..=8) => Some(p as Action),
            (_, p) => return Err(reader.error(format!("oppPreviousAction {p} is not possible at turn {turn}"))),
        };
        Ok(Some(Turn { state, previous, start }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::RandomAgent;
    use crate::time::{Clock, Safety};
    use std::time::Duration;

    fn time() -> TimeManager {
        TimeManager::new(
            Clock::PerTurn { first: Duration::from_millis(1000), rest: Duration::from_millis(100) },
            Safety::new(0.1, 10),
        )
    }

    fn run_on(input: &str) -> (Result<(), ProtocolError>, String) {
        let mut out = Vec::new();
        let mut log = Vec::new();
        let result = crate::codingame::run::<Connect4, _, _>(input.as_bytes(), &mut out, &mut RandomAgent::new(1), &mut time(), &mut log);
        (result, String::from_utf8(out).unwrap())
    }

    const EMPTY: &str = ".........\n.........\n.........\n.........\n.........\n.........\n.........\n";

    #[test]
    fn answers_the_first_turn_with_one_legal_column() {
        let input = format!("0 1\n0\n{EMPTY}9\n0\n1\n2\n3\n4\n5\n6\n7\n8\n-1\n");
        let (result, out) = run_on(&input);
        result.unwrap();
        let col: u8 = out.trim().parse().unwrap();
        assert!(col < 9 && out.lines().count() == 1);
    }

    #[test]
    fn second_player_sees_steal_among_the_valid_actions() {
        let board = ".........\n.........\n.........\n.........\n.........\n.........\n....0....\n";
        let input = format!("1 0\n1\n{board}10\n0\n1\n2\n3\n4\n5\n6\n7\n8\n-2\n4\n");
        let (result, out) = run_on(&input);
        result.unwrap();
        assert!(Connect4::parse_action(out.trim()).is_ok(), "{out:?}");
    }

    #[test]
    fn rejects_valid_actions_that_contradict_the_board() {
        let input = format!("0 1\n0\n{EMPTY}2\n0\n1\n-1\n");
        let (result, _) = run_on(&input);
        assert!(result.unwrap_err().to_string().contains("do not match the game"));
    }

    #[test]
    fn rejects_garbage_with_the_line_number() {
        let (result, out) = run_on("hello\n");
        let err = result.unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.to_string().contains("myId oppId"), "{err}");
        assert!(out.is_empty());
        let (result, _) = run_on("0 1\n0\n.........\n");
        assert!(result.unwrap_err().to_string().contains("input ended"));
    }

    #[test]
    fn rejects_a_steal_reported_when_none_was_possible() {
        let board = ".........\n.........\n.........\n.........\n.........\n.........\n....0...1\n";
        let input = format!("0 1\n2\n{board}9\n0\n1\n2\n3\n4\n5\n6\n7\n8\n-2\n");
        let (result, _) = run_on(&input);
        assert!(result.unwrap_err().to_string().contains("oppPreviousAction"));
    }
}
