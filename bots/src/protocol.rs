//! Shared pieces of the contest protocol loops: a line reader that knows where it is, and the
//! one error type every loop returns (printed as one line by the caller).

use std::fmt;
use std::io::BufRead;

#[derive(Debug)]
pub struct ProtocolError {
    /// 1-based number of the input line at fault (0 when not tied to a line).
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "input line {}: {}", self.line, self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for ProtocolError {}

/// Reads input lines, remembering the line number for error messages.
pub struct LineReader<R: BufRead> {
    input: R,
    line_number: usize,
    buffer: String,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(input: R) -> Self {
        LineReader { input, line_number: 0, buffer: String::new() }
    }

    pub fn line_number(&self) -> usize {
        self.line_number
    }

    /// The next line without its line ending, or `None` at the end of input.
    pub fn next_line(&mut self) -> Result<Option<&str>, ProtocolError> {
        self.buffer.clear();
        match self.input.read_line(&mut self.buffer) {
            Ok(0) => Ok(None),
            Ok(_) => {
                self.line_number += 1;
                Ok(Some(self.buffer.trim_end_matches(['\n', '\r'])))
            }
            Err(e) => Err(ProtocolError { line: self.line_number + 1, message: format!("cannot read input: {e}") }),
        }
    }

    /// The next line; the end of input here is an error described by `what`.
    pub fn expect_line(&mut self, what: &str) -> Result<&str, ProtocolError> {
        let line = self.line_number + 1;
        match self.next_line()? {
            Some(text) => Ok(text),
            None => Err(ProtocolError { line, message: format!("input ended where {what} was expected") }),
        }
    }

    /// The next line parsed as one integer.
    pub fn expect_int(&mut self, what: &str) -> Result<i64, ProtocolError> {
        let text = self.expect_line(what)?.trim().to_string();
        text.parse().map_err(|_| self.error(format!("expected {what} (an integer), got {text:?}")))
    }

    /// An error about the line just read.
    pub fn error(&self, message: impl Into<String>) -> ProtocolError {
        ProtocolError { line: self.line_number, message: message.into() }
    }
}

/// The CodeCup pattern shared by its games: after the game's own opening lines, the players
/// alternate, one action per line, until `Quit`. We move when `state` says it is our seat's
/// turn and read the opponent's action otherwise; after the game ends we only wait for `Quit`
/// (whether the last move is relayed first varies: both are accepted). A trailing `!` on an
/// input move (a win claim in some games) is ignored.
pub fn codecup_alternate<G, R, W>(
    reader: &mut LineReader<R>,
    mut output: W,
    agent: &mut dyn crate::agent::Agent<G>,
    time: &mut crate::time::TimeManager,
    log: &mut dyn std::io::Write,
    mut state: G,
    me: crate::game::Player,
) -> Result<(), ProtocolError>
where
    G: crate::game::Game,
    R: BufRead,
    W: std::io::Write,
{
    // Actions applied since the start of the game (for time planning).
    let mut played = 0usize;
    loop {
        if !state.is_terminal() && state.to_move() == me {
            let start = std::time::Instant::now();
            // Our own moves left, assuming the game runs its full length.
            let own_left = ((G::MAX_GAME_LENGTH.saturating_sub(played) + 1) / 2).max(1) as u32;
            let action = agent.choose(&state, Some(time.deadline(start, own_left)));
            writeln!(output, "{}", G::format_action(action))
                .and_then(|_| output.flush())
                .map_err(|e| ProtocolError { line: 0, message: format!("cannot write the move: {e}") })?;
            time.finish_move(start);
            let _ = writeln!(log, "play {} ({} ms, {} ms used) {}", G::format_action(action), start.elapsed().as_millis(), time.used().as_millis(), agent.last_report());
            agent.observe(action);
            state.apply(action);
            played += 1;
            continue;
        }
        let line = match reader.next_line()? {
            None => return Ok(()),
            Some(text) => text.trim().to_string(),
        };
        if line == "Quit" {
            return Ok(());
        }
        if state.is_terminal() {
            // The judge may relay the game's last move before Quit; nothing else may come.
            return Err(reader.error(format!("expected Quit after the end of the game, got {line:?}")));
        }
        let text = line.strip_suffix('!').unwrap_or(&line);
        let action = G::parse_action(text).map_err(|e| reader.error(e.to_string()))?;
        if !state.is_legal(action) {
            return Err(reader.error(format!("the opponent's move {line:?} is not legal here")));
        }
        agent.observe(action);
        state.apply(action);
        played += 1;
    }
}
