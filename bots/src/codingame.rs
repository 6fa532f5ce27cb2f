//! The CodinGame turn protocol, player side, shared by its games. Every turn the player to move
//! reads the turn's lines (what the opponent did or the whole position, and the valid actions)
//! and answers with exactly one line, its move in the game's notation, within the turn's limit:
//! 1000 ms on its first turn, 100 ms on each later one. A game declares its notation and how a
//! turn's lines read ([`CodinGame`]); [`run`] plays the game: it checks that the valid actions
//! are the ones the rules allow, follows the game between turns so that the search keeps its
//! tree, and answers within the clock. CodeCup bots never need this module (`codecup`).

use crate::agent::Agent;
use crate::game::{Action, ActionList, Game, Player};
use crate::protocol::{LineReader, ProtocolError};
use crate::time::{Clock, TimeManager};
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

/// CodinGame: 1000 ms for a player's first turn, 100 ms for each later one.
pub const FIRST_TURN_MS: u64 = 1000;
pub const TURN_MS: u64 = 100;

/// CodinGame's clock, every limit multiplied by `time_scale`.
pub fn clock(time_scale: f64) -> Clock {
    let scaled = |ms: u64| Duration::from_secs_f64(ms as f64 / 1000.0 * time_scale);
    Clock::PerTurn { first: scaled(FIRST_TURN_MS), rest: scaled(TURN_MS) }
}

/// One turn as its input tells it.
pub struct Turn<G> {
    /// The position we move in.
    pub state: G,
    /// The opponent's last move, where the input names one.
    pub previous: Option<Action>,
    /// When the turn's first line arrived: the turn's clock runs from there.
    pub start: Instant,
}

/// A CodinGame game's notation and turn input (see the module documentation).
pub trait CodinGame: Game {
    /// Words a move takes on a line (`4 4`: two; `STEAL`: one).
    const MOVE_WORDS: usize;
    /// The move as CodinGame writes it, in an answer and in the input.
    fn move_text(action: Action) -> String;
    /// Reads the words of one move as the input writes it; `Ok(None)` is the input's "no move"
    /// (`-1 -1` before the first move). The error says what a move looks like.
    fn read_move(words: &[&str]) -> Result<Option<Action>, String>;
    /// Reads the lines before the first turn; our seat, when they tell it. Default: none.
    fn read_intro<R: BufRead>(_reader: &mut LineReader<R>) -> Result<Option<Player>, ProtocolError> {
        Ok(None)
    }
    /// Reads one turn, or `None` when the input ends before a turn starts. `followed` is the
    /// game as we followed it (the start, or the position after our last move). Default: the
    /// turn most CodinGame games send, the opponent's last move on one line ("no move" before
    /// the first), then the valid actions ([`read_valid_actions`]); the position is `followed`
    /// with that move played. A game that sends the position itself reads it here.
    fn read_turn<R: BufRead>(reader: &mut LineReader<R>, followed: &Self) -> Result<Option<Turn<Self>>, ProtocolError> {
        let line = match reader.next_line()?.map(|l| l.trim().to_string()) { Some(v) => v, None => return Ok(None) };
        let start = Instant::now();
        let mut state = followed.clone();
        let previous = read_move_text::<Self, R>(reader, &line, "the opponent's last action")?;
        match previous {
            None if state.hash() == Self::new_game(&mut crate::rng::Rng::new(0)).hash() => {}
            None => return Err(reader.error(format!("the opponent's last action is {line} after the first turn"))),
            Some(a) if !state.is_terminal() && state.is_legal(a) => state.apply(a),
            Some(_) => return Err(reader.error(format!("the opponent's action {line:?} is not legal here"))),
        }
        if !state.is_terminal() {
            read_valid_actions(reader, &state, "validActionCount")?;
        }
        Ok(Some(Turn { state, previous, start }))
    }
}

/// Reads one move from `text`; `what` names it in the error.
pub fn read_move_text<G: CodinGame, R: BufRead>(reader: &LineReader<R>, text: &str, what: &str) -> Result<Option<Action>, ProtocolError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() != G::MOVE_WORDS {
        return Err(reader.error(format!("expected {what} ({} words), got {text:?}", G::MOVE_WORDS)));
    }
    G::read_move(&words).map_err(|why| reader.error(format!("expected {what} ({why}), got {text:?}")))
}

/// Reads the valid actions: a line with their count, then one move a line, in any order
/// (CodinGame may shuffle them). They must be exactly the actions the rules allow in `state`.
pub fn read_valid_actions<G: CodinGame, R: BufRead>(reader: &mut LineReader<R>, state: &G, what: &str) -> Result<Vec<Action>, ProtocolError> {
    let count = reader.expect_int(what)?;
    if !(1..=G::NUM_ACTIONS as i64).contains(&count) {
        return Err(reader.error(format!("{what} {count} is out of range 1..{}", G::NUM_ACTIONS)));
    }
    let mut valid = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let text = reader.expect_line("a valid action")?.trim().to_string();
        match read_move_text::<G, R>(reader, &text, "a valid action")? {
            Some(action) => valid.push(action),
            None => return Err(reader.error(format!("{text} is not a valid action"))),
        }
    }
    let mut legal = ActionList::new();
    state.legal_actions(&mut legal);
    let mut ours = legal.to_vec();
    ours.sort_unstable();
    let mut sorted = valid.clone();
    sorted.sort_unstable();
    if sorted != ours {
        let text = |list: &[Action]| list.iter().map(|&a| G::move_text(a)).collect::<Vec<_>>().join(", ");
        return Err(reader.error(format!("the valid actions [{}] do not match the game, which allows [{}]", text(&valid), text(&ours))));
    }
    Ok(valid)
}

/// Plays one game on the CodinGame protocol until the input ends. Logs go to `log`.
pub fn run<G: CodinGame, R: BufRead, W: Write>(input: R, mut output: W, agent: &mut dyn Agent<G>, time: &mut TimeManager, log: &mut dyn Write) -> Result<(), ProtocolError> {
    let mut reader = LineReader::new(input);
    let mut seat = G::read_intro(&mut reader)?;
    // The game as we follow it: the start, then the position after our last move.
    let mut followed = G::new_game(&mut crate::rng::Rng::new(0));
    while let Some(turn) = G::read_turn(&mut reader, &followed)? {
        let state = turn.state;
        let me = *seat.get_or_insert(state.to_move());
        if state.is_terminal() || state.to_move() != me {
            return Err(reader.error(format!("it is not our turn: we are player {me}")));
        }
        // The opponent's move continues the game we followed: the search keeps its tree.
        if let Some(previous) = turn.previous {
            if !followed.is_terminal() && followed.is_legal(previous) {
                followed.apply(previous);
                agent.observe(previous);
            }
            if followed.hash() != state.hash() {
                let _ = writeln!(log, "unexpected position, search restarted");
            }
        }
        // A per-turn clock: the moves left do not change the budget.
        let action = agent.choose(&state, Some(time.deadline(turn.start, 1.0)));
        let took = time.finish_move(turn.start);
        writeln!(output, "{}", G::move_text(action)).and_then(|_| output.flush()).map_err(|e| ProtocolError { line: 0, message: format!("cannot write the move: {e}") })?;
        let _ = writeln!(log, "play {} ({} ms) {}", G::move_text(action), took.as_millis(), agent.last_report());
        agent.observe(action);
        followed = state;
        followed.apply(action);
    }
    Ok(())
}
