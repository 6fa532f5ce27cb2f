//! Monte Carlo tree search over any [`Game`], with a pluggable [`Evaluator`].
//!
//! - Every node records its own player to move, and backs up a utility *per seat*: the mover
//!   of a node picks children by its own component. No sign flip is hard-coded, so players
//!   moving twice in a row, cooperative games and margin scores need no special case.
//! - Selection is PUCT (for nets: priors, first-play urgency) or UCT1 (the net-free baseline).
//! - MCTS-solver: terminal nodes carry exact values, and a node is proven as soon as one child
//!   gives its mover the best possible utility (1.0) or all its children are proven.
//! - The tree lives in two flat arrays; [`Mcts::advance`] keeps the subtree of the move played.
//! - Leaf evaluation is split in two calls ([`Mcts::select_leaf`], [`Mcts::expand_leaf`]) so that
//!   self-play can batch the leaves of many trees into one net call; [`Mcts::search`] is the
//!   plain loop around them.

use crate::game::{Action, ActionList, Game, NUM_PLAYERS};
use std::time::{Duration, Instant};

/// Utilities of both seats, each in `[-1, 1]`.
pub type Values = [f32; NUM_PLAYERS];

/// A utility this high cannot be improved on, so a child worth it proves its parent.
const BEST_UTILITY: f32 = 1.0;

/// Turns a position into priors and values. Implemented by nets, by random rollouts, by tests.
pub trait Evaluator<G: Game> {
    /// Writes a non-negative weight for each `legal[i]` into `priors[i]` (they are normalised by
    /// the caller) and returns the expected utility of `state` for each seat.
    fn evaluate(&mut self, state: &G, legal: &[Action], priors: &mut [f32]) -> Values;
}

/// How a node chooses which child to descend into.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Selection {
    /// `Q + c * prior * sqrt(N) / (1 + n)`; unvisited children use the parent's Q minus
    /// `fpu_reduction` (first-play urgency).
    Puct { c: f32, fpu_reduction: f32 },
    /// `Q + c * sqrt(ln N / n)`; unvisited children first.
    Uct { c: f32 },
}

#[derive(Clone, Debug)]
pub struct MctsConfig {
    pub selection: Selection,
    /// The tree never grows past this many nodes; search stops when it is full.
    pub max_nodes: usize,
    /// Stop searching as soon as the root's value is proven.
    pub stop_when_proven: bool,
}

impl MctsConfig {
    /// UCT1 with random rollouts: the net-free baseline bot.
    pub fn uct() -> Self {
        MctsConfig { selection: Selection::Uct { c: 1.0 }, max_nodes: 4_000_000, stop_when_proven: true }
    }
    /// PUCT for net-guided search.
    pub fn puct() -> Self {
        MctsConfig { selection: Selection::Puct { c: 1.5, fpu_reduction: 0.2 }, max_nodes: 4_000_000, stop_when_proven: true }
    }
}

/// When a call to [`Mcts::search`] stops (whichever comes first).
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchLimits {
    /// Playouts (leaf visits) to add in this call.
    pub playouts: Option<u64>,
    pub deadline: Option<Instant>,
}

