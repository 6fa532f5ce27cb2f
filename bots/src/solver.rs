//! Exact endgame search: can the player to move force a positive utility? A depth-first
//! AND/OR search with a transposition table, for games decided by win or loss (Zuniq: the last
//! mover wins). Where the MCTS-solver needs every line visited by playouts, this one answers
//! "is there a winning move" with cut-offs and shared transpositions, so it proves wins many
//! moves earlier; the search bot hands positions to it once few enough actions are left.

use crate::agent::{Agent, SearchAgent};
use crate::game::{Action, ActionList, Game, ACTION_LIST_CAPACITY};
use crate::mcts::Evaluator;
use std::time::Instant;

/// Entries of the transposition table (a power of two; 8 bytes each: 16 MB).
const TABLE_SIZE: usize = 1 << 21;
/// The clock is read once per this many nodes.
const CLOCK_EVERY: u64 = 1024;

/// The transposition table of a win/loss search: per slot, the position's key with its lowest
/// bit replaced by "the mover wins"; 0 is an empty slot. The slot index comes from the key's
/// low bits, so dropping bit 0 from the comparison loses nothing the index does not already
/// pin down. A newer entry replaces an older one in its slot.
pub struct WinLossTable {
    entries: Vec<u64>,
}

impl Default for WinLossTable {
    fn default() -> Self {
        Self::new()
    }
}

impl WinLossTable {
    pub fn new() -> Self {
        WinLossTable { entries: vec![0; TABLE_SIZE] }
    }

    /// The cached result for a position's key: whether its mover wins.
    pub fn lookup(&self, key: u64) -> Option<bool> {
        let stored = self.entries[(key as usize) & (TABLE_SIZE - 1)];
        (stored != 0 && stored & !1 == key & !1).then_some(stored & 1 == 1)
    }

    pub fn store(&mut self, key: u64, mover_wins: bool) {
        self.entries[(key as usize) & (TABLE_SIZE - 1)] = key & !1 | mover_wins as u64;
    }
}

/// Whether a search that has just counted its `nodes`-th node is out of budget: past
/// `node_limit`, or past `deadline` (read every [`CLOCK_EVERY`] nodes).
pub fn out_of_budget(nodes: u64, node_limit: u64, deadline: Option<Instant>) -> bool {
    nodes > node_limit || (nodes % CLOCK_EVERY == 0 && deadline.map_or(false, |d| Instant::now() >= d))
}

/// What a root search found, finished or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootSolve {
    /// `None` when the budget ran out first.
    pub outcome: Option<Outcome>,
    /// Root actions proven to lose (all of them for [`Outcome::Loss`]).
    pub lost: Vec<Action>,
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
    table: WinLossTable,
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
        Solver { table: WinLossTable::new(), nodes: 0, node_limit: u64::MAX, deadline: None }
    }

    /// Nodes visited by the last [`Solver::solve`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Solves `state` (not terminal) within `node_limit` nodes and before `deadline`; `None`
    /// when the budget ran out first. Results stay cached for later calls.
    pub fn solve<G: Game>(&mut self, state: &G, node_limit: u64, deadline: Option<Instant>) -> Option<Outcome> {
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        self.solve_ordered(state, legal.as_slice(), node_limit, deadline).outcome
    }

    /// [`Solver::solve`] trying the root's actions (all of the legal ones) in the given order,
    /// and reporting the ones it proved lost even when the budget runs out.
    pub fn solve_ordered<G: Game>(&mut self, state: &G, order: &[Action], node_limit: u64, deadline: Option<Instant>) -> RootSolve {
        self.nodes = 0;
        self.node_limit = node_limit;
        self.deadline = deadline;
        let mut lost = Vec::new();
        let outcome = self.first_win(state, order, Some(&mut lost)).map(|win| win.map_or(Outcome::Loss, Outcome::Win));
        RootSolve { outcome, lost }
    }

    /// Whether `player` wins after `action` from `state`, if known without searching: the
    /// game ends, or the position is in the table.
    fn known<G: Game>(&self, state: &G, action: Action, player: usize) -> Option<bool> {
        let mut child = state.clone();
        child.apply(action);
        if child.is_terminal() {
            return Some(child.utilities()[player] > 0.0);
        }
        self.table.lookup(child.hash()).map(|mover_wins| mover_wins == (child.to_move() == player))
    }

    /// The first action with which the player to move at `state` (not terminal) wins, `None`
    /// inside when there is none; `None` outside when out of budget (which unwinds the whole
    /// search at once, so nothing is expanded after the budget runs out).
    fn winning_action<G: Game>(&mut self, state: &G) -> Option<Option<Action>> {
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        self.first_win(state, legal.as_slice(), None)
    }

    /// [`Solver::winning_action`] over `actions` in that order, adding those proven lost to
    /// `lost` if given. Two passes: the first looks every child up, so a game-ending move or a
    /// child already known lost for its mover wins at once, before any deep search (enhanced
    /// transposition cutoffs: about 10% fewer nodes on Zuniq endgames); the second searches
    /// the rest. (Trying first the actions that won elsewhere, a history order, cost nodes.)
    fn first_win<G: Game>(&mut self, state: &G, actions: &[Action], mut lost: Option<&mut Vec<Action>>) -> Option<Option<Action>> {
        let me = state.to_move();
        let mut unknown = [0 as Action; ACTION_LIST_CAPACITY];
        let mut count = 0;
        for &action in actions {
            match self.known(state, action, me) {
                Some(true) => return Some(Some(action)),
                Some(false) => lost.iter_mut().for_each(|l| l.push(action)),
                None => {
                    unknown[count] = action;
                    count += 1;
                }
            }
        }
        for &action in &unknown[..count] {
            let mut child = state.clone();
            child.apply(action);
            if self.wins_for(&child, me)? {
                return Some(Some(action));
            }
            lost.iter_mut().for_each(|l| l.push(action));
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
        if let Some(mover_wins) = self.table.lookup(key) {
            return Some(mover_wins);
        }
        self.nodes += 1;
        if out_of_budget(self.nodes, self.node_limit, self.deadline) {
            return None;
        }
        let result = self.winning_action(state)?.is_some();
        self.table.store(key, result);
        Some(result)
    }
}

