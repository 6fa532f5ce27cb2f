//! What the tools need and a submission does not: the net-free baselines (random play, UCT
//! with random rollouts), perft and random playouts for tests, move texts for the command line.
//! The exporter leaves this module out of bundled bots.

use crate::agent::Agent;
use crate::game::{Action, ActionList, Game, NUM_PLAYERS};
use crate::mcts::{Evaluator, Values};
use crate::rng::Rng;
pub use crate::rollout::random_playout;
use std::time::Instant;

/// Uniformly random legal actions.
pub struct RandomAgent {
    rng: Rng,
}

impl RandomAgent {
    pub fn new(seed: u64) -> Self {
        RandomAgent { rng: Rng::new(seed) }
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    fn choose(&mut self, state: &G, _deadline: Option<Instant>) -> Action {
        let mut list = ActionList::new();
        state.legal_actions(&mut list);
        list[self.rng.below(list.len())]
    }
}

/// Uniform priors, value 0: search driven by terminal positions alone (for tests).
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(&mut self, _: &G, _: &[Action], priors: &mut [f32]) -> Values {
        priors.fill(1.0);
        [0.0; NUM_PLAYERS]
    }
}

/// Uniform priors, value = the result of one uniformly random playout (classic UCT).
pub struct RolloutEvaluator {
    rng: Rng,
}

impl RolloutEvaluator {
    pub fn new(seed: u64) -> Self {
        RolloutEvaluator { rng: Rng::new(seed) }
    }
}

impl<G: Game> Evaluator<G> for RolloutEvaluator {
    fn evaluate(&mut self, state: &G, _: &[Action], priors: &mut [f32]) -> Values {
        priors.fill(1.0);
        random_playout(state.clone(), &mut self.rng).utilities()
    }
}

/// A new game set up from `Rng::new(seed)`, then `actions` uniformly random legal actions drawn
/// from the same generator (fewer if the game ends first): test and benchmark positions.
pub fn after_random_actions<G: Game>(seed: u64, actions: usize) -> G {
    let mut rng = Rng::new(seed);
    let mut state = G::new_game(&mut rng);
    let mut list = ActionList::new();
    for _ in 0..actions {
        if state.is_terminal() {
            break;
        }
        state.legal_actions(&mut list);
        state.apply(list[rng.below(list.len())]);
    }
    state
}

/// Number of leaf positions exactly `depth` actions from `state` (terminal positions reached
/// earlier count for nothing). The classic move-generator check, generic over games.
pub fn perft<G: Game>(state: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = ActionList::new();
    state.legal_actions(&mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    list.iter()
        .map(|&a| {
            let mut next = state.clone();
            next.apply(a);
            perft(&next, depth - 1)
        })
        .sum()
}

/// Applies a sequence of action texts from `state`, checking each for legality; returns the
/// actions applied. A text is one action in the canonical notation, or else a whole turn in
/// the protocol's (a setup of sixteen letters: [`Game::parse_turn`]).
pub fn apply_texts<G: Game>(state: &mut G, texts: &[&str]) -> Result<Vec<Action>, String> {
    let mut actions = Vec::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        let turn = match G::parse_action(text) {
            Ok(a) => vec![a],
            Err(e) => state.parse_turn(text).map_err(|_| e.to_string())?,
        };
        for a in turn {
            if state.is_terminal() {
                return Err(format!("action {} ({text}) played after the game ended", i + 1));
            }
            if !state.is_legal(a) {
                return Err(format!("action {} ({text}) is illegal here", i + 1));
            }
            state.apply(a);
            actions.push(a);
        }
    }
    Ok(actions)
}

/// Leaves exactly `depth` actions ahead, where a game that ends earlier is one leaf (the
/// counting of perft tables that stop a line at a win, as chess's stop at mate).
pub fn perft_ends_as_leaves<G: Game>(state: &G, depth: u32) -> u64 {
    if depth == 0 || state.is_terminal() {
        return 1;
    }
    let mut list = ActionList::new();
    state.legal_actions(&mut list);
    list.iter()
        .map(|&a| {
            let mut next = state.clone();
            next.apply(a);
            if depth == 1 { 1 } else { perft_ends_as_leaves(&next, depth - 1) }
        })
        .sum()
}

/// Plays one game on `G`'s protocol with a random agent over `input`, returning the result and
/// everything written (for protocol tests of every game).
pub fn run_protocol_on<G: crate::bot::Contest>(input: &str, seed: u64) -> (Result<(), crate::protocol::ProtocolError>, String) {
    let mut out = Vec::new();
    let mut time = crate::time::TimeManager::new(G::clock(1.0), crate::time::Safety::new(0.1, 10));
    let result = G::run_protocol(input.as_bytes(), &mut out, &mut RandomAgent::new(seed), &mut time, &mut std::io::sink());
    (result, String::from_utf8(out).expect("protocol output is text"))
}

/// Net inputs for quantisation calibration: every position of seeded random games, until
/// `count` are gathered. The exporter and its tests use the same set.
pub fn calibration_inputs<G: crate::encode::Encode>(count: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng::new(seed);
    let mut list = ActionList::new();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut state = G::new_game(&mut rng);
        while !state.is_terminal() && out.len() < count {
            let mut f = vec![0.0; G::NUM_FEATURES];
            state.encode(&mut f);
            out.push(f);
            state.legal_actions(&mut list);
            state.apply(list[rng.below(list.len())]);
        }
    }
    out
}

/// Size and seed of the calibration set `cupzero export` uses.
pub const CALIBRATION_POSITIONS: usize = 3000;
pub const CALIBRATION_SEED: u64 = 7;

/// `path` with `.tmp` appended: where a file is written before being renamed into place.
pub fn temp_path(path: &std::path::Path) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".tmp");
    std::path::PathBuf::from(name)
}

/// Writes a file whole or not at all: to a temporary name first, then renamed over `path`.
pub fn write_atomically(path: &std::path::Path, contents: &[u8]) -> std::io::Result<()> {
    let tmp = temp_path(path);
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, path)
}
