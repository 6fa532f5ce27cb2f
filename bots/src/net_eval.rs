//! Search guided by the policy/value net: the [`Evaluator`] used by self-play and by exported
//! bots alike, so both run exactly the same inference.

use crate::encode::Encode;
use crate::game::{Action, Player, NUM_PLAYERS};
use crate::mcts::{Evaluator, Values};
use crate::nn::{Mlp, Scratch, VALUE_OUTPUTS};
use std::sync::Arc;

/// Softmax of `logits` restricted to `legal`, written into `priors` (one per legal action).
pub fn legal_softmax(logits: &[f32], legal: &[Action], priors: &mut [f32]) {
    let max = legal.iter().map(|&a| logits[a as usize]).fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for (p, &a) in priors.iter_mut().zip(legal) {
        *p = (logits[a as usize] - max).exp();
        sum += *p;
    }
    for p in priors.iter_mut() {
        *p /= sum;
    }
}

/// The net's `[mover, other]` values as values by seat.
pub fn seat_values(mover: Player, relative: [f32; VALUE_OUTPUTS]) -> Values {
    let mut v = [0.0; NUM_PLAYERS];
    v[mover] = relative[0];
    v[1 - mover] = relative[1];
    v
}

pub struct NetEvaluator {
    net: Arc<Mlp>,
    features: Vec<f32>,
    logits: Vec<f32>,
    /// Sum of the logits over the symmetric views, in the position's own action indices.
    summed: Vec<f32>,
    scratch: Scratch,
    symmetries: usize,
}

impl NetEvaluator {
    pub fn new(net: Arc<Mlp>) -> Self {
        Self::averaged(net, 1)
    }

    /// Evaluates every position under the first `symmetries` transforms of the game and
    /// averages value and logits. The net then judges a position and its mirror image alike:
    /// a bot that plays one line well no longer loses its mirror image (Connect 4's classic
    /// bot opens in column 0 or 8 depending on its speed). Costs one forward pass per view.
    pub fn averaged(net: Arc<Mlp>, symmetries: usize) -> Self {
        let (f, a) = (net.num_features(), net.num_actions());
        NetEvaluator { net, features: vec![0.0; f], logits: vec![0.0; a], summed: vec![0.0; a], scratch: Scratch::default(), symmetries: symmetries.max(1) }
    }
}

impl<G: Encode> Evaluator<G> for NetEvaluator {
    fn evaluate(&mut self, state: &G, legal: &[Action], priors: &mut [f32]) -> Values {
        let views = self.symmetries.min(G::NUM_SYMMETRIES);
        if views <= 1 {
            self.features.fill(0.0);
            state.encode(&mut self.features);
            let v = self.net.forward(&self.features, &mut self.scratch, &mut self.logits);
            legal_softmax(&self.logits, legal, priors);
            return seat_values(state.to_move(), v);
        }
        self.summed.fill(0.0);
        let mut value = [0.0; VALUE_OUTPUTS];
        for sym in 0..views {
            let view = (sym > 0).then(|| state.symmetric(sym));
            self.features.fill(0.0);
            view.as_ref().unwrap_or(state).encode(&mut self.features);
            let v = self.net.forward(&self.features, &mut self.scratch, &mut self.logits);
            for (a, sum) in self.summed.iter_mut().enumerate() {
                *sum += self.logits[G::map_action(sym, a as Action) as usize];
            }
            for (total, x) in value.iter_mut().zip(v) {
                *total += x;
            }
        }
        let scale = 1.0 / views as f32;
        self.summed.iter_mut().for_each(|x| *x *= scale);
        legal_softmax(&self.summed, legal, priors);
        seat_values(state.to_move(), value.map(|x| x * scale))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_only_over_legal_actions() {
        let logits = [0.0, 100.0, 0.0, 0.0];
        let mut priors = [0.0; 2];
        legal_softmax(&logits, &[0, 2], &mut priors);
        assert_eq!(priors, [0.5, 0.5]);
    }

    /// A random net on Connect 4's features: it has no reason to judge mirror images alike.
    fn random_connect4_net() -> Arc<Mlp> {
        use crate::encode::Encode;
        use crate::game::Game;
        use crate::nn::Dense;
        use crate::rng::Rng;
        let mut rng = Rng::new(5);
        let mut dense = |i, o| {
            let mut l = Dense::zeros(i, o);
            for v in l.weights.iter_mut().chain(l.bias.iter_mut()) {
                *v = rng.unit_f32() - 0.5;
            }
            l
        };
        let features = crate::connect4::Connect4::NUM_FEATURES;
        let actions = crate::connect4::Connect4::NUM_ACTIONS;
        Arc::new(Mlp { game: "connect4".into(), hidden: vec![dense(features, 16)], policy: dense(16, actions), value: dense(16, 2) })
    }

    #[test]
    fn averaged_views_judge_a_position_and_its_mirror_alike() {
        use crate::connect4::Connect4;
        use crate::game::{ActionList, Game};
        let mut state = Connect4::new();
        for a in [1, 1, 2, 6, 0] {
            state.apply(a);
        }
        let mirror = state.symmetric(1);
        let (mut legal, mut mirror_legal) = (ActionList::new(), ActionList::new());
        state.legal_actions(&mut legal);
        mirror.legal_actions(&mut mirror_legal);
        let evaluate = |e: &mut NetEvaluator, s: &Connect4, legal: &[Action]| {
            let mut priors = vec![0.0; legal.len()];
            let v = e.evaluate(s, legal, &mut priors);
            (v, priors)
        };
        let mut plain = NetEvaluator::new(random_connect4_net());
        let (v, _) = evaluate(&mut plain, &state, &legal);
        let (mv, _) = evaluate(&mut plain, &mirror, &mirror_legal);
        assert!((v[0] - mv[0]).abs() > 1e-4, "the plain net tells the mirror images apart");

        let mut averaged = NetEvaluator::averaged(random_connect4_net(), 2);
        let (v, priors) = evaluate(&mut averaged, &state, &legal);
        let (mv, mirror_priors) = evaluate(&mut averaged, &mirror, &mirror_legal);
        assert!((v[0] - mv[0]).abs() < 1e-5 && (v[1] - mv[1]).abs() < 1e-5, "{v:?} vs {mv:?}");
        for (i, &a) in legal.iter().enumerate() {
            let j = mirror_legal.iter().position(|&m| m == Connect4::map_action(1, a)).unwrap();
            assert!((priors[i] - mirror_priors[j]).abs() < 1e-5, "action {a}");
        }
        assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn values_follow_the_mover() {
        assert_eq!(seat_values(0, [0.5, -0.5]), [0.5, -0.5]);
        assert_eq!(seat_values(1, [0.5, -0.5]), [-0.5, 0.5]);
    }
}
