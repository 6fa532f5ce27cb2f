//! 6561's training side: short iterations, the random partner in evaluation, and the final
//! shared score as the target of expert iteration. No auxiliary targets: a cooperative game's
//! "who owns what" means nothing.

use super::lookahead::score_to_value;
use super::Game6561;
use crate::training::Training;

impl Training for Game6561 {
    /// Self-play games are ~1000 moves long: fewer games an iteration and lighter searches
    /// keep iterations short. The evaluation partners the net with the random player, since a
    /// UCT partner running random rollouts to the end of such a game would take hours.
    const TRAINING_DEFAULTS: &'static str = "[selfplay]
games_per_iteration = 32
games_in_flight = 16
full_playouts = 64
fast_playouts = 16

[eval]
every = 10
games = 4
opponent = \"random\"
";

    fn expert_target(&self) -> Option<f32> {
        Some(score_to_value(self.score() as f32))
    }
}
