//! Planning with the partner one has. 6561 is cooperative, but the partner is another program:
//! it plays the moves our plan gives it only if it plans as we do. So the submission watches its
//! partner. While the partner plays the replies our beam expects, it plans with the beam (every
//! move of both players as our own choice, `lookahead`). Once the partner shows otherwise, it
//! plans with the chance search: our moves maximise, the partner's moves are chance, weighted by
//! a move model fitted to the partner's moves so far (the squares and slides it favours and how
//! greedily it merges; a uniform choice until it shows a habit), and the board is judged for a
//! stranger (`STRANGER_WEIGHTS`). Planning for the partner one has, not for oneself, is the
//! lesson of Other-Play (Hu et al. 2020) and Fictitious Co-Play (Strouse et al. 2021).

use super::lookahead::{evaluate_cells, BeamAgent, Weights};
use super::{piece, slide_cells, value_of, Game6561, Piece, Step, MAX_MOVES, RHYTHM, SLIDE_UP, SQUARES};
use crate::agent::Agent;
use crate::game::{Action, ActionList, Game, Player};
use std::time::Instant;

type Cells = [Piece; SQUARES];

/// The evaluation for planning with a stranger: only the leading colour's units are worth
/// keeping; the other colours' units count against the board (their small pieces are what a
/// partner's slide annihilates the leading colour's small pieces with), and every pair that
/// would annihilate costs the units it would take. With a random partner this scores five
/// times the cooperative weights in the same search (docs/lab/6561.md).
pub const STRANGER_WEIGHTS: Weights = Weights { second: -0.3, third: -0.3, risk: 0.3, ..Weights::TUNED };

/// A line that gets stuck before move 1000 ends the game with the score reached: far below any
/// line that goes on, unless the search sees to the end anyway.
const STUCK_PENALTY: f32 = 1.0e6;

/// The partner's move distribution, fitted to its moves during the game: a conditional logit
/// over its legal moves with a preference per square (placements), per direction (slides) and
/// for the sum a slide gains (a greedy player merges whatever it can). All zero is a uniformly
/// random partner.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveModel {
    pub square: [f32; SQUARES],
    pub direction: [f32; 4],
    /// For the sum a slide gains (`gain_feature`).
    pub sum_gain: f32,
}

/// The model's learning rate and its pull toward a uniform partner (L2, per step).
const MODEL_STEP: f32 = 0.15;
const MODEL_DECAY: f32 = 0.003;
/// Logits are bounded: no move of a stranger is ever taken as certain or impossible.
const MODEL_BOUND: f32 = 8.0;

impl Default for MoveModel {
    fn default() -> Self {
        MoveModel { square: [0.0; SQUARES], direction: [0.0; 4], sum_gain: 0.0 }
    }
}

impl MoveModel {
    /// The logit of playing `action` from a board of sum `sum` to `child`.
    fn logit(&self, action: Action, sum: f32, child: &Cells) -> f32 {
        if (action as usize) < SQUARES {
            self.square[action as usize]
        } else {
            self.direction[(action - SLIDE_UP) as usize] + self.sum_gain * gain_feature(cells_sum(child) - sum)
        }
    }

    /// Whether the model differs from a uniform partner at all.
    fn is_uniform(&self) -> bool {
        self.sum_gain == 0.0 && self.square.iter().chain(&self.direction).all(|&w| w == 0.0)
    }

    /// One gradient step of the log-likelihood of the partner playing `chosen` from `before`.
    pub fn fit(&mut self, before: &Game6561, chosen: Action) {
        let mut children = [(0, [0; SQUARES]); 16];
        let n = children_into(before.cells(), before.moves(), &mut children);
        if n < 2 || !children[..n].iter().any(|c| c.0 == chosen) {
            return;
        }
        let sum = cells_sum(before.cells());
        let mut p = [0.0f32; 16];
        softmax(&mut p[..n], children[..n].iter().map(|(a, c)| self.logit(*a, sum, c)));
        for w in self.square.iter_mut().chain(self.direction.iter_mut()) {
            *w *= 1.0 - MODEL_DECAY;
        }
        self.sum_gain *= 1.0 - MODEL_DECAY;
        for (k, (action, child)) in children[..n].iter().enumerate() {
            // d log p(chosen) / d w = feature(chosen) - expected feature.
            let g = (*action == chosen) as u8 as f32 - p[k];
            if (*action as usize) < SQUARES {
                let w = &mut self.square[*action as usize];
                *w = (*w + MODEL_STEP * g).clamp(-MODEL_BOUND, MODEL_BOUND);
            } else {
                let w = &mut self.direction[(*action - SLIDE_UP) as usize];
                *w = (*w + MODEL_STEP * g).clamp(-MODEL_BOUND, MODEL_BOUND);
                self.sum_gain = (self.sum_gain + MODEL_STEP * g * gain_feature(cells_sum(child) - sum)).clamp(-MODEL_BOUND, MODEL_BOUND);
            }
        }
    }
}

