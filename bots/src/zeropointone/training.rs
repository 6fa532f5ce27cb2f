//! Zero Point One's training: a wide net, the classic bot's games, evaluation against it.

use super::ZeroPointOne;
use crate::training::Training;

impl Training for ZeroPointOne {
    /// Half the games the classic bot's, 20,000 nodes a move: self-play alone stalled at 0-5%
    /// against it over 60 iterations, with them 12.5% at 20 (docs/lab/zeropointone.md).
    const TRAINING_DEFAULTS: &'static str = "[net]
hidden = [256, 128]
[selfplay]
teacher_share = 0.5
teacher_playouts = 20000
[eval]
every = 10
playouts = 200
opponent = \"classic\"
opponent_playouts = 20000
random_opening = 2
";
}
