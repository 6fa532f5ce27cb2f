//! The replay window: positions rebuilt from game records, sampled into training batches with
//! a random symmetry each time.

use bots::training::Training;
use crate::worker::GameRecord;
use bots::game::{Action, ActionList, NUM_PLAYERS};
use bots::mcts::Evaluator;
use bots::net_eval::NetEvaluator;
use bots::nn::Mlp;
use rayon::prelude::*;
use bots::rng::Rng;
use model::Batch;
use std::collections::VecDeque;
use std::sync::Arc;

/// One training position.
#[derive(Clone, Debug)]
pub struct Sample<G> {
    pub state: G,
    pub policy: Vec<(Action, f32)>,
    /// `[mover, other]` value target.
    pub value: [f32; NUM_PLAYERS],
    /// The game's final position, shared by its samples, for the auxiliary targets.
    pub end: Arc<G>,
}

pub struct ReplayBuffer<G> {
    samples: VecDeque<Sample<G>>,
    capacity: usize,
    /// Whether batches carry the auxiliary targets (the net has that head).
    with_aux: bool,
}

/// Rebuilds a record's training samples. The value target mixes the game's result with the
/// search's root value: `(1 - q_weight) * result + q_weight * search value`.
pub fn samples_from_record<G: Training>(record: &GameRecord, q_weight: f32) -> Vec<Sample<G>> {
    let mut state = G::new_game(&mut Rng::new(record.seed));
    let mut positions = Vec::new();
    for (&action, target) in record.actions.iter().zip(&record.targets) {
        if let Some(t) = target {
            let me = state.to_move();
            let mix = |seat: usize| (1.0 - q_weight) * record.utilities[seat] + q_weight * t.root_value[seat];
            positions.push((state.clone(), t.policy.clone(), [mix(me), mix(1 - me)]));
        }
        state.apply(action);
    }
    let end = Arc::new(state);
    positions.into_iter().map(|(state, policy, value)| Sample { state, policy, value, end: Arc::clone(&end) }).collect()
}

/// Mixes a stronger net's judgement into samples' targets (distillation; Hinton, Vinyals and
/// Dean, "Distilling the knowledge in a neural network", 2015): the value target becomes
/// `(1 - weight) * target + weight * the teacher's value`, the policy target the same mix of
/// the search's visit shares and the teacher's priors over the legal actions. A value-only
/// sample (an empty policy) stays value-only. The teacher judges with the bot's inference
/// path and views (`Training::AVERAGED_VIEWS`), in parallel on the current thread pool.
pub fn distill<G: Training>(samples: &mut [Sample<G>], teacher: &Arc<Mlp>, weight: f32) {
    if weight <= 0.0 {
        return;
    }
    samples.par_iter_mut().for_each_init(
        || (NetEvaluator::averaged(Arc::clone(teacher), G::AVERAGED_VIEWS), ActionList::new(), Vec::new()),
        |(evaluator, legal, priors), sample| {
            legal.clear();
            sample.state.legal_actions(legal);
            priors.clear();
            priors.resize(legal.len(), 0.0);
            let values = evaluator.evaluate(&sample.state, legal, priors);
            let me = sample.state.to_move();
            let taught = [values[me], values[1 - me]];
            sample.value = [0, 1].map(|k| (1.0 - weight) * sample.value[k] + weight * taught[k]);
            if !sample.policy.is_empty() {
                let visits = |a: Action| sample.policy.iter().find(|(b, _)| *b == a).map_or(0.0, |(_, p)| *p);
                sample.policy = legal.iter().zip(priors.iter()).map(|(&a, &p)| (a, (1.0 - weight) * visits(a) + weight * p)).filter(|&(_, p)| p > 0.0).collect();
            }
        },
    );
}

impl<G: Training> ReplayBuffer<G> {
    /// A window of `capacity` positions; `with_aux` adds the auxiliary targets to batches.
    pub fn new(capacity: usize, with_aux: bool) -> Self {
        ReplayBuffer { samples: VecDeque::new(), capacity: capacity.max(1), with_aux: with_aux && G::AUX_OUTPUTS > 0 }
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Positions the window holds at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// A new capacity (a growing window); a smaller one drops the oldest samples now.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
        self.extend(std::iter::empty());
    }

    /// Adds samples, dropping the oldest beyond the capacity.
    pub fn extend(&mut self, samples: impl IntoIterator<Item = Sample<G>>) {
        self.samples.extend(samples);
        while self.samples.len() > self.capacity {
            self.samples.pop_front();
        }
    }

