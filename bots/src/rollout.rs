//! Random playouts as a value: the UCT baseline's whole evaluation, and a correction mixed into
//! a net's value where the net is still weak (Zuniq). Bundled only into bots that use it.

use crate::encode::Encode;
use crate::game::{Action, ActionList, Game};
use crate::mcts::{Evaluator, Values};
use crate::net_eval::NetEvaluator;
use crate::rng::Rng;

/// Plays uniformly random legal actions until the game ends; returns the final state.
pub fn random_playout<G: Game>(state: G, rng: &mut Rng) -> G {
    decisive_playout(state, rng, |_| None)
}

/// The end of a playout from `state` in which each side takes the move `winning` finds, one
/// that wins the game at once, whenever it finds one, and a uniformly random legal move
/// otherwise ("decisive moves", F. Teytaud and O. Teytaud, "On the huge benefit of decisive
/// moves in Monte-Carlo Tree Search algorithms", IEEE CIG 2010).
pub fn decisive_playout<G: Game>(mut state: G, rng: &mut Rng, winning: impl Fn(&G) -> Option<Action>) -> G {
    let mut list = ActionList::new();
    while !state.is_terminal() {
        let action = match winning(&state) {
            Some(a) => a,
            None => {
                state.legal_actions(&mut list);
                list[rng.below(list.len())]
            }
        };
        state.apply(action);
    }
    state
}

/// The value of one uniformly random playout: each player's utility at its end. A game may play
/// it out faster than through [`Game::legal_actions`] (Zuniq's light position), with the same
/// uniform choice among the legal actions at every step.
pub trait Playout: Game {
    fn playout_utilities(&self, rng: &mut Rng) -> Values {
        random_playout(self.clone(), rng).utilities()
    }
}

/// The seed of a bot's random playouts: fixed for a search with a fixed budget (`playouts`),
/// so that such matches repeat; drawn from the clock for a bot on the clock, whose games then
/// differ from one another as the contest's do (the same program met twice need not replay one
/// game).
pub fn playout_seed(playouts: Option<u64>) -> u64 {
    if playouts.is_some() { 0 } else { Rng::from_entropy().next_u64() }
}

/// A net's priors with a value mixed from the net and one random playout:
/// `(1 - rollout_weight) * net + rollout_weight * playout` (weight 0: the net alone, no
/// playout). For games whose value net is still weak but whose random playouts are
/// informative and cheap (Zuniq: the last mover wins).
pub struct MixedEvaluator {
    net: NetEvaluator,
    rng: Rng,
    rollout_weight: f32,
}

impl MixedEvaluator {
    pub fn new(net: NetEvaluator, seed: u64, rollout_weight: f32) -> Self {
        MixedEvaluator { net, rng: Rng::new(seed), rollout_weight }
    }
}

impl<G: Encode + Playout> Evaluator<G> for MixedEvaluator {
    fn evaluate(&mut self, state: &G, legal: &[Action], priors: &mut [f32]) -> Values {
        let net = self.net.evaluate(state, legal, priors);
        if self.rollout_weight == 0.0 {
            return net;
        }
        let playout = state.playout_utilities(&mut self.rng);
        let w = self.rollout_weight;
        [0, 1].map(|p| (1.0 - w) * net[p] + w * playout[p])
    }
}

