//! Ultimate tic-tac-toe's training side: the settings `cupzero train uttt` starts from, and
//! each cell's final owner as an auxiliary target.

use super::{Uttt, CELLS};
use crate::game::Player;
use crate::training::Training;

impl Training for Uttt {
    /// A net that fits CodinGame's 100,000 bytes with its code; value targets half the result,
    /// half the search's value (63.5% against 0.2 at 1,600 playouts, docs/lab/judgement.md).
    const TRAINING_DEFAULTS: &'static str = "[net]
hidden = [64, 48]
[selfplay]
value_target_q_weight = 0.5
[eval]
every = 10
games = 40
playouts = 200
opponent = \"classic\"
opponent_playouts = 4000
random_opening = 2
";

    /// Who owns each cell at the end, own marks then the opponent's.
    const AUX_OUTPUTS: usize = 2 * CELLS;
    fn aux_target(&self, perspective: Player, out: &mut [f32]) {
        for cell in 0..CELLS {
            if let Some(owner) = self.cell(cell) {
                out[if owner == perspective { cell } else { CELLS + cell }] = 1.0;
            }
        }
    }
}
