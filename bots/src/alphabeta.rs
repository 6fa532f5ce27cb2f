//! Alpha-beta over the [`Game`] trait, for any game that gives a static evaluation: negamax
//! with a transposition table, iterative deepening on the clock (or a node budget), move
//! ordering by the table's move, the game's own guess and killer moves, and a quiescence search
//! over the game's noisy actions (captures) with stand-pat, as chess programs do. A seat that
//! moves twice in a row (a setup of several placements) is searched without a sign change.
//! What a quiet position is worth comes from a [`LeafValue`]: the game's own evaluation
//! ([`StaticValue`]), or a net's value ([`NetValue`]).

use crate::agent::Agent;
use crate::encode::Encode;
use crate::game::{Action, ActionList, Game, Player};
use crate::infer::{QuantNet, Workspace};
use crate::nn::Mlp;
use std::time::Instant;

/// A proven win for the mover scores this, less the plies to reach it.
pub const WIN_SCORE: i32 = 1_000_000;
const INFINITE: i32 = WIN_SCORE + 1_000;
const MAX_PLY: usize = 128;
/// Scores beyond this are proven wins (a win at ply `p` scores `WIN_SCORE - MAX_PLY - p`).
pub const PROVEN_SCORE: i32 = WIN_SCORE - 2 * MAX_PLY as i32;
/// Quiescence plies in which a mover that may not stand pat looks at every action.
const FULL_WIDTH_QUIESCENCE: usize = 1;

/// What alpha-beta needs of a game beyond its rules.
pub trait Evaluation: Game {
    /// The position's value for the mover, in the game's own units (well inside
    /// `WIN_SCORE`); asked of non-terminal positions only.
    fn static_value(&self) -> i32;
    /// The actions quiescence tries (captures), into `out` (cleared first).
    fn noisy_actions(&self, out: &mut ActionList);
    /// Whether standing pat is unsound here (the mover's king is attacked): quiescence then
    /// tries every action.
    fn must_act(&self) -> bool {
        false
    }
    /// A guess of how good `action` is here, for move ordering (bigger first).
    fn action_order(&self, _action: Action) -> i32 {
        0
    }
}

/// What a quiet, non-terminal position is worth to its mover, well inside `WIN_SCORE`.
pub trait LeafValue<G: Game> {
    fn value(&mut self, state: &G) -> i32;
}

/// The game's own evaluation.
pub struct StaticValue;

impl<G: Evaluation> LeafValue<G> for StaticValue {
    fn value(&mut self, state: &G) -> i32 {
        state.static_value()
    }
}

/// A net's value as the leaf value: the mover's utility in [-1, 1] times `scale`. One view,
/// the first-layer sums kept per mover.
pub struct NetValue {
    net: QuantNet,
    work: Workspace,
    features: Vec<f32>,
    scale: f32,
}

impl NetValue {
    pub fn new(net: &Mlp, scale: f32) -> Self {
        let net = QuantNet::new(net);
        let features = vec![0.0; net.num_features()];
        NetValue { net, work: Workspace::default(), features, scale }
    }
}

impl<G: Encode> LeafValue<G> for NetValue {
    fn value(&mut self, state: &G) -> i32 {
        self.features.fill(0.0);
        state.encode(&mut self.features);
        (self.net.value(&mut self.work, state.to_move(), &self.features)[0] * self.scale) as i32
    }
}

/// A score as the table keeps it: a win or loss counted from the stored position.
fn to_table(score: i32, ply: usize) -> i32 {
    if score > PROVEN_SCORE { score + ply as i32 } else if score < -PROVEN_SCORE { score - ply as i32 } else { score }
}

/// A kept score seen from a position `ply` plies below the root.
fn from_table(score: i32, ply: usize) -> i32 {
    if score > PROVEN_SCORE { score - ply as i32 } else if score < -PROVEN_SCORE { score + ply as i32 } else { score }
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    score: i32,
    best: Action,
    depth: i8,
    bound: u8,
}

const EXACT: u8 = 1;
const LOWER: u8 = 2;
const UPPER: u8 = 3;

/// The search and its table, kept between moves.
pub struct AlphaBeta<G: Evaluation, V: LeafValue<G> = StaticValue> {
    leaf: V,
    table: Vec<Entry>,
    killers: [[Action; 2]; MAX_PLY],
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    stopped: bool,
    root_best: Action,
    /// The best root move of the iteration under way, once one is searched, and its score.
    root_searched: Option<(Action, i32)>,
    _game: std::marker::PhantomData<G>,
}