impl SearchLimits {
    pub fn playouts(n: u64) -> Self {
        SearchLimits { playouts: Some(n), deadline: None }
    }
    pub fn until(deadline: Instant) -> Self {
        SearchLimits { playouts: None, deadline: Some(deadline) }
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct SearchStats {
    pub playouts: u64,
    pub tree_nodes: usize,
    pub elapsed: Duration,
}

const NO_CHILD: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Created, not yet evaluated.
    Leaf,
    Expanded,
    Terminal,
}

#[derive(Clone, Debug)]
struct Node {
    value_sum: [f64; NUM_PLAYERS],
    visits: u32,
    first_edge: u32,
    num_edges: u32,
    mover: u8,
    kind: Kind,
    /// Exact value under perfect play, once known.
    proven: Option<Values>,
}

impl Node {
    fn leaf(mover: usize) -> Self {
        Node { value_sum: [0.0; NUM_PLAYERS], visits: 0, first_edge: 0, num_edges: 0, mover: mover as u8, kind: Kind::Leaf, proven: None }
    }
    fn mean(&self, player: usize) -> f32 {
        (self.value_sum[player] / self.visits as f64) as f32
    }
}

#[derive(Clone, Copy, Debug)]
struct Edge {
    action: Action,
    prior: f32,
    child: u32,
}

/// What search knows about one child of the root.
#[derive(Clone, Copy, Debug)]
pub struct ChildInfo {
    pub action: Action,
    pub prior: f32,
    pub visits: u32,
    /// Mean utilities of the child's subtree (zero when unvisited).
    pub q: Values,
    pub proven: Option<Values>,
}

pub struct Mcts<G: Game> {
    config: MctsConfig,
    root_state: G,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// Node indices from the root to the current leaf.
    path: Vec<u32>,
    leaf_state: G,
    leaf_legal: ActionList,
    leaf_pending: bool,
    priors: Vec<f32>,
    /// The arrays of the previous tree, kept (cleared) for the next re-rooting: freeing a tree of
    /// hundreds of thousands of nodes inside a timed turn can cost more than the safety margin.
    spare_nodes: Vec<Node>,
    spare_edges: Vec<Edge>,
}

impl<G: Game> Mcts<G> {
    pub fn new(state: G, config: MctsConfig) -> Self {
        let mut m = Mcts {
            config,
            root_state: state.clone(),
            nodes: Vec::new(),
            edges: Vec::new(),
            path: Vec::new(),
            leaf_state: state.clone(),
            leaf_legal: ActionList::new(),
            leaf_pending: false,
            priors: Vec::new(),
            spare_nodes: Vec::new(),
            spare_edges: Vec::new(),
        };
        m.reset(state);
        m
    }

    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    pub fn root_state(&self) -> &G {
        &self.root_state
    }

    /// Discards the tree and starts from `state`.
    pub fn reset(&mut self, state: G) {
        self.nodes.clear();
        self.edges.clear();
        self.nodes.push(Node::leaf(state.to_move()));
        self.root_state = state;
        self.leaf_pending = false;
    }

    /// Plays `action` at the root, keeping what was learnt about the position it leads to.
    pub fn advance(&mut self, action: Action) {
        self.advance_path(&[action]);
    }

    /// Plays several actions at the root and keeps the subtree they lead to. Re-rooting once
    /// over several plies copies only the final subtree, which is much smaller than the
    /// intermediate one (the bot's own move keeps most of the tree; the reply cuts it down).
    pub fn advance_path(&mut self, actions: &[Action]) {
        let mut node = 0u32;
        let mut next = self.root_state.clone();
        for (i, &action) in actions.iter().enumerate() {
            let n = &self.nodes[node as usize];
            let edges = &self.edges[n.first_edge as usize..(n.first_edge + n.num_edges) as usize];
            node = edges.iter().find(|e| e.action == action).map_or(NO_CHILD, |e| e.child);
            next.apply(action);
            if node == NO_CHILD {
                for &rest in &actions[i + 1..] {
                    next.apply(rest);
                }
                self.reset(next);
                return;
            }
        }
        // A position decided before the end (`Game::decided_utilities`) was a leaf of the old
        // tree; as the root it still needs a move, so the search starts there afresh.
        if self.nodes[node as usize].kind == Kind::Terminal && !next.is_terminal() {
            self.reset(next);
            return;
        }
        if node != 0 {
            self.compact_from(node);
        }
        self.root_state = next;
        self.leaf_pending = false;
    }

    /// Rebuilds the arrays with `new_root` at index 0 and only its subtree.
    fn compact_from(&mut self, new_root: u32) {
        let mut nodes = std::mem::take(&mut self.spare_nodes);
        let mut edges = std::mem::take(&mut self.spare_edges);
        nodes.clear();
        edges.clear();
        nodes.push(self.nodes[new_root as usize].clone());
        let mut queue = vec![(0usize, new_root as usize)];
        while let Some((new_index, old_index)) = queue.pop() {
            let old = &self.nodes[old_index];
            let first = edges.len() as u32;
            for e in &self.edges[old.first_edge as usize..(old.first_edge + old.num_edges) as usize] {
                let mut e = *e;
                if e.child != NO_CHILD {
                    let copied = nodes.len();
                    nodes.push(self.nodes[e.child as usize].clone());
                    queue.push((copied, e.child as usize));
                    e.child = copied as u32;
                }
                edges.push(e);
            }
            nodes[new_index].first_edge = first;
        }
        // The old arrays become the spare ones: cleared, their memory kept.
        self.spare_nodes = std::mem::replace(&mut self.nodes, nodes);
        self.spare_edges = std::mem::replace(&mut self.edges, edges);
        self.spare_nodes.clear();
        self.spare_edges.clear();
    }

