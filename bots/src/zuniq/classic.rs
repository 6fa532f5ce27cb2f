//! The classic (net-free) Zuniq bot, after what the CodeCup 2021 winner published: Monte Carlo
//! tree search with RAVE, an MCTS-solver, the project's exact endgame search, claims once the
//! win is proven, and a clock plan that spends the time where the game is decided.
//!
//! - **Playouts** run on a light copy of the position (drawn segments, closed cells, taken
//!   sizes, the open sides of the cells kept up to date segment by segment) and draw uniformly
//!   random legal segments by rejection: a random candidate is tried, and only a segment that
//!   cuts the last path of a region to the border needs a flood fill; one that would close a
//!   zone of a taken size is set aside for this turn. The player who finds no segment loses.
//! - **RAVE**: segments have no colour, so every segment drawn after a node in a simulation, by
//!   either player, counts as an all-moves-as-first move of that node's mover: its AMAF
//!   statistics get the simulation's result for that mover. A child's value blends its own
//!   mean with its AMAF mean, the AMAF weight fading as its own visits grow.
//! - **MCTS-solver**: a position whose mover has no legal segment is lost for that mover; a
//!   node with a child lost for its mover is won, one whose children all win for their mover
//!   is lost. A proven root ends the search.
//! - **Exact endgame**: from [`SOLVER_LEGAL`] legal segments the search gets the first part of
//!   the move's time and ranks the moves, then [`Solver`] tries them in that order; a proven
//!   win is played and claimed (`!`), an unfinished solve still rules out the moves it proved
//!   lost.
//! - **Clock**: the game is planned as [`PLANNED_GAME`]; moves from [`DECISIVE_LEGAL`] legal
//!   segments, where the game is won or lost, get [`DECISIVE_PACE`] even shares, earlier moves
//!   [`OPENING_PACE`].

use super::light::Position;
use super::{Zuniq, SEGMENTS};
use crate::agent::Agent;
use crate::classic::{Classic, RootStatistics, Teacher};
use crate::game::{Action, ActionList, Game};
use crate::rng::Rng;
use crate::solver::{Outcome, Solver, WinLossSolver};
use std::time::Instant;

/// The exact solver joins in from this many legal segments.
pub const SOLVER_LEGAL: usize = 32;
/// Its share of a move's time there, after the tree search has ranked the moves.
pub const SOLVER_SHARE: f64 = 0.8;
/// Solver nodes per move when moves have a playout budget instead of a deadline.
pub const SOLVER_NODES: u64 = 200_000;
/// Moves with at most this many legal segments decide the game ...
pub const DECISIVE_LEGAL: usize = 30;
/// ... and get this many even shares of the clock ...
pub const DECISIVE_PACE: f64 = 3.0;
/// ... where earlier moves get this many.
pub const OPENING_PACE: f64 = 0.5;
/// The game the clock is split over: actions of both players, own moves in reserve.
pub const PLANNED_GAME: (usize, u32) = (32, 2);

/// Search settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RaveConfig {
    /// UCT exploration constant.
    pub exploration: f32,
    /// RAVE bias `b`: the AMAF weight is `ñ / (n + ñ + 4 b² n ñ)`.
    pub rave_bias: f32,
    /// Value of a child with no visit and no AMAF statistics yet.
    pub first_play: f32,
    /// Visits of an edge before its child becomes a tree node.
    pub expand_after: u32,
    /// The tree never holds more edges than this (memory), it is restarted at the next move.
    pub max_edges: usize,
    /// Weight of the exploration bonus of a segment that closes a zone, per segment it takes
    /// out of play (its own and the zone's inner ones): `w * impact * sqrt(N) / (n + ñ + 1)`.
    pub impact_weight: f32,
    /// The exact solver joins in from this many legal segments, with this share of the time.
    pub solver_legal: usize,
    pub solver_share: f64,
    /// Moves with at most this many legal segments get `decisive_pace` even shares of the
    /// clock, earlier ones `opening_pace`.
    pub decisive_legal: usize,
    pub decisive_pace: f64,
    pub opening_pace: f64,
}

impl Default for RaveConfig {
    fn default() -> Self {
        RaveConfig {
            exploration: 0.25,
            rave_bias: 0.05,
            first_play: 1.0,
            expand_after: 8,
            max_edges: 1_200_000,
            impact_weight: 0.2,
            solver_legal: SOLVER_LEGAL,
            solver_share: SOLVER_SHARE,
            decisive_legal: DECISIVE_LEGAL,
            decisive_pace: DECISIVE_PACE,
            opening_pace: OPENING_PACE,
        }
    }
}