/// What a slide's change of the board sum says of a greedy partner, bounded: a merge of two 1s
/// (+1) a quarter, big merges nearly 1, an annihilation of two 1s (-2) -0.4.
fn gain_feature(delta: f32) -> f32 {
    delta / (delta.abs() + 3.0)
}

/// Normalised exponentials of `logits` into `out`.
fn softmax(out: &mut [f32], logits: impl Iterator<Item = f32>) {
    for (o, l) in out.iter_mut().zip(logits) {
        *o = l;
    }
    let top = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for o in out.iter_mut() {
        *o = (*o - top).exp();
        total += *o;
    }
    for o in out.iter_mut() {
        *o /= total;
    }
}

fn cells_sum(cells: &Cells) -> f32 {
    cells.iter().map(|&p| value_of(p) as f32).sum()
}

/// The moves from `cells` at `moves` and the boards they make, into `out`; returns how many.
fn children_into(cells: &Cells, moves: usize, out: &mut [(Action, Cells); 16]) -> usize {
    let mut n = 0;
    match RHYTHM[moves % 10] {
        Step::Place(colour) => {
            for sq in 0..SQUARES {
                if cells[sq] == 0 {
                    let mut child = *cells;
                    child[sq] = piece(colour, 0);
                    out[n] = (sq as Action, child);
                    n += 1;
                }
            }
        }
        Step::Slide => {
            for direction in SLIDE_UP..SLIDE_UP + 4 {
                let child = slide_cells(cells, direction);
                if child != *cells {
                    out[n] = (direction, child);
                    n += 1;
                }
            }
        }
    }
    n
}

/// Checks the clock once per this many nodes.
const CLOCK_EVERY: u64 = 1024;

/// A search over our moves (max) and the partner's (chance, weighted by `model`), iteratively
/// deepened, with the hand-made evaluation at the leaves.
pub struct ChanceSearch {
    pub weights: Weights,
    pub model: MoveModel,
    /// Root actions the next search leaves out (unless it would leave none).
    pub avoid: Vec<Action>,
    me: Player,
    /// The deepest move the current depth reaches: stuck lines are final there.
    horizon_move: usize,
    deadline: Option<Instant>,
    nodes: u64,
    aborted: bool,
    /// The deepest completed search's depth, root value and nodes, for reports.
    pub last_depth: u32,
    pub last_value: f32,
    pub last_nodes: u64,
}

impl ChanceSearch {
    pub fn new(weights: Weights) -> Self {
        ChanceSearch { weights, model: MoveModel::default(), avoid: Vec::new(), me: 0, horizon_move: 0, deadline: None, nodes: 0, aborted: false, last_depth: 0, last_value: 0.0, last_nodes: 0 }
    }

    /// The leaf's value: the beam's line score, or the score itself at move 1000.
    fn leaf(&self, cells: &Cells, moves: usize, best: f32) -> f32 {
        if moves >= MAX_MOVES {
            return best;
        }
        self.weights.best * best + evaluate_cells(&self.weights, cells)
    }

