//! Monte Carlo tree search over any [`Game`], with a pluggable [`Evaluator`].
//!
//! - Every node records its own player to move, and backs up a utility *per seat*: the mover
//!   of a node picks children by its own component. No sign flip is hard-coded, so players
//!   moving twice in a row, cooperative games and margin scores need no special case.
//! - Selection is PUCT (for nets: priors, first-play urgency) or UCT1 (the net-free baseline).
//! - MCTS-solver: terminal nodes carry exact values, and a node is proven as soon as one child
//!   gives its mover the best possible utility (1.0) or all its children are proven.
//! - The tree lives in one flat arena of words (see `node` and `slot` below): a node's children
//!   side by side, a child getting its statistics only once selection first picks it, no
//!   allocation per playout. [`Mcts::advance`] keeps the subtree of the move played.
//! - Leaf evaluation is split in two calls ([`Mcts::select_leaf`], [`Mcts::expand_leaf`]) so that
//!   a caller can interleave the searches of many games (self-play); [`Mcts::search`] is the
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
    /// The tree never grows past this many nodes, nor its arena past this many bytes (one
    /// more playout's worth at most); search stops when it is full.
    pub max_nodes: usize,
    pub max_bytes: usize,
    /// Stop searching as soon as the root's value is proven.
    pub stop_when_proven: bool,
    /// A node below the root lists only this many of its actions, those of highest prior,
    /// until all of them have been tried; then it is evaluated again and lists them all. Most
    /// nodes are leaves seen once, so a tree under a memory cap holds several times more
    /// positions when a game has many actions (`usize::MAX`: every node lists all).
    pub kept_candidates: usize,
}

