//! CodeCup Zuniq protocol, player side: White reads `Start`, Black reads White's first move;
//! moves are 3 characters (`D5h`), possibly followed by `!` (a win claim, accepted and ignored
//! on input); `Quit` ends the game (the winning move is likely not relayed to the loser).
//! 30 seconds of thinking per player per game.

use super::exact::ZuniqSolver;
use super::light::Position;
use super::Zuniq;
use crate::agent::{Agent, SearchAgent};
use crate::bot::{Contest, Platform};
use crate::codecup::{codecup_start_or_reply, Claims, Codecup};
use crate::mcts::MctsConfig;
use crate::net_eval::NetEvaluator;
use crate::nn::Mlp;
use crate::protocol::{LineReader, ProtocolError};
use crate::game::{Game, NUM_PLAYERS};
use crate::rng::Rng;
use crate::rollout::{MixedEvaluator, Playout};
use crate::solver::{EndgameAgent, EndgamePace};
use crate::time::{Clock, TimeManager};
use std::io::{BufRead, Write};
use std::sync::Arc;

pub const GAME_SECONDS: u64 = 30;
/// The protocol's clock plan, which the UCT baseline (and any agent without a plan of its own)
/// goes by: a 40-action game (judged games average 39.6 actions; at most 60 segments can be
/// drawn), with 3 own moves in reserve for longer ones. The bot plans its own game: [`PACE`].
pub const PLAY: Codecup = Codecup { claims: Claims::WhenProven, planned_length: 40, reserve_moves: 3 };
/// The endgame solver joins in from this many legal segments (from judged games, with a fresh
/// table, it proves positions with 19-23 legal segments in under 0.06 s, 24-26 in 0.05-0.9 s,
/// about half of those with 27-32 within 3 s: docs/lab/zuniq.md, Where judged games were
/// lost, and what changed; an unfinished solve still rules out the moves it proved lost). 34
/// with Zuniq's own exact search, which proves the same positions in about a third of the
/// time (from 32 before it: see [`PACE`]) ...
pub const SOLVER_LEGAL_MOVES: usize = 34;
/// ... with this share of the move's time, after the search has ranked the moves.
pub const SOLVER_TIME_SHARE: f64 = 0.8;
/// Solver nodes per move when the move has a playout budget instead of a deadline (arena).
pub const SOLVER_NODES: u64 = 200_000;
/// The bot's pace: moves with at most 32 legal segments, where won positions become provable
/// (judged losses showed won positions at 23-30 legal segments that an even share of the clock
/// was too short to prove), get three even shares of the clock; earlier moves half a share.
/// From 32 with the solver from 34 (both from 2 earlier, for the faster own search): against
/// the 2021 winner on the full clock +2.38 points a game over 200 paired seeds (-2.73..+7.48),
/// at a tenth of the clock against `classic` +2.90 over 400 (-0.37..+6.16) (docs/lab/zuniq.md,
/// A pace for the faster solver).
/// From 36 legal segments the same weights won 76% of 200 judged games at 3 s, from 30 84.5%;
/// five shares from 30, 83% (docs/lab/zuniq.md, Where judged games were lost, and what
/// changed). The clock is split over a 32-action game with 2
/// own moves in reserve, not the protocol's 40 + 3: the bot proves its wins around action 30
/// and answers at once after that, so the longer plan left 40% of its clock unused (1.59 s of
/// 2.7 s at 3 s per game; 80% of 200 judged games won, 87% with this plan, docs/lab/zuniq.md,
/// The bot's own clock plan, a faster engine, the solver in self-play).
pub const PACE: EndgamePace = EndgamePace { decisive_legal: 32, opening: 0.5, decisive: 3.0, planned_game: Some((32, 2)) };
/// Whether the bot's endgames go to Zuniq's own exact search (`zuniq::exact`: the light
/// position, a key that folds positions together) instead of the generic solver. It proves
/// more positions in the same time (25 of 34 judged positions within 3 s, the generic solver
/// 19). On: at a tenth of the clock against `classic`, +3.47 points a game over 400 paired
/// seeds (+0.17..+6.77); on the full clock against the 2021 winner, +0.54 over 300 (-3.82..+4.91)
/// (docs/lab/zuniq.md, Zuniq's own exact search: the deciding A/B).
pub const OWN_SOLVER: bool = true;
/// Weight of one random playout in the value of a searched position, the rest being the net's:
/// the net alone judges Zuniq positions no better than random playouts do (docs/lab/zuniq.md,
/// The iteration-98 net, its endgame solver, through the judge).
pub const ROLLOUT_WEIGHT: f32 = 0.5;
/// The playout is mixed in only where the net's value lies within `(-ROLLOUT_UNSURE,
/// ROLLOUT_UNSURE)`; a net surer than that stands alone. Infinite: every leaf is played out.
pub const ROLLOUT_UNSURE: f32 = f32::INFINITY;

