//! Everything that plays many games: self-play workers, the replay buffer, the training loop,
//! the in-process arena and the judge of external programs.

pub mod arena;
pub mod aux;
pub mod book;
pub mod config;
pub mod distributed;
pub mod expert;
pub mod fuzz;
pub mod gumbel;
pub mod metrics;
pub mod judge;
pub mod league;
pub mod lock;
pub mod parallel;
pub mod plot;
pub mod records;
pub mod replay;
pub mod schedule;
pub mod sprt;
pub mod stats;
pub mod train;
pub mod worker;

/// Files written whole or not at all, each write through a temporary file of its own.
pub use model::files;
