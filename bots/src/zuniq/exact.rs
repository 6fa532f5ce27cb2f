//! Zuniq's own exact endgame search: the generic [`Solver`](crate::solver::Solver)'s AND/OR
//! search with cut-offs and a transposition table, on the light position, and with a table key
//! that folds more positions together.
//!
//! - **The light position.** A child costs one segment drawn (and a flood fill for the moves
//!   that close a zone) instead of a `Zuniq` clone whose `apply` also looks for a legal move
//!   afterwards; a node's legal moves come from the one depth-first search of
//!   `Zuniq::legal_segments`. A position without a legal move is found lost when it is visited.
//! - **What decides the rest of the game.** The segments inside a closed zone can never matter
//!   again, and the player who cannot move loses whoever it is (an impartial game). So the key
//!   is the drawn segments beside an open cell, the closed cells and the taken sizes, and the
//!   table stores whether the mover wins: positions that differ only inside closed zones, or in
//!   how many moves led to them, share one entry.

use super::light::Position;
use super::{Zuniq, SEGMENT_CELLS};
use crate::game::Action;
use crate::rng::splitmix64;
use crate::solver::{out_of_budget, Outcome, RootSolve, WinLossSolver, WinLossTable};
use std::time::Instant;

/// A position of the search with what its table key is made of.
#[derive(Clone, Copy)]
struct Node {
    position: Position,
    /// The drawn segments beside at least one open cell.
    live_drawn: u64,
    key: u64,
}

impl Node {
    fn of(state: &Zuniq) -> Node {
        let position = Position::of(state);
        let live_drawn = position.drawn & !dead_segments(position.closed);
        Node { position, live_drawn, key: key(live_drawn, position.closed, position.sizes) }
    }

    /// The node after drawing legal segment `s`; `closes` when it closes a zone.
    #[inline]
    fn child(&self, s: usize, closes: bool) -> Node {
        let mut position = self.position;
        let zone = if closes { position.closing(s) } else { None };
        position.draw(s, zone);
        let live_drawn = match zone {
            // A legal segment that closes nothing is beside open cells only.
            None => self.live_drawn | 1 << s,
            Some(_) => position.drawn & !dead_segments(position.closed),
        };
        Node { position, live_drawn, key: key(live_drawn, position.closed, position.sizes) }
    }
}

/// The segments with no open cell beside them.
fn dead_segments(closed: u32) -> u64 {
    let mut dead = 0;
    for (s, &cells) in SEGMENT_CELLS.iter().enumerate() {
        if cells & !closed == 0 {
            dead |= 1 << s;
        }
    }
    dead
}

fn key(live_drawn: u64, closed: u32, sizes: u32) -> u64 {
    splitmix64(live_drawn).1 ^ splitmix64(!(closed as u64 | (sizes as u64) << 32)).1
}

/// The exact search over Zuniq positions, for [`crate::solver::EndgameAgent`].
pub struct ZuniqSolver {
    table: WinLossTable,
    /// The children of the nodes on the search's path still to search, the deepest last.
    unknown: Vec<(Action, Node)>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
}

impl Default for ZuniqSolver {
    fn default() -> Self {
        Self::new()
    }
}

impl ZuniqSolver {
    pub fn new() -> Self {
        ZuniqSolver { table: WinLossTable::new(), unknown: Vec::with_capacity(64 * 40), nodes: 0, node_limit: u64::MAX, deadline: None }
    }

    /// Solves `state` (not terminal) within `node_limit` nodes and before `deadline`; `None`
    /// when the budget ran out first.
    pub fn solve(&mut self, state: &Zuniq, node_limit: u64, deadline: Option<Instant>) -> Option<Outcome> {
        let (legal, closing) = Position::of(state).legal();
        let order: Vec<Action> = ordered(legal, closing).collect();
        WinLossSolver::solve_ordered(self, state, &order, node_limit, deadline).outcome
    }

