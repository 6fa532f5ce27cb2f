//! Zuniq's training side: the exact solver plays self-play's endgames, the evaluation plays
//! the classic bot, and the closed cells are an auxiliary target.

use super::{Zuniq, CELLS};
use crate::game::Player;
use crate::training::Training;

impl Training for Zuniq {
    /// `solve_legal = 22`: the exact solver settles positions with 22 legal segments in
    /// milliseconds, so self-play results become perfect play's from there (docs/lab/zuniq.md,
    /// The bot's own clock plan, a faster engine, the solver in self-play). The
    /// evaluation plays the classic bot at 10,000 playouts, where the shipped nets (200
    /// playouts) neither always win nor always lose.
    const TRAINING_DEFAULTS: &'static str = "[selfplay]
solve_legal = 22

[eval]
every = 10
playouts = 200
opponent = \"classic\"
opponent_playouts = 10000
random_opening = 2
";

    /// Which cells ended inside closed zones.
    const AUX_OUTPUTS: usize = CELLS;
    fn aux_target(&self, _perspective: Player, out: &mut [f32]) {
        for (c, o) in out.iter_mut().enumerate() {
            *o = (self.closed_cells() >> c & 1) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::after_random_actions;

    #[test]
    fn the_target_follows_the_final_position() {
        for seed in 0..10 {
            let end: Zuniq = after_random_actions(seed, usize::MAX);
            let mut t = vec![0.0; Zuniq::AUX_OUTPUTS];
            end.aux_target(0, &mut t);
            assert_eq!(t.iter().sum::<f32>() as u32, end.closed_cells().count_ones());
        }
    }
}