const NO_NODE: u32 = u32::MAX;
/// A path step at the node a playout started from: no edge taken there.
const NO_EDGE: u32 = u32::MAX;
/// Proven results, from the point of view of the node's (or the edge's parent's) mover.
const UNKNOWN: i8 = 0;
const WON: i8 = 1;
const LOST: i8 = -1;

#[derive(Clone, Copy, Debug)]
struct Node {
    first_edge: u32,
    num_edges: u32,
    visits: u32,
    proven: i8,
}

#[derive(Clone, Copy, Debug)]
struct Edge {
    action: u8,
    /// The result of playing this edge, for the mover of the node it leaves.
    proven: i8,
    child: u32,
    visits: u32,
    wins: u32,
    amaf_visits: u32,
    amaf_wins: u32,
    /// Segments drawing it takes out of play (see [`RaveConfig::impact_weight`]).
    impact: f32,
}

/// What search knows about one move at the root.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootMove {
    pub action: Action,
    pub visits: u32,
    pub wins: u32,
    pub amaf_visits: u32,
    pub amaf_wins: u32,
    /// `1` proven to win for the mover, `-1` proven to lose, `0` unknown.
    pub proven: i8,
}

/// MCTS with RAVE and an MCTS-solver over Zuniq positions.
pub struct RaveSearch {
    config: RaveConfig,
    rng: Rng,
    root_state: Zuniq,
    root: u32,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// Per step of the current simulation: (node, edge taken, segments drawn at the node).
    path: Vec<(u32, u32, u64)>,
    /// The last playout's segments, in order.
    sequence: Vec<u8>,
    /// The last simulation's winner and the segments drawn by its end.
    last: (usize, u64),
}

impl RaveSearch {
    pub fn new(state: Zuniq, config: RaveConfig, seed: u64) -> Self {
        let mut search = RaveSearch { config, rng: Rng::new(seed), root_state: state.clone(), root: 0, nodes: Vec::new(), edges: Vec::new(), path: Vec::new(), sequence: Vec::with_capacity(SEGMENTS), last: (0, 0) };
        search.reset(state);
        search
    }

    pub fn root_state(&self) -> &Zuniq {
        &self.root_state
    }

    /// Discards the tree and starts from `state`.
    pub fn reset(&mut self, state: Zuniq) {
        self.nodes.clear();
        self.edges.clear();
        self.root_state = state;
        let position = Position::of(&self.root_state);
        self.root = self.new_node(&position);
    }

    /// Moves the root along `actions` (legal from the root), keeping the subtree they lead to
    /// when there is one (the rest of the old tree stays in the arrays until the next reset).
    pub fn advance(&mut self, actions: &[Action]) {
        let mut state = self.root_state.clone();
        let mut node = self.root;
        for &a in actions {
            state.apply(a);
            if node != NO_NODE {
                let n = self.nodes[node as usize];
                node = self.edges[n.first_edge as usize..(n.first_edge + n.num_edges) as usize]
                    .iter()
                    .find(|e| e.action as Action == a)
                    .map_or(NO_NODE, |e| e.child);
            }
        }
        if node == NO_NODE || self.edges.len() > self.config.max_edges / 2 {
            self.reset(state);
        } else {
            self.root_state = state;
            self.root = node;
        }
    }

    /// A node for `position`, its edges the legal segments (none: the mover has lost).
    fn new_node(&mut self, position: &Position) -> u32 {
        let first_edge = self.edges.len() as u32;
        let (mut legal, closing) = position.legal();
        let num_edges = legal.count_ones();
        let candidates = if closing != 0 && self.config.impact_weight != 0.0 { position.candidates() } else { 0 };
        while legal != 0 {
            let action = legal.trailing_zeros() as u8;
            legal &= legal - 1;
            let impact = if closing >> action & 1 == 1 && candidates != 0 { position.impact(action as usize, candidates) as f32 } else { 1.0 };
            self.edges.push(Edge { action, proven: UNKNOWN, child: NO_NODE, visits: 0, wins: 0, amaf_visits: 0, amaf_wins: 0, impact });
        }
        let proven = if num_edges == 0 { LOST } else { UNKNOWN };
        self.nodes.push(Node { first_edge, num_edges, visits: 0, proven });
        (self.nodes.len() - 1) as u32
    }

