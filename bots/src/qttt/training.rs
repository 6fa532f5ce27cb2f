//! Quantum tic-tac-toe's training side: each square's final classical owner as an auxiliary
//! target. The evaluation keeps the default opponent (`uct`): the game has no classic bot.

use super::{Qttt, SQUARES};
use crate::game::Player;
use crate::training::Training;

impl Training for Qttt {
    /// Each square's final classical owner, own then the opponent's.
    const AUX_OUTPUTS: usize = 2 * SQUARES;
    fn aux_target(&self, perspective: Player, out: &mut [f32]) {
        for square in 0..SQUARES {
            if let Some(owner) = self.classical_owner(square) {
                out[if owner == perspective { square } else { SQUARES + square }] = 1.0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::after_random_actions;

    #[test]
    fn owners_follow_the_final_position_and_swap_with_the_perspective() {
        for seed in 0..10 {
            let end: Qttt = after_random_actions(seed, usize::MAX);
            let target = |perspective| {
                let mut out = vec![0.0; Qttt::AUX_OUTPUTS];
                end.aux_target(perspective, &mut out);
                out
            };
            let (a, b) = (target(0), target(1));
            assert_eq!(a[..16], b[16..]);
            for s in 0..16 {
                assert_eq!(a[s] + a[16 + s], end.classical_owner(s).is_some() as u8 as f32);
            }
        }
    }
}
