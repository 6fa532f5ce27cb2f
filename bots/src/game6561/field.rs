//! 6561's field of partners: the kinds of program a CodeCup field holds beside strong ones, as
//! named built-in players. CodeCup ranked a 6561 program by the shared scores it made with every
//! partner it met, so a bot is judged with each of them (and each of them with itself), not
//! only with itself.

use super::lookahead::{BeamAgent, Weights};
use super::partner::{ChanceSearch, STRANGER_WEIGHTS};
use super::{Game6561, Step, SLIDE_DOWN, SLIDE_LEFT, SLIDE_RIGHT, SLIDE_UP, SQUARES};
use crate::agent::Agent;
use crate::classic::FieldPlayer;
use crate::game::{Action, ActionList, Game};
use crate::rng::Rng;
use std::time::Instant;

/// One move ahead: the slide that leaves the largest board sum, then the most free squares;
/// placements anywhere (every placement adds the same 1). Ties are broken at random. The
/// naive player of any 2048-like field.
pub struct GreedyAgent {
    rng: Rng,
}

impl GreedyAgent {
    pub fn new(seed: u64) -> Self {
        GreedyAgent { rng: Rng::new(seed) }
    }
}

impl Agent<Game6561> for GreedyAgent {
    fn choose(&mut self, state: &Game6561, _deadline: Option<Instant>) -> Action {
        let mut list = ActionList::new();
        state.legal_actions(&mut list);
        let mut best: Vec<Action> = Vec::new();
        let mut best_key = (0u64, 0usize);
        for &action in list.iter() {
            let mut child = state.clone();
            child.apply(action);
            let key = (child.board_sum(), child.cells().iter().filter(|&&p| p == 0).count());
            if best.is_empty() || key > best_key {
                best.clear();
                best_key = key;
            }
            if key == best_key {
                best.push(action);
            }
        }
        best[self.rng.below(best.len())]
    }
}

/// A fixed habit, as many 2048 players keep one: pieces go to the first free square counted
/// from the bottom-left corner along the bottom row and upward, slides prefer down, then left,
/// then right, then up.
pub struct CornerAgent;

/// Squares from the bottom-left corner, row by row upward.
const CORNER_ORDER: [Action; SQUARES] = [12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3];

impl Agent<Game6561> for CornerAgent {
    fn choose(&mut self, state: &Game6561, _deadline: Option<Instant>) -> Action {
        let order: &[Action] = match state.step() {
            Step::Place(_) => &CORNER_ORDER,
            Step::Slide => &[SLIDE_DOWN, SLIDE_LEFT, SLIDE_RIGHT, SLIDE_UP],
        };
        *order.iter().find(|&&a| state.is_legal(a)).expect("a position to move from has a legal move")
    }
}

/// The width and depth of the short beam: what the classic beam sees on about a tenth of the
/// clock.
pub const SHORT_BEAM_WIDTH: usize = 32;
pub const SHORT_BEAM_HORIZON: usize = 10;

/// The classic beam at a fixed narrow width, whatever the clock: a capable partner that plans
/// as the submission's classic bot does, but sees less.
fn short_beam(_seed: u64, budget: Option<u64>) -> Box<dyn Agent<Game6561>> {
    let width = budget.map_or(SHORT_BEAM_WIDTH, |w| w as usize);
    let mut agent = BeamAgent::new(Weights::TUNED, width, SHORT_BEAM_HORIZON);
    agent.max_width = width;
    Box::new(agent)
}

/// A capable stranger: the chance search with a uniformly random partner and no model of it,
/// a fixed number of moves deep (3 by default) whatever the clock, or to the deadline. It
/// plans well and plays nothing like the beam.
pub struct ExpectimaxAgent {
    pub search: ChanceSearch,
    pub depth: u32,
}