    pub fn root_proven(&self) -> i8 {
        self.nodes[self.root as usize].proven
    }

    pub fn root_visits(&self) -> u32 {
        self.nodes[self.root as usize].visits
    }

    pub fn tree_edges(&self) -> usize {
        self.edges.len()
    }

    pub fn root_moves(&self) -> Vec<RootMove> {
        let n = self.nodes[self.root as usize];
        self.edges[n.first_edge as usize..(n.first_edge + n.num_edges) as usize]
            .iter()
            .map(|e| RootMove { action: e.action as Action, visits: e.visits, wins: e.wins, amaf_visits: e.amaf_visits, amaf_wins: e.amaf_wins, proven: e.proven })
            .collect()
    }

    /// The move to play: a proven win, else the most visited move not proven lost (ties by
    /// mean), else the most visited.
    pub fn best_action(&self) -> Option<Action> {
        let moves = self.root_moves();
        if let Some(win) = moves.iter().find(|m| m.proven == WON) {
            return Some(win.action);
        }
        let mean = |m: &RootMove| if m.visits == 0 { 0.0 } else { m.wins as f64 / m.visits as f64 };
        let better = |a: &&RootMove, b: &&RootMove| a.visits.cmp(&b.visits).then(mean(a).total_cmp(&mean(b)));
        moves.iter().filter(|m| m.proven != LOST).max_by(better).or_else(|| moves.iter().max_by(better)).map(|m| m.action)
    }

    /// Moves ranked best first (proven wins, then by visits and mean; proven losses last).
    pub fn ranked_actions(&self) -> Vec<Action> {
        let mut moves = self.root_moves();
        let key = |m: &RootMove| (m.proven == WON, m.proven != LOST, m.visits, m.wins);
        moves.sort_by(|a, b| key(b).cmp(&key(a)));
        moves.into_iter().map(|m| m.action).collect()
    }

    /// Runs simulations until `playouts` more, the deadline, a proven root or a full tree.
    /// Returns the simulations run.
    pub fn search(&mut self, playouts: Option<u64>, deadline: Option<Instant>) -> u64 {
        let mut done = 0u64;
        loop {
            if self.nodes[self.root as usize].proven != UNKNOWN || playouts.map_or(false, |n| done >= n) {
                break;
            }
            if done % 16 == 0 && deadline.map_or(false, |d| Instant::now() >= d) {
                break;
            }
            self.simulate();
            done += 1;
        }
        done
    }

