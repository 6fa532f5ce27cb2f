//! Search guided by the policy/value net: the [`Evaluator`] used by self-play and by exported
//! bots alike, so both run exactly the same inference.

use crate::encode::Encode;
use crate::game::{Action, Player, NUM_PLAYERS};
use crate::infer::{QuantNet, Workspace};
use crate::mcts::{Evaluator, Values};
use crate::nn::{Mlp, VALUE_OUTPUTS};
use std::sync::Arc;

/// Softmax of `logits` restricted to `legal`, written into `priors` (one per legal action).
pub fn legal_softmax(logits: &[f32], legal: &[Action], priors: &mut [f32]) {
    for (p, &a) in priors.iter_mut().zip(legal) {
        *p = logits[a as usize];
    }
    softmax_in_place(priors);
}

/// Softmax of `values` in place. The exponential is a polynomial (the same numbers on every
/// CPU), eight lanes at a time where AVX is there ([`crate::cpu`]): a Black Hole position has
/// up to 465.
pub fn softmax_in_place(values: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if values.len() >= 16 && crate::cpu::level() >= crate::cpu::Cpu::Avx {
            // SAFETY: the CPU has been checked for the feature the function enables.
            return unsafe { softmax_avx(values) };
        }
    }
    softmax_portable(values)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn softmax_avx(values: &mut [f32]) {
    softmax_portable(values)
}

#[inline(always)]
fn softmax_portable(values: &mut [f32]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for p in values.iter_mut() {
        *p = exp(*p - max);
    }
    // Eight partial sums: a fixed order of additions, whatever the lanes.
    let mut partial = [0.0f32; 8];
    for chunk in values.chunks(8) {
        for (s, &p) in partial.iter_mut().zip(chunk) {
            *s += p;
        }
    }
    let scale = 1.0 / partial.iter().sum::<f32>();
    for p in values.iter_mut() {
        *p *= scale;
    }
}

/// `e^x` for `x <= 0` to about 2 ulp (0 below -87): `2^n * e^r` with `|r| <= ln 2 / 2` and a
/// degree-6 polynomial for `e^r` (Cephes' coefficients). Branch-free, so it vectorises.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2_E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let tiny = x < -87.0;
    let x = x.max(-87.0);
    let n = (x * LOG2_E).round_ties_even_fast();
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.987_569_1e-4_f32;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 5.000_000_1e-1;
    let e = p * r * r + r + 1.0;
    let scaled = f32::from_bits((e.to_bits() as i32 + ((n as i32) << 23)) as u32);
    if tiny { 0.0 } else { scaled }
}

/// Nearest integer of an f32 below 2^22 in magnitude (ties to even), by adding and taking away
/// 1.5 * 2^23: a rounding that vectorises.
trait RoundFast {
    fn round_ties_even_fast(self) -> f32;
}

impl RoundFast for f32 {
    #[inline(always)]
    fn round_ties_even_fast(self) -> f32 {
        const ROUNDER: f32 = 12_582_912.0;
        (self + ROUNDER) - ROUNDER
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
    net: Arc<QuantNet>,
    work: Workspace,
    features: Vec<f32>,
    /// The legal actions as seen in a symmetric view, and their logits there.
    mapped: Vec<Action>,
    logits: Vec<f32>,
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
        Self::quantised(Arc::new(QuantNet::new(&net)), symmetries)
    }

    /// [`NetEvaluator::averaged`] with a net already in integers (shared by many evaluators).
    pub fn quantised(net: Arc<QuantNet>, symmetries: usize) -> Self {
        let f = net.num_features();
        NetEvaluator { net, work: Workspace::default(), features: vec![0.0; f], mapped: Vec::new(), logits: Vec::new(), symmetries: symmetries.max(1) }
    }

    /// First-layer sums updated from the previous position, and computed afresh.
    pub fn accumulator_counts(&self) -> (u64, u64) {
        (self.work.incremental, self.work.refreshed)
    }
}

impl<G: Encode> Evaluator<G> for NetEvaluator {
    fn evaluate(&mut self, state: &G, legal: &[Action], priors: &mut [f32]) -> Values {
        let views = self.symmetries.min(G::NUM_SYMMETRIES);
        let mover = state.to_move();
        if views <= 1 {
            self.features.fill(0.0);
            state.encode(&mut self.features);
            let v = self.net.evaluate(&mut self.work, mover, &self.features, legal, priors);
            softmax_in_place(priors);
            return seat_values(mover, v);
        }
        priors.fill(0.0);
        self.logits.resize(legal.len(), 0.0);
        let mut value = [0.0; VALUE_OUTPUTS];
        for sym in 0..views {
            let view = (sym > 0).then(|| state.symmetric(sym));
            self.features.fill(0.0);
            view.as_ref().unwrap_or(state).encode(&mut self.features);
            self.mapped.clear();
            self.mapped.extend(legal.iter().map(|&a| G::map_action(sym, a)));
            // Each view keeps its own accumulators: a view's positions resemble each other.
            let v = self.net.evaluate(&mut self.work, sym * NUM_PLAYERS + mover, &self.features, &self.mapped, &mut self.logits);
            for (sum, l) in priors.iter_mut().zip(&self.logits) {
                *sum += l;
            }
            for (total, x) in value.iter_mut().zip(v) {
                *total += x;
            }
        }
        let scale = 1.0 / views as f32;
        priors.iter_mut().for_each(|x| *x *= scale);
        softmax_in_place(priors);
        seat_values(mover, value.map(|x| x * scale))
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
    fn the_polynomial_exponential_is_close_to_the_library_one() {
        let mut x = -90.0f32;
        while x <= 0.0 {
            let (ours, library) = (exp(x), x.exp());
            assert!((ours - library).abs() <= 3e-7 * library + 2e-38, "{x}: {ours} vs {library}");
            x += 0.0137;
        }
        assert_eq!(exp(0.0), 1.0);
        let mut p = [0.0, 100.0, 0.0, 0.0, -1e30];
        softmax_in_place(&mut p);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6 && p[1] > 0.99 && p[4] == 0.0, "{p:?}");
        // Many values: the vector path, the same numbers as the portable one.
        let mut a: Vec<f32> = (0..465).map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0).collect();
        let mut b = a.clone();
        softmax_in_place(&mut a);
        softmax_portable(&mut b);
        assert_eq!(a, b);
    }

    #[test]
    fn values_follow_the_mover() {
        assert_eq!(seat_values(0, [0.5, -0.5]), [0.5, -0.5]);
        assert_eq!(seat_values(1, [0.5, -0.5]), [-0.5, 0.5]);
    }
}
