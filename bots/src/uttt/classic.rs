//! The classic bot: what the strong CodinGame bots of this game were described as, MCTS with
//! random playouts (UCT), an MCTS-solver for proven wins and losses, and the tree kept between
//! turns. Its playouts take a move that wins the game whenever they have one ("decisive
//! moves", F. Teytaud and O. Teytaud, "On the huge benefit of decisive moves in Monte-Carlo
//! Tree Search algorithms", IEEE CIG 2010), which the board's masks tell at the cost of a few
//! table lookups.

use super::Uttt;
use crate::agent::{Agent, SearchAgent};
use crate::classic::{Classic, RootStatistics, Teacher};
use crate::game::{Action, ActionList, Game};
use crate::mcts::{Evaluator, MctsConfig, Selection, Values};
use crate::rng::Rng;
use std::time::Instant;

/// UCT's exploration constant: 0.7 beat 1.0 (the `uct` bot's) in `bots/examples`-style
/// matches at equal playouts (BENCHMARKS.md, Ultimate tic-tac-toe).
pub const UCT_C: f32 = 0.7;

/// Uniform priors; the value is one playout's result, a winning move taken when there is one.
pub struct DecisivePlayouts {
    rng: Rng,
    list: ActionList,
}

impl DecisivePlayouts {
    pub fn new(seed: u64) -> Self {
        DecisivePlayouts { rng: Rng::new(seed), list: ActionList::new() }
    }

    /// The final position of one playout from `state`.
    pub fn play_out(&mut self, state: &Uttt) -> Uttt {
        state.decisive_playout(&mut self.rng, &mut self.list)
    }
}

impl Evaluator<Uttt> for DecisivePlayouts {
    fn evaluate(&mut self, state: &Uttt, _legal: &[Action], priors: &mut [f32]) -> Values {
        priors.fill(1.0);
        self.play_out(state).utilities()
    }
}

/// The classic bot: a search agent that also shows its root as a teacher.
pub struct ClassicAgent {
    search: SearchAgent<Uttt, DecisivePlayouts>,
}

impl ClassicAgent {
    pub fn new(seed: u64, budget: Option<u64>) -> Self {
        let config = MctsConfig { selection: Selection::Uct { c: UCT_C }, max_nodes: 2_000_000, stop_when_proven: true };
        ClassicAgent { search: SearchAgent::new(Uttt::new(), config, DecisivePlayouts::new(seed), budget) }
    }
}

impl Agent<Uttt> for ClassicAgent {
    fn choose(&mut self, state: &Uttt, deadline: Option<Instant>) -> Action {
        self.search.choose(state, deadline)
    }
    fn observe(&mut self, action: Action) {
        self.search.observe(action);
    }
    fn last_report(&self) -> String {
        self.search.last_report()
    }
    fn last_playouts(&self) -> Option<u64> {
        self.search.last_playouts()
    }
    fn proved_win(&self) -> bool {
        self.search.proved_win()
    }
}

impl Teacher<Uttt> for ClassicAgent {
    fn root_statistics(&self) -> Option<RootStatistics> {
        let mcts = self.search.mcts();
        RootStatistics::from_visits(mcts.root_children().iter().map(|c| (c.action, c.visits)), Some(mcts.root_value()))
    }
}

impl Classic for Uttt {
    fn classic_agent(seed: u64, budget: Option<u64>) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(ClassicAgent::new(seed, budget)))
    }
    fn classic_teacher(seed: u64, budget: Option<u64>) -> Option<Box<dyn Teacher<Self>>> {
        Some(Box::new(ClassicAgent::new(seed, budget)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::after_random_actions;

    #[test]
    fn playouts_end_the_game_and_take_a_winning_move() {
        let mut playouts = DecisivePlayouts::new(3);
        for seed in 0..200 {
            let start: Uttt = after_random_actions(seed, (seed % 30) as usize);
            if start.is_terminal() {
                continue;
            }
            let end = playouts.play_out(&start);
            assert!(end.is_terminal());
            if let Some(win) = start.winning_action() {
                let mut next = start.clone();
                next.apply(win);
                assert_eq!(next.line_winner(), Some(start.to_move()));
                let v = playouts.evaluate(&start, &[], &mut [0.0; 81]);
                assert_eq!(v[start.to_move()], 1.0, "a decisive move is always taken");
            }
        }
    }

    #[test]
    fn the_classic_bot_takes_a_win_in_one() {
        // Play random games until a position where the mover can win at once.
        for seed in 0..500 {
            let s: Uttt = after_random_actions(seed, 40);
            if s.is_terminal() || s.winning_action().is_none() {
                continue;
            }
            let mut agent = ClassicAgent::new(1, Some(2_000));
            let a = agent.choose(&s, None);
            let mut next = s.clone();
            next.apply(a);
            assert_eq!(next.line_winner(), Some(s.to_move()), "seed {seed}");
            assert!(agent.root_statistics().is_some());
            return;
        }
        panic!("no position with a win in one");
    }
}
