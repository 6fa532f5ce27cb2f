//! Exact endgame search: can the player to move force a positive utility? A depth-first
//! AND/OR search with a transposition table, for games decided by win or loss (Zuniq: the last
//! mover wins). Where the MCTS-solver needs every line visited by playouts, this one answers
//! "is there a winning move" with cut-offs and shared transpositions, so it proves wins many
//! moves earlier; the search bot hands positions to it once few enough actions are left.

use crate::agent::Agent;
use crate::game::{Action, ActionList, Game};
use std::time::Instant;

/// Entries of the transposition table (a power of two; 16 bytes each).
const TABLE_SIZE: usize = 1 << 20;
/// The clock is read once per this many nodes.
const CLOCK_EVERY: u64 = 1024;

#[derive(Clone, Copy, Default)]
struct Entry {
    /// State hash; 0 marks an empty slot (a real hash of 0 is merely never cached).
    key: u64,
    mover_wins: bool,
}

/// What a finished search found about the position it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The player to move wins by playing this action.
    Win(Action),
    /// Every action loses against perfect play.
    Loss,
}

pub struct Solver {
    table: Vec<Entry>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
}

impl Default for Solver {
    fn default() -> Self {
        Self::new()
    }
}

impl Solver {
    pub fn new() -> Self {
        Solver { table: vec![Entry::default(); TABLE_SIZE], nodes: 0, node_limit: u64::MAX, deadline: None }
    }

    /// Nodes visited by the last [`Solver::solve`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Solves `state` (not terminal) within `node_limit` nodes and before `deadline`; `None`
    /// when the budget ran out first. Results stay cached for later calls.
    pub fn solve<G: Game>(&mut self, state: &G, node_limit: u64, deadline: Option<Instant>) -> Option<Outcome> {
        self.nodes = 0;
        self.node_limit = node_limit;
        self.deadline = deadline;
        Some(self.winning_action(state)?.map_or(Outcome::Loss, Outcome::Win))
    }

    /// The first action with which the player to move at `state` (not terminal) wins, `None`
    /// inside when there is none; `None` outside when out of budget (which unwinds the whole
    /// search at once, so nothing is expanded after the budget runs out).
    fn winning_action<G: Game>(&mut self, state: &G) -> Option<Option<Action>> {
        let me = state.to_move();
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        for &action in legal.as_slice() {
            let mut child = state.clone();
            child.apply(action);
            if self.wins_for(&child, me)? {
                return Some(Some(action));
            }
        }
        Some(None)
    }

    /// Whether `player` can force a positive utility from `state`; `None` when out of budget.
    fn wins_for<G: Game>(&mut self, state: &G, player: usize) -> Option<bool> {
        if state.is_terminal() {
            return Some(state.utilities()[player] > 0.0);
        }
        let mover_wins = self.mover_wins(state)?;
        Some(mover_wins == (state.to_move() == player))
    }

    /// Whether the player to move at `state` (not terminal) can force a positive utility.
    fn mover_wins<G: Game>(&mut self, state: &G) -> Option<bool> {
        let key = state.hash();
        let slot = (key as usize) & (TABLE_SIZE - 1);
        let entry = self.table[slot];
        if entry.key == key && key != 0 {
            return Some(entry.mover_wins);
        }
        self.nodes += 1;
        if self.nodes > self.node_limit || (self.nodes % CLOCK_EVERY == 0 && self.deadline.is_some_and(|d| Instant::now() >= d)) {
            return None;
        }
        let result = self.winning_action(state)?.is_some();
        self.table[slot] = Entry { key, mover_wins: result };
        Some(result)
    }
}

/// A search agent with an exact endgame in front: once at most `max_legal` actions are legal,
/// the solver gets `share` of the move's time first. A proven win is played at once (and
/// reported by [`Agent::proved_win`], so the protocol can claim it); a proven loss or an
/// unfinished solve leaves the move to the search, which then has the rest of the time. After
/// an unfinished solve the solver waits until fewer actions are legal, so a slow clock does
/// not keep losing half of every move to it.
pub struct EndgameAgent<G: Game> {
    search: Box<dyn Agent<G>>,
    solver: Solver,
    max_legal: usize,
    share: f64,
    /// Node budget of a solve when the move has no deadline (arena games by playouts).
    node_limit: u64,
    solved: Option<Outcome>,
    /// Legal actions of the last unfinished solve (the next try needs fewer).
    unfinished_at: usize,
}

impl<G: Game> EndgameAgent<G> {
    pub fn new(search: Box<dyn Agent<G>>, max_legal: usize, share: f64, node_limit: u64) -> Self {
        EndgameAgent { search, solver: Solver::new(), max_legal, share, node_limit, solved: None, unfinished_at: usize::MAX }
    }
}