impl Agent<Game6561> for ExpectimaxAgent {
    fn choose(&mut self, state: &Game6561, deadline: Option<Instant>) -> Action {
        let me = state.to_move();
        self.search.choose(state.cells(), state.moves(), state.score() as f32, me, deadline, self.depth).expect("a position to move from has a legal move")
    }

    fn last_report(&self) -> String {
        format!("depth {}, {} nodes, value {:.0}", self.search.last_depth, self.search.last_nodes, self.search.last_value)
    }
}

/// The expectimax player's depth, and the deepest a budget may ask for: each move deeper costs
/// about six times the time, and a playout budget meant for a tree search must not ask for 800.
pub const EXPECTIMAX_DEPTH: u32 = 3;
const MAX_EXPECTIMAX_DEPTH: u32 = 4;

fn expectimax(_seed: u64, budget: Option<u64>) -> Box<dyn Agent<Game6561>> {
    Box::new(ExpectimaxAgent { search: ChanceSearch::new(STRANGER_WEIGHTS), depth: budget.map_or(EXPECTIMAX_DEPTH, |d| (d as u32).clamp(1, MAX_EXPECTIMAX_DEPTH)) })
}

fn greedy(seed: u64, _budget: Option<u64>) -> Box<dyn Agent<Game6561>> {
    Box::new(GreedyAgent::new(seed))
}

fn corner(_seed: u64, _budget: Option<u64>) -> Box<dyn Agent<Game6561>> {
    Box::new(CornerAgent)
}

/// The field, beside the built-in `random` and `classic` (the full beam on the clock).
pub const FIELD: &[FieldPlayer<Game6561>] = &[
    FieldPlayer { name: "greedy", about: "one move ahead: the slide with the largest sum, placements at random", agent: greedy },
    FieldPlayer { name: "corner", about: "a fixed habit: the first free square from the bottom-left, slides down, left, right, up", agent: corner },
    FieldPlayer { name: "short-beam", about: "the classic beam 32 lines wide and 10 moves deep, whatever the clock", agent: short_beam },
    FieldPlayer { name: "expectimax", about: "a capable stranger: our moves maximised, the partner's taken as random, 3 moves deep", agent: expectimax },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game6561::{piece, BLUE, RED};
    use crate::tools::apply_texts;

    #[test]
    fn greedy_takes_the_slide_that_merges() {
        // Move 4 is a slide: blue 1s at 11 and 12 merge sliding left or right (sum 4 -> 5... the
        // red 1 at 44 stays); up and down merge nothing.
        let mut cells = [0; SQUARES];
        cells[0] = piece(BLUE, 0);
        cells[1] = piece(BLUE, 0);
        cells[15] = piece(RED, 0);
        let g = Game6561::from_cells(cells, 3, 0);
        let mut agent = GreedyAgent::new(1);
        for _ in 0..10 {
            let a = agent.choose(&g, None);
            assert!([SLIDE_LEFT, SLIDE_RIGHT].contains(&a), "{a}");
        }
    }

    #[test]
    fn the_corner_habit_fills_from_the_bottom_left_and_slides_down_first() {
        let mut g = Game6561::new();
        let mut agent = CornerAgent;
        assert_eq!(Game6561::format_action(agent.choose(&g, None)), "41");
        apply_texts(&mut g, &["41", "42", "43"]).unwrap();
        // The bottom row holds b1 r1 g1 .: down changes nothing, left annihilates the blue and
        // the red.
        assert_eq!(Game6561::format_action(agent.choose(&g, None)), "L");
    }

    #[test]
    fn every_field_player_plays_a_whole_game() {
        for player in FIELD {
            let mut agent = (player.agent)(3, Some(2));
            let mut g = Game6561::new();
            while !g.is_terminal() {
                let a = agent.choose(&g, None);
                assert!(g.is_legal(a), "{}: illegal {a} at move {}", player.name, g.moves() + 1);
                g.apply(a);
            }
            assert!(g.score() > 0, "{}", player.name);
        }
    }
}
