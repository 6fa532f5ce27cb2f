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
    scratch: Scratch,
}

impl NetEvaluator {
    pub fn new(net: Arc<Mlp>) -> Self {
        let (f, a) = (net.num_features(), net.num_actions());
        NetEvaluator { net, features: vec![0.0; f], logits: vec![0.0; a], scratch: Scratch::default() }
    }
}

impl<G: Encode> Evaluator<G> for NetEvaluator {
    fn evaluate(&mut self, state: &G, legal: &[Action], priors: &mut [f32]) -> Values {
        self.features.fill(0.0);
        state.encode(&mut self.features);
        let v = self.net.forward(&self.features, &mut self.scratch, &mut self.logits);
        legal_softmax(&self.logits, legal, priors);
        seat_values(state.to_move(), v)
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

    #[test]
    fn values_follow_the_mover() {
        assert_eq!(seat_values(0, [0.5, -0.5]), [0.5, -0.5]);
        assert_eq!(seat_values(1, [0.5, -0.5]), [-0.5, 0.5]);
    }
}