    /// Whether the mover at `node` wins; `None` when out of budget (which unwinds the whole
    /// search at once).
    fn mover_wins(&mut self, node: &Node) -> Option<bool> {
        if let Some(mover_wins) = self.table.lookup(node.key) {
            return Some(mover_wins);
        }
        self.nodes += 1;
        if out_of_budget(self.nodes, self.node_limit, self.deadline) {
            return None;
        }
        let (legal, closing) = node.position.legal();
        let result = self.first_win(node, ordered(legal, closing), closing, None)?.is_some();
        self.table.store(node.key, result);
        Some(result)
    }

    /// The first of `actions` (legal at `node`) with which its mover wins, `None` inside when
    /// there is none, adding those proven lost to `lost` if given; `None` outside when out of
    /// budget. Two passes, as in the generic solver: every child is looked up first (a child
    /// known lost for its mover wins at once), then the rest are searched.
    fn first_win(&mut self, node: &Node, actions: impl Iterator<Item = Action>, closing: u64, mut lost: Option<&mut Vec<Action>>) -> Option<Option<Action>> {
        // The children still to search go on a stack shared by the whole search (a fixed array
        // per node would be filled in at every node).
        let base = self.unknown.len();
        for action in actions {
            let child = node.child(action as usize, closing >> action & 1 == 1);
            match self.table.lookup(child.key) {
                Some(false) => {
                    self.unknown.truncate(base);
                    return Some(Some(action));
                }
                Some(true) => lost.iter_mut().for_each(|l| l.push(action)),
                None => self.unknown.push((action, child)),
            }
        }
        for k in base..self.unknown.len() {
            let (action, child) = self.unknown[k];
            match self.mover_wins(&child) {
                Some(true) => lost.iter_mut().for_each(|l| l.push(action)),
                found => {
                    self.unknown.truncate(base);
                    return found.map(|_| Some(action));
                }
            }
        }
        self.unknown.truncate(base);
        Some(None)
    }
}

/// The legal segments, those that close a zone first (they take the zone's inner segments out
/// of play and win most often: the generic solver's order through `Zuniq::legal_actions`).
fn ordered(legal: u64, closing: u64) -> impl Iterator<Item = Action> {
    IntoIterator::into_iter([closing, legal & !closing]).flat_map(|set| {
        std::iter::successors(Some(set), |rest| Some(rest & rest.wrapping_sub(1)))
            .take_while(|&rest| rest != 0)
            .map(|rest| rest.trailing_zeros() as Action)
    })
}

