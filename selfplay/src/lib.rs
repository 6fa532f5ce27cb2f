//! Everything that plays many games: the judge (external programs through the real protocol),
//! and later self-play workers, the replay buffer, the training loop and the arena.

pub mod judge;
pub mod stats;
