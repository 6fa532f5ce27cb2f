//! CodeCup Black Hole protocol, player side: five lines with the brown fields, then `Start` if
//! we are Red, else Red's first move; moves `A3=6`; `Quit` ends the game (Blue's last move may
//! or may not be relayed to Red first). 5 seconds of thinking per player per game.

use super::endgame::EndgameSolver;
use super::playout::PlayoutMix;
use super::{parse_field, BlackHole, BROWN_STONES, TURNS};
use crate::agent::{Agent, SearchAgent};
use crate::bot::{Contest, Platform};
use crate::codecup::{codecup_start_or_reply, Codecup};
use crate::game::Game;
use crate::mcts::MctsConfig;
use crate::net_eval::NetEvaluator;
use crate::nn::Mlp;
use crate::protocol::{LineReader, ProtocolError};
use crate::rng::Rng;
use crate::solver::{EndgamePace, ExactAgent};
use crate::time::{Clock, TimeManager};
use std::io::{BufRead, Write};
use std::sync::Arc;

pub const GAME_SECONDS: u64 = 5;

/// The margin search plays every position with at most this many legal moves: Blue's last 5
/// stones (10 empty fields x 5 stones = 50 at turn 21) and Red's last 4 (36 at turn 22), which
/// it settles in tens of milliseconds (Red's turn 20, 55 moves, can take half a second).
pub const SOLVER_LEGAL_MOVES: usize = 50;
/// Of such a move's time, the margin search may take this share before the net search plays.
pub const SOLVER_TIME_SHARE: f64 = 0.5;
/// The margin search's node budget when a move has no deadline (arena games by playouts).
pub const SOLVER_NODES: u64 = 20_000_000;
/// The clock is split over the first 21 actions (Red's 11 searched moves, Blue's 10) plus one
/// move in reserve for the first solve: the solved moves need next to no time.
pub const PLAN: Option<(usize, u32)> = Some((21, 1));
/// The last searched moves, turns 16-20 (at most 105 legal moves: 15 empty fields x 7 stones),
/// where the margin is lost (docs/lab/blackhole.md, Where), weigh this many even shares of the
/// clock: more than 1 spends the reserve that the exact search leaves unused there.
pub const LATE_MIDGAME_LEGAL: usize = 105;
pub const LATE_MIDGAME_PACE: f64 = 1.0;
pub const PACE: EndgamePace = EndgamePace { decisive_legal: LATE_MIDGAME_LEGAL, opening: 1.0, decisive: LATE_MIDGAME_PACE, planned_game: PLAN };
/// Classic playouts mixed into each leaf's value ([`PlayoutMix`]; 0: the net's value alone),
/// and their weight. In-process at equal playouts a move, 16 at weight 1.0 gained +0.78 points
/// a game against the classic bot, but judged on the clock against the 2018 winner it lost
/// 0.82 points a game (62 paired games; docs/lab/blackhole.md, Search levers on the clock
/// against the 2018 winner): off.
pub const LEAF_PLAYOUTS: u32 = 0;
pub const LEAF_WEIGHT: f32 = 1.0;

impl Contest for BlackHole {
    const PLATFORM: Platform = Platform::CodeCup;
    // 0.5 instead of 1.5: 4 losses instead of 10 in 200 judged games, the same margin
    // (docs/lab/blackhole.md, The PUCT constant, 1.5 to 0.5).
    const PUCT_C: f32 = 0.5;

    /// The net search, with the exact margin search playing the last moves.
    fn bot_agent(net: Arc<Mlp>, config: MctsConfig, playouts: Option<u64>) -> Box<dyn Agent<Self>> {
        let evaluator = PlayoutMix::new(NetEvaluator::new(net), 0, LEAF_PLAYOUTS, LEAF_WEIGHT);
        let search = SearchAgent::new(BlackHole::new_game(&mut Rng::new(0)), config, evaluator, playouts);
        Box::new(ExactAgent::new(search, Box::new(EndgameSolver::new()), SOLVER_LEGAL_MOVES, SOLVER_TIME_SHARE, SOLVER_NODES, PACE))
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

    /// The agent a submission plays with, on a rollout evaluator instead of a net.
    fn exact_agent() -> ExactAgent<BlackHole, crate::tools::RolloutEvaluator> {
        let search = SearchAgent::new(BlackHole::new_game(&mut Rng::new(0)), MctsConfig::puct(), crate::tools::RolloutEvaluator::new(1), Some(50));
        ExactAgent::new(search, Box::new(EndgameSolver::new()), SOLVER_LEGAL_MOVES, SOLVER_TIME_SHARE, SOLVER_NODES, PACE)
    }

    /// The late-midgame weight covers turns 16-20 (105 legal moves at turn 16), not turn 15
    /// (128), and the agent paces by it.
    #[test]
    fn the_late_midgame_pace_starts_at_turn_16() {
        let pace = EndgamePace { decisive: 2.0, ..PACE };
        for seed in 0..4 {
            let turn15 = crate::tools::after_random_actions::<BlackHole>(seed, 15);
            let turn16 = crate::tools::after_random_actions::<BlackHole>(seed, 16);
            let turn20 = crate::tools::after_random_actions::<BlackHole>(seed, 20);
            assert_eq!((turn15.turn(), turn16.turn()), (15, 16));
            assert_eq!([pace.weight(&turn15), pace.weight(&turn16), pace.weight(&turn20)], [1.0, 2.0, 2.0]);
            assert_eq!(exact_agent().pace(&turn16), LATE_MIDGAME_PACE);
        }
    }

    /// From Blue's turn 21 (50 legal moves) on, the margin search plays, and its move keeps
    /// the exact margin; Red's turn 20 (55 legal moves) is still searched.
    #[test]
    fn the_margin_search_plays_the_last_moves() {
        for seed in 0..4 {
            let game = crate::tools::after_random_actions::<BlackHole>(seed, 21);
            let mut agent = exact_agent();
            let action = agent.choose(&game, None);
            assert!(agent.last_report().starts_with("solved exactly"), "{}", agent.last_report());
            let exact = EndgameSolver::new().solve(&game, u64::MAX, None).unwrap().margin;
            let mut after = game.clone();
            after.apply(action);
            let reply = EndgameSolver::new().solve(&after, u64::MAX, None).unwrap().margin;
            assert_eq!(-reply, exact, "seed {seed}: the move keeps the exact margin");

            let earlier = crate::tools::after_random_actions::<BlackHole>(seed, 20);
            let mut agent = exact_agent();
            agent.choose(&earlier, None);
            assert!(agent.last_report().starts_with("playouts"), "{}", agent.last_report());
        }
        // The clock plan: the 21 searched actions plus one move in reserve.
        assert_eq!(exact_agent().planned_game(), Some((21, 1)));
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(run("Z9\n").0.unwrap_err().to_string().contains("expected a field"));
        assert!(run("A1\nA1\n").0.unwrap_err().to_string().contains("twice"));
        assert!(run("A1\nA8\nH1\nD4\nE2\nA1=3\n").0.unwrap_err().to_string().contains("not legal"));
        assert!(run("A1\nA8\nH1\nD4\nE2\nGo\n").0.unwrap_err().to_string().contains("expected Start or a move"));
    }
}