impl WinLossSolver<Zuniq> for ZuniqSolver {
    fn solve_ordered(&mut self, state: &Zuniq, order: &[Action], node_limit: u64, deadline: Option<Instant>) -> RootSolve {
        self.nodes = 0;
        self.unknown.clear();
        self.node_limit = node_limit;
        self.deadline = deadline;
        let root = Node::of(state);
        let (legal, closing) = root.position.legal();
        debug_assert!(order.iter().all(|&a| legal >> a & 1 == 1), "only legal actions are ordered");
        let mut lost = Vec::new();
        let outcome = self.first_win(&root, order.iter().copied(), closing, Some(&mut lost)).map(|win| win.map_or(Outcome::Loss, Outcome::Win));
        RootSolve { outcome, lost }
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{ActionList, Game};
    use crate::zuniq::SEGMENTS;
    use crate::solver::Solver;
    use crate::tools::after_random_actions;

    /// Positions from random games, solved by both searches: the same outcome, and a win this
    /// search names is a move after which the generic solver finds the opponent lost.
    #[test]
    fn agrees_with_the_generic_solver() {
        let (mut wins, mut losses) = (0, 0);
        for seed in 0..60u64 {
            for moves in [24usize, 26, 28, 30, 32] {
                let state: Zuniq = after_random_actions(seed, moves);
                let mut legal = ActionList::new();
                state.legal_actions(&mut legal);
                if state.is_terminal() || legal.len() > 22 {
                    continue;
                }
                let generic = Solver::new().solve(&state, u64::MAX, None).unwrap();
                let ours = ZuniqSolver::new().solve(&state, u64::MAX, None).unwrap();
                match ours {
                    Outcome::Loss => {
                        assert_eq!(generic, Outcome::Loss, "seed {seed}, {moves} moves");
                        losses += 1;
                    }
                    Outcome::Win(action) => {
                        assert!(matches!(generic, Outcome::Win(_)), "seed {seed}, {moves} moves");
                        let mut after = state.clone();
                        after.apply(action);
                        assert!(after.is_terminal() || Solver::new().solve(&after, u64::MAX, None) == Some(Outcome::Loss), "seed {seed}: {action} wins");
                        wins += 1;
                    }
                }
            }
        }
        assert!(wins >= 10 && losses >= 10, "both outcomes are tested: {wins} wins, {losses} losses");
    }

    /// Two positions that differ only in a segment inside a closed zone and in whose move it is
    /// share a key; drawing a segment beside an open cell changes it.
    #[test]
    fn the_key_ignores_closed_zones_inside_and_the_mover() {
        let play = |moves: &str| {
            let mut z = Zuniq::new();
            crate::tools::apply_texts(&mut z, &moves.split(' ').collect::<Vec<_>>()).unwrap();
            z
        };
        // The boundary of the 2x2 cells at the top left closes a zone of 4; its inner segment A2v
        // (between the top two cells) may be drawn before, leaving the four cells joined.
        let base = play("A1h A2h C1h C2h A1v B1v A3v B3v");
        let with_inner = play("A2v A1h A2h C1h C2h A1v B1v A3v B3v");
        assert_eq!(base.closed_cells().count_ones(), 4);
        assert_eq!(base.closed_cells(), with_inner.closed_cells());
        assert_ne!(base.moves() % 2, with_inner.moves() % 2);
        assert_eq!(Node::of(&base).key, Node::of(&with_inner).key);
        let elsewhere = play("A1h A2h C1h C2h A1v B1v A3v B3v D4h");
        assert_ne!(Node::of(&base).key, Node::of(&elsewhere).key);
    }

    /// A budget that runs out gives no outcome and proves nothing false; the same position then
    /// solves with room, and the search's result matches the generic solver's.
    #[test]
    fn gives_up_when_the_budget_runs_out() {
        let state = (0..100u64)
            .map(|seed| after_random_actions::<Zuniq>(seed, 26))
            .find(|z| {
                let mut legal = ActionList::new();
                z.legal_actions(&mut legal);
                !z.is_terminal() && (18..=22).contains(&legal.len())
            })
            .expect("a position with 18-22 legal segments");
        let mut solver = ZuniqSolver::new();
        assert_eq!(solver.solve(&state, 10, None), None);
        assert!(solver.nodes() > 10);
        let outcome = solver.solve(&state, u64::MAX, None);
        assert_eq!(outcome.map_or(false, |o| matches!(o, Outcome::Win(_))), matches!(Solver::new().solve(&state, u64::MAX, None), Some(Outcome::Win(_))));
    }

    /// An endgame agent given this search plays a proven win and claims it.
    #[test]
    fn an_endgame_agent_plays_the_wins_it_proves() {
        use crate::agent::{Agent, SearchAgent};
        use crate::mcts::MctsConfig;
        use crate::solver::{EndgameAgent, EndgamePace};
        use crate::tools::RolloutEvaluator;
        let won = (0..100u64)
            .map(|seed| after_random_actions::<Zuniq>(seed, 28))
            .find(|z| !z.is_terminal() && matches!(Solver::new().solve(z, 2_000_000, None), Some(Outcome::Win(_))))
            .expect("a won position");
        let search = SearchAgent::new(won.clone(), MctsConfig::uct(), RolloutEvaluator::new(1), Some(50));
        let pace = EndgamePace { decisive_legal: 30, opening: 0.5, decisive: 3.0, planned_game: None };
        let mut agent = EndgameAgent::new(search, SEGMENTS, 0.5, u64::MAX, pace).with_solver(Box::new(ZuniqSolver::new()));
        let action = agent.choose(&won, None);
        assert!(agent.proved_win(), "{}", agent.last_report());
        let mut after = won.clone();
        after.apply(action);
        assert!(after.is_terminal() || Solver::new().solve(&after, u64::MAX, None) == Some(Outcome::Loss));
    }
}
