//! Everything a contest submission needs, with no dependencies: game rules, generic MCTS,
//! agents, time management and protocol loops. The exporter bundles these modules (one
//! game's worth) into a single `.rs` file.
//!
//! What an exported bot carries compiles with rustc 1.63 ([`BOTS_RUSTC_FLOOR`]), as editions
//! 2015, 2018 and 2021: no `let ... else` (1.65), `is_some_and` (1.70), `div_ceil` (1.73) or
//! newer; `TryInto` imported, as the 2015 and 2018 preludes lack it; arrays iterated by value
//! through `IntoIterator::into_iter` or `.iter().copied()`, never `.into_iter()`; closures that
//! outlive a borrow of one field `move` (2021 captures fields, older editions whole variables).
//! `scripts/test` compiles every game's bots with Debian's rustc 1.63 and 1.85 as each edition.

pub mod agent;
pub mod alphabeta;
pub mod book;
pub mod bot;
pub mod classic;
pub mod codecup;
pub mod codingame;
pub mod cpu;
pub mod encode;
pub mod game;
pub mod infer;
pub mod mcts;
pub mod memory;
pub mod net_eval;
pub mod nn;
pub mod nn_write;
pub mod phases;
pub mod protocol;
pub mod referee;
pub mod registry;
pub mod rng;
pub mod rollout;
pub mod solver;
pub mod text;
pub mod time;
pub mod tools;
pub mod training;
pub mod view;

/// The oldest rustc an exported bot compiles with (the module docs say what that rules out).
pub const BOTS_RUSTC_FLOOR: &str = "1.63";

// The registry: one line per game (see `registry`).
registry::games! {
    connect4::Connect4,
    game6561::Game6561,
    blackhole::BlackHole,
    zuniq::Zuniq,
    qttt::Qttt,
    uttt::Uttt,
    zeropointone::ZeroPointOne,
}