impl<G: Game> Agent<G> for EndgameAgent<G> {
    fn choose(&mut self, state: &G, deadline: Option<Instant>) -> Action {
        self.solved = None;
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        if legal.len() <= self.max_legal && legal.len() < self.unfinished_at {
            let now = Instant::now();
            let (limit, solve_by) = match deadline {
                Some(d) => (u64::MAX, Some(now + d.saturating_duration_since(now).mul_f64(self.share))),
                None => (self.node_limit, None),
            };
            self.solved = self.solver.solve(state, limit, solve_by);
            if self.solved.is_none() {
                self.unfinished_at = legal.len();
            }
            if let Some(Outcome::Win(action)) = self.solved {
                return action;
            }
        }
        self.search.choose(state, deadline)
    }
    fn observe(&mut self, action: Action) {
        self.search.observe(action);
    }
    fn last_report(&self) -> String {
        match self.solved {
            Some(Outcome::Win(_)) => format!("solved: win ({} nodes)", self.solver.nodes()),
            Some(Outcome::Loss) => format!("solved: loss ({} nodes); {}", self.solver.nodes(), self.search.last_report()),
            None => self.search.last_report(),
        }
    }
    fn last_playouts(&self) -> Option<u64> {
        match self.solved {
            Some(Outcome::Win(_)) => Some(0),
            _ => self.search.last_playouts(),
        }
    }
    fn proved_win(&self) -> bool {
        match self.solved {
            Some(Outcome::Win(_)) => true,
            _ => self.search.proved_win(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{ParseActionError, Player, NUM_PLAYERS};
    use crate::rng::Rng;

    /// Subtraction game: take 1..=3 from a pile; whoever takes the last stone wins. The mover
    /// loses exactly when the pile is a multiple of 4.
    #[derive(Clone, Debug)]
    struct Take {
        pile: u8,
        mover: u8,
    }

    impl Game for Take {
        const NAME: &'static str = "take";
        const NUM_ACTIONS: usize = 3;
        const MAX_GAME_LENGTH: usize = 64;
        const NUM_SYMMETRIES: usize = 1;
        fn new_game(_rng: &mut Rng) -> Self {
            Take { pile: 21, mover: 0 }
        }
        fn to_move(&self) -> Player {
            self.mover as Player
        }
        fn legal_actions(&self, out: &mut ActionList) {
            out.clear();
            for a in 0..self.pile.min(3) {
                out.push(a as Action);
            }
        }
        fn apply(&mut self, action: Action) {
            self.pile -= action as u8 + 1;
            self.mover = 1 - self.mover;
        }
        fn is_terminal(&self) -> bool {
            self.pile == 0
        }
        fn scores(&self) -> [f32; NUM_PLAYERS] {
            // The player who just moved took the last stone.
            let mut s = [0.0; NUM_PLAYERS];
            s[1 - self.mover as usize] = 1.0;
            s
        }
        fn utilities(&self) -> [f32; NUM_PLAYERS] {
            self.scores().map(|s| 2.0 * s - 1.0)
        }
        fn hash(&self) -> u64 {
            (self.pile as u64 + 1) * 0x9E37_79B9_7F4A_7C15 ^ self.mover as u64
        }
        fn symmetric(&self, _sym: usize) -> Self {
            self.clone()
        }
        fn map_action(_sym: usize, action: Action) -> Action {
            action
        }
        fn format_action(action: Action) -> String {
            (action + 1).to_string()
        }
        fn parse_action(text: &str) -> Result<Action, ParseActionError> {
            Err(ParseActionError { text: text.into(), expected: "unused" })
        }
    }

    #[test]
    fn solves_the_subtraction_game() {
        let mut solver = Solver::new();
        for pile in 1..=40u8 {
            let outcome = solver.solve(&Take { pile, mover: 0 }, u64::MAX, None).unwrap();
            if pile % 4 == 0 {
                assert_eq!(outcome, Outcome::Loss, "pile {pile}");
            } else {
                // The winning move leaves a multiple of 4.
                assert_eq!(outcome, Outcome::Win((pile % 4 - 1) as Action), "pile {pile}");
            }
        }
    }

    /// Always answers the first legal action.
    struct FirstLegal;

    impl Agent<Take> for FirstLegal {
        fn choose(&mut self, state: &Take, _deadline: Option<Instant>) -> Action {
            let mut legal = ActionList::new();
            state.legal_actions(&mut legal);
            legal[0]
        }
    }

    #[test]
    fn endgame_agent_plays_proven_wins_and_leaves_the_rest_to_the_search() {
        let mut agent = EndgameAgent::new(Box::new(FirstLegal), 3, 0.5, 1_000);
        // Pile 7: taking 3 leaves 4, a proven win, played without asking the search.
        assert_eq!(agent.choose(&Take { pile: 7, mover: 0 }, None), 2);
        assert!(agent.proved_win());
        // Pile 8 is lost: the search picks the move and no win is claimed.
        assert_eq!(agent.choose(&Take { pile: 8, mover: 0 }, None), 0);
        assert!(!agent.proved_win());
        assert!(agent.last_report().starts_with("solved: loss"));
    }

    #[test]
    fn endgame_agent_waits_for_a_smaller_position_after_an_unfinished_solve() {
        // 50 nodes per solve: a pile of 40 is too big, a pile of 6 or 2 is not.
        let mut agent = EndgameAgent::new(Box::new(FirstLegal), 3, 0.5, 50);
        agent.choose(&Take { pile: 40, mover: 0 }, None);
        assert!(!agent.proved_win(), "the solve of 40 did not finish");
        // Pile 6 also has 3 legal actions, so the solver is not tried: the search's first
        // legal action (take 1) is played although taking 2 wins.
        assert_eq!(agent.choose(&Take { pile: 6, mover: 0 }, None), 0);
        assert!(!agent.proved_win());
        // With 2 legal actions the solver is back and proves taking both stones.
        assert_eq!(agent.choose(&Take { pile: 2, mover: 0 }, None), 1);
        assert!(agent.proved_win());
    }

    #[test]
    fn gives_up_when_the_budget_runs_out() {
        let mut solver = Solver::new();
        assert_eq!(solver.solve(&Take { pile: 40, mover: 1 }, 3, None), None);
        assert!(solver.nodes() > 3);
        // A later call with room to spare still gets the exact answer.
        assert_eq!(solver.solve(&Take { pile: 40, mover: 1 }, u64::MAX, None), Some(Outcome::Loss));
    }
}