    /// A batch of `rows` samples drawn uniformly, each under a random symmetry of the game.
    pub fn batch(&self, rows: usize, rng: &mut Rng) -> Batch {
        let (f, a) = (G::NUM_FEATURES, G::NUM_ACTIONS);
        let mut b = Batch {
            rows,
            features: vec![0.0; rows * f],
            policy: vec![0.0; rows * a],
            legal: vec![0.0; rows * a],
            value: Vec::with_capacity(rows * NUM_PLAYERS),
            aux: Vec::with_capacity(if self.with_aux { rows * G::AUX_OUTPUTS } else { 0 }),
        };
        let mut legal = ActionList::new();
        for r in 0..rows {
            let s = &self.samples[rng.below(self.samples.len())];
            let sym = rng.below(G::NUM_SYMMETRIES);
            let state = s.state.symmetric(sym);
            state.encode(&mut b.features[r * f..(r + 1) * f]);
            state.legal_actions(&mut legal);
            for &l in legal.iter() {
                b.legal[r * a + l as usize] = 1.0;
            }
            for &(action, p) in &s.policy {
                b.policy[r * a + G::map_action(sym, action) as usize] = p;
            }
            b.value.extend(s.value);
            if self.with_aux {
                b.aux.extend(crate::aux::aux_targets(&*s.end, sym, state.to_move()));
            }
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::SearchTarget;
    use bots::connect4::Connect4;
    use bots::game::Game;

    #[test]
    fn samples_carry_mover_relative_values_and_mirror_consistently() {
        // Player 0 wins at the 7th action; targets at plies 0 and 1.
        let target = |a: Action| Some(SearchTarget { policy: vec![(a, 1.0)], root_value: [0.5, -0.5] });
        let mut targets = vec![target(0), target(8)];
        targets.extend(std::iter::repeat_n(None, 5));
        let record = GameRecord { seed: 0, actions: vec![0, 1, 0, 1, 0, 1, 0], targets, utilities: [1.0, -1.0], scores: [10.0, 0.0], opponent: None, learner_seat: None, source: None };
        let samples = samples_from_record::<Connect4>(&record, 0.0);
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[0].value, [1.0, -1.0]);
        assert_eq!(samples[1].value, [-1.0, 1.0], "player 1 moves at ply 1 and lost");
        let blended = samples_from_record::<Connect4>(&record, 0.5);
        assert_eq!(blended[0].value, [0.75, -0.75]);

        let mut buffer = ReplayBuffer::new(10, false);
        buffer.extend(samples);
        let mut rng = Rng::new(1);
        for _ in 0..50 {
            let b = buffer.batch(1, &mut rng);
            let hot: Vec<usize> = (0..10).filter(|&k| b.policy[k] > 0.0).collect();
            assert_eq!(hot.len(), 1);
            assert_eq!(b.legal[hot[0]], 1.0, "the target action is legal after the symmetry");
            // Column 0 maps to 0 or 8, column 8 to 8 or 0: the target always sits on an edge column.
            assert!(hot[0] == 0 || hot[0] == 8);
            let stone_features: f32 = b.features[..2 * 63].iter().sum();
            assert!(stone_features <= 1.0);
        }
        assert_eq!(Connect4::NUM_SYMMETRIES, 2);
    }

    #[test]
    fn window_drops_the_oldest() {
        let mut buffer: ReplayBuffer<Connect4> = ReplayBuffer::new(3, false);
        let end = Arc::new(Connect4::new());
        let s = |v: f32| Sample { state: Connect4::new(), policy: vec![(4, 1.0)], value: [v, -v], end: Arc::clone(&end) };
        buffer.extend([s(0.1), s(0.2), s(0.3), s(0.4)]);
        assert_eq!(buffer.len(), 3);
        assert_eq!(buffer.samples[0].value[0], 0.2);
    }

    /// A random net on Connect 4's features, as a teacher with opinions of its own.
    fn random_teacher() -> Arc<Mlp> {
        use bots::encode::Encode;
        use bots::nn::Dense;
        let mut rng = Rng::new(9);
        let mut dense = |i, o| {
            let mut l = Dense::zeros(i, o);
            for v in l.weights.iter_mut().chain(l.bias.iter_mut()) {
                *v = rng.unit_f32() - 0.5;
            }
            l
        };
        let (f, a) = (Connect4::NUM_FEATURES, Connect4::NUM_ACTIONS);
        Arc::new(Mlp { game: "connect4".into(), hidden: vec![dense(f, 16)], policy: dense(16, a), value: dense(16, 2) })
    }

    #[test]
    fn distilled_targets_move_to_the_teacher_by_its_weight() {
        let teacher = random_teacher();
        let mut state = Connect4::new();
        state.apply(4);
        let end = Arc::new(state.clone());
        let sample = |policy: Vec<(Action, f32)>| Sample { state: state.clone(), policy, value: [1.0, -1.0], end: Arc::clone(&end) };
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        let mut priors = vec![0.0; legal.len()];
        let values = NetEvaluator::averaged(Arc::clone(&teacher), <Connect4 as bots::bot::Contest>::AVERAGED_VIEWS).evaluate(&state, &legal, &mut priors);
        let me = state.to_move();

        let mut samples = vec![sample(vec![(3, 1.0)]), sample(Vec::new())];
        distill(&mut samples, &teacher, 1.0);
        assert_eq!(samples[0].value, [values[me], values[1 - me]]);
        let taught: Vec<(Action, f32)> = legal.iter().copied().zip(priors.iter().copied()).collect();
        assert_eq!(samples[0].policy, taught, "weight 1: the teacher's priors over every legal action");
        assert!(samples[1].policy.is_empty(), "a value-only sample stays value-only");

        let mut halves = vec![sample(vec![(3, 1.0)])];
        distill(&mut halves, &teacher, 0.5);
        assert!((halves[0].value[0] - 0.5 * (1.0 + values[me])).abs() < 1e-6);
        let p3 = halves[0].policy.iter().find(|(a, _)| *a == 3).unwrap().1;
        let k3 = legal.iter().position(|&a| a == 3).unwrap();
        assert!((p3 - 0.5 * (1.0 + priors[k3])).abs() < 1e-6);
        assert!((halves[0].policy.iter().map(|(_, p)| p).sum::<f32>() - 1.0).abs() < 1e-5);

        let mut untouched = vec![sample(vec![(3, 1.0)])];
        distill(&mut untouched, &teacher, 0.0);
        assert_eq!((untouched[0].value, untouched[0].policy.clone()), ([1.0, -1.0], vec![(3, 1.0)]));
    }
}