    /// The value of the position `cells` at `moves` (best sum so far `best`), `depth` moves deep.
    fn value(&mut self, cells: &Cells, moves: usize, best: f32, depth: u32) -> f32 {
        if depth == 0 || moves >= MAX_MOVES {
            return self.leaf(cells, moves, best);
        }
        self.nodes += 1;
        if self.nodes % CLOCK_EVERY == 0 && self.deadline.map_or(false, |d| Instant::now() >= d) {
            self.aborted = true;
        }
        if self.aborted {
            return 0.0;
        }
        let mut children = [(0, [0; SQUARES]); 16];
        let n = children_into(cells, moves, &mut children);
        if n == 0 {
            return if self.horizon_move >= MAX_MOVES { best } else { best - STUCK_PENALTY };
        }
        let mut values = [0.0f32; 16];
        for (v, (_, child)) in values.iter_mut().zip(&children[..n]) {
            *v = self.value(child, moves + 1, best.max(cells_sum(child)), depth - 1);
        }
        let values = &values[..n];
        if moves % 2 == self.me {
            values.iter().copied().fold(f32::NEG_INFINITY, f32::max)
        } else if self.model.is_uniform() {
            values.iter().sum::<f32>() / n as f32
        } else {
            let sum = cells_sum(cells);
            let mut p = [0.0f32; 16];
            softmax(&mut p[..n], children[..n].iter().map(|(a, c)| self.model.logit(*a, sum, c)));
            p[..n].iter().zip(values).map(|(p, v)| p * v).sum()
        }
    }

    /// Our best action at `moves` from `cells` with `best` reached, searched `depth` moves
    /// deep, and its value; `None` when the deadline came first.
    fn search_depth(&mut self, cells: &Cells, moves: usize, best: f32, depth: u32) -> Option<(Action, f32)> {
        self.horizon_move = moves + depth as usize;
        let mut children = [(0, [0; SQUARES]); 16];
        let n = children_into(cells, moves, &mut children);
        let every_one_avoided = children[..n].iter().all(|c| self.avoid.contains(&c.0));
        let mut top: Option<(Action, f32)> = None;
        for &(action, child) in &children[..n] {
            if !every_one_avoided && self.avoid.contains(&action) {
                continue;
            }
            let v = self.value(&child, moves + 1, best.max(cells_sum(&child)), depth - 1);
            if self.aborted {
                return None;
            }
            if top.map_or(true, |(_, t)| v > t) {
                top = Some((action, v));
            }
        }
        top
    }

    /// Iterative deepening from depth 1 until `deadline` (or to `max_depth` without one): the
    /// deepest completed search's action. `None` if there is no legal move.
    pub fn choose(&mut self, cells: &Cells, moves: usize, best: f32, me: Player, deadline: Option<Instant>, max_depth: u32) -> Option<Action> {
        self.me = me;
        self.deadline = deadline;
        self.aborted = false;
        self.nodes = 0;
        let mut choice = None;
        let left = (MAX_MOVES - moves) as u32;
        for depth in 1..=max_depth.min(left).max(1) {
            let started = Instant::now();
            match self.search_depth(cells, moves, best, depth) {
                Some((action, value)) => {
                    choice = Some(action);
                    self.last_depth = depth;
                    self.last_value = value;
                }
                None => break,
            }
            // The next depth costs about a branching factor's more: start it only if it
            // should finish.
            if let Some(d) = deadline {
                if Instant::now() + started.elapsed().mul_f64(NEXT_DEPTH_COST) > d {
                    break;
                }
            }
        }
        self.last_nodes = self.nodes;
        choice
    }
}

/// How much longer the next depth takes than the last, about (placements branch up to 16 ways,
/// slides up to 4).
const NEXT_DEPTH_COST: f64 = 6.0;

/// Who the partner seems to be: the evidence, as log-odds, that it plans as our beam does.
#[derive(Clone, Debug, PartialEq)]
pub struct PartnerEvidence {
    pub like_us: f64,
    /// Partner moves seen, and how many of them were the reply our beam expected.
    pub seen: u32,
    pub matched: u32,
}

/// A partner that plans as we do plays the reply our beam expects this often (a copy of this
/// bot on the clock: 82% of its moves); any other partner is taken to play each legal move
/// alike.
const LIKE_US_MATCH: f64 = 0.6;
/// The log-odds at the start of a game: plan with the partner until it shows otherwise (two
/// copies of this bot must find each other, and each looks for the other's beam moves).
const LIKE_US_PRIOR: f64 = 2.0;
/// Bounds on the log-odds, so that a long run either way can still turn.
const LIKE_US_BOUND: f64 = 12.0;