impl MctsConfig {
    /// UCT1 with random rollouts: the net-free baseline bot.
    pub fn uct() -> Self {
        MctsConfig { selection: Selection::Uct { c: 1.0 }, max_nodes: 4_000_000, max_bytes: crate::memory::tree_bytes(), stop_when_proven: true, kept_candidates: usize::MAX }
    }
    /// PUCT for net-guided search.
    pub fn puct() -> Self {
        MctsConfig { selection: Selection::Puct { c: 1.5, fpu_reduction: 0.2 }, max_nodes: 4_000_000, max_bytes: crate::memory::tree_bytes(), stop_when_proven: true, kept_candidates: usize::MAX }
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

/// No node: a child not expanded yet, a tree without a root expansion.
const NO_NODE: u32 = u32::MAX;

/// The tree is one arena of words. An expanded node is a header and a chunk of slots, side by
/// side, plus a list of candidates elsewhere:
///
/// - the **candidates** are the node's legal actions with their priors, as the evaluation
///   gave them, never moved (or only the likeliest, [`MctsConfig::kept_candidates`], until
///   they have all been tried: then a new list of all of them replaces the old);
/// - a **slot** holds a child that selection has reached: its statistics and the node of its
///   own children. Children get a slot only when first chosen. An unvisited child's PUCT score
///   is `fpu + c * sqrt(N) * prior`, so among the unvisited ones only the highest prior can be
///   chosen: the header keeps that candidate, and selection compares the slots with it alone.
///   A Black Hole node has up to 465 children; selection reads the few it has visited.
///
/// Each slot field is a run of `capacity` words, so selection reads the values and exploration
/// terms of the slots from a few neighbouring cache lines, and the slot it picks leads straight
/// to the next node. A full chunk moves, twice as large, to the end of the arena.
mod node {
    /// Children (candidates), with `TRUNCATED` set while the node lists only its likeliest.
    pub const COUNT: usize = 0;
    pub const TRUNCATED: u32 = 1 << 31;
    /// Children with a slot, and the slots there is room for.
    pub const SLOTS: usize = 1;
    pub const CAPACITY: usize = 2;
    /// Where the candidates are: `PRIOR` then `ACTION`, `count` words each.
    pub const CANDIDATES: usize = 3;
    /// The unvisited candidate with the highest prior (`count` when every child has a slot).
    pub const BEST: usize = 4;
    pub const HEADER: usize = 5;

    /// Candidate runs.
    pub const PRIOR: usize = 0;
    /// The action (bits 0-11) and its slot plus one (bits 12-21; 0: none yet).
    pub const ACTION: usize = 1;
    pub const SLOT_SHIFT: u32 = 12;
}

/// The fields of a slot, each a run of `capacity` words after the node's header.
mod slot {
    /// `prior / (1 + visits)`, PUCT's exploration term without its node-wide factor (f32):
    /// kept up to date at backup, so that selection needs no division. Negative (`-prior`,
    /// sign bit set) while the child is unvisited.
    pub const EXPLORE: usize = 0;
    /// The child's mean utility for seat 0 and seat 1 (f32), its exact ones once proven.
    pub const Q0: usize = 1;
    pub const Q1: usize = 2;
    /// The action (bits 0-11), the candidate's index (bits 12-21), the seat to move at the
    /// child (bit 22), whether it is expanded (bit 23) and proven (bit 24).
    pub const INFO: usize = 3;
    /// The child's node, `super::NO_NODE` until it is expanded.
    pub const NODE: usize = 4;
    pub const VISITS: usize = 5;
    pub const FIELDS: usize = 6;

    /// Room for 4,096 actions (Zero Point One has 1,797).
    pub const ACTION_MASK: u32 = (1 << 12) - 1;
    pub const CANDIDATE_SHIFT: u32 = 12;
    pub const MOVER_BIT: u32 = 1 << 22;
    pub const EXPANDED_BIT: u32 = 1 << 23;
    pub const PROVEN_BIT: u32 = 1 << 24;
}

/// Room for this many slots once a node's first child is chosen; twice as many each time it
/// is full. Most nodes are leaves, expanded once and never descended into: they get no slots.
const FIRST_CAPACITY: usize = 4;
/// The most children a node may have: slot and candidate numbers fit in 10 bits.
const MAX_CHILDREN: usize = 1023;
/// The most words one playout adds to the arena: a chunk of slots moved to a larger one, and
/// a leaf's expansion.
const PLAYOUT_WORDS: usize = 2 * node::HEADER + (slot::FIELDS + 2) * MAX_CHILDREN;

/// A child: slot `index` of the node at `node` (whose chunk holds `capacity` slots).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    node: u32,
    capacity: u32,
    index: u32,
}

/// The root's own statistics (it has no slot).
#[derive(Clone, Debug)]
struct Root {
    value_sum: [f64; NUM_PLAYERS],
    visits: u32,
    node: u32,
    mover: usize,
    proven: Option<Values>,
}

impl Root {
    fn new(mover: usize) -> Self {
        Root { value_sum: [0.0; NUM_PLAYERS], visits: 0, node: NO_NODE, mover, proven: None }
    }
    fn mean(&self, player: usize) -> f32 {
        (self.value_sum[player] / self.visits as f64) as f32
    }
}

/// What search knows about one child of the root.
#[derive(Clone, Copy, Debug)]
pub struct ChildInfo {
    pub action: Action,
    pub prior: f32,
    pub visits: u32,
    /// Mean utilities of the child's subtree (zero when unvisited; exact once proven).
    pub q: Values,
    pub proven: Option<Values>,
}

pub struct Mcts<G: Game> {
    config: MctsConfig,
    root_state: G,
    root: Root,
    arena: Vec<u32>,
    /// Nodes in the tree: children reached at least once, and the root.
    nodes: usize,
    /// The children from the root's to the current leaf.
    path: Vec<Place>,
    leaf_state: G,
    leaf_legal: ActionList,
    leaf_pending: bool,
    priors: Vec<f32>,
    /// The arena of the previous tree, kept (cleared) for the next re-rooting: freeing a tree of
    /// hundreds of thousands of nodes inside a timed turn can cost more than the safety margin.
    spare: Vec<u32>,
}

/// A run of words holding f32 bits, as f32s.
#[inline]
fn as_f32(words: &[u32]) -> &[f32] {
    // SAFETY: u32 and f32 have the same size and alignment, and every bit pattern is an f32.
    unsafe { std::slice::from_raw_parts(words.as_ptr() as *const f32, words.len()) }
}

impl<G: Game> Mcts<G> {
    pub fn new(state: G, config: MctsConfig) -> Self {
        assert!(G::NUM_ACTIONS <= slot::ACTION_MASK as usize + 1, "{}: the tree stores actions in 12 bits", G::NAME);
        let mut m = Mcts {
            config,
            root_state: state.clone(),
            root: Root::new(state.to_move()),
            arena: Vec::new(),
            nodes: 1,
            path: Vec::new(),
            leaf_state: state.clone(),
            leaf_legal: ActionList::new(),
            leaf_pending: false,
            priors: Vec::new(),
            spare: Vec::new(),
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
        self.arena.clear();
        self.root = Root::new(state.to_move());
        self.nodes = 1;
        self.root_state = state;
        self.leaf_pending = false;
    }

    // Reading and writing the arena.

    #[inline]
    fn header(&self, node: u32, field: usize) -> u32 {
        self.arena[node as usize + field]
    }

    #[inline]
    fn set_header(&mut self, node: u32, field: usize, value: u32) {
        self.arena[node as usize + field] = value;
    }

    /// The candidates `node` lists.
    #[inline]
    fn listed(&self, node: u32) -> u32 {
        let n = self.header(node, node::COUNT);
        #[cfg(not(every_action_listed))]
        let n = n & !node::TRUNCATED;
        n
    }

    /// Whether `node` lists only some of its actions.
    fn truncated(&self, node: u32) -> bool {
        self.header(node, node::COUNT) & node::TRUNCATED != 0
    }

    #[inline]
    fn at(place: Place, field: usize) -> usize {
        place.node as usize + node::HEADER + field * place.capacity as usize + place.index as usize
    }

    #[inline]
    fn get(&self, place: Place, field: usize) -> u32 {
        self.arena[Self::at(place, field)]
    }

    #[inline]
    fn set(&mut self, place: Place, field: usize, value: u32) {
        let at = Self::at(place, field);
        self.arena[at] = value;
    }

    /// Candidate run `run` of `node`, entry `k`.
    #[inline]
    fn candidate(&self, node: u32, run: usize, k: u32) -> u32 {
        let count = self.listed(node) as usize;
        self.arena[self.header(node, node::CANDIDATES) as usize + run * count + k as usize]
    }

    #[inline]
    fn set_candidate(&mut self, node: u32, run: usize, k: u32, value: u32) {
        let count = self.listed(node) as usize;
        let at = self.header(node, node::CANDIDATES) as usize + run * count + k as usize;
        self.arena[at] = value;
    }

    fn candidate_prior(&self, node: u32, k: u32) -> f32 {
        f32::from_bits(self.candidate(node, node::PRIOR, k))
    }

    /// Slot `index` of `node`.
    #[inline]
    fn place(&self, node: u32, index: u32) -> Place {
        Place { node, capacity: self.header(node, node::CAPACITY), index }
    }

    /// The slot of candidate `k` of `node`, if it has one.
    fn slot_of(&self, node: u32, k: u32) -> Option<Place> {
        let slot = self.candidate(node, node::ACTION, k) >> node::SLOT_SHIFT;
        (slot > 0).then(|| self.place(node, slot - 1))
    }

    /// The node of the child at `place` (`None` for the root), `NO_NODE` when not expanded,
    /// and the seat to move there.
    #[inline]
    fn node_of(&self, place: Option<Place>) -> (u32, usize) {
        match place {
            None => (self.root.node, self.root.mover),
            Some(p) => {
                let info = self.get(p, slot::INFO);
                let node = if info & slot::EXPANDED_BIT != 0 { self.get(p, slot::NODE) } else { NO_NODE };
                (node, (info & slot::MOVER_BIT != 0) as usize)
            }
        }
    }

    fn proven_at(&self, place: Option<Place>) -> Option<Values> {
        match place {
            None => self.root.proven,
            Some(p) => (self.get(p, slot::INFO) & slot::PROVEN_BIT != 0).then(|| [f32::from_bits(self.get(p, slot::Q0)), f32::from_bits(self.get(p, slot::Q1))]),
        }
    }

    fn set_proven(&mut self, place: Option<Place>, exact: Values) {
        let p = match place {
            Some(v) => v,
            None => {
                self.root.proven = Some(exact);
                return;
            }
        };
        let info = self.get(p, slot::INFO);
        self.set(p, slot::INFO, info | slot::PROVEN_BIT);
        self.set(p, slot::Q0, exact[0].to_bits());
        self.set(p, slot::Q1, exact[1].to_bits());
    }

    /// A new node for `count` candidates found at `candidates`, without slots yet. Its best
    /// candidate is found here.
    fn new_node(&mut self, count: usize, candidates: u32) -> u32 {
        let node = self.arena.len() as u32;
        self.arena.resize(self.arena.len() + node::HEADER, 0);
        self.set_header(node, node::COUNT, count as u32);
        self.set_header(node, node::CANDIDATES, candidates);
        self.update_best(node);
        node
    }

    /// Finds the unvisited candidate of `node` with the highest prior (the first of equals).
    fn update_best(&mut self, node: u32) {
        let count = self.listed(node) as usize;
        let start = self.header(node, node::CANDIDATES) as usize;
        let priors = as_f32(&self.arena[start..start + count]);
        let actions = &self.arena[start + count..start + 2 * count];
        let mut best = count;
        let mut top = f32::NEG_INFINITY;
        for k in 0..count {
            if actions[k] >> node::SLOT_SHIFT == 0 && (priors[k] > top || best == count) {
                top = priors[k];
                best = k;
            }
        }
        self.set_header(node, node::BEST, best as u32);
    }

    /// Gives candidate `k` of the node at `node` a slot (the node's chunk moves when full:
    /// `owner` is the slot that points to it, `None` for the root). Returns the slot.
    fn give_slot(&mut self, mut node: u32, owner: Option<Place>, k: u32) -> Place {
        let slots = self.header(node, node::SLOTS);
        let capacity = self.header(node, node::CAPACITY);
        if slots == capacity {
            node = self.grow(node, owner);
        }
        let place = self.place(node, slots);
        let prior = self.candidate_prior(node, k);
        let action = self.candidate(node, node::ACTION, k) & slot::ACTION_MASK;
        self.set(place, slot::EXPLORE, (-prior).to_bits());
        self.set(place, slot::Q0, 0);
        self.set(place, slot::Q1, 0);
        self.set(place, slot::INFO, action | k << slot::CANDIDATE_SHIFT);
        self.set(place, slot::NODE, NO_NODE);
        self.set(place, slot::VISITS, 0);
        let entry = self.candidate(node, node::ACTION, k);
        self.set_candidate(node, node::ACTION, k, entry | (slots + 1) << node::SLOT_SHIFT);
        self.set_header(node, node::SLOTS, slots + 1);
        if self.header(node, node::BEST) == k {
            self.update_best(node);
        }
        place
    }

    /// Moves the node at `node` to the end of the arena with room for more slots (the first
    /// ones, or twice as many); returns where.
    fn grow(&mut self, node: u32, owner: Option<Place>) -> u32 {
        let count = self.listed(node) as usize;
        let (slots, capacity) = (self.header(node, node::SLOTS) as usize, self.header(node, node::CAPACITY) as usize);
        let wider = if capacity == 0 { FIRST_CAPACITY } else { 2 * capacity }.min(count).max(1);
        self.make_room(node::HEADER + slot::FIELDS * wider);
        let moved = self.arena.len();
        self.arena.resize(moved + node::HEADER + slot::FIELDS * wider, 0);
        self.arena.copy_within(node as usize..node as usize + node::HEADER, moved);
        for field in 0..slot::FIELDS {
            let from = node as usize + node::HEADER + field * capacity;
            self.arena.copy_within(from..from + slots, moved + node::HEADER + field * wider);
        }
        self.arena[moved + node::CAPACITY] = wider as u32;
        match owner {
            None => self.root.node = moved as u32,
            Some(p) => self.set(p, slot::NODE, moved as u32),
        }
        moved as u32
    }

    /// Makes room for `extra` more words in the arena: twice its capacity, or what is needed,
    /// but never past the playout that fills it ([`MctsConfig::max_bytes`]).
    fn make_room(&mut self, extra: usize) {
        let needed = self.arena.len() + extra;
        if needed > self.arena.capacity() {
            let most = (self.config.max_bytes / 4).saturating_add(PLAYOUT_WORDS);
            let capacity = (2 * self.arena.capacity()).max(1 << 12).min(most).max(needed);
            self.arena.reserve_exact(capacity - self.arena.len());
        }
    }

    /// Plays `action` at the root, keeping what was learnt about the position it leads to.
    pub fn advance(&mut self, action: Action) {
        self.advance_path(&[action]);
    }

    /// Plays several actions at the root and keeps the subtree they lead to. Re-rooting once
    /// over several plies copies only the final subtree, which is much smaller than the
    /// intermediate one (the bot's own move keeps most of the tree; the reply cuts it down).
    pub fn advance_path(&mut self, actions: &[Action]) {
        let mut place = None;
        let mut next = self.root_state.clone();
        for (i, &action) in actions.iter().enumerate() {
            let found = self.child_place(place, action);
            next.apply(action);
            match found {
                Some(child) => place = Some(child),
                None => {
                    for &rest in &actions[i + 1..] {
                        next.apply(rest);
                    }
                    self.reset(next);
                    return;
                }
            }
        }
        // A position decided before the end (`Game::decided_utilities`) was a leaf of the old
        // tree; as the root it still needs a move, so the search starts there afresh.
        if let Some(p) = place {
            if self.node_of(Some(p)).0 == NO_NODE {
                self.reset(next);
                return;
            }
            self.compact_from(p);
        }
        self.root_state = next;
        self.leaf_pending = false;
    }

    /// The visited child of the node at `place` that `action` leads to.
    fn child_place(&self, place: Option<Place>, action: Action) -> Option<Place> {
        let (node, _) = self.node_of(place);
        if node == NO_NODE {
            return None;
        }
        let count = self.listed(node);
        let k = (0..count).find(|&k| self.candidate(node, node::ACTION, k) & slot::ACTION_MASK == action as u32)?;
        self.slot_of(node, k).filter(|&p| self.get(p, slot::VISITS) > 0)
    }

    /// Rebuilds the arena with the child at `place` as the root and only its subtree.
    fn compact_from(&mut self, place: Place) {
        let (node, mover) = self.node_of(Some(place));
        let visits = self.get(place, slot::VISITS);
        let means = [f32::from_bits(self.get(place, slot::Q0)), f32::from_bits(self.get(place, slot::Q1))];
        let proven = self.proven_at(Some(place));
        let mut arena = std::mem::take(&mut self.spare);
        arena.clear();
        // Under a memory limit the copy never grows past the tree's own size (the subtree is
        // smaller); without one, its capacity follows what it holds.
        if self.config.max_bytes != usize::MAX {
            arena.reserve_exact(self.arena.len());
        }
        let mut nodes = 1;
        // (old node, where its copy's offset is to be written: None for the root).
        let mut queue: Vec<(u32, Option<usize>)> = vec![(node, None)];
        let mut root_node = NO_NODE;
        while let Some((old, owner)) = queue.pop() {
            let count = self.listed(old) as usize;
            let (slots, capacity) = (self.header(old, node::SLOTS) as usize, self.header(old, node::CAPACITY) as usize);
            let new = arena.len();
            arena.extend_from_slice(&self.arena[old as usize..old as usize + node::HEADER + slot::FIELDS * capacity]);
            let candidates = self.header(old, node::CANDIDATES) as usize;
            arena[new + node::CANDIDATES] = arena.len() as u32;
            arena.extend_from_slice(&self.arena[candidates..candidates + 2 * count]);
            match owner {
                Some(at) => arena[at] = new as u32,
                None => root_node = new as u32,
            }
            for i in 0..slots {
                let p = Place { node: old, capacity: capacity as u32, index: i as u32 };
                nodes += (self.get(p, slot::VISITS) > 0) as usize;
                if self.get(p, slot::INFO) & slot::EXPANDED_BIT != 0 {
                    queue.push((self.get(p, slot::NODE), Some(new + node::HEADER + slot::NODE * capacity + i)));
                }
            }
        }
        // The root's mean is kept as sums: mean times visits.
        self.root = Root { value_sum: [means[0] as f64 * visits as f64, means[1] as f64 * visits as f64], visits, node: root_node, mover, proven };
        self.nodes = nodes;
        // The old arena becomes the spare one: cleared, its memory kept.
        self.spare = std::mem::replace(&mut self.arena, arena);
        self.spare.clear();
    }

    pub fn tree_size(&self) -> usize {
        self.nodes
    }

    /// Bytes the tree's arena holds.
    pub fn tree_bytes(&self) -> usize {
        self.arena.len() * 4
    }

    /// Length of the last playout's path (root included).
    pub fn last_depth(&self) -> usize {
        self.path.len() + 1
    }

    /// Whether the tree has reached [`MctsConfig::max_nodes`], or its arena cannot take one
    /// more playout within [`MctsConfig::max_bytes`].
    pub fn is_full(&self) -> bool {
        self.nodes >= self.config.max_nodes || self.arena.len().saturating_add(PLAYOUT_WORDS) > self.config.max_bytes / 4
    }

    /// Playouts that went through the root (including those kept from earlier turns).
    pub fn root_visits(&self) -> u32 {
        self.root.visits
    }

    /// Mean utilities at the root, or its exact value once proven.
    pub fn root_value(&self) -> Values {
        let root = &self.root;
        root.proven.unwrap_or_else(|| if root.visits == 0 { [0.0; NUM_PLAYERS] } else { [root.mean(0), root.mean(1)] })
    }

    pub fn root_proven(&self) -> Option<Values> {
        self.root.proven
    }

    /// The root's actions in the order the evaluation saw them, with what the search knows of
    /// each.
    pub fn root_children(&self) -> Vec<ChildInfo> {
        let node = self.root.node;
        if node == NO_NODE {
            return Vec::new();
        }
        (0..self.listed(node))
            .map(|k| {
                let action = (self.candidate(node, node::ACTION, k) & slot::ACTION_MASK) as Action;
                let prior = self.candidate_prior(node, k);
                match self.slot_of(node, k) {
                    None => ChildInfo { action, prior, visits: 0, q: [0.0; NUM_PLAYERS], proven: None },
                    Some(p) => {
                        let visits = self.get(p, slot::VISITS);
                        let q = [f32::from_bits(self.get(p, slot::Q0)), f32::from_bits(self.get(p, slot::Q1))];
                        ChildInfo { action, prior, visits, q: if visits > 0 { q } else { [0.0; NUM_PLAYERS] }, proven: self.proven_at(Some(p)) }
                    }
                }
            })
            .collect()
    }

    /// The move to play: a proven best move when there is one, else the most visited child
    /// that is not a proven loss (ties broken by mean value).
    pub fn best_action(&self) -> Option<Action> {
        let mover = self.root.mover;
        let children = self.root_children();
        if let Some(exact) = self.root.proven {
            return children
                .iter()
                .filter(|c| c.proven.map_or(false, |v| v[mover] >= exact[mover]))
                .max_by_key(|c| c.visits)
                .map(|c| c.action);
        }
        let proven_loss = |c: &ChildInfo| c.proven.map_or(false, |v| v[mover] <= -BEST_UTILITY);
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
            // The clock is read every fourth playout: a read costs as much as a tenth of a
            // fast playout, and four playouts last microseconds.
            if limits.playouts.map_or(false, |n| playouts >= n)
                || (playouts % 4 == 0 && limits.deadline.map_or(false, |d| Instant::now() >= d))
                || (self.config.stop_when_proven && self.root.proven.is_some())
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
        SearchStats { playouts, tree_nodes: self.nodes, elapsed: start.elapsed() }
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
        if let Some(exact) = self.root.proven {
            self.backup(exact, false);
            return None;
        }
        if self.root.node == NO_NODE {
            // The root is never terminal, nor taken as decided: the search names a move there.
            return self.pending_evaluation();
        }
        // A kept subtree's root: every action is a candidate for the move to play. (The
        // exporter leaves the lines so marked out of games whose nodes list every action.)
        #[cfg(not(every_action_listed))]
        if self.truncated(self.root.node) {
            return self.pending_evaluation();
        }
        if let Some(k) = root_child {
            assert!(k < self.listed(self.root.node) as usize, "root child {k} out of range");
        }
        let (mut node, mut mover) = (self.root.node, self.root.mover);
        let (mut visits, mut mean) = (self.root.visits, self.root.mean(mover));
        let mut owner: Option<Place> = None;
        loop {
            #[cfg(not(every_action_listed))]
            if !self.path.is_empty() && self.truncated(node) && self.header(node, node::BEST) == self.listed(node) {
                return self.pending_evaluation();
            }
            let place = match root_child.filter(|_| self.path.is_empty()).map(|k| k as u32) {
                Some(k) => match self.slot_of(node, k) {
                    Some(p) => p,
                    None => self.give_slot(node, owner, k),
                },
                None => self.select_child(node, owner, mover, visits, mean),
            };
            self.path.push(place);
            let info = self.get(place, slot::INFO);
            if info & slot::EXPANDED_BIT != 0 {
                // The child's node is the next level's first read: fetch it while the move
                // is applied.
                prefetch(&self.arena, self.get(place, slot::NODE) as usize);
            }
            self.leaf_state.apply((info & slot::ACTION_MASK) as Action);
            if info & slot::PROVEN_BIT != 0 {
                let exact = self.proven_at(Some(place)).unwrap();
                self.backup(exact, false);
                return None;
            }
            if info & slot::EXPANDED_BIT == 0 {
                if self.get(place, slot::VISITS) == 0 {
                    self.nodes += 1;
                }
                if let Some(exact) = self.leaf_state.decided_utilities() {
                    self.set_proven(Some(place), exact);
                    self.backup(exact, true);
                    return None;
                }
                return self.pending_evaluation();
            }
            visits = self.get(place, slot::VISITS);
            mover = (info & slot::MOVER_BIT != 0) as usize;
            mean = f32::from_bits(self.get(place, slot::Q0 + mover));
            node = self.get(place, slot::NODE);
            owner = Some(place);
        }
    }

    /// Asks for the evaluation of the position the path ends at: a leaf to expand, or a node
    /// whose listed actions have all been tried, to list them all.
    fn pending_evaluation(&mut self) -> Option<(&G, &[Action])> {
        self.leaf_state.search_actions(&mut self.leaf_legal);
        self.leaf_pending = true;
        Some((&self.leaf_state, self.leaf_legal.as_slice()))
    }

    /// The leaf waiting for [`Mcts::expand_leaf`], if any, and whether it is the root.
    pub fn pending_leaf(&self) -> Option<(&G, &[Action], bool)> {
        self.leaf_pending.then(|| (&self.leaf_state, self.leaf_legal.as_slice(), self.path.is_empty()))
    }

    /// Completes the playout started by [`Mcts::select_leaf`]: `priors[i]` weighs the i-th
    /// legal action it returned, `values` is the leaf's utility for each seat.
    #[inline(never)]
    pub fn expand_leaf(&mut self, priors: &[f32], values: Values) {
        assert!(self.leaf_pending, "expand_leaf without a pending leaf");
        self.leaf_pending = false;
        let n = self.leaf_legal.len();
        debug_assert_eq!(priors.len(), n);
        assert!(n > 0 && n <= MAX_CHILDREN, "a leaf to expand has 1 to {MAX_CHILDREN} actions");
        let sum: f32 = priors.iter().sum();
        let uniform = !(sum > 0.0 && sum.is_finite());
        let mover = self.leaf_state.to_move();
        let prior = |i: usize| if uniform { 1.0 / n as f32 } else { priors[i] / sum };
        self.make_room(2 * n + node::HEADER);
        let candidates = self.arena.len();
        self.arena.extend((0..n).map(|i| prior(i).to_bits()));
        for i in 0..n {
            self.arena.push(self.leaf_legal[i] as u32);
        }
        // A node expanded before lists all its actions now that its listed ones were tried.
        #[cfg(not(every_action_listed))]
        if self.node_of(self.path.last().copied()).0 != NO_NODE {
            self.relist(candidates as u32, n);
            return self.backup(values, false);
        }
        #[cfg(not(every_action_listed))]
        let n = self.keep_likeliest(candidates, n);
        let node = self.new_node(n, candidates as u32);
        match self.path.last().copied() {
            None => {
                self.root.node = node;
                self.root.mover = mover;
            }
            Some(place) => {
                let info = self.get(place, slot::INFO);
                let info = info & !slot::MOVER_BIT | if mover == 1 { slot::MOVER_BIT } else { 0 } | slot::EXPANDED_BIT;
                self.set(place, slot::INFO, info);
                self.set(place, slot::NODE, node);
            }
        }
        self.backup(values, false);
    }

    /// Cuts the `n` candidates just written at `candidates` (the arena's end) to the
    /// [`MctsConfig::kept_candidates`] of highest prior, in the legal order, below the root.
    /// Returns the count for the node's header: `n`, or the count kept marked `TRUNCATED`.
    fn keep_likeliest(&mut self, candidates: usize, n: usize) -> usize {
        let kept = self.config.kept_candidates.max(1);
        if self.path.is_empty() || n <= kept {
            return n;
        }
        let (priors, actions) = self.arena[candidates..].split_at(n);
        let mut order = [0u16; MAX_CHILDREN];
        for (i, o) in order[..n].iter_mut().enumerate() {
            *o = i as u16;
        }
        let prior = |i: u16| f32::from_bits(priors[i as usize]);
        order[..n].select_nth_unstable_by(kept - 1, |&a, &b| prior(b).total_cmp(&prior(a)).then(a.cmp(&b)));
        order[..kept].sort_unstable();
        let mut listed = [0u32; 2 * MAX_CHILDREN];
        for (j, &i) in order[..kept].iter().enumerate() {
            listed[j] = priors[i as usize];
            listed[kept + j] = actions[i as usize];
        }
        self.arena.truncate(candidates);
        self.arena.extend_from_slice(&listed[..2 * kept]);
        (kept as u32 | node::TRUNCATED) as usize
    }

    /// Makes the `count` candidates at `candidates` (all the actions) the list of the node the
    /// path ends at, linked to the slots it has: the node's old list is left unused.
    fn relist(&mut self, candidates: u32, count: usize) {
        let place = self.path.last().copied();
        let (node, _) = self.node_of(place);
        let actions = candidates as usize + count;
        for index in 0..self.header(node, node::SLOTS) {
            let p = self.place(node, index);
            let info = self.get(p, slot::INFO);
            let action = info & slot::ACTION_MASK;
            let k = (0..count).find(|&k| self.arena[actions + k] == action).expect("a tried action is legal") as u32;
            self.arena[actions + k as usize] |= (index + 1) << node::SLOT_SHIFT;
            let info = info & !((MAX_CHILDREN as u32) << slot::CANDIDATE_SHIFT) | k << slot::CANDIDATE_SHIFT;
            self.set(p, slot::INFO, info);
        }
        self.set_header(node, node::COUNT, count as u32);
        self.set_header(node, node::CANDIDATES, candidates);
        self.update_best(node);
    }

    pub fn root_expanded(&self) -> bool {
        self.root.node != NO_NODE
    }

    /// The child selection picks at `node` (with `visits` visits and a mean of `mean` for its
    /// `mover`): one of its slots, or its best unvisited candidate, which then gets a slot.
    #[inline(never)]
    fn select_child(&mut self, node: u32, owner: Option<Place>, mover: usize, visits: u32, mean: f32) -> Place {
        let (slots, capacity) = (self.header(node, node::SLOTS) as usize, self.header(node, node::CAPACITY) as usize);
        let best = self.header(node, node::BEST);
        let run = |field: usize| {
            let start = node as usize + node::HEADER + field * capacity;
            &self.arena[start..start + slots]
        };
        let parent_visits = visits.max(1) as f32;
        let (q, explore) = (as_f32(run(slot::Q0 + mover)), as_f32(run(slot::EXPLORE)));
        let has_candidate = best < self.listed(node);
        let chosen = match self.config.selection {
            Selection::Puct { c, fpu_reduction } => {
                let (fpu, scale) = (mean - fpu_reduction, c * parent_visits.sqrt());
                let (index, top) = puct_argmax(q, explore, fpu, scale);
                // The best unvisited candidate: a slot of the same score stays first.
                if has_candidate && (slots == 0 || fpu + scale * self.candidate_prior(node, best) > top) { None } else { Some(index) }
            }
            Selection::Uct { c } => {
                // Unvisited children first.
                let visit_counts = run(slot::VISITS);
                match visit_counts.iter().position(|&v| v == 0) {
                    Some(i) => Some(i),
                    None if has_candidate => None,
                    None => {
                        let log_n = parent_visits.ln();
                        let mut best = 0;
                        let mut best_score = f32::NEG_INFINITY;
                        for i in 0..q.len() {
                            let score = q[i] + c * (log_n / visit_counts[i] as f32).sqrt();
                            if score > best_score {
                                best_score = score;
                                best = i;
                            }
                        }
                        Some(best)
                    }
                }
            }
        };
        match chosen {
            Some(i) => Place { node, capacity: capacity as u32, index: i as u32 },
            None => self.give_slot(node, owner, best),
        }
    }

    /// Adds `values` to every node of the path, then proves what a proven leaf settles.
    #[inline(never)]
    fn backup(&mut self, values: Values, leaf_proven: bool) {
        let root = &mut self.root;
        root.visits += 1;
        for p in 0..NUM_PLAYERS {
            root.value_sum[p] += values[p] as f64;
        }
        for k in 0..self.path.len() {
            let place = self.path[k];
            let visits = self.get(place, slot::VISITS) + 1;
            self.set(place, slot::VISITS, visits);
            let explore = f32::from_bits(self.get(place, slot::EXPLORE));
            // The first visit turns -prior into prior / 2; later ones scale it.
            let prior = if explore.is_sign_negative() { -explore } else { explore * visits as f32 };
            self.set(place, slot::EXPLORE, (prior / (1.0 + visits as f32)).to_bits());
            if self.get(place, slot::INFO) & slot::PROVEN_BIT == 0 {
                // Running means, in f32: a visit moves them by a share of 1 / visits.
                let rate = 1.0 / visits as f32;
                for (p, field) in [slot::Q0, slot::Q1].iter().copied().enumerate() {
                    let q = f32::from_bits(self.get(place, field));
                    self.set(place, field, (q + (values[p] - q) * rate).to_bits());
                }
            }
        }
        if leaf_proven {
            // The leaf is proven; try its ancestors, nearest first.
            for k in (0..self.path.len()).rev() {
                let place = if k == 0 { None } else { Some(self.path[k - 1]) };
                if !self.try_prove(place) {
                    break;
                }
            }
        }
    }

    /// Marks the node at `place` proven if one child gives its mover the best possible utility
    /// or all children are proven (then the value is the mover's best child).
    fn try_prove(&mut self, place: Option<Place>) -> bool {
        if self.proven_at(place).is_some() {
            return true;
        }
        let (node, mover) = self.node_of(place);
        if node == NO_NODE {
            return false;
        }
        let (slots, count) = (self.header(node, node::SLOTS), self.listed(node));
        let mut best: Option<Values> = None;
        let mut all_proven = slots == count;
        // Some of the node's actions are not listed yet.
        #[cfg(not(every_action_listed))]
        if self.truncated(node) {
            all_proven = false;
        }
        for i in 0..slots {
            match self.proven_at(Some(self.place(node, i))) {
                Some(v) if v[mover] >= BEST_UTILITY => {
                    self.set_proven(place, v);
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
            if let Some(v) = best {
                self.set_proven(place, v);
            }
        }
        all_proven
    }
}

/// Asks the CPU to bring `words[at..]` into the cache (a hint; nothing elsewhere).
#[inline(always)]
fn prefetch(words: &[u32], at: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(word) = words.get(at) {
            // SAFETY: a prefetch of a valid address has no effect but on the caches.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(word as *const u32 as *const i8) };
        }
    }
}

/// The child PUCT picks among a node's children, and its score: the first with the highest
/// `Q + scale * |explore|`, `fpu` standing in for the Q of unvisited children (a negative
/// `explore`). On x86-64 with AVX the same code runs compiled for 8-wide vectors (checked at
/// run time, [`crate::cpu`]); maxima and comparisons are exact, so both paths pick the same child.
#[inline]
fn puct_argmax(q: &[f32], explore: &[f32], fpu: f32, scale: f32) -> (usize, f32) {
    #[cfg(target_arch = "x86_64")]
    {
        if q.len() >= 16 && crate::cpu::level() >= crate::cpu::Cpu::Avx {
            // SAFETY: the CPU has been checked for the feature the function enables.
            return unsafe { puct_argmax_avx(q, explore, fpu, scale) };
        }
    }
    puct_argmax_portable(q, explore, fpu, scale)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn puct_argmax_avx(q: &[f32], explore: &[f32], fpu: f32, scale: f32) -> (usize, f32) {
    puct_argmax_portable(q, explore, fpu, scale)
}

#[inline(always)]
fn puct_argmax_portable(q: &[f32], explore: &[f32], fpu: f32, scale: f32) -> (usize, f32) {
    let n = q.len().min(explore.len());
    let (q, explore) = (&q[..n], &explore[..n]);
    let score = |i: usize| {
        let e = explore[i];
        if e.is_sign_negative() { fpu - scale * e } else { q[i] + scale * e }
    };
    if n < 16 {
        // Too few children for lanes to pay.
        let (mut top, mut index) = (f32::NEG_INFINITY, 0usize);
        for i in 0..n {
            let s = score(i);
            // Selects, not branches: which child wins is hard to predict.
            let better = s > top;
            top = if better { s } else { top };
            index = if better { i } else { index };
        }
        return (index, top);
    }
    // Eight lanes, each keeping the first of its highest scores; then the first of the lanes'.
    let mut best = [f32::NEG_INFINITY; 8];
    let mut at = [0u32; 8];
    let whole = n / 8 * 8;
    for base in (0..whole).step_by(8) {
        for j in 0..8 {
            let s = score(base + j);
            let better = s > best[j];
            best[j] = if better { s } else { best[j] };
            at[j] = if better { (base + j) as u32 } else { at[j] };
        }
    }
    let (mut top, mut index) = (f32::NEG_INFINITY, 0usize);
    for j in 0..8 {
        if best[j] > top || (best[j] == top && (at[j] as usize) < index) {
            top = best[j];
            index = at[j] as usize;
        }
    }
    for i in whole..n {
        let s = score(i);
        if s > top {
            top = s;
            index = i;
        }
    }
    (index, top)
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
    fn children_get_their_statistics_when_first_chosen_and_chunks_grow() {
        use crate::blackhole::BlackHole;
        let state = BlackHole::new_game(&mut Rng::new(3));
        let mut legal = ActionList::new();
        state.search_actions(&mut legal);
        // No first-play reduction: unvisited children score as well as visited ones, so the
        // search spreads over many of them.
        let config = MctsConfig { selection: Selection::Puct { c: 1.5, fpu_reduction: 0.0 }, ..MctsConfig::puct() };
        let mut m = Mcts::new(state.clone(), config);
        m.search(&mut UniformEvaluator, &SearchLimits::playouts(200));
        let children = m.root_children();
        assert_eq!(children.len(), legal.len(), "every legal action is a child");
        assert_eq!(children.iter().map(|c| c.action).collect::<Vec<_>>(), legal.to_vec(), "in the order the evaluation saw them");
        let visited = children.iter().filter(|c| c.visits > 0).count();
        assert!(visited > FIRST_CAPACITY && visited < legal.len(), "{visited} visited: the root's chunk grew, and not every child got a slot");
        assert_eq!(children.iter().map(|c| c.visits).sum::<u32>() + 1, m.root_visits());
        assert!((children.iter().map(|c| c.prior).sum::<f32>() - 1.0).abs() < 1e-4);
        // An unvisited child is its action and prior (two words): under half the memory of a
        // full record (a slot and a candidate, eight words) for every child.
        assert!(m.tree_bytes() < m.tree_size() * legal.len() * (slot::FIELDS + 2) * 4 / 2, "{} bytes for {} nodes", m.tree_bytes(), m.tree_size());
        // Tree reuse keeps a grown node's children.
        let best = m.best_action().unwrap();
        let kept = children.iter().find(|c| c.action == best).unwrap().visits;
        m.advance(best);
        assert_eq!(m.root_visits(), kept);
        assert_eq!(m.root_children().iter().map(|c| c.visits).sum::<u32>() + 1, kept);
    }

    #[test]
    fn a_child_chosen_from_outside_gets_a_slot() {
        let mut m = Mcts::new(c4("4 4"), MctsConfig::puct());
        m.search(&mut UniformEvaluator, &SearchLimits::playouts(1));
        let last = m.root_children().len() - 1;
        assert_eq!(m.root_children()[last].visits, 0);
        let (_, legal) = m.select_leaf_via(Some(last)).expect("a leaf below the chosen child");
        let priors = vec![1.0; legal.len()];
        m.expand_leaf(&priors, [0.0, 0.0]);
        assert_eq!(m.root_children()[last].visits, 1);
        assert_eq!(m.root_visits(), 2);
    }

    #[test]
    fn nodes_listing_their_likeliest_actions_still_prove_what_full_ones_do() {
        let truncated = |kept_candidates| MctsConfig { kept_candidates, ..MctsConfig::puct() };
        let mut race = Mcts::new(Race::new_game(&mut Rng::new(0)), truncated(1));
        race.search(&mut UniformEvaluator, &SearchLimits::playouts(10_000));
        assert_eq!((race.root_proven(), race.best_action()), (Some([1.0, -1.0]), Some(1)));
        // Proving the loss needs every reply below the root: lists widened to all seven.
        let mut lost = Mcts::new(c4("8 2 8 3 7 4"), truncated(2));
        lost.search(&mut UniformEvaluator, &SearchLimits::playouts(200_000));
        assert_eq!(lost.root_proven(), Some([-1.0, 1.0]));
    }

    #[test]
    fn listing_the_likeliest_actions_fits_more_positions_and_widens_nodes_tried_out() {
        use crate::blackhole::BlackHole;
        let state = BlackHole::new_game(&mut Rng::new(3));
        let spread = |kept_candidates| MctsConfig { selection: Selection::Puct { c: 1.5, fpu_reduction: 0.0 }, kept_candidates, ..MctsConfig::puct() };
        let (mut full, mut kept) = (Mcts::new(state.clone(), spread(usize::MAX)), Mcts::new(state, spread(4)));
        for m in [&mut full, &mut kept] {
            m.search(&mut UniformEvaluator, &SearchLimits::playouts(3_000));
        }
        let per_node = |m: &Mcts<BlackHole>| m.tree_bytes() / m.tree_size();
        assert!(per_node(&kept) * 4 < per_node(&full), "{} bytes a node, {} listing all", per_node(&kept), per_node(&full));
        assert_eq!(kept.root_children().len(), full.root_children().len(), "the root lists every action");
        // The most visited child had its four listed actions tried, then listed all of them.
        let best = kept.best_action().unwrap();
        let mut after = best_state(&kept, best);
        let mut legal = ActionList::new();
        after.search_actions(&mut legal);
        kept.advance(best);
        let children = kept.root_children();
        assert_eq!(children.iter().map(|c| c.action).collect::<Vec<_>>(), legal.to_vec());
        assert!(children.iter().filter(|c| c.visits > 0).count() > 4);
        // A kept root listing four actions lists them all after its next playout.
        let unwidened = (0..kept.listed(kept.root.node)).find_map(|k| kept.slot_of(kept.root.node, k).filter(|&p| kept.node_of(Some(p)).0 != NO_NODE && kept.truncated(kept.node_of(Some(p)).0)));
        let action = kept.get(unwidened.expect("a child listing four"), slot::INFO) & slot::ACTION_MASK;
        after.apply(action as Action);
        kept.advance(action as Action);
        assert_eq!(kept.root_children().len(), 4);
        kept.search(&mut UniformEvaluator, &SearchLimits::playouts(1));
        after.search_actions(&mut legal);
        assert_eq!(kept.root_children().len(), legal.len());
    }

    fn best_state<G: Game>(m: &Mcts<G>, action: Action) -> G {
        let mut state = m.root_state().clone();
        state.apply(action);
        state
    }

    /// A tree held to a few hundred kilobytes stops growing there, still names a move, and
    /// searches on after the move re-roots it.
    #[test]
    fn a_tree_stops_at_its_byte_limit_and_search_goes_on_after_a_move() {
        let limit = 300 << 10;
        let config = MctsConfig { max_bytes: limit, ..MctsConfig::uct() };
        let mut m = Mcts::new(c4(""), config);
        let mut evaluator = RolloutEvaluator::new(3);
        let stats = m.search(&mut evaluator, &SearchLimits::playouts(1_000_000));
        assert!(m.is_full() && stats.playouts < 1_000_000, "{} playouts", stats.playouts);
        assert!(m.tree_bytes() <= limit + PLAYOUT_WORDS * 4, "{} bytes", m.tree_bytes());
        assert!(m.arena.capacity() * 4 <= limit + PLAYOUT_WORDS * 4, "{} bytes reserved", m.arena.capacity() * 4);
        let action = m.best_action().expect("a move");
        m.advance(action);
        let after = m.search(&mut evaluator, &SearchLimits::playouts(1_000));
        assert!(after.playouts > 0 && m.tree_bytes() <= limit + PLAYOUT_WORDS * 4);
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
