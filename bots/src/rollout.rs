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
    /// The net's value from which on (in absolute value) it stands alone, no playout.
    sure: f32,
}

impl MixedEvaluator {
    pub fn new(net: NetEvaluator, seed: u64, rollout_weight: f32) -> Self {
        MixedEvaluator { net, rng: Rng::new(seed), rollout_weight, sure: f32::INFINITY }
    }

    /// Plays out only the leaves where the net is unsure: where its value lies within
    /// `(-sure, sure)` for both seats; elsewhere the net's value stands alone.
    pub fn unsure_below(self, sure: f32) -> Self {
        MixedEvaluator { sure, ..self }
    }
}

impl<G: Encode + Playout> Evaluator<G> for MixedEvaluator {
    fn evaluate(&mut self, state: &G, legal: &[Action], priors: &mut [f32]) -> Values {
        let net = self.net.evaluate(state, legal, priors);
        if self.rollout_weight == 0.0 || net.iter().any(|v| v.abs() >= self.sure) {
            return net;
        }
        let playout = state.playout_utilities(&mut self.rng);
        let w = self.rollout_weight;
        [0, 1].map(|p| (1.0 - w) * net[p] + w * playout[p])
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::{Dense, Mlp};
    use crate::uttt::Uttt;
    use std::sync::Arc;

    /// A net whose value is `v` for seat 0 everywhere (and `-v` for seat 1), uniform priors.
    fn constant_net(v: f32) -> NetEvaluator {
        let mut value = Dense::zeros(4, 2);
        value.bias = vec![v.atanh(), (-v).atanh()];
        let net = Mlp { game: "uttt".into(), hidden: vec![Dense::zeros(Uttt::NUM_FEATURES, 4)], policy: Dense::zeros(4, Uttt::NUM_ACTIONS), value };
        NetEvaluator::new(Arc::new(net))
    }

    fn value(evaluator: &mut MixedEvaluator) -> f32 {
        let state = Uttt::new();
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        evaluator.evaluate(&state, &legal, &mut vec![0.0; legal.len()])[0]
    }

    #[test]
    fn the_playout_is_mixed_in_where_the_net_is_unsure() {
        let net_alone = value(&mut MixedEvaluator::new(constant_net(0.9), 1, 0.0));
        assert!((net_alone - 0.9).abs() < 0.02, "{net_alone}");
        // Half the net's value and half a playout's result (a win, a draw or a loss: 1, 0, -1).
        let mixed: Vec<f32> = (0..20).map(|seed| value(&mut MixedEvaluator::new(constant_net(0.9), seed, 0.5))).collect();
        assert!(mixed.iter().all(|v| [1.0, 0.0, -1.0].iter().any(|p| (v - (0.5 * net_alone + 0.5 * p)).abs() < 1e-5)), "{mixed:?}");
        assert!(mixed.iter().any(|v| (v - net_alone).abs() > 0.4), "{mixed:?}");
        // A net at 0.9 is sure past 0.8: it stands alone there, and not past 0.95.
        assert_eq!(value(&mut MixedEvaluator::new(constant_net(0.9), 3, 0.5).unsure_below(0.8)), net_alone);
        assert_ne!(value(&mut MixedEvaluator::new(constant_net(0.9), 3, 0.5).unsure_below(0.95)), net_alone);
    }
}
