//! Experiment: the classic alpha-beta with the net's value at its leaves against the plain
//! classic bot, both at the same time per move (10x on the first turns). `-- PAIRS MS`;
//! environment `OPEN` (random plies before each pair, default 2), `NET` (the weights, default
//! the shipped net's).
mod common;

use bots::agent::Agent;
use bots::connect4::classic::classic_search;
use bots::connect4::search::{AlphaBeta, NetLeaf};
use bots::game::Game;
use bots::nn::Mlp;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs: usize = args[0].parse().unwrap();
    let ms: u64 = args[1].parse().unwrap();
    let open_plies: usize = std::env::var("OPEN").map_or(2, |v| v.parse().unwrap());
    let path = std::env::var("NET").unwrap_or("checkpoints/connect4/net.czw".into());
    let net = Arc::new(Mlp::from_bytes(&std::fs::read(&path).unwrap(), "connect4").unwrap());
    let depths = Mutex::new((0u64, 0u64, 0u64, 0u64));
    let results = common::connect4_pairs(pairs, open_plies, |opening, _, seat| {
        let mut game = opening.clone();
        let mut classic = classic_search(None);
        let mut hybrid = AlphaBeta::new(NetLeaf::new(Arc::clone(&net)), None);
        while !game.is_terminal() {
            let deadline = Some(Instant::now() + Duration::from_millis(if game.turn() < 2 { 10 * ms } else { ms }));
            let action = if game.to_move() == seat {
                let a = hybrid.choose(&game, deadline);
                let r = hybrid.last_search();
                let mut d = depths.lock().unwrap();
                d.0 += r.depth as u64;
                d.1 += 1;
                d.2 += r.nodes;
                a
            } else {
                let a = classic.choose(&game, deadline);
                let r = classic.last_search();
                depths.lock().unwrap().3 += r.nodes;
                a
            };
            game.apply(action);
        }
        game
    });
    let d = depths.into_inner().unwrap();
    let score: f64 = results.iter().map(|r| r.1).sum();
    let s0: f64 = results.iter().filter(|r| r.0 == 0).map(|r| r.1).sum();
    println!("hybrid {score}/{} = {:.1}% (as seat 0: {s0}) vs classic, {ms} ms; hybrid mean depth {:.1}, nodes/move {} vs classic {}",
        results.len(), 100.0 * score / results.len() as f64, d.0 as f64 / d.1 as f64, d.2 / d.1, d.3 / d.1);
}
