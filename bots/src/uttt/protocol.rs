//! CodinGame's Ultimate Tic-Tac-Toe protocol, player side. No opening lines. Every turn:
//! `opponentRow opponentCol` (`-1 -1` on the first player's first turn), `validActionCount`,
//! and that many `row col` lines in any order (CodinGame shuffles them); we answer one line,
//! `row col`. 1000 ms on our first turn, 100 ms on each later one.
//!
//! We follow the game from the moves; the valid actions must agree with it.

use super::{Uttt, CELLS};
use crate::agent::{Agent, SearchAgent};
use crate::bot::{Contest, Platform};
use crate::mcts::MctsConfig;
use crate::net_eval::NetEvaluator;
use crate::nn::Mlp;
use crate::rollout::MixedEvaluator;
use std::sync::Arc;
use crate::game::{Action, ActionList, Game, Player};
use crate::protocol::{LineReader, ProtocolError};
use crate::time::{Clock, TimeManager};
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

/// CodinGame: 1000 ms for a player's first turn, 100 ms for each later one.
pub const FIRST_TURN_MS: u64 = 1000;
pub const TURN_MS: u64 = 100;

/// `row col` as the protocol writes a cell.
pub fn to_protocol(action: Action) -> String {
    format!("{} {}", action / 9, action % 9)
}

/// Reads `row col` (each 0..8), or `-1 -1` (`None`).
fn read_cell<R: BufRead>(reader: &mut LineReader<R>, text: &str, what: &str) -> Result<Option<Action>, ProtocolError> {
    let numbers: Vec<i64> = text.split_whitespace().map(|t| t.parse::<i64>()).collect::<Result<_, _>>().map_err(|_| reader.error(format!("expected {what} (two integers), got {text:?}")))?;
    match numbers.as_slice() {
        [-1, -1] => Ok(None),
        [r, c] if (0..9).contains(r) && (0..9).contains(c) => Ok(Some((9 * r + c) as Action)),
        _ => Err(reader.error(format!("expected {what} (row and column 0..8), got {text:?}"))),
    }
}

/// The weight of a decisive playout's result in the net bot's value, beside the net's (0: the
/// net alone). Judged on the clock: BENCHMARKS.md, Ultimate tic-tac-toe.
pub const ROLLOUT_WEIGHT: f32 = 0.5;

impl Contest for Uttt {
    const PLATFORM: Platform = Platform::CodinGame;

    fn bot_agent(net: Arc<Mlp>, config: MctsConfig, playouts: Option<u64>) -> Box<dyn Agent<Self>> {
        if ROLLOUT_WEIGHT > 0.0 {
            let evaluator = MixedEvaluator::new(NetEvaluator::new(net), crate::rollout::playout_seed(playouts), ROLLOUT_WEIGHT);
            Box::new(SearchAgent::new(Uttt::new(), config, evaluator, playouts))
        } else {
            Box::new(SearchAgent::new(Uttt::new(), config, NetEvaluator::new(net), playouts))
        }
    }

    fn clock(time_scale: f64) -> Clock {
        let scaled = |ms: u64| Duration::from_secs_f64(ms as f64 / 1000.0 * time_scale);
        Clock::PerTurn { first: scaled(FIRST_TURN_MS), rest: scaled(TURN_MS) }
    }

    fn run_protocol<R: BufRead, W: Write>(input: R, output: W, agent: &mut dyn Agent<Self>, time: &mut TimeManager, log: &mut dyn Write) -> Result<(), ProtocolError> {
        run(input, output, agent, time, log)
    }
}