impl Default for PartnerEvidence {
    fn default() -> Self {
        PartnerEvidence { like_us: LIKE_US_PRIOR, seen: 0, matched: 0 }
    }
}

impl PartnerEvidence {
    /// Adds one partner move: whether it was the reply expected, of `legal` legal moves.
    pub fn observe(&mut self, matched: bool, legal: usize) {
        if legal <= 1 {
            return;
        }
        let uniform = 1.0 / legal as f64;
        let (like_us, other) = if matched { (LIKE_US_MATCH, uniform) } else { (1.0 - LIKE_US_MATCH, 1.0 - uniform) };
        self.like_us = (self.like_us + (like_us / other).ln()).clamp(-LIKE_US_BOUND, LIKE_US_BOUND);
        self.seen += 1;
        self.matched += matched as u32;
    }

    pub fn plans_like_us(&self) -> bool {
        self.like_us > 0.0
    }
}

/// Partner moves seen before the beam is trusted with the game's life: until then a beam move
/// after which some reply of the partner leaves us without a legal move (a board emptied by
/// annihilation at a slide) gives way to the chance search's move. A random partner's slide
/// emptied the board at move 9 of a judged game this way.
const TRUST_AFTER: u32 = 20;

/// Whether some reply of the partner to `action` from `state` ends the game before move 1000.
fn risks_the_game(state: &Game6561, action: Action) -> bool {
    let mut after = state.clone();
    after.apply(action);
    if after.moves() >= MAX_MOVES {
        return false;
    }
    if after.is_terminal() {
        return true;
    }
    let mut replies = ActionList::new();
    after.legal_actions(&mut replies);
    replies.iter().any(|&reply| {
        let mut next = after.clone();
        next.apply(reply);
        next.is_terminal() && next.moves() < MAX_MOVES
    })
}

/// The probe's width and depth: a narrow beam that names the reply a partner like us would
/// play, while we plan with the chance search (a millisecond or two).
const PROBE_WIDTH: usize = 64;
const PROBE_HORIZON: usize = 20;

/// The submission: the beam while the partner plays the beam's replies, the chance search with
/// a fitted model of the partner once it does not.
pub struct PartnerAgent {
    pub beam: BeamAgent,
    pub chance: ChanceSearch,
    probe: BeamAgent,
    pub evidence: PartnerEvidence,
    pub max_depth: u32,
    /// The reply our last decision expected (if any) and the position the partner moved from.
    expected: Option<(Option<Action>, Game6561)>,
    /// Actions observed since our last decision: ours, then the partner's.
    observed: Vec<Action>,
    planned_with_beam: bool,
    /// Our recent decisions: the position (`repetition_key`) and the action played.
    recent: Vec<(u128, u64, Action)>,
    broke_a_loop: bool,
    /// What the last probe for the expected reply took: the search's deadline leaves it room
    /// (it matters on short clocks, where a move has a few milliseconds).
    probe_cost: std::time::Duration,
}

/// Decisions remembered to find a loop: four rhythms of ours.
const RECENT_DECISIONS: usize = 20;

/// What makes two of our decisions the same position: the board, the rhythm step, the score.
fn repetition_key(state: &Game6561) -> (u128, u64) {
    (u128::from_le_bytes(*state.cells()), state.score() << 4 | (state.moves() % 10) as u64)
}

impl PartnerAgent {
    pub fn new(beam: BeamAgent) -> Self {
        PartnerAgent {
            beam,
            chance: ChanceSearch::new(STRANGER_WEIGHTS),
            probe: BeamAgent::new(Weights::TUNED, PROBE_WIDTH, PROBE_HORIZON),
            evidence: PartnerEvidence::default(),
            max_depth: 40,
            expected: None,
            observed: Vec::new(),
            planned_with_beam: true,
            recent: Vec::new(),
            broke_a_loop: false,
            probe_cost: std::time::Duration::ZERO,
        }
    }

