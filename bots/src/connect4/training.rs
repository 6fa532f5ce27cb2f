//! Connect 4's training side: evaluation against the classic bot, the final position's owners
//! and threats as auxiliary targets, and the classic bot's alpha-beta as the exact endgame.

use super::classic::classic_search;
use super::{Connect4, COLS, ROWS};
use crate::encode::Encode;
use crate::game::{Game, Player};
use crate::solver::ExactPlay;
use crate::training::Training;

impl Training for Connect4 {
    /// The in-training evaluation plays the classic bot: UCT at 1000 playouts was beaten 95% of
    /// the time and hid the gap. 4000 nodes is a budget where the shipped nets (200 playouts)
    /// neither always win nor always lose (docs/lab/throughput.md, "Budgets of the
    /// in-training evaluation").
    const TRAINING_DEFAULTS: &'static str = "[eval]
every = 10
games = 40
playouts = 200
opponent = \"classic\"
opponent_playouts = 4000
random_opening = 2
";

    /// The final owner of each cell (own chips, the opponent's) and the empty cells that were
    /// threats (where each side would have completed four): the first four planes of the final
    /// position's own features, turned to the sample's mover.
    const AUX_OUTPUTS: usize = 4 * ROWS * COLS;
    fn aux_target(&self, perspective: Player, out: &mut [f32]) {
        let mut features = vec![0.0; Self::NUM_FEATURES];
        self.encode(&mut features);
        let plane = ROWS * COLS;
        // The features are the final mover's: own chips, theirs, own threats, theirs.
        let order = if self.to_move() == perspective { [0, 1, 2, 3] } else { [1, 0, 3, 2] };
        for (k, &from) in order.iter().enumerate() {
            out[k * plane..(k + 1) * plane].copy_from_slice(&features[from * plane..(from + 1) * plane]);
        }
    }

    /// Connect 4 has draws, so the win/loss solver does not apply: the classic bot's alpha-beta
    /// searched to the end of the game plays its endgames (from
    /// [`super::search::EXACT_EMPTIES`] empty cells).
    fn exact_player() -> Option<Box<dyn ExactPlay<Self>>> {
        Some(Box::new(classic_search(None)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::after_random_actions;

    #[test]
    fn owners_swap_with_the_perspective() {
        for seed in 0..20 {
            let end: Connect4 = after_random_actions(seed, usize::MAX);
            let target = |perspective| {
                let mut out = vec![0.0; Connect4::AUX_OUTPUTS];
                end.aux_target(perspective, &mut out);
                out
            };
            let (a, b) = (target(0), target(1));
            let plane = Connect4::AUX_OUTPUTS / 4;
            assert_eq!(a[..plane], b[plane..2 * plane]);
            assert_eq!(a[2 * plane..3 * plane], b[3 * plane..]);
            // Owners agree with the board, row 0 of the features being the bottom row.
            let chips: f32 = a[..2 * plane].iter().sum();
            let filled = (0..7).flat_map(|r| (0..9).map(move |c| (r, c))).filter(|&(r, c)| end.cell(r, c).is_some()).count();
            assert_eq!(chips as usize, filled, "seed {seed}");
            for col in 0..9 {
                let bottom_is_p0 = end.cell(6, col) == Some(0);
                assert_eq!(a[col] == 1.0, bottom_is_p0, "seed {seed} column {col}");
            }
            // A threat cell is empty.
            for k in 0..plane {
                assert!(a[2 * plane + k] == 0.0 || (a[k] == 0.0 && a[plane + k] == 0.0));
            }
        }
    }
}
