//! 6561's classic bot and its field of partners (`field`), for the tools: the submission runs
//! the same beam through `Contest::submission_agent`.

use super::lookahead::{BeamAgent, Weights};
use super::protocol::{BEAM_HORIZON, BEAM_WIDTH};
use super::Game6561;
use crate::agent::Agent;

/// The classic bot: the beam search with the hand-made evaluation. `budget` fixes the beam's
/// width (in-process matches repeat); without it the deadline sets the width.
impl crate::classic::Classic for Game6561 {
    fn classic_agent(_seed: u64, budget: Option<u64>) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(BeamAgent::new(Weights::TUNED, budget.map_or(BEAM_WIDTH, |w| w as usize), BEAM_HORIZON)))
    }

    fn field() -> &'static [crate::classic::FieldPlayer<Self>] {
        super::field::FIELD
    }
}