/// What one search found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Found {
    pub action: Action,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
}

impl<G: Evaluation, V: LeafValue<G>> AlphaBeta<G, V> {
    /// A search valuing leaves by `leaf`, with a table of `2^table_bits` entries (16 bytes each).
    pub fn new(leaf: V, table_bits: u32) -> Self {
        AlphaBeta { leaf, table: vec![Entry::default(); 1 << table_bits], killers: [[Action::MAX; 2]; MAX_PLY], nodes: 0, node_limit: u64::MAX, deadline: None, stopped: false, root_best: 0, root_searched: None, _game: std::marker::PhantomData }
    }

    /// Iterative deepening from `state` (not terminal) until `deadline`, `node_limit` nodes or
    /// `max_depth` plies: the best action of the deepest iteration, where an iteration cut
    /// short counts from its first root move searched to the end (that move is the last
    /// iteration's best, searched first).
    pub fn search(&mut self, state: &G, deadline: Option<Instant>, node_limit: u64, max_depth: u32) -> Found {
        self.deadline = deadline;
        self.node_limit = node_limit;
        self.nodes = 0;
        self.stopped = false;
        self.killers = [[Action::MAX; 2]; MAX_PLY];
        let mut list = ActionList::new();
        state.search_actions(&mut list);
        let mut first = list.as_slice().to_vec();
        // Out of time before a root move is searched: the game's likeliest good move.
        self.order(state, &mut first, None, 0);
        let mut found = Found { action: first[0], ..Found::default() };
        if first.len() == 1 {
            return found;
        }
        for depth in 1..=max_depth.min(MAX_PLY as u32 - 1) {
            self.root_searched = None;
            let score = self.negamax(state, depth as i32, 0, -INFINITE, INFINITE);
            if self.stopped {
                if let Some((action, score)) = self.root_searched {
                    found = Found { action, score, depth, nodes: self.nodes };
                }
                break;
            }
            found = Found { action: self.root_best, score, depth, nodes: self.nodes };
            if score.abs() > PROVEN_SCORE {
                break;
            }
        }
        found.nodes = self.nodes;
        found
    }

    /// A win or loss is stored as its distance from the stored position, not from the root:
    /// the table outlives the search, and a position met again at another ply keeps its
    /// distance right.
    fn probe(&self, key: u64, ply: usize) -> Option<Entry> {
        let e = self.table[key as usize & (self.table.len() - 1)];
        (e.key == key && e.bound != 0).then(|| Entry { score: from_table(e.score, ply), ..e })
    }

    fn store(&mut self, key: u64, ply: usize, depth: i32, score: i32, bound: u8, best: Action) {
        let slot = key as usize & (self.table.len() - 1);
        if self.table[slot].key != key || depth >= self.table[slot].depth as i32 {
            self.table[slot] = Entry { key, score: to_table(score, ply), best, depth: depth as i8, bound };
        }
    }

    fn out_of_time(&mut self) -> bool {
        if self.nodes >= self.node_limit || (self.nodes % 1024 == 0 && self.deadline.map_or(false, |d| Instant::now() >= d)) {
            self.stopped = true;
        }
        self.stopped
    }

    /// The utility of a finished game for `mover`, a win sooner better than later.
    fn terminal_score(state: &G, mover: Player, ply: usize) -> i32 {
        let u = state.utilities()[mover];
        let scaled = (u * (WIN_SCORE - MAX_PLY as i32) as f32) as i32;
        if u > 0.0 { scaled - ply as i32 } else if u < 0.0 { scaled + ply as i32 } else { 0 }
    }

    /// The value of `child` for `mover`, searched from `ply`: `depth` more plies, or in
    /// quiescence (`quiet`) at quiescence ply `depth`.
    fn child_value(&mut self, child: &G, mover: Player, depth: i32, ply: usize, alpha: i32, beta: i32, quiet: bool) -> i32 {
        if child.is_terminal() {
            return Self::terminal_score(child, mover, ply);
        }
        let same = child.to_move() == mover;
        let (a, b) = if same { (alpha, beta) } else { (-beta, -alpha) };
        let v = if quiet { self.quiesce(child, ply, depth as usize, a, b) } else { self.negamax(child, depth, ply, a, b) };
        if same { v } else { -v }
    }