    /// Learns from the partner's last move: whether it was the reply we expected, and what it
    /// says of the partner's habits.
    fn learn_from_partner(&mut self, state: &Game6561) {
        if let (Some((reply, before)), [_ours, theirs]) = (self.expected.take(), self.observed.as_slice()) {
            let mut after = before.clone();
            if before.is_legal(*theirs) {
                after.apply(*theirs);
            }
            if after.hash() == state.hash() {
                let mut list = ActionList::new();
                before.legal_actions(&mut list);
                if let Some(reply) = reply {
                    self.evidence.observe(*theirs == reply, list.len());
                }
                self.chance.model.fit(&before, *theirs);
            }
        }
        self.observed.clear();
    }
}

impl Agent<Game6561> for PartnerAgent {
    fn choose(&mut self, state: &Game6561, deadline: Option<Instant>) -> Action {
        self.learn_from_partner(state);
        self.planned_with_beam = self.evidence.plans_like_us();
        // A position we decided in before, with the same score: the partner and we are going
        // round a loop (a deterministic partner answering our moves alike, each cycle's new
        // pieces annihilated), which gains nothing for the rest of the game. Leave it by
        // another move than the ones played here before.
        let (board, rest) = repetition_key(state);
        self.chance.avoid = self.recent.iter().filter(|r| (r.0, r.1) == (board, rest)).map(|r| r.2).collect();
        self.broke_a_loop = !self.chance.avoid.is_empty();
        if self.broke_a_loop {
            self.planned_with_beam = false;
        }
        // The probe after the decision runs within the move's time too.
        let move_deadline = deadline;
        let deadline = deadline.map(|d| d.checked_sub(self.probe_cost).unwrap_or(d));
        let unsure = self.evidence.seen < TRUST_AFTER;
        // While the beam is not trusted, it leaves half the time for the chance search.
        let beam_deadline = if unsure { deadline.map(|d| Instant::now() + d.saturating_duration_since(Instant::now()) / 2) } else { deadline };
        let beam_action = self.planned_with_beam.then(|| self.beam.choose(state, beam_deadline));
        if beam_action.map_or(false, |a| unsure && risks_the_game(state, a)) {
            self.planned_with_beam = false;
        }
        let action = if let (true, Some(action)) = (self.planned_with_beam, beam_action) {
            action
        } else {
            self.chance.choose(state.cells(), state.moves(), state.score() as f32, state.to_move(), deadline, self.max_depth).unwrap_or_else(|| {
                let mut list = ActionList::new();
                state.legal_actions(&mut list);
                list[0]
            })
        };
        self.chance.avoid.clear();
        if self.recent.len() == RECENT_DECISIONS {
            self.recent.remove(0);
        }
        self.recent.push((board, rest, action));
        let mut after = state.clone();
        after.apply(action);
        if !after.is_terminal() {
            // The reply a partner like us plays: the beam's line says it, or (planning with
            // the chance search) the probe finds it.
            // A clock too short for the probe (a debug build on a scaled clock) leaves this
            // move's reply unjudged: the evidence waits, the move model still learns.
            let probe_start = Instant::now();
            let probe_fits = move_deadline.map_or(true, |d| probe_start + self.probe_cost <= d);
            let reply = if self.planned_with_beam {
                self.beam.last_reply
            } else if probe_fits {
                let reply = self.probe.search(&after, PROBE_WIDTH, None);
                self.probe_cost = probe_start.elapsed();
                reply
            } else {
                None
            };
            self.expected = Some((reply, after));
        }
        action
    }

    fn observe(&mut self, action: Action) {
        self.observed.push(action);
    }

