//! Auxiliary training targets read off the end of a game (the idea behind KataGo's ownership
//! head): what the final position says about every earlier one, attached to each of the game's
//! samples and learnt by an extra head beside the policy and value. The head only shapes the
//! shared hidden layers during training; no bot reads it, so it is never exported. Each game
//! declares its targets in its own folder ([`bots::training::Training::aux_target`]).
//!
//! Each output is an independent yes/no in [0, 1], trained by binary cross-entropy. A target
//! is computed on the final position under the sample's symmetry, so it turns with the board.

use bots::game::Player;
use bots::training::Training;

/// The targets of `end` for `perspective` under symmetry `sym`, as a fresh vector.
pub fn aux_targets<G: Training>(end: &G, sym: usize, perspective: Player) -> Vec<f32> {
    let mut out = vec![0.0; G::AUX_OUTPUTS];
    end.symmetric(sym).aux_target(perspective, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bots::tools::after_random_actions;

    /// Binary cross-entropy needs targets in [0, 1]: outside, its loss has no floor and the
    /// head drags the shared layers with it (a Connect 4 run diverged when the features grew
    /// past the four planes the targets are copied from).
    fn targets_are_probabilities<G: Training>() {
        for seed in 0..20 {
            let end: G = after_random_actions(seed, usize::MAX);
            for sym in 0..G::NUM_SYMMETRIES {
                for perspective in 0..2 {
                    let t = aux_targets(&end, sym, perspective);
                    assert_eq!(t.len(), G::AUX_OUTPUTS);
                    assert!(t.iter().all(|&x| (0.0..=1.0).contains(&x)), "{} seed {seed}: {t:?}", G::NAME);
                }
            }
        }
    }

    #[test]
    fn every_games_targets_are_probabilities() {
        for game in bots::GAMES {
            bots::with_game!(game.name, G => targets_are_probabilities::<G>()).expect("a registered game");
        }
    }
}