    pub fn tree_size(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_full(&self) -> bool {
        self.nodes.len() >= self.config.max_nodes
    }

    /// Playouts that went through the root (including those kept from earlier turns).
    pub fn root_visits(&self) -> u32 {
        self.nodes[0].visits
    }

    /// Mean utilities at the root, or its exact value once proven.
    pub fn root_value(&self) -> Values {
        let root = &self.nodes[0];
        root.proven.unwrap_or_else(|| if root.visits == 0 { [0.0; NUM_PLAYERS] } else { [root.mean(0), root.mean(1)] })
    }

    pub fn root_proven(&self) -> Option<Values> {
        self.nodes[0].proven
    }

    fn root_edges(&self) -> &[Edge] {
        let root = &self.nodes[0];
        &self.edges[root.first_edge as usize..(root.first_edge + root.num_edges) as usize]
    }

    pub fn root_children(&self) -> Vec<ChildInfo> {
        self.root_edges()
            .iter()
            .map(|e| {
                let child = (e.child != NO_CHILD).then(|| &self.nodes[e.child as usize]);
                let visits = child.map_or(0, |c| c.visits);
                ChildInfo {
                    action: e.action,
                    prior: e.prior,
                    visits,
                    q: match child {
                        Some(c) if visits > 0 => [c.mean(0), c.mean(1)],
                        _ => [0.0; NUM_PLAYERS],
                    },
                    proven: child.and_then(|c| c.proven),
                }
            })
            .collect()
    }

    /// The move to play: a proven best move when there is one, else the most visited child
    /// that is not a proven loss (ties broken by mean value).
    pub fn best_action(&self) -> Option<Action> {
        let mover = self.nodes[0].mover as usize;
        let children = self.root_children();
        if let Some(exact) = self.nodes[0].proven {
            return children
                .iter()
                .filter(|c| c.proven.is_some_and(|v| v[mover] >= exact[mover]))
                .max_by_key(|c| c.visits)
                .map(|c| c.action);
        }
        let proven_loss = |c: &ChildInfo| c.proven.is_some_and(|v| v[mover] <= -BEST_UTILITY);
        let candidates: Vec<&ChildInfo> = if children.iter().all(proven_loss) {
            children.iter().collect()
        } else {
            children.iter().filter(|c| !proven_loss(c)).collect()
        };
        let score = |c: &ChildInfo| c.proven.map_or(c.q[mover], |v| v[mover]);
        candidates
            .into_iter()
            .max_by(|a, b| a.visits.cmp(&b.visits).then(score(a).total_cmp(&score(b))))
            .map(|c| c.action)
    }

    /// Runs playouts until a limit is hit, the tree is full, or (if configured) the root is proven.
    pub fn search<E: Evaluator<G>>(&mut self, evaluator: &mut E, limits: &SearchLimits) -> SearchStats {
        let start = Instant::now();
        let mut playouts = 0u64;
        loop {
            if limits.playouts.is_some_and(|n| playouts >= n)
                || limits.deadline.is_some_and(|d| Instant::now() >= d)
                || (self.config.stop_when_proven && self.nodes[0].proven.is_some())
                || self.is_full()
                || self.root_state.is_terminal()
            {
                break;
            }
            if self.select_leaf().is_some() {
                let legal = self.leaf_legal.as_slice();
                self.priors.clear();
                self.priors.resize(legal.len(), 0.0);
                let values = evaluator.evaluate(&self.leaf_state, legal, &mut self.priors);
                let priors = std::mem::take(&mut self.priors);
                self.expand_leaf(&priors, values);
                self.priors = priors;
            }
            playouts += 1;
        }
        SearchStats { playouts, tree_nodes: self.nodes.len(), elapsed: start.elapsed() }
    }

    /// Walks down to a leaf. Returns the leaf's state and legal actions when it needs an
    /// evaluation (answer with [`Mcts::expand_leaf`]); returns `None` when the playout ended on
    /// a terminal or proven node, which has already been backed up.
    pub fn select_leaf(&mut self) -> Option<(&G, &[Action])> {
        self.select_leaf_via(None)
    }

    /// Like [`Mcts::select_leaf`], but the first step goes to the root's `root_child`-th action
    /// (in [`Mcts::root_children`] order) whatever the selection rule says: root-level schedules
    /// such as Gumbel sequential halving decide which root action each playout explores.
    pub fn select_leaf_via(&mut self, root_child: Option<usize>) -> Option<(&G, &[Action])> {
        assert!(!self.leaf_pending, "select_leaf called twice without expand_leaf");
        assert!(!self.root_state.is_terminal(), "search from a terminal position");
        self.path.clear();
        self.leaf_state.clone_from(&self.root_state);
        let mut node = 0u32;
        loop {
            self.path.push(node);
            let n = &mut self.nodes[node as usize];
            if let Some(exact) = n.proven {
                self.backup(exact, false);
                return None;
            }
            if n.kind == Kind::Leaf {
                // The root is never terminal, nor taken as decided: the search names a move there.
                if let Some(exact) = (node != 0).then(|| self.leaf_state.decided_utilities()).flatten() {
                    n.kind = Kind::Terminal;
                    n.proven = Some(exact);
                    self.backup(exact, true);
                    return None;
                }
                self.leaf_state.search_actions(&mut self.leaf_legal);
                self.leaf_pending = true;
                return Some((&self.leaf_state, self.leaf_legal.as_slice()));
            }
            let e = match root_child {
                Some(k) if node == 0 => {
                    assert!(k < self.nodes[0].num_edges as usize, "root child {k} out of range");
                    self.nodes[0].first_edge as usize + k
                }
                _ => self.select_edge(node as usize),
            };
            let action = self.edges[e].action;
            self.leaf_state.apply(action);
            if self.edges[e].child == NO_CHILD {
                self.edges[e].child = self.nodes.len() as u32;
                self.nodes.push(Node::leaf(self.leaf_state.to_move()));
            }
            node = self.edges[e].child;
        }
    }

    /// The leaf waiting for [`Mcts::expand_leaf`], if any, and whether it is the root.
    pub fn pending_leaf(&self) -> Option<(&G, &[Action], bool)> {
        self.leaf_pending.then(|| (&self.leaf_state, self.leaf_legal.as_slice(), self.path.len() == 1))
    }

    /// Completes the playout started by [`Mcts::select_leaf`]: `priors[i]` weighs the i-th
    /// legal action it returned, `values` is the leaf's utility for each seat.
    pub fn expand_leaf(&mut self, priors: &[f32], values: Values) {
        assert!(self.leaf_pending, "expand_leaf without a pending leaf");
        self.leaf_pending = false;
        let legal = self.leaf_legal.as_slice();
        debug_assert_eq!(priors.len(), legal.len());
        let sum: f32 = priors.iter().sum();
        let uniform = !(sum > 0.0 && sum.is_finite());
        let first = self.edges.len() as u32;
        for (i, &action) in legal.iter().enumerate() {
            let prior = if uniform { 1.0 / legal.len() as f32 } else { priors[i] / sum };
            self.edges.push(Edge { action, prior, child: NO_CHILD });
        }
        let leaf = &mut self.nodes[*self.path.last().unwrap() as usize];
        leaf.first_edge = first;
        leaf.num_edges = legal.len() as u32;
        leaf.kind = Kind::Expanded;
        self.backup(values, false);
    }

    pub fn root_expanded(&self) -> bool {
        self.nodes[0].kind == Kind::Expanded
    }

    fn select_edge(&self, node: usize) -> usize {
        let n = &self.nodes[node];
        let mover = n.mover as usize;
        let range = n.first_edge as usize..(n.first_edge + n.num_edges) as usize;
        let parent_visits = n.visits.max(1) as f32;
        let mut best = range.start;
        let mut best_score = f32::NEG_INFINITY;
        match self.config.selection {
            Selection::Puct { c, fpu_reduction } => {
                let scale = c * parent_visits.sqrt();
                let fpu = n.mean(mover) - fpu_reduction;
                for i in range {
                    let e = &self.edges[i];
                    let (q, visits) = self.child_q(e.child, mover, fpu);
                    let score = q + scale * e.prior / (1.0 + visits as f32);
                    if score > best_score {
                        best_score = score;
                        best = i;
                    }
                }
            }
            Selection::Uct { c } => {
                let log_n = parent_visits.ln();
                for i in range {
                    let e = &self.edges[i];
                    let (q, visits) = self.child_q(e.child, mover, f32::INFINITY);
                    if visits == 0 && q == f32::INFINITY {
                        return i;
                    }
                    let score = q + c * (log_n / visits.max(1) as f32).sqrt();
                    if score > best_score {
                        best_score = score;
                        best = i;
                    }
                }
            }
        }
        best
    }

    /// The value of a child for `mover` (exact when proven, `unvisited` when never visited)
    /// and its visit count.
    #[inline]
    fn child_q(&self, child: u32, mover: usize, unvisited: f32) -> (f32, u32) {
        if child == NO_CHILD {
            return (unvisited, 0);
        }
        let c = &self.nodes[child as usize];
        match c.proven {
            Some(v) => (v[mover], c.visits),
            None if c.visits == 0 => (unvisited, 0),
            None => (c.mean(mover), c.visits),
        }
    }

    fn backup(&mut self, values: Values, leaf_proven: bool) {
        for &i in &self.path {
            let n = &mut self.nodes[i as usize];
            n.visits += 1;
            for p in 0..NUM_PLAYERS {
                n.value_sum[p] += values[p] as f64;
            }
        }
        if leaf_proven {
            for k in (0..self.path.len() - 1).rev() {
                if !self.try_prove(self.path[k] as usize) {
                    break;
                }
            }
        }
    }

    /// Marks `node` proven if one child gives its mover the best possible utility or all
    /// children are proven (then the value is the mover's best child).
    fn try_prove(&mut self, node: usize) -> bool {
        let n = &self.nodes[node];
        if n.proven.is_some() {
            return true;
        }
        if n.kind != Kind::Expanded {
            return false;
        }
        let mover = n.mover as usize;
        let mut best: Option<Values> = None;
        let mut all_proven = true;
        for e in &self.edges[n.first_edge as usize..(n.first_edge + n.num_edges) as usize] {
            match (e.child != NO_CHILD).then(|| self.nodes[e.child as usize].proven).flatten() {
                Some(v) if v[mover] >= BEST_UTILITY => {
                    self.nodes[node].proven = Some(v);
                    return true;
                }
                Some(v) => {
                    if best.map_or(true, |b| v[mover] > b[mover]) {
                        best = Some(v);
                    }
                }
                None => all_proven = false,
            }
        }
        if all_proven {
            self.nodes[node].proven = best;
        }
        all_proven
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect4::Connect4;
    use crate::rng::Rng;
    use crate::tools::{apply_texts, RolloutEvaluator, UniformEvaluator};

    fn c4(moves: &str) -> Connect4 {
        let mut s = Connect4::new();
        apply_texts(&mut s, &moves.split_whitespace().collect::<Vec<_>>()).unwrap();
        s
    }

    /// A tiny game for exact checks: players add 1 or 2 to a counter; whoever reaches 4 wins.
    /// Player 0 adds twice in a row at the start (a two-stage first turn), so the tree has
    /// consecutive nodes with the same mover.
    #[derive(Clone, Debug)]
    struct Race {
        total: u8,
        turn: u8,
    }

    impl Race {
        fn mover_at(turn: u8) -> usize {
            if turn < 2 { 0 } else { ((turn - 2) % 2 + 1) as usize % 2 }
        }
    }

    impl Game for Race {
        const NAME: &'static str = "race";
        const NUM_ACTIONS: usize = 2;
        const MAX_GAME_LENGTH: usize = 4;
        const NUM_SYMMETRIES: usize = 1;
        fn new_game(_: &mut Rng) -> Self {
            Race { total: 0, turn: 0 }
        }
        fn to_move(&self) -> usize {
            Self::mover_at(self.turn)
        }
        fn legal_actions(&self, out: &mut ActionList) {
            out.clear();
            if !self.is_terminal() {
                out.push(0);
                out.push(1);
            }
        }
        fn apply(&mut self, a: Action) {
            self.total += a as u8 + 1;
            self.turn += 1;
        }
        fn is_terminal(&self) -> bool {
            self.total >= 4
        }
        fn scores(&self) -> Values {
            self.utilities()
        }
        fn utilities(&self) -> Values {
            // The player who made the last addition wins.
            let last = Self::mover_at(self.turn - 1);
            let mut u = [-1.0; 2];
            u[last] = 1.0;
            u
        }
        fn hash(&self) -> u64 {
            (self.total as u64) << 8 | self.turn as u64
        }
        fn symmetric(&self, _: usize) -> Self {
            self.clone()
        }
        fn map_action(_: usize, a: Action) -> Action {
            a
        }
        fn format_action(a: Action) -> String {
            (a + 1).to_string()
        }
        fn parse_action(t: &str) -> Result<Action, crate::game::ParseActionError> {
            match t {
                "1" => Ok(0),
                "2" => Ok(1),
                _ => Err(crate::game::ParseActionError { text: t.into(), expected: "1 or 2" }),
            }
        }
    }

    #[test]
    fn solver_proves_a_game_with_a_double_move() {
        // Player 0 plays twice: 2+2 reaches 4 on its own second addition, a forced win.
        let mut m = Mcts::new(Race::new_game(&mut Rng::new(0)), MctsConfig::puct());
        m.search(&mut UniformEvaluator, &SearchLimits::playouts(10_000));
        assert_eq!(m.root_proven(), Some([1.0, -1.0]));
        assert_eq!(m.best_action(), Some(1));
        m.advance(1);
        assert_eq!(m.root_state().to_move(), 0, "same player again");
        assert_eq!(m.root_proven(), Some([1.0, -1.0]), "proof kept by tree reuse");
        assert_eq!(m.best_action(), Some(1));
    }

    #[test]
    fn finds_an_immediate_win_without_a_net() {
        // Player 0 has three in column 0 (player 1 played 1,2,3 on the bottom row): 0 wins now.
        let s = c4("0 1 0 2 0 3");
        for config in [MctsConfig::puct(), MctsConfig::uct()] {
            let mut m = Mcts::new(s.clone(), config);
            m.search(&mut UniformEvaluator, &SearchLimits::playouts(2_000));
            assert_eq!(m.best_action(), Some(0));
            assert_eq!(m.root_proven(), Some([1.0, -1.0]));
        }
    }

    #[test]
    fn blocks_the_only_threat() {
        // Player 1 threatens 1,2,3 + 0 or 4? Bottom row: player 1 has 1,2,3 with 0 and 4 open:
        // a double threat would be lost anyway, so give it one side blocked.
        let s = c4("0 1 8 2 8 3");
        // Player 0 to move: player 1 threatens 4 only (0 is taken by player 0).
        let mut m = Mcts::new(s, MctsConfig::uct());
        m.search(&mut RolloutEvaluator::new(1), &SearchLimits::playouts(20_000));
        assert_eq!(m.best_action(), Some(4));
    }

    #[test]
    fn proves_a_loss_and_still_returns_a_move() {
        // Player 1 has an open three on the bottom row (2,3,4; both 1 and 5 empty), player 0 to
        // move cannot stop both ends: lost in 2 with exact play.
        let s = c4("8 2 8 3 7 4");
        let mut m = Mcts::new(s, MctsConfig::puct());
        m.search(&mut UniformEvaluator, &SearchLimits::playouts(200_000));
        assert_eq!(m.root_proven(), Some([-1.0, 1.0]));
        assert!(m.best_action().is_some());
    }

    #[test]
    fn tree_reuse_keeps_the_chosen_subtree() {
        let mut m = Mcts::new(Connect4::new(), MctsConfig::uct());
        m.search(&mut RolloutEvaluator::new(2), &SearchLimits::playouts(5_000));
        let best = m.best_action().unwrap();
        let kept = m.root_children().iter().find(|c| c.action == best).unwrap().visits;
        m.advance(best);
        assert_eq!(m.root_visits(), kept);
        assert_eq!(m.root_state().turn(), 1);
        // Every node reachable in the compacted tree agrees with its own parent's visits.
        let total: u32 = m.root_children().iter().map(|c| c.visits).sum();
        assert_eq!(total + 1, kept, "root visits = 1 (own evaluation) + children's");
        // Playing an action never searched falls back to a fresh tree.
        let unvisited = m.root_children().iter().find(|c| c.visits == 0).map(|c| c.action);
        if let Some(a) = unvisited {
            m.advance(a);
            assert_eq!(m.root_visits(), 0);
        }
    }

    #[test]
    fn advancing_two_plies_at_once_equals_one_by_one() {
        let mut a = Mcts::new(Connect4::new(), MctsConfig::uct());
        a.search(&mut RolloutEvaluator::new(4), &SearchLimits::playouts(20_000));
        let mut b = Mcts::new(Connect4::new(), MctsConfig::uct());
        b.search(&mut RolloutEvaluator::new(4), &SearchLimits::playouts(20_000));
        let own = a.best_action().unwrap();
        a.advance(own);
        let reply = a.best_action().unwrap();
        a.advance(reply);
        b.advance_path(&[own, reply]);
        assert_eq!(a.tree_size(), b.tree_size());
        assert_eq!(a.root_visits(), b.root_visits());
        assert!(a.root_visits() > 0);
        assert_eq!(a.root_state(), b.root_state());
        // A path leaving the tree ends in a fresh tree at the right position: after 5 UCT
        // playouts only the root's children exist, so two plies down is outside the tree.
        let mut c = Mcts::new(Connect4::new(), MctsConfig::uct());
        c.search(&mut RolloutEvaluator::new(4), &SearchLimits::playouts(5));
        c.advance_path(&[0, 0, 0]);
        assert_eq!(c.root_visits(), 0);
        assert_eq!(c.root_state().turn(), 3);
    }

    #[test]
    fn batched_api_matches_the_search_loop() {
        let s = c4("4 4 3");
        let mut a = Mcts::new(s.clone(), MctsConfig::puct());
        a.search(&mut UniformEvaluator, &SearchLimits::playouts(500));
        let mut b = Mcts::new(s, MctsConfig::puct());
        for _ in 0..500 {
            if let Some((_, legal)) = b.select_leaf() {
                let priors = vec![1.0; legal.len()];
                b.expand_leaf(&priors, [0.0, 0.0]);
            }
        }
        let visits = |m: &Mcts<Connect4>| m.root_children().iter().map(|c| c.visits).collect::<Vec<_>>();
        assert_eq!(visits(&a), visits(&b));
    }

    #[test]
    fn deadline_stops_the_search() {
        let mut m = Mcts::new(Connect4::new(), MctsConfig::uct());
        let start = Instant::now();
        let stats = m.search(&mut RolloutEvaluator::new(3), &SearchLimits::until(start + Duration::from_millis(30)));
        assert!(start.elapsed() < Duration::from_millis(300), "{:?}", start.elapsed());
        assert!(stats.playouts > 0);
    }

    #[test]
    fn cooperative_values_are_maximised_by_both_seats() {
        // With both seats sharing utility, a proven node takes the best value for its mover,
        // which is the best for both: check through a game where seat 1 must "help".
        #[derive(Clone)]
        struct Coop(u8, u8);
        impl Game for Coop {
            const NAME: &'static str = "coop";
            const NUM_ACTIONS: usize = 2;
            const MAX_GAME_LENGTH: usize = 2;
            const NUM_SYMMETRIES: usize = 1;
            fn new_game(_: &mut Rng) -> Self {
                Coop(0, 0)
            }
            fn to_move(&self) -> usize {
                self.1 as usize
            }
            fn legal_actions(&self, out: &mut ActionList) {
                out.clear();
                if self.1 < 2 {
                    out.push(0);
                    out.push(1);
                }
            }
            fn apply(&mut self, a: Action) {
                self.0 = self.0 * 2 + a as u8;
                self.1 += 1;
            }
            fn is_terminal(&self) -> bool {
                self.1 == 2
            }
            fn scores(&self) -> Values {
                self.utilities()
            }
            fn utilities(&self) -> Values {
                // Only (1,1) is good for both; (1,0) is the worst.
                let u = [0.0, -0.9, -0.5, 0.8][self.0 as usize];
                [u, u]
            }
            fn hash(&self) -> u64 {
                self.0 as u64 * 4 + self.1 as u64
            }
            fn symmetric(&self, _: usize) -> Self {
                self.clone()
            }
            fn map_action(_: usize, a: Action) -> Action {
                a
            }
            fn format_action(a: Action) -> String {
                a.to_string()
            }
            fn parse_action(t: &str) -> Result<Action, crate::game::ParseActionError> {
                t.parse().map_err(|_| crate::game::ParseActionError { text: t.into(), expected: "0 or 1" })
            }
        }
        let mut m = Mcts::new(Coop(0, 0), MctsConfig::puct());
        m.search(&mut UniformEvaluator, &SearchLimits::playouts(1_000));
        assert_eq!(m.root_proven(), Some([0.8, 0.8]));
        assert_eq!(m.best_action(), Some(1));
    }
}
