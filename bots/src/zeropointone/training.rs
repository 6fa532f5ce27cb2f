//! Zero Point One's training side: a net wide enough for 1,797 actions, evaluation games
//! against the classic alpha-beta bot.

use super::ZeroPointOne;
use crate::training::Training;

impl Training for ZeroPointOne {
    /// The evaluation plays `classic` at a fixed node budget (its alpha-beta, quiescence on
    /// captures) from two random plies after the setups' first placements.
    const TRAINING_DEFAULTS: &'static str = "[net]
hidden = [256, 128]
[eval]
every = 10
games = 20
playouts = 200
opponent = \"classic\"
opponent_playouts = 20000
random_opening = 2
";
}
