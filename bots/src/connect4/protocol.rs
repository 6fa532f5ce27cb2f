//! CodinGame's Connect 4 protocol, player side.
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
use crate::time::Clock;
use std::time::Duration;
use crate::game::{Action, ActionList, Game, Player};
use crate::protocol::{LineReader, ProtocolError};
use crate::time::TimeManager;
use std::io::{BufRead, Write};
use std::time::Instant;

/// One turn's input, checked for internal consistency.
#[derive(Clone, Debug)]
pub struct TurnInput {
    pub state: Connect4,
    pub valid: Vec<Action>,
    /// `None` at turn 0 (sent as -1).
    pub opp_previous: Option<Action>,
}

/// Reads `myId oppId`; returns our seat.
pub fn read_init<R: BufRead>(reader: &mut LineReader<R>) -> Result<Player, ProtocolError> {
    let line = reader.expect_line("the ids line \"myId oppId\"")?.trim().to_string();
    match line.split_whitespace().collect::<Vec<_>>().as_slice() {
        ["0", "1"] => Ok(0),
        ["1", "0"] => Ok(1),
        _ => Err(reader.error(format!("expected \"0 1\" or \"1 0\" for myId oppId, got {line:?}"))),
    }
}

fn action_from_protocol_int(value: i64) -> Option<Action> {
    match value {
        -2 => Some(STEAL),
        0..=8 => Some(value as Action),
        _ => None,
    }
}

/// Reads one turn, or `None` when the input ends cleanly before a turn starts. The returned
/// instant is when the turn's first line arrived (the opponent's clock stops there).
pub fn read_turn<R: BufRead>(reader: &mut LineReader<R>) -> Result<Option<(TurnInput, Instant)>, ProtocolError> {
    let turn_line = match reader.next_line()? {
        None => return Ok(None),
        Some(text) => text.trim().to_string(),
    };
    let start = Instant::now();
    let turn: usize = turn_line
        .parse()
        .ok()
        .filter(|&t| t <= 63)
        .ok_or_else(|| reader.error(format!("expected turnIndex 0..63, got {turn_line:?}")))?;
    let mut rows = Vec::with_capacity(super::ROWS);
    for _ in 0..super::ROWS {
        rows.push(reader.expect_line("a board row")?.trim().to_string());
    }
    let refs: Vec<&str> = rows.iter().map(|r| r.as_str()).collect();
    let state = Connect4::from_rows(&refs, turn).map_err(|e| reader.error(format!("bad board: {e}")))?;
    if state.is_terminal() {
        return Err(reader.error("the board is already decided or full"));
    }
    let count = reader.expect_int("numValidActions")?;
    if !(1..=10).contains(&count) {
        return Err(reader.error(format!("numValidActions {count} is out of range 1..10")));
    }
    let mut valid = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let value = reader.expect_int("a valid action")?;
        valid.push(action_from_protocol_int(value).ok_or_else(|| reader.error(format!("{value} is not an action")))?);
    }
    let mut ours = ActionList::new();
    state.legal_actions(&mut ours);
    let mut sorted = valid.clone();
    sorted.sort_unstable();
    if sorted != ours.as_slice() {
        let text = |list: &[Action]| list.iter().map(|&a| to_protocol(a)).collect::<Vec<_>>().join(" ");
        return Err(reader.error(format!(
            "the valid actions [{}] do not match the board, which allows [{}]",
            text(&valid),
            text(&ours)
        )));
    }
    let previous = reader.expect_int("oppPreviousAction")?;
    let opp_previous = match (turn, previous) {
        (0, -1) => None,
        (0, _) => return Err(reader.error(format!("oppPreviousAction must be -1 at turn 0, got {previous}"))),
        (_, -2) if turn == 2 && state.stolen() => Some(STEAL),
        (_, p) => Some(
            action_from_protocol_int(p)
                .filter(|&a| a != STEAL)
                .ok_or_else(|| reader.error(format!("oppPreviousAction {p} is not possible at turn {turn}")))?,
        ),
    };
    Ok(Some((TurnInput { state, valid, opp_previous }, start)))
}

/// Our answer for `action`: the column, or the word STEAL.
pub fn to_protocol(action: Action) -> String {
    Connect4::format_action(action)
}

/// CodinGame: 1000 ms for a player's first turn, 100 ms for each later one.
pub const FIRST_TURN_MS: u64 = 1000;
pub const TURN_MS: u64 = 100;

impl Contest for Connect4 {
    const PLATFORM: Platform = Platform::CodinGame;
    /// The position and its mirror image (docs/lab/connect4.md, A bot that
    /// beats alpha-beta searchers).
    const AVERAGED_VIEWS: usize = 2;

    fn clock(time_scale: f64) -> Clock {
        let scaled = |ms: u64| Duration::from_secs_f64(ms as f64 / 1000.0 * time_scale);
        Clock::PerTurn { first: scaled(FIRST_TURN_MS), rest: scaled(TURN_MS) }
    }

    fn run_protocol<R: BufRead, W: Write>(
        input: R,
        output: W,
        agent: &mut dyn Agent<Self>,
        time: &mut TimeManager,
        log: &mut dyn Write,
    ) -> Result<(), ProtocolError> {
        run(input, output, agent, time, log)
    }
}

/// Plays one game on the CodinGame protocol until the input ends. Logs go to `log` (stderr).
pub fn run<R: BufRead, W: Write, A: Agent<Connect4> + ?Sized>(
    input: R,
    mut output: W,
    agent: &mut A,
    time: &mut TimeManager,
    log: &mut dyn Write,
) -> Result<(), ProtocolError> {
    let mut reader = LineReader::new(input);
    let me = read_init(&mut reader)?;
    // The position after our last action, to follow the game through the opponent's move.
    let mut after_ours: Option<Connect4> = None;
    while let Some((turn, start)) = read_turn(&mut reader)? {
        let state = turn.state;
        if state.to_move() != me {
            return Err(reader.error(format!("turn index {} is not a turn of player {me}", state.turn())));
        }
        if let (Some(mut known), Some(previous)) = (after_ours.take(), turn.opp_previous) {
            if known.is_legal(previous) {
                known.apply(previous);
                agent.observe(previous);
            }
            if known != state {
                let _ = writeln!(log, "turn {}: unexpected board, search restarted", state.turn());
            }
        }
        let own_moves_left = ((Connect4::MAX_GAME_LENGTH - state.turn() + 1) / 2) as f64;
        let deadline = time.deadline(start, own_moves_left);
        let action = agent.choose(&state, Some(deadline));
        let took = time.finish_move(start);
        writeln!(output, "{}", to_protocol(action))
            .and_then(|_| output.flush())
            .map_err(|e| ProtocolError { line: 0, message: format!("cannot write the move: {e}") })?;
        let report = agent.last_report();
        let _ = writeln!(log, "turn {} play {} ({} ms) {report}", state.turn(), to_protocol(action), took.as_millis());
        agent.observe(action);
        let mut next = state;
        next.apply(action);
        after_ours = Some(next);
    }
    Ok(())
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
        let result = run(input.as_bytes(), &mut out, &mut RandomAgent::new(1), &mut time(), &mut log);
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
        assert!(result.unwrap_err().to_string().contains("do not match the board"));
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
