//! Players that pick actions: the search bot here, the baselines in `tools`. Protocol loops
//! and the arena drive any of them through [`Agent`].

use crate::game::{Action, ActionList, Game};
use crate::mcts::{Evaluator, Mcts, MctsConfig, SearchLimits, SearchStats};
use std::time::Instant;

pub trait Agent<G: Game> {
    /// Picks a legal action for `state` (not terminal), thinking until `deadline` at the latest.
    fn choose(&mut self, state: &G, deadline: Option<Instant>) -> Action;
    /// Tells the agent that `action` was played from the position it last knew (by anyone),
    /// so it can keep what it learnt. Agents resynchronise by hash when told nothing.
    fn observe(&mut self, _action: Action) {}
    /// One line about the last decision, for logs (visits, value, speed).
    fn last_report(&self) -> String {
        String::new()
    }
    /// Playouts spent on the last decision, for agents that search.
    fn last_playouts(&self) -> Option<u64> {
        None
    }
    /// Whether the last decision was proven to win (exact search, not an estimate).
    fn proved_win(&self) -> bool {
        false
    }
    /// How many even shares of a whole-game clock the move at `state` deserves: below 1
    /// saves time for the moves that decide the game, above 1 spends it there.
    fn pace(&self, _state: &G) -> f64 {
        1.0
    }
    /// The game length (actions of both players) and own moves in reserve that this agent
    /// splits a whole-game clock over, when it knows better than the protocol's typical game
    /// (an agent that proves its wins early stops needing time there).
    fn planned_game(&self) -> Option<(usize, u32)> {
        None
    }
}

/// MCTS with any evaluator, reusing its tree between moves.
pub struct SearchAgent<G: Game, E: Evaluator<G>> {
    mcts: Mcts<G>,
    evaluator: E,
    /// Playouts per decision when there is no deadline, or as a cap with one.
    pub playouts: Option<u64>,
    last: SearchStats,
    /// Actions observed since the last search. The tree is re-rooted over all of them at once
    /// when the next move starts: between moves the referee may already be timing us.
    unplayed: Vec<Action>,
}

impl<G: Game, E: Evaluator<G>> SearchAgent<G, E> {
    pub fn new(start: G, config: MctsConfig, evaluator: E, playouts: Option<u64>) -> Self {
        SearchAgent { mcts: Mcts::new(start, config), evaluator, playouts, last: SearchStats::default(), unplayed: Vec::new() }
    }

    pub fn mcts(&self) -> &Mcts<G> {
        &self.mcts
    }

    /// Re-roots the tree over the actions observed since the last search.
    fn catch_up(&mut self) {
        if self.unplayed.is_empty() {
            return;
        }
        let mut probe = self.mcts.root_state().clone();
        let all_legal = self.unplayed.iter().all(|&a| {
            let ok = !probe.is_terminal() && probe.is_legal(a);
            if ok {
                probe.apply(a);
            }
            ok
        });
        if all_legal {
            self.mcts.advance_path(&self.unplayed);
        }
        self.unplayed.clear();
    }
}

impl<G: Game, E: Evaluator<G>> Agent<G> for SearchAgent<G, E> {
    fn choose(&mut self, state: &G, deadline: Option<Instant>) -> Action {
        self.catch_up();
        if self.mcts.root_state().hash() != state.hash() {
            self.mcts.reset(state.clone());
        }
        let limits = SearchLimits { playouts: self.playouts, deadline };
        self.last = self.mcts.search(&mut self.evaluator, &limits);
        match self.mcts.best_action() {
            Some(a) => a,
            // Out of time before the root was even expanded: any legal action beats a timeout.
            None => {
                let mut list = ActionList::new();
                state.legal_actions(&mut list);
                list[0]
            }
        }
    }

    fn observe(&mut self, action: Action) {
        self.unplayed.push(action);
    }

    fn last_playouts(&self) -> Option<u64> {
        Some(self.last.playouts)
    }

    fn proved_win(&self) -> bool {
        let mover = self.mcts.root_state().to_move();
        self.mcts.root_proven().map_or(false, |v| v[mover] >= 1.0)
    }

    fn last_report(&self) -> String {
        let v = self.mcts.root_value();
        let secs = self.last.elapsed.as_secs_f64().max(1e-9);
        format!(
            "playouts {} in {:.0} ms ({:.0}/s), tree {}, root visits {}, value {:+.3}/{:+.3}{}",
            self.last.playouts,
            secs * 1e3,
            self.last.playouts as f64 / secs,
            self.last.tree_nodes,
            self.mcts.root_visits(),
            v[0],
            v[1],
            if self.mcts.root_proven().is_some() { " (proven)" } else { "" }
        )
    }
}