/// What [`WinLossSolver::solve_ranked`] settled on.
pub struct RankedSolve {
    pub action: Action,
    pub outcome: Option<Outcome>,
    /// Moves an unfinished solve proved lost (0 when it finished).
    pub ruled_out: usize,
}

/// A win/loss exact search an [`EndgameAgent`] hands its endgames to: the generic [`Solver`]
/// over any [`Game`], or a game's own search over the same positions when it has a faster one
/// (Zuniq's `zuniq::exact`).
pub trait WinLossSolver<G: Game>: Send {
    /// Solves `state` (not terminal) trying the root's actions (all of the legal ones) in the
    /// given order, reporting the ones it proved lost even when the budget (`node_limit`
    /// nodes, the `deadline`) runs out. Results stay cached for later calls.
    fn solve_ordered(&mut self, state: &G, order: &[Action], node_limit: u64, deadline: Option<Instant>) -> RootSolve;

    /// Nodes visited by the last solve.
    fn nodes(&self) -> u64;

    /// Solves an endgame whose moves a search has ranked: its choice `searched` first, then
    /// `ranked`, then the rest of `legal`. A proven win is played; after a proven loss the
    /// search's move stands; after an unfinished solve the best-ranked move not proven lost is
    /// played (on judged Zuniq games, won positions were often lost a move before the solver
    /// could prove them: the partial answer still rules out proven losses).
    fn solve_ranked(&mut self, state: &G, searched: Action, ranked: &[Action], legal: &[Action], node_limit: u64, deadline: Option<Instant>) -> RankedSolve {
        let mut order = vec![searched];
        order.extend(ranked.iter().chain(legal).copied());
        let mut seen = vec![false; G::NUM_ACTIONS];
        order.retain(|&a| !std::mem::replace(&mut seen[a as usize], true));
        let result = self.solve_ordered(state, &order, node_limit, deadline);
        let (action, ruled_out) = match result.outcome {
            Some(Outcome::Win(action)) => (action, 0),
            Some(Outcome::Loss) => (searched, 0),
            None => (order.into_iter().find(|a| !result.lost.contains(a)).unwrap_or(searched), result.lost.len()),
        };
        RankedSolve { action, outcome: result.outcome, ruled_out }
    }
}

