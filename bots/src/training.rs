//! What a game offers its trainer beyond the rules and the bot: settings that differ from the
//! trainer's defaults, auxiliary targets, an exact endgame for self-play, and the target of
//! expert iteration. Each game implements [`Training`] in its own `training.rs`, which the
//! exporter never bundles into a bot; every item has a default, so a simple game writes
//! `impl Training for MyGame {}`.

use crate::classic::Classic;
use crate::game::Player;
use crate::solver::{ExactPlay, Solver};

/// A game's training side. See the module documentation.
pub trait Training: Classic {
    /// The settings of `cupzero train` that differ for this game from the defaults, as TOML
    /// (sections and keys as `cupzero train-config` prints them). Empty: the defaults.
    const TRAINING_DEFAULTS: &'static str = "";

    /// Outputs of the auxiliary head: yes/no targets read off the end of each game (the idea
    /// behind KataGo's ownership head). 0 (the default): no such head.
    const AUX_OUTPUTS: usize = 0;
    /// Writes the auxiliary targets of this final position, seen from `perspective` (the mover
    /// of the sample they train), into `out` (`AUX_OUTPUTS` long, zeroed by the caller); each
    /// in `[0, 1]`.
    fn aux_target(&self, _perspective: Player, _out: &mut [f32]) {}

    /// The exact endgame search self-play hands its endgames to (`selfplay.solve_legal`): by
    /// default the win/loss [`Solver`] for games decided by win or loss, none for the others.
    fn exact_player() -> Option<Box<dyn ExactPlay<Self>>> {
        Self::WIN_OR_LOSS.then(|| Box::new(Solver::new()) as Box<dyn ExactPlay<Self>>)
    }

    /// Expert iteration (`cupzero expert`), for games scored by one shared number: the value a
    /// value net learns for every position of a game that ended here. `None` (the default)
    /// keeps the game out of it.
    fn expert_target(&self) -> Option<f32> {
        None
    }
}
