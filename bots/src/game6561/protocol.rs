//! CodeCup 6561 protocol, player side: read `A` or `B`, then alternate (A first): placements
//! as `rk` (row, column, 11 top left), slides as `U`, `D`, `L`, `R`, until `Quit`.
//! 60 seconds of thinking per player per game.

use super::lookahead::{BeamAgent, Weights};
use super::partner::PartnerAgent;
use super::{Game6561, MAX_MOVES};
use crate::agent::Agent;
use crate::bot::{Contest, Platform};
use crate::codecup::{codecup_alternate, Codecup};
use crate::mcts::MctsConfig;
use crate::nn::Mlp;
use crate::protocol::{LineReader, ProtocolError};
use crate::time::{Clock, TimeManager};
use std::io::{BufRead, Write};
use std::sync::Arc;

pub const GAME_SECONDS: u64 = 60;
/// The width of the beam's first, narrow search (a wider one follows as the move's time
/// allows) and its depth in moves.
pub const BEAM_WIDTH: usize = 64;
pub const BEAM_HORIZON: usize = 20;

impl Contest for Game6561 {
    const PLATFORM: Platform = Platform::CodeCup;

    /// The net bot of `arena` and `expert`: the beam search with `net` judging its last
    /// step's lines (a value net trained on the beam's games, `cupzero expert 6561`).
    /// `playouts` sets a fixed beam width for in-process matches, the deadline sets it
    /// otherwise. An MCTS on a policy/value net scored a seventh of the beam (docs/lab/6561.md,
    /// The classic lookahead, and The first net (MCTS) through the judge).
    fn bot_agent(net: Arc<Mlp>, _config: MctsConfig, playouts: Option<u64>) -> Box<dyn Agent<Self>> {
        Box::new(BeamAgent::with_net(net, playouts.map_or(BEAM_WIDTH, |w| w as usize), BEAM_HORIZON))
    }

    /// The submission plans for the partner it has (`partner::PartnerAgent`): the beam with
    /// the hand-made evaluation while the partner plays the beam's replies (a copy of this bot
    /// does), the chance search with a fitted model of the partner once it does not. The value
    /// net stays out: on the contest clock the shipped net's beam scored no better than the
    /// hand-made beam, and narrow beams that it judges collapse (docs/lab/6561.md, A value net
    /// judges the beam's lines).
    fn submission_agent(_net: Arc<Mlp>) -> Box<dyn Agent<Self>> {
        Box::new(PartnerAgent::new(BeamAgent::new(Weights::TUNED, BEAM_WIDTH, BEAM_HORIZON)))
    }

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
        let seat = reader.expect_line("A or B")?.trim().to_string();
        let me = match seat.as_str() {
            "A" => 0,
            "B" => 1,
            other => return Err(reader.error(format!("expected A or B, got {other:?}"))),
        };
        codecup_alternate(&mut reader, output, agent, time, log, Game6561::new(), me, Codecup::fixed_length(MAX_MOVES))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    fn run(input: &str) -> (Result<(), ProtocolError>, String) {
        crate::tools::run_protocol_on::<Game6561>(input, 1)
    }

    #[test]
    fn player_a_moves_first_and_follows_the_rhythm() {
        // A places blue, B answers 12 (red), A places gray, B slides, A slides, then Quit.
        let (result, out) = run("A\n12\nD\nQuit\n");
        result.unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert!(Game6561::parse_action(lines[0]).unwrap() < 16, "a placement first");
        assert!(["U", "D", "L", "R"].contains(&lines[2]), "move 5 is A's slide: {out}");
    }

    #[test]
    fn player_b_reads_first() {
        let (result, out) = run("B\n11\nQuit\n");
        result.unwrap();
        assert_eq!(out.lines().count(), 1);
    }

    #[test]
    fn garbage_and_illegal_moves_are_errors() {
        assert!(run("C\n").0.unwrap_err().to_string().contains("expected A or B"));
        assert!(run("B\nX\n").0.unwrap_err().to_string().contains("cannot read action"));
        // B cannot answer a slide on move 1 (a placement is due).
        assert!(run("B\nU\n").0.unwrap_err().to_string().contains("not legal"));
    }
}