    /// The edge to follow from `node`: proven wins at once, proven losses never (unless all
    /// are), else the best blend of own mean, AMAF mean and exploration.
    fn select(&self, node: u32) -> u32 {
        let n = self.nodes[node as usize];
        let c = self.config;
        let log_n = ((n.visits + 1) as f32).ln();
        let sqrt_n = ((n.visits + 1) as f32).sqrt();
        let b2 = 4.0 * c.rave_bias * c.rave_bias;
        let mut best = n.first_edge;
        let mut best_score = f32::NEG_INFINITY;
        for i in n.first_edge..n.first_edge + n.num_edges {
            let e = &self.edges[i as usize];
            if e.proven == WON {
                return i;
            }
            if e.proven == LOST {
                continue;
            }
            let (v, av) = (e.visits as f32, e.amaf_visits as f32);
            let value = if e.visits == 0 && e.amaf_visits == 0 {
                c.first_play
            } else {
                let q = if e.visits > 0 { e.wins as f32 / v } else { 0.0 };
                let amaf = if e.amaf_visits > 0 { e.amaf_wins as f32 / av } else { 0.0 };
                let beta = if e.amaf_visits == 0 { 0.0 } else { av / (v + av + b2 * v * av) };
                (1.0 - beta) * q + beta * amaf
            };
            let score = value + c.exploration * (log_n / (v + 1.0)).sqrt() + c.impact_weight * (e.impact - 1.0) * sqrt_n / (v + av + 1.0);
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        best
    }

    /// One simulation: down the tree, a playout, back up (own, AMAF and proven results).
    fn simulate(&mut self) {
        self.path.clear();
        let mut position = Position::of(&self.root_state);
        let mut node = self.root;
        // The winner, the segments drawn by the end, and whether the result is exact at the
        // last step (the simulation ended on a proven node or a position without a move).
        let (winner, drawn) = loop {
            let n = self.nodes[node as usize];
            if n.proven != UNKNOWN {
                let winner = if n.proven == WON { position.mover() } else { 1 - position.mover() };
                break (winner, position.drawn);
            }
            let e = self.select(node);
            self.path.push((node, e, position.drawn));
            let action = self.edges[e as usize].action as usize;
            let zone = position.try_segment(action).unwrap_or(None);
            position.draw(action, zone);
            let child = self.edges[e as usize].child;
            if child != NO_NODE {
                node = child;
                continue;
            }
            if self.edges[e as usize].visits + 1 >= self.config.expand_after && self.edges.len() < self.config.max_edges {
                // One new node per simulation; the playout starts from it and counts for its
                // moves' AMAF statistics.
                let created = self.new_node(&position);
                self.edges[e as usize].child = created;
                if self.nodes[created as usize].proven != UNKNOWN {
                    break (1 - position.mover(), position.drawn);
                }
                self.path.push((created, NO_EDGE, position.drawn));
                break position.playout(&mut self.rng, &mut self.sequence);
            }
            let (winner, drawn) = position.playout(&mut self.rng, &mut self.sequence);
            if drawn == position.drawn {
                // The next mover had no legal segment: this edge wins for its mover.
                self.edges[e as usize].proven = WON;
            }
            break (winner, drawn);
        };
        self.last = (winner, drawn);
        self.backup(winner, drawn);
    }

    fn backup(&mut self, winner: usize, drawn: u64) {
        let root_moves = self.root_state.moves;
        let depth = self.path.len();
        for k in (0..depth).rev() {
            let (node, edge, before) = self.path[k];
            let mover = ((root_moves as usize) + k) & 1;
            let won = (winner == mover) as u32;
            let n = self.nodes[node as usize];
            self.nodes[node as usize].visits += 1;
            let later = drawn & !before;
            for i in n.first_edge..n.first_edge + n.num_edges {
                let e = &mut self.edges[i as usize];
                if later >> e.action & 1 == 1 {
                    e.amaf_visits += 1;
                    e.amaf_wins += won;
                }
            }
            if edge == NO_EDGE {
                continue;
            }
            let e = &mut self.edges[edge as usize];
            e.visits += 1;
            e.wins += won;
            if e.child != NO_NODE {
                let child_proven = self.nodes[e.child as usize].proven;
                if child_proven != UNKNOWN {
                    e.proven = -child_proven;
                }
            }
            let proven = match self.edges[edge as usize].proven {
                WON => WON,
                LOST if self.edges[n.first_edge as usize..(n.first_edge + n.num_edges) as usize].iter().all(|e| e.proven == LOST) => LOST,
                _ => UNKNOWN,
            };
            if proven != UNKNOWN {
                self.nodes[node as usize].proven = proven;
            }
        }
        if depth == 0 {
            self.nodes[self.root as usize].visits += 1;
        }
    }
}

/// The classic Zuniq agent: RAVE search, exact endgame, claims, clock plan.
pub struct ClassicAgent {
    search: RaveSearch,
    solver: Solver,
    budget: Option<u64>,
    unplayed: Vec<Action>,
    solved: Option<Outcome>,
    ruled_out: usize,
    playouts: u64,
    elapsed: f64,
    /// The last move's root (see `Teacher::root_statistics`).
    root: Option<RootStatistics>,
}

impl ClassicAgent {
    pub fn new(seed: u64, budget: Option<u64>, config: RaveConfig) -> Self {
        ClassicAgent {
            search: RaveSearch::new(Zuniq::new(), config, seed),
            solver: Solver::new(),
            budget,
            unplayed: Vec::new(),
            solved: None,
            ruled_out: 0,
            playouts: 0,
            elapsed: 0.0,
            root: None,
        }
    }