impl Contest for Zuniq {
    const PLATFORM: Platform = Platform::CodeCup;

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
        codecup_start_or_reply(&mut LineReader::new(input), output, agent, time, log, Zuniq::new(), PLAY)
    }

    fn bot_agent(net: Arc<Mlp>, config: MctsConfig, playouts: Option<u64>) -> Box<dyn Agent<Self>> {
        let evaluator = MixedEvaluator::new(NetEvaluator::new(net), crate::rollout::playout_seed(playouts), ROLLOUT_WEIGHT).unsure_below(ROLLOUT_UNSURE);
        let search = SearchAgent::new(Zuniq::new(), config, evaluator, playouts);
        let agent = EndgameAgent::new(search, SOLVER_LEGAL_MOVES, SOLVER_TIME_SHARE, SOLVER_NODES, PACE);
        if OWN_SOLVER {
            Box::new(agent.with_solver(Box::new(ZuniqSolver::new())))
        } else {
            Box::new(agent)
        }
    }
}

/// Whether the net bot's random playouts run on the classic bot's light position (the same
/// uniform choice among the legal segments, about three times as many playouts a second).
/// Off: it showed no gain (at 150 ms a move against the classic bot, -7.0 points, 95% CI
/// -19.2..+5.2, and never judged on the clock), so the shipped bot keeps the generic
/// playouts until a judged A/B says otherwise (docs/lab/zuniq.md, Light playouts).
pub const LIGHT_PLAYOUTS: bool = false;

impl Playout for Zuniq {
    fn playout_utilities(&self, rng: &mut Rng) -> [f32; NUM_PLAYERS] {
        if LIGHT_PLAYOUTS {
            light_playout_utilities(self, rng)
        } else {
            crate::rollout::random_playout(self.clone(), rng).utilities()
        }
    }
}

/// One random playout on the light position: each player's utility at its end.
fn light_playout_utilities(state: &Zuniq, rng: &mut Rng) -> [f32; NUM_PLAYERS] {
    let (winner, _) = Position::of(state).playout_with(rng, |_| {});
    if winner == 0 {
        [1.0, -1.0]
    } else {
        [-1.0, 1.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Safety;

    fn run(input: &str) -> (Result<(), ProtocolError>, String) {
        crate::tools::run_protocol_on::<Zuniq>(input, 3)
    }

    #[test]
    fn both_colours() {
        let (result, out) = run("Start\nA2h\nQuit\n");
        result.unwrap();
        assert_eq!(out.lines().count(), 2);
        let (result, out) = run("B3h!\nQuit\n");
        result.unwrap();
        assert!(Zuniq::parse_action(out.trim()).is_ok(), "{out}");
    }

    /// A searching bot claims with `!` when its search proves the win, and not before.
    #[test]
    fn claims_only_a_proven_win() {
        use crate::agent::SearchAgent;
        use crate::codecup::codecup_alternate;
        use crate::mcts::MctsConfig;
        use crate::tools::RolloutEvaluator;
        let game = "D1h E1h B2h D2v F4h A5v C1h B1h A5h A2h A4v C4v F1h B3h E3h C6v D3v B1v F3h D4h C3h A1v E5h A3h A6v B3v F2h E2h C2v D5h D1v B6v B4h E5v E1v A2v E4v D6v";
        let mut state = Zuniq::new();
        for m in game.split(' ') {
            state.apply(Zuniq::parse_action(m).unwrap());
        }
        // 38 moves made: White to move, and F5h leaves Black without a legal move.
        let answer = |state: Zuniq| {
            let mut agent = SearchAgent::new(state.clone(), MctsConfig::uct(), RolloutEvaluator::new(1), Some(2_000));
            let mut time = TimeManager::new(Zuniq::clock(1.0), Safety::new(0.1, 10));
            let mut out = Vec::new();
            let mut reader = LineReader::new("Quit\n".as_bytes());
            codecup_alternate(&mut reader, &mut out, &mut agent, &mut time, &mut std::io::sink(), state, 0, PLAY).unwrap();
            String::from_utf8(out).unwrap()
        };
        let out = answer(state);
        assert!(out.trim_end().ends_with('!'), "a proven win is claimed: {out:?}");
        let opening = answer(Zuniq::new());
        assert!(!opening.contains('!'), "nothing is proven at the start: {opening:?}");
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(run("Hello\n").0.unwrap_err().to_string().contains("expected Start or a move"));
        assert!(run("Start\nZ9q\n").0.unwrap_err().to_string().contains("cannot read action"));
    }

    /// The light playout is the same random game as the generic one: from positions after 10,
    /// 20 and 28 random moves, White's share of wins agrees over 20,000 playouts each (4
    /// standard errors).
    #[test]
    fn light_playouts_play_the_same_random_game() {
        use crate::rollout::random_playout;
        let mut uneven = false;
        for (seed, moves) in [(1, 10), (2, 20), (3, 28)] {
            let state: Zuniq = crate::tools::after_random_actions(seed, moves);
            assert!(!state.is_terminal());
            let mut rng = Rng::new(seed);
            let n = 20_000;
            let light = (0..n).filter(|_| light_playout_utilities(&state, &mut rng)[0] > 0.0).count() as f64 / n as f64;
            let generic = (0..n).filter(|_| random_playout(state.clone(), &mut rng).utilities()[0] > 0.0).count() as f64 / n as f64;
            let tolerance = 4.0 * (2.0 * generic * (1.0 - generic) / n as f64).sqrt() + 1e-9;
            assert!((light - generic).abs() <= tolerance, "after {moves} moves: White wins {light} light, {generic} generic");
            uneven |= (generic - 0.5).abs() > 0.1;
        }
        assert!(uneven, "one position at least favours a player, so a swapped winner would show");
    }
}
