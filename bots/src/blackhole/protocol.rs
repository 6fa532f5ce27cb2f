//! CodeCup Black Hole protocol, player side: five lines with the brown fields, then `Start` if
//! we are Red, else Red's first move; moves `A3=6`; `Quit` ends the game (Blue's last move may
//! or may not be relayed to Red first). 5 seconds of thinking per player per game.

use super::{parse_field, BlackHole, BROWN_STONES, TURNS};
use crate::agent::Agent;
use crate::bot::{Contest, Platform};
use crate::codecup::{codecup_start_or_reply, Codecup};
use crate::protocol::{LineReader, ProtocolError};
use crate::time::{Clock, TimeManager};
use std::io::{BufRead, Write};

pub const GAME_SECONDS: u64 = 5;

impl Contest for BlackHole {
    const PLATFORM: Platform = Platform::CodeCup;
    // 0.5 instead of 1.5: 4 losses instead of 10 in 200 judged games, the same margin (BENCHMARKS.md).
    const PUCT_C: f32 = 0.5;

    fn clock(time_scale: f64) -> Clock {
        Clock::per_game(GAME_SECONDS, time_scale)
    }

    fn run_protocol<R: BufRead, W: Write>(
        input: R,
        output: W,
        agent: &mut dyn Agent<Self>,
        time: &mut TimeManager,
        log: &mut dyn Write,
    ) -> Result<(), ProtocolError> {
        let mut reader = LineReader::new(input);
        let mut brown = Vec::with_capacity(BROWN_STONES);
        for _ in 0..BROWN_STONES {
            let text = reader.expect_line("a brown field like E4")?.trim().to_string();
            let field = parse_field(&text).ok_or_else(|| reader.error(format!("expected a field A1..H1, got {text:?}")))?;
            if brown.contains(&field) {
                return Err(reader.error(format!("brown field {text} given twice")));
            }
            brown.push(field);
        }
        codecup_start_or_reply(&mut reader, output, agent, time, log, BlackHole::with_brown(&brown), Codecup::fixed_length(TURNS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    fn run(input: &str) -> (Result<(), ProtocolError>, String) {
        crate::tools::run_protocol_on::<BlackHole>(input, 2)
    }

    #[test]
    fn red_starts_and_blue_answers() {
        let (result, out) = run("A1\nA8\nH1\nD4\nE2\nStart\nB2=5\nQuit\n");
        result.unwrap();
        assert_eq!(out.lines().count(), 2);
        let (result, out) = run("A1\nA8\nH1\nD4\nE2\nB2=5\nQuit\n");
        result.unwrap();
        assert_eq!(out.lines().count(), 1);
        let blue = BlackHole::parse_action(out.trim()).unwrap();
        assert_ne!(BlackHole::field_and_value(blue).0, parse_field("B2").unwrap());
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(run("Z9\n").0.unwrap_err().to_string().contains("expected a field"));
        assert!(run("A1\nA1\n").0.unwrap_err().to_string().contains("twice"));
        assert!(run("A1\nA8\nH1\nD4\nE2\nA1=3\n").0.unwrap_err().to_string().contains("not legal"));
        assert!(run("A1\nA8\nH1\nD4\nE2\nGo\n").0.unwrap_err().to_string().contains("expected Start or a move"));
    }
}