    /// The root's visits as a policy, with the mover's value: `proven` (+1 a proven win, -1 a
    /// proven loss) or else the search's win rate on the game's +1/-1 scale. A proven win puts
    /// the whole policy on `winning`.
    fn root_of_search(&self, mover: usize, proven: Option<f32>, winning: Option<Action>) -> Option<RootStatistics> {
        let moves = self.search.root_moves();
        let (visits, wins) = moves.iter().fold((0u64, 0u64), |(n, w), m| (n + m.visits as u64, w + m.wins as u64));
        let mover_value = proven.unwrap_or(if visits == 0 { 0.0 } else { (2.0 * wins as f64 / visits as f64 - 1.0) as f32 });
        let mut value = [0.0; 2];
        value[mover] = mover_value;
        value[1 - mover] = -mover_value;
        match winning {
            Some(action) => Some(RootStatistics { policy: vec![(action, 1.0)], value: Some(value) }),
            None => RootStatistics::from_visits(moves.iter().map(|m| (m.action, m.visits)), Some(value)),
        }
    }

    pub fn search(&self) -> &RaveSearch {
        &self.search
    }

    /// Re-roots the tree over the actions observed since the last move, then on `state`.
    fn catch_up(&mut self, state: &Zuniq) {
        if !self.unplayed.is_empty() {
            let mut probe = self.search.root_state().clone();
            let legal = self.unplayed.iter().all(|&a| {
                let ok = !probe.is_terminal() && probe.is_legal(a);
                if ok {
                    probe.apply(a);
                }
                ok
            });
            if legal {
                let actions = std::mem::take(&mut self.unplayed);
                self.search.advance(&actions);
            }
            self.unplayed.clear();
        }
        if self.search.root_state() != state {
            self.search.reset(state.clone());
        }
    }
}

impl Agent<Zuniq> for ClassicAgent {
    fn choose(&mut self, state: &Zuniq, deadline: Option<Instant>) -> Action {
        let start = Instant::now();
        self.solved = None;
        self.ruled_out = 0;
        self.root = None;
        self.catch_up(state);
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        // Neither a deadline nor a budget: a fixed amount of work rather than none or forever.
        let playouts = if deadline.is_none() { Some(self.budget.unwrap_or(20_000)) } else { self.budget };
        let config = self.search.config;
        let mover = state.to_move();
        if legal.len() > config.solver_legal {
            self.playouts = self.search.search(playouts, deadline);
            self.elapsed = start.elapsed().as_secs_f64();
            let action = self.search.best_action().unwrap_or(legal[0]);
            self.root = self.root_of_search(mover, (self.search.root_proven() == WON).then_some(1.0), (self.search.root_proven() == WON).then_some(action));
            return action;
        }
        let (search_by, node_limit) = match deadline {
            Some(d) => (Some(start + d.saturating_duration_since(start).mul_f64(1.0 - config.solver_share)), u64::MAX),
            None => (None, SOLVER_NODES),
        };
        self.playouts = self.search.search(playouts, search_by);
        let searched = self.search.best_action().unwrap_or(legal[0]);
        if self.search.root_proven() == WON {
            self.elapsed = start.elapsed().as_secs_f64();
            self.root = self.root_of_search(mover, Some(1.0), Some(searched));
            return searched;
        }
        let settled = self.solver.solve_ranked(state, searched, &self.search.ranked_actions(), &legal, node_limit, deadline);
        self.solved = settled.outcome;
        self.ruled_out = settled.ruled_out;
        self.elapsed = start.elapsed().as_secs_f64();
        self.root = match settled.outcome {
            Some(Outcome::Win(_)) => self.root_of_search(mover, Some(1.0), Some(settled.action)),
            Some(Outcome::Loss) => self.root_of_search(mover, Some(-1.0), None),
            None => self.root_of_search(mover, None, None),
        };
        settled.action
    }

    fn observe(&mut self, action: Action) {
        self.unplayed.push(action);
    }

    fn last_report(&self) -> String {
        let solve = match self.solved {
            Some(Outcome::Win(_)) => format!("solved: win ({} nodes); ", self.solver.nodes()),
            Some(Outcome::Loss) => format!("solved: loss ({} nodes); ", self.solver.nodes()),
            None if self.ruled_out > 0 => format!("unsolved, {} moves proven lost ({} nodes); ", self.ruled_out, self.solver.nodes()),
            None => String::new(),
        };
        let proven = match self.search.root_proven() {
            WON => " (proven win)",
            LOST => " (proven loss)",
            _ => "",
        };
        format!(
            "{solve}rave playouts {} in {:.0} ms ({:.0}/s), root visits {}, edges {}{proven}",
            self.playouts,
            self.elapsed * 1e3,
            self.playouts as f64 / self.elapsed.max(1e-9),
            self.search.root_visits(),
            self.search.tree_edges()
        )
    }