    fn last_report(&self) -> String {
        let search = if self.planned_with_beam {
            format!("beam: {}", self.beam.last_report())
        } else {
            format!("chance: depth {}, {} nodes, value {:.0}", self.chance.last_depth, self.chance.last_nodes, self.chance.last_value)
        };
        let looped = if self.broke_a_loop { " (leaving a loop)" } else { "" };
        format!("{search}{looped}; partner like us: log-odds {:+.1}, {} of {} replies as expected", self.evidence.like_us, self.evidence.matched, self.evidence.seen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game6561::field::{CornerAgent, GreedyAgent};
    use crate::game6561::{piece, BLUE, RED, SLIDE_DOWN, SLIDE_LEFT, SLIDE_RIGHT};
    use crate::tools::RandomAgent;

    /// The probability `model` gives `action` from `state`.
    fn probability(model: &MoveModel, state: &Game6561, action: Action) -> f32 {
        let mut children = [(0, [0; SQUARES]); 16];
        let n = children_into(state.cells(), state.moves(), &mut children);
        let mut p = [0.0f32; 16];
        let sum = cells_sum(state.cells());
        softmax(&mut p[..n], children[..n].iter().map(|(a, c)| model.logit(*a, sum, c)));
        children[..n].iter().position(|c| c.0 == action).map_or(0.0, |k| p[k])
    }

    /// Plays up to `moves` moves of `partner` (both seats) from the start, fitting a model to
    /// them; returns the model, and the mean probability it gave the moves of the game's last
    /// half beside the mean a uniform model gave them.
    fn fitted(partner: &mut dyn Agent<Game6561>, moves: usize) -> (MoveModel, f32, f32) {
        let mut model = MoveModel::default();
        let mut g = Game6561::new();
        let (mut late, mut uniform) = (Vec::new(), Vec::new());
        while g.moves() < moves && !g.is_terminal() {
            let a = partner.choose(&g, None);
            late.push(probability(&model, &g, a));
            uniform.push(probability(&MoveModel::default(), &g, a));
            model.fit(&g, a);
            g.apply(a);
        }
        let mean = |v: &[f32]| v[v.len() / 2..].iter().sum::<f32>() / (v.len() - v.len() / 2) as f32;
        (model, mean(&late), mean(&uniform))
    }

    #[test]
    fn the_move_model_learns_a_habit() {
        // The corner habit's moves become twice as likely as for a uniform partner and more.
        let (model, p, uniform) = fitted(&mut CornerAgent, 200);
        assert!(p > 2.0 * uniform, "mean probability of the habit's moves {p}, uniform {uniform}");
        assert!(model.direction[(SLIDE_DOWN - SLIDE_UP) as usize] > model.direction[0], "{model:?}");
        assert!(model.square[12] > model.square[0], "bottom-left over top-left: {model:?}");
        // A greedy partner's slides take the sum: the model learns to expect merges.
        let (model, _, _) = fitted(&mut GreedyAgent::new(5), 300);
        assert!(model.sum_gain > 1.0, "{model:?}");
        // A random partner leaves the model close to uniform.
        let (model, p, uniform) = fitted(&mut RandomAgent::new(5), 300);
        assert!(model.square.iter().chain(&model.direction).all(|w| w.abs() < 1.5) && model.sum_gain.abs() < 0.5, "{model:?}");
        assert!((p - uniform).abs() < 0.2 * uniform, "{p} against {uniform}");
    }

    #[test]
    fn evidence_tells_a_partner_like_us_from_a_stranger() {
        let mut evidence = PartnerEvidence::default();
        assert!(evidence.plans_like_us(), "the benefit of the doubt at the start");
        // A partner that plays the expected reply 80% of the time, of 8 legal moves.
        for k in 0..100 {
            evidence.observe(k % 5 != 0, 8);
        }
        assert!(evidence.plans_like_us() && evidence.matched == 80);
        // A partner whose moves match no more often than chance: a stranger within a few moves.
        let mut evidence = PartnerEvidence::default();
        for k in 0..6 {
            evidence.observe(k == 3, 8);
        }
        assert!(!evidence.plans_like_us(), "{evidence:?}");
        // A forced move says nothing.
        let before = evidence.clone();
        evidence.observe(true, 1);
        assert_eq!(evidence, before);
    }

    #[test]
    fn the_chance_search_keeps_the_leading_colours_big_pieces() {
        // Move 5 is our slide (seat 0). A blue 27 and a red 27 side by side in row 1:
        // sliding left or right annihilates them; up and down keep them.
        let mut cells = [0; SQUARES];
        cells[4] = piece(BLUE, 3);
        cells[5] = piece(RED, 3);
        cells[15] = piece(BLUE, 1);
        let g = Game6561::from_cells(cells, 4, 0);
        let mut search = ChanceSearch::new(STRANGER_WEIGHTS);
        for depth in 1..=3 {
            let a = search.choose(g.cells(), g.moves(), 0.0, 0, None, depth).unwrap();
            assert!(![SLIDE_LEFT, SLIDE_RIGHT].contains(&a), "depth {depth}: {a}");
        }
    }

    /// A game from the start of `us` (seat `seat`) with `partner`; returns it and `us`.
    fn play(us: PartnerAgent, partner: &mut dyn Agent<Game6561>, seat: usize, moves: usize) -> (Game6561, PartnerAgent) {
        let mut us = us;
        let mut g = Game6561::new();
        while g.moves() < moves && !g.is_terminal() {
            let a = if g.to_move() == seat { us.choose(&g, None) } else { partner.choose(&g, None) };
            us.observe(a);
            partner.observe(a);
            g.apply(a);
        }
        (g, us)
    }

    #[test]
    fn an_unknown_partner_never_gets_a_move_that_ends_the_game() {
        // The judged game that ended at move 9: blue 44 (A), red 11, gray 42, D, U, blue 32,
        // red 24; B places gray. At 41 the board is r1 g1 . b1 / . . . r1 / . b1 . . / g1 . . .,
        // and A's slide down empties it: B, to slide at move 10, is stuck.
        let mut g = Game6561::new();
        crate::tools::apply_texts(&mut g, &["44", "11", "42", "D", "U", "32", "24"]).unwrap();
        let forty_one = Game6561::parse_action("41").unwrap();
        assert!(risks_the_game(&g, forty_one));
        assert!(!risks_the_game(&g, Game6561::parse_action("33").unwrap()));
        let mut us = narrow();
        for _ in 0..5 {
            let a = us.choose(&g, None);
            assert!(!risks_the_game(&g, a), "{}", Game6561::format_action(a));
        }
    }

    #[test]
    fn a_position_met_again_gets_another_move() {
        // The judged game that went round one loop from move 400 to the end: the same board
        // every ten moves. Met again at our decision with the same score, the position gets a
        // move not played there before, until none is left.
        let mut g = Game6561::new();
        let moves = "44 11 42 D U 32 24 41 R L";
        crate::tools::apply_texts(&mut g, &moves.split(' ').collect::<Vec<_>>()).unwrap();
        let mut us = narrow();
        let mut legal = ActionList::new();
        g.legal_actions(&mut legal);
        let mut played = Vec::new();
        for k in 0..legal.len() + 2 {
            let a = us.choose(&g, None);
            assert!(g.is_legal(a));
            assert_eq!(us.broke_a_loop, k > 0);
            if k < legal.len() {
                assert!(!played.contains(&a), "{} again at visit {k}", Game6561::format_action(a));
            }
            played.push(a);
        }
    }

    fn narrow() -> PartnerAgent {
        let mut agent = PartnerAgent::new(BeamAgent::new(Weights::TUNED, 16, 10));
        agent.max_depth = 3;
        agent
    }

    #[test]
    fn the_agent_plans_with_a_partner_like_itself_and_for_a_stranger() {
        // With a copy of its own beam as partner it keeps planning with the beam.
        let mut copy = BeamAgent::new(Weights::TUNED, 16, 10);
        let (_, us) = play(narrow(), &mut copy, 1, 200);
        assert!(us.evidence.plans_like_us() && us.planned_with_beam, "{}", us.last_report());
        assert!(us.evidence.matched * 2 > us.evidence.seen, "{}", us.last_report());
        // With a random partner it turns to the chance search, and its game is far better
        // than the beam's with the same partner.
        let (g, us) = play(narrow(), &mut RandomAgent::new(3), 0, 1000);
        assert!(!us.evidence.plans_like_us() && !us.planned_with_beam, "{}", us.last_report());
        let mut beam = BeamAgent::new(Weights::TUNED, 16, 10);
        let mut beam_game = Game6561::new();
        let mut random = RandomAgent::new(3);
        while !beam_game.is_terminal() {
            let a = if beam_game.to_move() == 0 { beam.choose(&beam_game, None) } else { random.choose(&beam_game, None) };
            beam_game.apply(a);
        }
        assert!(g.score() > 2 * beam_game.score().max(100), "partner-aware {} against the beam's {}", g.score(), beam_game.score());
    }
}