/// Plays one game on the CodinGame protocol until the input ends. Logs go to `log`.
pub fn run<R: BufRead, W: Write, A: Agent<Uttt> + ?Sized>(input: R, mut output: W, agent: &mut A, time: &mut TimeManager, log: &mut dyn Write) -> Result<(), ProtocolError> {
    let mut reader = LineReader::new(input);
    let mut state = Uttt::new();
    let mut me: Option<Player> = None;
    let mut legal = ActionList::new();
    loop {
        let line = match reader.next_line()? {
            None => return Ok(()),
            Some(text) => text.trim().to_string(),
        };
        let start = Instant::now();
        match read_cell(&mut reader, &line, "the opponent's last action")? {
            None if state.plies() == 0 => {}
            None => return Err(reader.error("the opponent's action is -1 -1 after the first turn")),
            Some(action) => {
                if state.is_terminal() || !state.is_legal(action) {
                    return Err(reader.error(format!("the opponent's action {line:?} is not legal here")));
                }
                agent.observe(action);
                state.apply(action);
            }
        }
        let seat = *me.get_or_insert(state.to_move());
        if state.is_terminal() || state.to_move() != seat {
            return Err(reader.error(format!("it is not our turn: the game has {} marks and we are player {seat}", state.plies())));
        }
        let count = reader.expect_int("validActionCount")?;
        if !(1..=CELLS as i64).contains(&count) {
            return Err(reader.error(format!("validActionCount {count} is out of range 1..81")));
        }
        let mut valid = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let text = reader.expect_line("a valid action")?.trim().to_string();
            match read_cell(&mut reader, &text, "a valid action")? {
                Some(action) => valid.push(action),
                None => return Err(reader.error("-1 -1 is not a valid action")),
            }
        }
        state.legal_actions(&mut legal);
        let mut ours: Vec<Action> = legal.to_vec();
        ours.sort_unstable();
        valid.sort_unstable();
        if valid != ours {
            let text = |list: &[Action]| list.iter().map(|&a| to_protocol(a)).collect::<Vec<_>>().join(", ");
            return Err(reader.error(format!("the valid actions [{}] do not match the game, which allows [{}]", text(&valid), text(&ours))));
        }
        let own_moves_left = ((CELLS - state.plies() + 1) / 2) as f64;
        let action = agent.choose(&state, Some(time.deadline(start, own_moves_left)));
        let took = time.finish_move(start);
        writeln!(output, "{}", to_protocol(action)).and_then(|_| output.flush()).map_err(|e| ProtocolError { line: 0, message: format!("cannot write the move: {e}") })?;
        let _ = writeln!(log, "mark {} play {} ({} ms) {}", state.plies(), to_protocol(action), took.as_millis(), agent.last_report());
        agent.observe(action);
        state.apply(action);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::run_protocol_on;

    fn all_cells() -> String {
        (0..81).map(|a| format!("{}\n", to_protocol(a))).collect()
    }

    #[test]
    fn the_first_player_answers_one_legal_cell() {
        let (result, out) = run_protocol_on::<Uttt>(&format!("-1 -1\n81\n{}", all_cells()), 1);
        result.unwrap();
        assert_eq!(out.lines().count(), 1);
        let action = Uttt::parse_action(out.trim()).unwrap();
        assert!(action < 81);
    }

    #[test]
    fn the_second_player_follows_the_sent_to_board_in_any_order() {
        // X played the centre: O must answer in the centre board, listed shuffled.
        let input = "4 4\n9\n5 5\n3 3\n3 4\n3 5\n4 3\n5 3\n4 5\n5 4\n4 4\n";
        let (result, out) = run_protocol_on::<Uttt>(input, 2);
        assert!(result.unwrap_err().to_string().contains("do not match"), "4 4 is taken, so the list is wrong");
        assert!(out.is_empty());
        let input = "4 4\n8\n5 5\n3 3\n3 4\n3 5\n4 3\n5 3\n4 5\n5 4\n";
        let (result, out) = run_protocol_on::<Uttt>(input, 2);
        result.unwrap();
        let action = Uttt::parse_action(out.trim()).unwrap() as usize;
        assert!((3..6).contains(&(action / 9)) && (3..6).contains(&(action % 9)), "{out}");
    }

    #[test]
    fn garbage_gets_one_error_with_its_line() {
        for (input, says) in [("hello\n", "the opponent's last action"), ("-1 -1\n0\n", "out of range"), ("9 9\n", "row and column"), ("-1 -1\n81\n0 0\n", "input ended")] {
            let (result, out) = run_protocol_on::<Uttt>(input, 1);
            let err = result.unwrap_err().to_string();
            assert!(err.contains(says) && !err.contains('\n'), "{input:?}: {err}");
            assert!(out.is_empty());
        }
        // A move that is not legal: 4 4 twice.
        let (result, _) = run_protocol_on::<Uttt>(&format!("-1 -1\n81\n{}4 4\n", all_cells()), 1);
        let err = result.unwrap_err().to_string();
        assert!(err.contains("not legal") || err.contains("not our turn") || err.contains("validActionCount"), "{err}");
    }
}
