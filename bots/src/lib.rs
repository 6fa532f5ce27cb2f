//! Everything a contest submission needs, with no dependencies: game rules, generic MCTS,
//! agents, time management and protocol loops. The exporter bundles these modules (one
//! game's worth) into a single `.rs` file.

pub mod agent;
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
pub mod net_eval;
pub mod nn;
pub mod nn_write;
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

// The registry: one line per game (see `registry`).
registry::games! {
    connect4::Connect4,
    game6561::Game6561,
    blackhole::BlackHole,
    zuniq::Zuniq,
    qttt::Qttt,
    uttt::Uttt,
}