impl<G: Game> WinLossSolver<G> for Solver {
    fn solve_ordered(&mut self, state: &G, order: &[Action], node_limit: u64, deadline: Option<Instant>) -> RootSolve {
        Solver::solve_ordered(self, state, order, node_limit, deadline)
    }
    fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// An exact endgame search that names the move perfect play makes: what self-play hands its
/// endgames to, so that a game's result is the one perfect play gives from there.
pub trait ExactPlay<G: Game>: Send {
    /// The move perfect play makes from `state` (not terminal), or `None` when `node_limit`
    /// nodes or the `deadline` came first.
    fn exact_action(&mut self, state: &G, node_limit: u64, deadline: Option<Instant>) -> Option<Action>;
    /// Nodes the last call visited.
    fn nodes(&self) -> u64;
}

impl<G: Game> ExactPlay<G> for Solver {
    fn nodes(&self) -> u64 {
        self.nodes
    }
    fn exact_action(&mut self, state: &G, node_limit: u64, deadline: Option<Instant>) -> Option<Action> {
        match self.solve(state, node_limit, deadline)? {
            Outcome::Win(action) => Some(action),
            // Every move loses: any will do.
            Outcome::Loss => {
                let mut legal = ActionList::new();
                state.legal_actions(&mut legal);
                Some(legal[0])
            }
        }
    }
}

/// A search agent that lets an exact search play every position with at most `max_legal`
/// legal actions (for score games, where [`EndgameAgent`]'s win/loss proofs do not apply:
/// Black Hole's margin search). The exact search gets `share` of the move's time; if that
/// runs out, the search plays with the rest. `pace` weighs the moves on a whole-game clock and
/// holds the clock plan ([`Agent::planned_game`]): moves the exact search plays take next to no
/// time, so the searched ones get it.
pub struct ExactAgent<G: Game, E: Evaluator<G>> {
    search: SearchAgent<G, E>,
    exact: Box<dyn ExactPlay<G>>,
    max_legal: usize,
    share: f64,
    /// Node budget of a solve when the move has no deadline (arena games by playouts).
    node_limit: u64,
    pace: EndgamePace,
    solved: bool,
}

impl<G: Game, E: Evaluator<G>> ExactAgent<G, E> {
    pub fn new(search: SearchAgent<G, E>, exact: Box<dyn ExactPlay<G>>, max_legal: usize, share: f64, node_limit: u64, pace: EndgamePace) -> Self {
        ExactAgent { search, exact, max_legal, share, node_limit, pace, solved: false }
    }
}

impl<G: Game, E: Evaluator<G>> Agent<G> for ExactAgent<G, E> {
    fn choose(&mut self, state: &G, deadline: Option<Instant>) -> Action {
        self.solved = false;
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        if legal.len() <= self.max_legal {
            let now = Instant::now();
            let solve_by = deadline.map(|d| now + d.saturating_duration_since(now).mul_f64(self.share));
            let node_limit = if deadline.is_some() { u64::MAX } else { self.node_limit };
            if let Some(action) = self.exact.exact_action(state, node_limit, solve_by) {
                self.solved = true;
                return action;
            }
        }
        self.search.choose(state, deadline)
    }
    fn observe(&mut self, action: Action) {
        self.search.observe(action);
    }
    fn last_report(&self) -> String {
        if self.solved {
            format!("solved exactly ({} nodes)", self.exact.nodes())
        } else {
            self.search.last_report()
        }
    }
    fn last_playouts(&self) -> Option<u64> {
        if self.solved {
            Some(0)
        } else {
            self.search.last_playouts()
        }
    }
    fn pace(&self, state: &G) -> f64 {
        self.pace.weight(state)
    }
    fn planned_game(&self) -> Option<(usize, u32)> {
        self.pace.planned_game
    }
}

/// A search agent with an exact endgame: once at most `max_legal` actions are legal, the
/// search gets the first `1 - share` of the move's time, then the solver tries the actions in
/// the search's order (most visited first). A proven win is played (and reported by
/// [`Agent::proved_win`], so the protocol can claim it); after a proven loss the search's move
/// stands; after an unfinished solve the search's best action not proven lost is played (on
/// judged Zuniq games, won positions were often lost a move before the solver could prove
/// them: the solver's partial answer still rules out proven losses).
pub struct EndgameAgent<G: Game, E: Evaluator<G>> {
    search: SearchAgent<G, E>,
    solver: Box<dyn WinLossSolver<G>>,
    max_legal: usize,
    share: f64,
    pace: EndgamePace,
    /// Node budget of a solve when the move has no deadline (arena games by playouts).
    node_limit: u64,
    solved: Option<Outcome>,
    /// Root actions ruled out by the last unfinished solve.
    ruled_out: usize,
}

/// How an [`EndgameAgent`] or an [`ExactAgent`] paces a whole-game clock ([`Agent::pace`]): moves with at most
/// `decisive_legal` legal actions, where the solver reaches or is about to, weigh `decisive`
/// even shares, earlier ones `opening`; `planned_game` is the agent's own clock plan
/// ([`Agent::planned_game`]: actions in the game, own moves in reserve), `None` for the
/// protocol's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EndgamePace {
    pub decisive_legal: usize,
    pub opening: f64,
    pub decisive: f64,
    pub planned_game: Option<(usize, u32)>,
}

impl EndgamePace {
    /// The weight of the move at `state` ([`Agent::pace`]).
    pub fn weight<G: Game>(&self, state: &G) -> f64 {
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        if legal.len() <= self.decisive_legal { self.decisive } else { self.opening }
    }
}

impl<G: Game, E: Evaluator<G>> EndgameAgent<G, E> {
    pub fn new(search: SearchAgent<G, E>, max_legal: usize, share: f64, node_limit: u64, pace: EndgamePace) -> Self {
        EndgameAgent { search, solver: Box::new(Solver::new()), max_legal, share, pace, node_limit, solved: None, ruled_out: 0 }
    }