    fn last_playouts(&self) -> Option<u64> {
        Some(self.playouts)
    }

    fn proved_win(&self) -> bool {
        matches!(self.solved, Some(Outcome::Win(_))) || self.search.root_proven() == WON
    }

    fn pace(&self, state: &Zuniq) -> f64 {
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        let c = self.search.config;
        if legal.len() <= c.decisive_legal { c.decisive_pace } else { c.opening_pace }
    }

    fn planned_game(&self) -> Option<(usize, u32)> {
        Some(PLANNED_GAME)
    }
}

impl Teacher<Zuniq> for ClassicAgent {
    fn root_statistics(&self) -> Option<RootStatistics> {
        self.root.clone()
    }
}

impl Classic for Zuniq {
    fn classic_agent(seed: u64, budget: Option<u64>) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(ClassicAgent::new(seed, budget, RaveConfig::default())))
    }
    fn classic_teacher(seed: u64, budget: Option<u64>) -> Option<Box<dyn Teacher<Self>>> {
        Some(Box::new(ClassicAgent::new(seed, budget, RaveConfig::default())))
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::after_random_actions;
    use std::time::Duration;

    /// The light position's random playouts follow the rules: every segment is legal for the
    /// game's own engine, zones close alike, and the game ends exactly where the playout does.
    #[test]
    fn playouts_follow_the_rules() {
        let mut rng = Rng::new(5);
        let mut sequence = Vec::new();
        let mut closing_games = 0;
        for game in 0..300 {
            let start: Zuniq = after_random_actions(game, (game % 7) as usize * 4);
            if start.is_terminal() {
                continue;
            }
            let (winner, drawn) = Position::of(&start).playout(&mut rng, &mut sequence);
            let mut z = start.clone();
            for &s in &sequence {
                assert!(z.is_legal(s as Action), "segment {} after {} moves", Zuniq::format_action(s as Action), z.moves());
                z.apply(s as Action);
            }
            assert!(z.is_terminal(), "the playout stopped before the end");
            assert_eq!(z.winner(), Some(winner));
            assert_eq!(z.drawn, drawn);
            closing_games += (z.zone_sizes().count_ones() > 1) as usize;
        }
        assert!(closing_games > 100, "playouts close zones: {closing_games}");
    }

    /// After one simulation from the empty board (no node below the root yet), the root's
    /// AMAF statistics count exactly the segments that simulation drew: its own and the
    /// opponent's, every one with the result for the root's mover.
    #[test]
    fn rave_counts_the_segments_of_both_players() {
        let config = RaveConfig { expand_after: u32::MAX, ..RaveConfig::default() };
        let mut search = RaveSearch::new(Zuniq::new(), config, 9);
        assert_eq!(search.search(Some(1), None), 1);
        let (winner, drawn) = search.last;
        let moves = search.root_moves();
        assert_eq!(moves.len(), SEGMENTS, "every segment is legal at the start");
        let counted: Vec<&RootMove> = moves.iter().filter(|m| m.amaf_visits == 1).collect();
        assert_eq!(counted.len() as u32, drawn.count_ones(), "every segment drawn counts once");
        assert!(counted.iter().all(|m| drawn >> m.action & 1 == 1));
        assert!(moves.iter().all(|m| m.amaf_visits <= 1));
        // The root's mover drew about half of them: the rest are the opponent's.
        assert!(drawn.count_ones() > 20, "a whole game was played out: {}", drawn.count_ones());
        let won = (winner == 0) as u32;
        assert!(counted.iter().all(|m| m.amaf_wins == won), "the result for White (the root's mover)");
        assert_eq!(moves.iter().map(|m| m.visits).sum::<u32>(), 1, "only one move was played first");

        // Longer: every root move's AMAF count covers its own visits, and the simulations in
        // which the opponent drew it, so the total exceeds the visits by about the opponent's
        // share of the moves.
        let state: Zuniq = after_random_actions(4, 10);
        let mut search = RaveSearch::new(state.clone(), RaveConfig::default(), 3);
        search.search(Some(2_000), None);
        let moves = search.root_moves();
        let (visits, amaf) = moves.iter().fold((0, 0), |(v, a), m| (v + m.visits, a + m.amaf_visits));
        assert!(moves.iter().all(|m| m.amaf_visits >= m.visits && m.amaf_visits <= search.root_visits()));
        assert!(amaf > 10 * visits, "{amaf} AMAF updates for {visits} visits");
    }

    /// Replays the last simulation's AMAF update by hand: the root's AMAF counts grow by one
    /// for exactly the root moves drawn in it, whichever ply (player) drew them.
    #[test]
    fn rave_updates_follow_each_simulation() {
        let state: Zuniq = after_random_actions(8, 12);
        let mut search = RaveSearch::new(state.clone(), RaveConfig::default(), 21);
        search.search(Some(500), None);
        for _ in 0..50 {
            let before = search.root_moves();
            search.search(Some(1), None);
            if search.root_proven() != UNKNOWN {
                break;
            }
            let (winner, drawn) = search.last;
            let won = (winner == state.to_move()) as u32;
            for (b, a) in before.iter().zip(search.root_moves()) {
                let drawn_here = (drawn >> b.action & 1) as u32;
                assert_eq!(a.amaf_visits, b.amaf_visits + drawn_here, "{}", Zuniq::format_action(b.action));
                assert_eq!(a.amaf_wins, b.amaf_wins + drawn_here * won);
            }
        }
    }

    /// The MCTS-solver proves a won position: White's F5h leaves Black without a move.
    #[test]
    fn the_tree_proves_a_win_in_one() {
        let game = "D1h E1h B2h D2v F4h A5v C1h B1h A5h A2h A4v C4v F1h B3h E3h C6v D3v B1v F3h D4h C3h A1v E5h A3h A6v B3v F2h E2h C2v D5h D1v B6v B4h E5v E1v A2v E4v D6v";
        let mut state = Zuniq::new();
        crate::tools::apply_texts(&mut state, &game.split(' ').collect::<Vec<_>>()).unwrap();
        let mut search = RaveSearch::new(state.clone(), RaveConfig::default(), 1);
        search.search(Some(100_000), None);
        assert_eq!(search.root_proven(), WON);
        let best = search.best_action().unwrap();
        state.apply(best);
        assert!(state.is_terminal() || Solver::new().solve(&state, u64::MAX, None) == Some(Outcome::Loss));
    }

    /// Whole games between two classic agents on short deadlines: only legal moves, every
    /// answer within its deadline (plus a little slack), and every claimed win (the protocol
    /// claims when `proved_win`) is a position the opponent loses against perfect play.
    #[test]
    fn plays_legal_moves_on_time_and_claims_only_proven_wins() {
        let mut claims = 0;
        for game in 0..4u64 {
            let mut agents = [ClassicAgent::new(game, None, RaveConfig::default()), ClassicAgent::new(100 + game, None, RaveConfig::default())];
            let mut state = Zuniq::new();
            let mut legal = ActionList::new();
            let mut solver = Solver::new();
            while !state.is_terminal() {
                let me = state.to_move();
                let start = Instant::now();
                let think = Duration::from_millis(if game < 2 { 30 } else { 5 });
                let action = agents[me].choose(&state, Some(start + think));
                let took = start.elapsed();
                assert!(took < think + Duration::from_millis(40), "{took:?} for a {think:?} move");
                state.legal_actions(&mut legal);
                assert!(legal.contains(action), "illegal {}", Zuniq::format_action(action));
                let claimed = agents[me].proved_win();
                for agent in agents.iter_mut() {
                    agent.observe(action);
                }
                state.apply(action);
                if claimed {
                    claims += 1;
                    let lost_for_opponent = state.is_terminal() || solver.solve(&state, u64::MAX, None) == Some(Outcome::Loss);
                    assert!(lost_for_opponent, "claimed a win that is not one");
                }
            }
        }
        assert!(claims > 0, "wins were proven and claimed");
    }

    /// With a playout budget and no deadline, the agent does its budget and the same seed
    /// plays the same game.
    #[test]
    fn a_budget_repeats() {
        let play = |seed| {
            let mut agent = ClassicAgent::new(seed, Some(300), RaveConfig::default());
            let mut state = Zuniq::new();
            let mut moves = Vec::new();
            while !state.is_terminal() {
                let a = agent.choose(&state, None);
                assert!(agent.last_playouts().unwrap() <= 300);
                agent.observe(a);
                state.apply(a);
                moves.push(a);
            }
            moves
        };
        assert_eq!(play(7), play(7));
    }
}
