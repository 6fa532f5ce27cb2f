//! Black Hole's training side: the margin search plays self-play's last stones, the
//! evaluation plays the classic bot, and the hole is an auxiliary target.

use super::endgame::EndgameSolver;
use super::{BlackHole, FIELDS};
use crate::game::Player;
use crate::solver::ExactPlay;
use crate::training::Training;

impl Training for BlackHole {
    /// `solve_legal = 36`: at most 36 legal moves means the last 8 stones, which the margin
    /// search settles in about 10k nodes (docs/lab/blackhole.md, Where the points go, and
    /// an exact endgame). The evaluation plays the classic bot at 1000 playouts; its games are
    /// nearly all lost, so its figure is the mean points.
    const TRAINING_DEFAULTS: &'static str = "[selfplay]
solve_legal = 36

[eval]
every = 10
games = 100
playouts = 200
opponent = \"classic\"
";

    /// Which field became the hole (one of 36).
    const AUX_OUTPUTS: usize = FIELDS;
    fn aux_target(&self, _perspective: Player, out: &mut [f32]) {
        if let Some(hole) = self.hole() {
            out[hole] = 1.0;
        }
    }

    fn exact_player() -> Option<Box<dyn ExactPlay<Self>>> {
        Some(Box::new(EndgameSolver::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::tools::after_random_actions;

    #[test]
    fn the_target_marks_the_one_hole_and_turns_with_the_board() {
        for seed in 0..20 {
            let end: BlackHole = after_random_actions(seed, usize::MAX);
            for sym in 0..BlackHole::NUM_SYMMETRIES {
                let turned = end.symmetric(sym);
                let mut t = vec![0.0; BlackHole::AUX_OUTPUTS];
                turned.aux_target(0, &mut t);
                assert_eq!(t.iter().sum::<f32>(), 1.0);
                assert_eq!(t[turned.hole().unwrap()], 1.0, "seed {seed} sym {sym}");
            }
        }
    }
}