    /// The agent with `solver` in place of the generic [`Solver`].
    pub fn with_solver(mut self, solver: Box<dyn WinLossSolver<G>>) -> Self {
        self.solver = solver;
        self
    }
}

impl<G: Game, E: Evaluator<G>> Agent<G> for EndgameAgent<G, E> {
    fn choose(&mut self, state: &G, deadline: Option<Instant>) -> Action {
        self.solved = None;
        self.ruled_out = 0;
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        if legal.len() > self.max_legal {
            return self.search.choose(state, deadline);
        }
        let now = Instant::now();
        let (search_by, solve_by, node_limit) = match deadline {
            Some(d) => (Some(now + d.saturating_duration_since(now).mul_f64(1.0 - self.share)), Some(d), u64::MAX),
            None => (None, None, self.node_limit),
        };
        let searched = self.search.choose(state, search_by);
        let mover = state.to_move();
        let mut ranked = self.search.mcts().root_children();
        ranked.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.q[mover].total_cmp(&a.q[mover])));
        let ranked: Vec<Action> = ranked.iter().map(|c| c.action).collect();
        let settled = self.solver.solve_ranked(state, searched, &ranked, &legal, node_limit, solve_by);
        self.solved = settled.outcome;
        self.ruled_out = settled.ruled_out;
        settled.action
    }
    fn observe(&mut self, action: Action) {
        self.search.observe(action);
    }
    fn last_report(&self) -> String {
        let nodes = self.solver.nodes();
        match self.solved {
            Some(Outcome::Win(_)) => format!("solved: win ({nodes} nodes)"),
            Some(Outcome::Loss) => format!("solved: loss ({nodes} nodes); {}", self.search.last_report()),
            None if self.ruled_out > 0 => format!("unsolved, {} moves proven lost ({nodes} nodes); {}", self.ruled_out, self.search.last_report()),
            None => self.search.last_report(),
        }
    }
    fn last_playouts(&self) -> Option<u64> {
        self.search.last_playouts()
    }
    fn proved_win(&self) -> bool {
        matches!(self.solved, Some(Outcome::Win(_))) || self.search.proved_win()
    }
    fn pace(&self, state: &G) -> f64 {
        self.pace.weight(state)
    }
    fn planned_game(&self) -> Option<(usize, u32)> {
        self.pace.planned_game
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{ParseActionError, Player, NUM_PLAYERS};
    use crate::mcts::MctsConfig;
    use crate::rng::Rng;
    use crate::tools::RolloutEvaluator;

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

    fn endgame_agent(node_limit: u64) -> EndgameAgent<Take, RolloutEvaluator> {
        let search = SearchAgent::new(Take { pile: 21, mover: 0 }, MctsConfig::uct(), RolloutEvaluator::new(1), Some(30));
        EndgameAgent::new(search, 3, 0.5, node_limit, EndgamePace { decisive_legal: 2, opening: 0.5, decisive: 3.0, planned_game: None })
    }

    #[test]
    fn endgame_agent_paces_by_legal_actions() {
        let agent = endgame_agent(1_000);
        assert_eq!(agent.pace(&Take { pile: 7, mover: 0 }), 0.5, "three legal actions: opening");
        assert_eq!(agent.pace(&Take { pile: 2, mover: 0 }), 3.0, "two: decisive");
    }

    #[test]
    fn endgame_agent_plays_proven_wins_and_leaves_losses_to_the_search() {
        let mut agent = endgame_agent(1_000);
        // Pile 7: taking 3 leaves 4, a proven win.
        assert_eq!(agent.choose(&Take { pile: 7, mover: 0 }, None), 2);
        assert!(agent.proved_win());
        // Pile 8 is lost: the search's move stands and no win is claimed.
        agent.choose(&Take { pile: 8, mover: 0 }, None);
        assert!(!agent.proved_win());
        assert!(agent.last_report().starts_with("solved: loss"), "{}", agent.last_report());
    }

    /// Out of budget, the solver still reports the root actions it proved lost, in order.
    #[test]
    fn an_unfinished_solve_reports_the_actions_proven_lost() {
        // Pile 41: taking 1 wins (40 is a multiple of 4); tried last, after two losing moves.
        let state = Take { pile: 41, mover: 0 };
        let mut partial = None;
        for limit in 1..200 {
            let result = Solver::new().solve_ordered(&state, &[1, 2, 0], limit, None);
            if result.outcome.is_none() && !result.lost.is_empty() {
                partial = Some(result.lost);
                break;
            }
            if result.outcome.is_some() {
                assert_eq!(result.outcome, Some(Outcome::Win(0)));
                assert_eq!(result.lost, vec![1, 2], "both were proven lost on the way");
                break;
            }
        }
        assert_eq!(partial, Some(vec![1]), "some budget proves the first action lost but not the rest");
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
