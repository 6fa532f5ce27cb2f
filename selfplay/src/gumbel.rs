//! Gumbel root search (Danihelka et al., "Policy improvement by planning with Gumbel", 2022):
//! sample the top `m` root actions by Gumbel noise + logit, share the playouts among them by
//! sequential halving, play the best survivor, and train the policy on the completed-Q
//! improved policy. It improves the policy even with a handful of playouts, which is what a
//! CPU budget allows; no Dirichlet noise or root temperature to tune.

use bots::mcts::ChildInfo;
use bots::rng::Rng;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GumbelParams {
    /// Root actions considered (m).
    pub considered: usize,
    /// σ(q) = (c_visit + max visits) * c_scale * q, with q scaled to [0, 1].
    pub c_visit: f32,
    pub c_scale: f32,
}

impl Default for GumbelParams {
    fn default() -> Self {
        GumbelParams { considered: 16, c_visit: 50.0, c_scale: 1.0 }
    }
}

/// The value of a child for the root's mover: exact when proven, mean when visited.
fn child_q(c: &ChildInfo, mover: usize) -> Option<f32> {
    match c.proven {
        Some(v) => Some(v[mover]),
        None if c.visits > 0 => Some(c.q[mover]),
        None => None,
    }
}

fn sigma(q: f32, max_visits: u32, p: &GumbelParams) -> f32 {
    (p.c_visit + max_visits as f32) * p.c_scale * (q + 1.0) * 0.5
}

fn logit(prior: f32) -> f32 {
    prior.max(1e-12).ln()
}

/// Sequential halving over the root's children for one move.
pub struct RootSchedule {
    gumbel: Vec<f32>,
    remaining: Vec<usize>,
    queue: VecDeque<usize>,
    budget: u32,
    phases: u32,
    params: GumbelParams,
}

impl RootSchedule {
    /// `children` of the freshly expanded root, `budget` playouts to spend.
    pub fn new(children: &[ChildInfo], budget: u32, params: GumbelParams, rng: &mut Rng) -> Self {
        let gumbel: Vec<f32> = children.iter().map(|_| -(-(rng.unit_f64().max(1e-300)).ln()).ln() as f32).collect();
        let m = params.considered.clamp(1, children.len());
        let mut order: Vec<usize> = (0..children.len()).collect();
        order.sort_by(|&a, &b| (gumbel[b] + logit(children[b].prior)).total_cmp(&(gumbel[a] + logit(children[a].prior))));
        order.truncate(m);
        let phases = (m as f32).log2().ceil().max(1.0) as u32;
        let mut s = RootSchedule { gumbel, remaining: order, queue: VecDeque::new(), budget, phases, params };
        s.fill_queue();
        s
    }

    fn fill_queue(&mut self) {
        let per_action = (self.budget / (self.phases * self.remaining.len() as u32)).max(1);
        for _ in 0..per_action {
            self.queue.extend(self.remaining.iter().copied());
        }
    }

    fn score(&self, k: usize, children: &[ChildInfo], mover: usize, max_visits: u32) -> f32 {
        let c = &children[k];
        self.gumbel[k] + logit(c.prior) + child_q(c, mover).map_or(0.0, |q| sigma(q, max_visits, &self.params))
    }

    /// The root child to explore next, or `None` when the move's search is over.
    pub fn next(&mut self, children: &[ChildInfo], mover: usize, used: u32) -> Option<usize> {
        if self.queue.is_empty() {
            if self.remaining.len() <= 1 || used >= self.budget {
                return None;
            }
            let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
            let mut ranked = self.remaining.clone();
            ranked.sort_by(|&a, &b| self.score(b, children, mover, max_visits).total_cmp(&self.score(a, children, mover, max_visits)));
            ranked.truncate(ranked.len().div_ceil(2));
            self.remaining = ranked;
            if self.remaining.len() == 1 {
                return None;
            }
            self.fill_queue();
        }
        self.queue.pop_front()
    }

    /// The action to play: the best remaining child by Gumbel + logit + σ(q).
    pub fn chosen(&self, children: &[ChildInfo], mover: usize) -> usize {
        let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
        *self
            .remaining
            .iter()
            .max_by(|&&a, &&b| self.score(a, children, mover, max_visits).total_cmp(&self.score(b, children, mover, max_visits)))
            .expect("at least one considered action")
    }
}

/// The completed-Q improved policy over all root children: softmax(logit + σ(completed q)),
/// where unvisited children get the mixed value estimate `v_mix` of the root.
pub fn improved_policy(children: &[ChildInfo], mover: usize, root_net_value: f32, params: &GumbelParams) -> Vec<f32> {
    let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
    let total_visits: u32 = children.iter().map(|c| c.visits).sum();
    let (mut weighted, mut prior_mass) = (0.0f32, 0.0f32);
    for c in children {
        if let Some(q) = child_q(c, mover) {
            weighted += c.prior * q;
            prior_mass += c.prior;
        }
    }
    let v_mix = if prior_mass > 0.0 {
        (root_net_value + total_visits as f32 * weighted / prior_mass) / (1.0 + total_visits as f32)
    } else {
        root_net_value
    };
    let scores: Vec<f32> = children.iter().map(|c| logit(c.prior) + sigma(child_q(c, mover).unwrap_or(v_mix), max_visits, params)).collect();
    let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = scores.iter().map(|s| (s - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn child(prior: f32, visits: u32, q: f32) -> ChildInfo {
        ChildInfo { action: 0, prior, visits, q: [q, -q], proven: None }
    }

    #[test]
    fn halving_spends_the_budget_and_keeps_the_best() {
        let mut rng = Rng::new(1);
        let mut children: Vec<ChildInfo> = (0..8).map(|_| child(0.125, 0, 0.0)).collect();
        let mut s = RootSchedule::new(&children, 32, GumbelParams { considered: 8, ..Default::default() }, &mut rng);
        let mut used = 0;
        // Child 5 is clearly best once visited; the others are poor.
        while let Some(k) = s.next(&children, 0, used) {
            let q = if k == 5 { 0.9 } else { -0.5 };
            let c = &mut children[k];
            c.q = [(c.q[0] * c.visits as f32 + q) / (c.visits + 1) as f32, 0.0];
            c.visits += 1;
            used += 1;
        }
        assert!((24..=40).contains(&used), "used {used}");
        assert_eq!(s.chosen(&children, 0), 5);
    }

    #[test]
    fn improved_policy_moves_mass_to_better_actions() {
        let children = vec![child(0.5, 10, -0.8), child(0.5, 10, 0.8)];
        let p = improved_policy(&children, 0, 0.0, &GumbelParams::default());
        assert!(p[1] > 0.99 && (p.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{p:?}");
        // Unvisited children fall back on the mixed value: with no visits the prior stands.
        let fresh = vec![child(0.7, 0, 0.0), child(0.3, 0, 0.0)];
        let p = improved_policy(&fresh, 0, 0.1, &GumbelParams::default());
        assert!((p[0] - 0.7).abs() < 1e-4, "{p:?}");
    }
}
