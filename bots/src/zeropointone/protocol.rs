//! CodeCup's Zero Point One protocol, player side: Red reads `Start` and writes its setup (16
//! letters), Blue reads it and writes its own, then a move or drop a line until `Quit`, through
//! the shared CodeCup loop ([`Game::turn_text`]). 30 seconds per player per game.

use super::{evaluation::TABLE_BITS, ZeroPointOne};
use crate::agent::{Agent, SearchAgent};
use crate::alphabeta::{AlphaBetaAgent, NetValue};
use crate::bot::{Contest, Platform};
use crate::codecup::{codecup_start_or_reply, Claims, Codecup};
use crate::game::Game;
use crate::mcts::MctsConfig;
use crate::net_eval::NetEvaluator;
use crate::nn::Mlp;
use crate::phases::Phases;
use crate::protocol::{LineReader, ProtocolError};
use crate::rng::Rng;
use crate::rollout::{playout_seed, MixedEvaluator};
use crate::time::{Clock, TimeManager};
use std::io::{BufRead, Write};
use std::sync::Arc;

pub const GAME_SECONDS: u64 = 30;
/// The clock's plan: 32 setup placements and 70 moves, 4 own moves in reserve (102 moves).
pub const PLAY: Codecup = Codecup { claims: Claims::Never, planned_length: 32 + 70, reserve_moves: 4 };
/// A setup placement's share of the clock, in moves: the setup's sixteen take four moves'
/// worth (a whole share each took a quarter of the clock).
pub const SETUP_PACE: f64 = 0.25;

fn pace(state: &ZeroPointOne) -> f64 { if state.in_setup() { SETUP_PACE } else { 1.0 } }

/// Whether the moves after the setup come from alpha-beta over the net's value (`alphabeta`,
/// the 2026 winner's design) instead of the tree search, which makes the setup either way.
pub const ALPHA_BETA: bool = false;
/// Weight of the captures played out (`Playout` in evaluation.rs) in each leaf's value, the
/// rest the net's.
pub const QUIESCENCE_WEIGHT: f32 = 0.0;
/// The net's value in alpha-beta's units (a sure win 10,000).
const NET_VALUE_SCALE: f32 = 10_000.0;

impl Contest for ZeroPointOne {
    const PLATFORM: Platform = Platform::CodeCup;
    #[cfg(not(every_action_listed))]
    const KEPT_CANDIDATES: usize = 16; // of about 50: listing all, the tree filled in a second

    fn bot_agent(net: Arc<Mlp>, config: MctsConfig, playouts: Option<u64>) -> Box<dyn Agent<Self>> {
        let leaf = ALPHA_BETA.then(|| NetValue::new(&net, NET_VALUE_SCALE));
        let evaluator = MixedEvaluator::new(NetEvaluator::averaged(net, Self::AVERAGED_VIEWS), playout_seed(playouts), QUIESCENCE_WEIGHT);
        let search = SearchAgent::new(Self::new_game(&mut Rng::new(0)), config, evaluator, playouts);
        // A playout budget becomes alpha-beta's node budget, ten nodes a playout.
        let rest = leaf.map(|leaf| Box::new(AlphaBetaAgent::new(leaf, TABLE_BITS, playouts.map(|n| 10 * n))) as Box<dyn Agent<Self>>);
        Box::new(Phases { opening: Box::new(search), rest, in_opening: ZeroPointOne::in_setup, pace, opened: true })
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
        codecup_start_or_reply(&mut reader, output, agent, time, log, ZeroPointOne::new(), PLAY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str) -> (Result<(), ProtocolError>, String) {
        crate::tools::run_protocol_on::<ZeroPointOne>(input, 5)
    }

    #[test]
    fn red_sets_up_in_upper_case_and_answers_blue() {
        let (result, out) = run("Start\nwnffddddaaaaaaaa\nQuit\n");
        result.unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        let mut counts = [0; 5];
        for b in lines[0].bytes() {
            assert!(b.is_ascii_uppercase(), "{out}");
            counts[super::super::LETTERS.iter().position(|&l| l == b).unwrap()] += 1;
        }
        assert_eq!(counts, [1, 2, 4, 1, 8]);
        let state = ZeroPointOne::from_setups(lines[0], "wnffddddaaaaaaaa").unwrap();
        assert_eq!(state.parse_turn(lines[1]).map(|a| state.is_legal(a[0])), Ok(true), "{out}");
    }

    #[test]
    fn blue_reads_red_setup_and_sets_up_in_lower_case() {
        let (result, out) = run("WNFFDDDDAAAAAAAA\nb1d3\nQuit\n");
        result.unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert!(lines[0].len() == 16 && lines[0].bytes().all(|b| b.is_ascii_lowercase()), "{out}");
    }

    #[test]
    fn bad_setups_and_moves_are_one_error() {
        for (input, says) in [
            ("WNFFDDDDAAAAAAA\n", "setup of 16 letters"),
            ("WWFFDDDDAAAAAAAA\n", "not legal"),
            ("wnffddddaaaaaaaa\n", "upper case"),
            ("Start\nWNFFDDDDAAAAAAAA\n", "lower case"),
            ("WNFFDDDDAAAAAAAA\nb1d4\n", "cannot read"),
            ("Start\nwnffddddaaaaaaaa\nb1d3\n", "not legal"),
            ("Start\nwnffddddaaaaaaaa\nZq9\n", "cannot read"),
        ] {
            let err = run(input).0.unwrap_err().to_string();
            assert!(err.contains(says), "{input:?}: {err}");
        }
    }
}
