//! Auxiliary training targets read off the end of a game (the idea behind KataGo's ownership
//! head): what the final position says about every earlier one, attached to each of the game's
//! samples and learnt by an extra head beside the policy and value. The head only shapes the
//! shared hidden layers during training; no bot reads it, so it is never exported. The targets
//! live here, not in `bots`, so that no submission bundles their code either.
//!
//! Each output is an independent yes/no in [0, 1], trained by binary cross-entropy. A target
//! is computed on the final position under the sample's symmetry, so it turns with the board.

use bots::blackhole::{self, BlackHole};
use bots::connect4::{Connect4, COLS, ROWS};
use bots::encode::Encode;
use bots::game::{Game, Player};
use bots::game6561::Game6561;
use bots::qttt::{Qttt, SQUARES};
use bots::zuniq::{self, Zuniq};

/// A game's auxiliary targets. Games without any keep `AUX_OUTPUTS = 0`.
pub trait AuxTarget: Encode {
    /// Outputs of the auxiliary head.
    const AUX_OUTPUTS: usize = 0;
    /// Writes the targets of this final position, seen from `perspective` (the mover of the
    /// sample they train), into `out` (`AUX_OUTPUTS` long, zeroed by the caller).
    fn aux_target(&self, _perspective: Player, _out: &mut [f32]) {}
}

/// Black Hole: which field became the hole (one of 36).
impl AuxTarget for BlackHole {
    const AUX_OUTPUTS: usize = blackhole::FIELDS;
    fn aux_target(&self, _perspective: Player, out: &mut [f32]) {
        if let Some(hole) = self.hole() {
            out[hole] = 1.0;
        }
    }
}

/// Connect 4: the final owner of each cell (own chips, the opponent's) and the empty cells
/// that were threats (where each side would have completed four): the first four planes of
/// the final position's own features, turned to the sample's mover.
impl AuxTarget for Connect4 {
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
}

/// Zuniq: which cells ended inside closed zones.
impl AuxTarget for Zuniq {
    const AUX_OUTPUTS: usize = zuniq::CELLS;
    fn aux_target(&self, _perspective: Player, out: &mut [f32]) {
        for (c, o) in out.iter_mut().enumerate() {
            *o = (self.closed_cells() >> c & 1) as f32;
        }
    }
}

/// Quantum tic-tac-toe: each square's final classical owner, own then the opponent's.
impl AuxTarget for Qttt {
    const AUX_OUTPUTS: usize = 2 * SQUARES;
    fn aux_target(&self, perspective: Player, out: &mut [f32]) {
        for square in 0..SQUARES {
            if let Some(owner) = self.classical_owner(square) {
                out[if owner == perspective { square } else { SQUARES + square }] = 1.0;
            }
        }
    }
}

/// 6561: none yet (a cooperative game's "who owns what" means nothing).
impl AuxTarget for Game6561 {}

/// The targets of `end` for `perspective` under symmetry `sym`, as a fresh vector.
pub fn aux_targets<G: AuxTarget>(end: &G, sym: usize, perspective: Player) -> Vec<f32> {
    let mut out = vec![0.0; G::AUX_OUTPUTS];
    end.symmetric(sym).aux_target(perspective, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bots::game::ActionList;
    use bots::rng::Rng;

    fn random_end<G: Game>(seed: u64) -> G {
        let mut rng = Rng::new(seed);
        let mut g = G::new_game(&mut rng);
        let mut legal = ActionList::new();
        while !g.is_terminal() {
            g.legal_actions(&mut legal);
            g.apply(legal[rng.below(legal.len())]);
        }
        g
    }

    /// Binary cross-entropy needs targets in [0, 1]: outside, its loss has no floor and the
    /// head drags the shared layers with it (a Connect 4 run diverged when the features grew
    /// past the four planes the targets are copied from).
    fn targets_are_probabilities<G: AuxTarget>() {
        for seed in 0..20 {
            let end: G = random_end(seed);
            for sym in 0..G::NUM_SYMMETRIES {
                for perspective in 0..2 {
                    let t = aux_targets(&end, sym, perspective);
                    assert!(t.iter().all(|&x| (0.0..=1.0).contains(&x)), "{} seed {seed}: {t:?}", G::NAME);
                }
            }
        }
    }

    #[test]
    fn every_games_targets_are_probabilities() {
        targets_are_probabilities::<BlackHole>();
        targets_are_probabilities::<Connect4>();
        targets_are_probabilities::<Zuniq>();
        targets_are_probabilities::<Qttt>();
    }

    #[test]
    fn black_hole_marks_the_one_hole_and_turns_with_the_board() {
        for seed in 0..20 {
            let end: BlackHole = random_end(seed);
            for sym in 0..BlackHole::NUM_SYMMETRIES {
                let t = aux_targets(&end, sym, 0);
                assert_eq!(t.iter().sum::<f32>(), 1.0);
                let hole = end.symmetric(sym).hole().unwrap();
                assert_eq!(t[hole], 1.0, "seed {seed} sym {sym}");
            }
        }
    }

    #[test]
    fn connect4_owners_swap_with_the_perspective() {
        for seed in 0..20 {
            let end: Connect4 = random_end(seed);
            let (a, b) = (aux_targets(&end, 0, 0), aux_targets(&end, 0, 1));
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

    #[test]
    fn zuniq_and_qttt_targets_follow_the_final_position() {
        for seed in 0..10 {
            let end: Zuniq = random_end(seed);
            let t = aux_targets(&end, 0, 0);
            assert_eq!(t.iter().sum::<f32>() as u32, end.closed_cells().count_ones());
            let end: Qttt = random_end(seed);
            let (a, b) = (aux_targets(&end, 0, 0), aux_targets(&end, 0, 1));
            assert_eq!(a[..16], b[16..]);
            for s in 0..16 {
                assert_eq!(a[s] + a[16 + s], end.classical_owner(s).is_some() as u8 as f32);
            }
        }
        assert_eq!(Game6561::AUX_OUTPUTS, 0);
    }
}
