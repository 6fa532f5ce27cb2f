//! Net input features. Each game encodes a position once, here, for self-play, training and
//! the submitted bot alike.

use crate::game::Game;

/// A game whose positions a net can read.
pub trait Encode: Game {
    /// Length of the feature vector (the net's input width).
    const NUM_FEATURES: usize;
    /// Writes the features of this position, seen from the player to move, into `out`
    /// (`NUM_FEATURES` long, cleared by the caller). Mostly 0/1: the forward pass skips zeros.
    fn encode(&self, out: &mut [f32]);
}
