//! Experiment: the net bot with one tactical playout mixed into every leaf's value
//! (`bots::connect4::playout`) against the UCT bot, both at fixed playouts a move, from the
//! start position, both seats. `-- PAIRS PLAYOUTS UCT_PLAYOUTS WEIGHT`; environment `NET` (the
//! weights, default the shipped net's). WEIGHT 0 is the net alone; the exported bot mixes at `connect4::protocol::ROLLOUT_WEIGHT`.
mod common;

use bots::agent::{Agent, SearchAgent};
use bots::connect4::playout::mixed_agent;
use bots::connect4::Connect4;
use bots::game::Game;
use bots::mcts::MctsConfig;
use bots::nn::Mlp;
use bots::tools::RolloutEvaluator;
use std::sync::Arc;

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| -> Result<f64, String> {
        args.get(i).and_then(|a| a.parse().ok()).ok_or("usage: connect4_mixed_vs_uct PAIRS PLAYOUTS UCT_PLAYOUTS WEIGHT".to_string())
    };
    let (pairs, playouts, uct_playouts, weight) = (number(0)? as usize, number(1)? as u64, number(2)? as u64, number(3)? as f32);
    let path = std::env::var("NET").unwrap_or("checkpoints/connect4/net.czw".into());
    let bytes = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
    let net = Arc::new(Mlp::from_bytes(&bytes, "connect4").map_err(|e| format!("{path}: {e}"))?);
    let results = common::connect4_pairs(pairs, 0, |start, pair, seat| {
        let seed = 2 * pair as u64 + seat as u64;
        let mut bot = mixed_agent(Arc::clone(&net), bots::bot::net_search_config::<Connect4>(), weight, Some(playouts), seed);
        let mut uct = SearchAgent::new(Connect4::new(), MctsConfig::uct(), RolloutEvaluator::new(seed), Some(uct_playouts));
        let mut game = start.clone();
        while !game.is_terminal() {
            let action = if game.to_move() == seat { bot.choose(&game, None) } else { uct.choose(&game, None) };
            game.apply(action);
        }
        game
    });
    for seat in 0..2 {
        let scores: Vec<f64> = results.iter().filter(|r| r.0 == seat).map(|r| r.1).collect();
        let wins = scores.iter().filter(|&&s| s == 1.0).count();
        let draws = scores.iter().filter(|&&s| s == 0.5).count();
        println!("as seat {seat}: {wins}-{draws}-{} (W-D-L)", scores.len() - wins - draws);
    }
    let score: f64 = results.iter().map(|r| r.1).sum();
    println!("weight {weight}, {playouts} playouts against uct at {uct_playouts}: {:.1}% of {}", 100.0 * score / results.len() as f64, results.len());
    Ok(())
}

fn main() {
    common::exit_on_error(run);
}
