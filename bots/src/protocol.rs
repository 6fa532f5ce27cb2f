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