    /// Orders `actions` in place: the table's move, then the game's guess, then killers.
    fn order(&self, state: &G, actions: &mut [Action], first: Option<Action>, ply: usize) {
        let killers = self.killers[ply.min(MAX_PLY - 1)];
        let mut keyed: Vec<(i64, Action)> = actions
            .iter()
            .map(|&a| {
                let bonus = if Some(a) == first { 1 << 40 } else if killers.contains(&a) { 1 << 20 } else { 0 };
                (-(bonus + state.action_order(a) as i64), a)
            })
            .collect();
        keyed.sort_by_key(|k| k.0);
        for (slot, (_, a)) in actions.iter_mut().zip(keyed) {
            *slot = a;
        }
    }

    fn negamax(&mut self, state: &G, depth: i32, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiesce(state, ply, 0, alpha, beta);
        }
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        let key = state.hash();
        let entry = self.probe(key, ply);
        if let Some(e) = entry {
            if e.depth as i32 >= depth && ply > 0 {
                match e.bound {
                    EXACT => return e.score,
                    LOWER if e.score >= beta => return e.score,
                    UPPER if e.score <= alpha => return e.score,
                    _ => {}
                }
            }
        }
        let mover = state.to_move();
        let mut list = ActionList::new();
        state.search_actions(&mut list);
        let mut actions = list.as_slice().to_vec();
        self.order(state, &mut actions, entry.map(|e| e.best), ply);
        let (start_alpha, mut best, mut best_action) = (alpha, -INFINITE, actions[0]);
        for &a in &actions {
            let mut child = state.clone();
            child.apply(a);
            let v = self.child_value(&child, mover, depth - 1, ply + 1, alpha, beta, false);
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_action = a;
                if ply == 0 {
                    self.root_searched = Some((a, v));
                }
            }
            if v > alpha {
                alpha = v;
            }
            if alpha >= beta {
                let k = &mut self.killers[ply.min(MAX_PLY - 1)];
                if k[0] != a {
                    k[1] = k[0];
                    k[0] = a;
                }
                break;
            }
        }
        if ply == 0 {
            self.root_best = best_action;
        }
        let bound = if best <= start_alpha { UPPER } else if best >= beta { LOWER } else { EXACT };
        self.store(key, ply, depth, best, bound, best_action);
        best
    }

    /// The quiescence search's value of `state` (not terminal) for its mover, within
    /// `node_limit` nodes: what the position is worth once the captures are played out.
    pub fn quiescence_value(&mut self, state: &G, node_limit: u64) -> i32 {
        self.nodes = 0;
        self.node_limit = node_limit;
        self.deadline = None;
        self.stopped = false;
        let v = self.quiesce(state, 0, 0, -INFINITE, INFINITE);
        // Out of nodes: the static value stands.
        if self.stopped { self.leaf.value(state) } else { v }
    }

    /// Captures only (every action where the mover may not stand pat), until quiet.
    fn quiesce(&mut self, state: &G, ply: usize, qdepth: usize, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        let mover = state.to_move();
        let mut list = ActionList::new();
        let full_width = qdepth < FULL_WIDTH_QUIESCENCE && ply < MAX_PLY - 1 && state.must_act();
        let mut best = -INFINITE;
        if full_width {
            state.legal_actions(&mut list);
        } else {
            let stand = self.leaf.value(state);
            if stand >= beta || ply >= MAX_PLY - 1 {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
            state.noisy_actions(&mut list);
        }
        let mut actions = list.as_slice().to_vec();
        self.order(state, &mut actions, None, ply);
        for &a in &actions {
            let mut child = state.clone();
            child.apply(a);
            let v = self.child_value(&child, mover, qdepth as i32 + 1, ply + 1, alpha, beta, true);
            if self.stopped {
                return 0;
            }
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// Alpha-beta as a player: iterative deepening until the deadline, or a node budget per move.
pub struct AlphaBetaAgent<G: Evaluation, V: LeafValue<G> = StaticValue> {
    search: AlphaBeta<G, V>,
    node_budget: Option<u64>,
    last: Found,
}

impl<G: Evaluation, V: LeafValue<G>> AlphaBetaAgent<G, V> {
    pub fn new(leaf: V, table_bits: u32, node_budget: Option<u64>) -> Self {
        AlphaBetaAgent { search: AlphaBeta::new(leaf, table_bits), node_budget, last: Found::default() }
    }
}

impl<G: Evaluation, V: LeafValue<G>> Agent<G> for AlphaBetaAgent<G, V> {
    fn choose(&mut self, state: &G, deadline: Option<Instant>) -> Action {
        // With neither a deadline nor a budget, a fixed depth keeps the move finite.
        let max_depth = if deadline.is_none() && self.node_budget.is_none() { 4 } else { MAX_PLY as u32 };
        self.last = self.search.search(state, deadline, self.node_budget.unwrap_or(u64::MAX), max_depth);
        self.last.action
    }

    fn last_report(&self) -> String {
        format!("alpha-beta depth {} score {} nodes {}", self.last.depth, self.last.score, self.last.nodes)
    }

    fn last_playouts(&self) -> Option<u64> {
        Some(self.last.nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{ParseActionError, NUM_PLAYERS};
    use crate::rng::Rng;

    /// Nim with one pile: take 1 to 3 stones; who takes the last wins. A pile that is a
    /// multiple of 4 is lost for the mover. Red (seat 0) takes twice on its first turn, so the
    /// search meets a seat moving twice in a row.
    #[derive(Clone, Debug)]
    struct Nim {
        pile: u8,
        taken: u8,
    }

    impl Game for Nim {
        const NAME: &'static str = "nim";
        const NUM_ACTIONS: usize = 3;
        const MAX_GAME_LENGTH: usize = 64;
        const NUM_SYMMETRIES: usize = 1;
        fn new_game(_: &mut Rng) -> Self {
            Nim { pile: 21, taken: 0 }
        }
        fn to_move(&self) -> Player {
            // Turns 0 and 1 are Red's; then the seats alternate.
            if self.taken < 2 { 0 } else { (self.taken as usize - 1) % 2 }
        }
        fn legal_actions(&self, out: &mut ActionList) {
            out.clear();
            for a in 0..3u16.min(self.pile as u16) {
                out.push(a);
            }
        }
        fn apply(&mut self, action: Action) {
            self.pile -= action as u8 + 1;
            self.taken += 1;
        }
        fn is_terminal(&self) -> bool {
            self.pile == 0
        }
        fn scores(&self) -> [f32; NUM_PLAYERS] {
            let last = if self.taken < 3 { 0 } else { (self.taken as usize - 2) % 2 };
            std::array::from_fn(|p| (p == last) as u8 as f32)
        }
        fn utilities(&self) -> [f32; NUM_PLAYERS] {
            self.scores().map(|s| 2.0 * s - 1.0)
        }
        fn hash(&self) -> u64 {
            (self.pile as u64) << 8 | self.taken.min(3) as u64 | ((self.taken as u64 % 2) << 4)
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
        fn parse_action(text: &str) -> Result<Action, ParseActionError> {
            Err(ParseActionError { text: text.into(), expected: "1 to 3" })
        }
    }

    impl Evaluation for Nim {
        fn static_value(&self) -> i32 {
            0
        }
        fn noisy_actions(&self, out: &mut ActionList) {
            out.clear();
        }
    }

    #[test]
    fn finds_the_winning_take_and_the_sure_loss() {
        let mut search = AlphaBeta::new(StaticValue, 10);
        // After Red's double turn (two stones, then one: 18 left), Blue to move: take 2.
        let mut s = Nim::new_game(&mut Rng::new(0));
        s.apply(1);
        assert_eq!(s.to_move(), 0, "Red moves again");
        s.apply(0);
        assert_eq!((s.pile, s.to_move()), (18, 1));
        let found = search.search(&s, None, u64::MAX, 20);
        assert_eq!(found.action, 1, "18 - 2 = 16, a multiple of 4");
        assert!(found.score > PROVEN_SCORE, "a proven win: {found:?}");
        // On 16 every take loses.
        let mut lost = s.clone();
        lost.apply(1);
        assert!(search.search(&lost, None, u64::MAX, 20).score < -PROVEN_SCORE);
        // Mid-turn: Red, taking its second time from 19, wins by leaving 16.
        let mut red = Nim::new_game(&mut Rng::new(0));
        red.apply(1);
        let found = search.search(&red, None, u64::MAX, 30);
        assert_eq!((found.action, found.score > 0), (2, true), "{found:?}");
    }
}
