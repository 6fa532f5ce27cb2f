//! CodeCup quantum tic-tac-toe protocol, player side. X reads `Start`, O reads X's first move.
//! A line holds a move (`AH`, or `PP` on the last square), preceded by a collapse letter when the
//! mover first had to resolve a cycle (`CAD`), or the collapse letter alone when the game ended
//! with it. A trailing `!` on a line we read means that move closed a cycle: we answer with our
//! collapse letter first. `Quit` ends the game. 5 seconds per player per game.

use super::Qttt;
use crate::agent::Agent;
use crate::bot::{Contest, Platform};
use crate::game::{Action, Game, Player};
use crate::protocol::{LineReader, ProtocolError};
use crate::time::{Clock, TimeManager};
use std::io::{BufRead, Write};
use std::time::Instant;

pub const GAME_SECONDS: u64 = 5;

/// The actions of one protocol line (collapse and/or move), checked for legality in turn.
pub fn parse_line(state: &Qttt, line: &str) -> Result<Vec<Action>, String> {
    let text = line.strip_suffix('!').unwrap_or(line);
    // Counted in bytes and cut after the first: only ASCII lines can be actions.
    let parts: Vec<&str> = match (text.len(), state.collapse_pending()) {
        _ if !text.is_ascii() => return Err(format!("{line:?} is not a QTTT action")),
        (1, true) => vec![text],
        (3, true) => vec![&text[..1], &text[1..]],
        (2, false) => vec![text],
        _ => return Err(format!("{line:?} does not fit here (a collapse is {}due)", if state.collapse_pending() { "" } else { "not " })),
    };
    let mut s = state.clone();
    let mut actions = Vec::new();
    for part in parts {
        let a = Qttt::parse_action(part).map_err(|e| e.to_string())?;
        if !s.is_legal(a) {
            return Err(format!("{part} is not legal here"));
        }
        s.apply(a);
        actions.push(a);
    }
    if state.collapse_pending() && actions.len() == 1 && !s.is_terminal() {
        return Err(format!("{line:?}: after the collapse the game goes on, a move must follow"));
    }
    Ok(actions)
}

impl Contest for Qttt {
    const PLATFORM: Platform = Platform::CodeCup;
    // The 2012 contest page: "64 Mb of internal memory available for your program".
    #[cfg(not(bundle))]
    const MEMORY_MB: Option<usize> = Some(64);
    // 0.5 instead of 1.5: 3 losses instead of 23 in 200 judged games, ratio 1.15 vs 1.14
    // (docs/lab/qttt.md, The PUCT constant, 1.5 to 0.5).
    const PUCT_C: f32 = 0.5;

    fn clock(time_scale: f64) -> Clock {
        Clock::per_game(GAME_SECONDS, time_scale)
    }

    fn run_protocol<R: BufRead, W: Write>(
        input: R,
        mut output: W,
        agent: &mut dyn Agent<Self>,
        time: &mut TimeManager,
        log: &mut dyn Write,
    ) -> Result<(), ProtocolError> {
        let mut reader = LineReader::new(input);
        let mut state = Qttt::new();
        let first = reader.expect_line("Start or X's first move")?.trim().to_string();
        let me: Player = if first == "Start" {
            0
        } else {
            for a in parse_line(&state, &first).map_err(|e| reader.error(e))? {
                agent.observe(a);
                state.apply(a);
            }
            1
        };
        loop {
            if !state.is_terminal() && state.to_move() == me {
                let start = Instant::now();
                let own_left = ((16 - state.moves().min(16)) / 2).max(1) as f64;
                let deadline = time.deadline(start, own_left);
                let mut text = String::new();
                // A pending collapse, then (if the game goes on) our move: one line, one clock.
                while !state.is_terminal() && state.to_move() == me {
                    let collapse = state.collapse_pending();
                    let until = if collapse { start + (deadline - start) / 2 } else { deadline };
                    let a = agent.choose(&state, Some(until));
                    text.push_str(&Qttt::format_action(a));
                    agent.observe(a);
                    state.apply(a);
                    if !collapse {
                        break;
                    }
                }
                let took = time.finish_move(start);
                writeln!(output, "{text}")
                    .and_then(|_| output.flush())
                    .map_err(|e| ProtocolError { line: 0, message: format!("cannot write the move: {e}") })?;
                let _ = writeln!(log, "play {text} ({} ms, {} ms used) {}", took.as_millis(), time.used().as_millis(), agent.last_report());
                continue;
            }
            let line = match reader.next_line()? {
                None => return Ok(()),
                Some(t) => t.trim().to_string(),
            };
            if line == "Quit" {
                return Ok(());
            }
            if state.is_terminal() {
                return Err(reader.error(format!("expected Quit after the end of the game, got {line:?}")));
            }
            for a in parse_line(&state, &line).map_err(|e| reader.error(e))? {
                agent.observe(a);
                state.apply(a);
            }
        }
    }
}

/// No classic bot yet: `classic` is refused for this game.
impl crate::classic::Classic for Qttt {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line with a multi-byte character where a collapse and a move are expected (found by
    /// the fuzzer: the reader cut it inside the character and panicked).
    #[test]
    fn a_non_ascii_line_is_refused_not_cut() {
        // X plays AB, O plays AB too: a cycle, the collapse is due.
        let mut state = Qttt::new();
        for text in ["AB", "AB"] {
            let actions = parse_line(&state, text).unwrap();
            actions.into_iter().for_each(|a| state.apply(a));
        }
        assert!(state.collapse_pending());
        assert!(parse_line(&state, "\u{fffd}").unwrap_err().contains("not a QTTT action"));
        assert!(parse_line(&state, "é1").is_err());
        assert!(parse_line(&Qttt::new(), "é").is_err());
    }

    fn run(input: &str) -> (Result<(), ProtocolError>, String) {
        crate::tools::run_protocol_on::<Qttt>(input, 5)
    }

    #[test]
    fn answers_a_cycle_with_a_collapse_letter_first() {
        // We are X: X1 anything; O answers with the same pair as X1, closing a cycle ("!").
        let (result, out) = run("Start\nQuit\n");
        result.unwrap();
        let x1 = out.trim().to_string();
        assert_eq!(x1.len(), 2);
        let (result, out) = run(&format!("Start\n{x1}!\nQuit\n"));
        result.unwrap();
        let reply = out.lines().nth(1).unwrap();
        assert_eq!(reply.len(), 3, "collapse letter then a move: {reply:?}");
        assert!(x1.contains(&reply[..1]), "the collapse is one of the cycle's squares");
    }

    #[test]
    fn o_reads_x_first_and_lines_are_checked() {
        let (result, out) = run("AB\nQuit\n");
        result.unwrap();
        assert_eq!(out.lines().count(), 1);
        assert!(run("ABC\n").0.is_err(), "no collapse is due on the first move");
        assert!(run("Start\nZZ\n").0.is_err());
        assert!(run("AA\n").0.unwrap_err().to_string().contains("not legal"));
    }
}
