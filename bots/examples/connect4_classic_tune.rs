//! Tunes the classic Connect 4 bot's evaluation against the shipped net, in-process and
//! independent of machine load: the classic bot gets a node budget, the net a playout budget,
//! each drawn from ±30% of the given one per game (so repeated lines still differ), games in
//! pairs with swapped seats from the same opening.
//!
//! `cargo run --release -p cupzero-bots --example connect4_classic_tune -- PAIRS NODES [name=value ...]`
//! with names `zug`, `zug_empties`, `good`, `bad`, `two`, `one` (the fields of
//! `connect4::classic::Weights`); environment: `PLAYOUTS` (the net's, default 22000, what it
//! searches in a 75 ms move), `OPEN` (random plies before the pair starts, default 0), `NET`
//! (the weights, default the shipped net's), `FIRST` (the budget of each player's first turn, as
//! a multiple of the others', default 1).

mod common;

use bots::agent::Agent;
use bots::bot::{net_search_config, Contest};
use bots::connect4::classic::{classic_search, HandMade, WEIGHTS};
use bots::connect4::Connect4;
use bots::game::Game;
use bots::nn::Mlp;
use bots::rng::Rng;
use std::sync::Arc;

fn fail(message: String) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, what: &str| -> u64 {
        args.get(i).and_then(|a| a.parse().ok()).unwrap_or_else(|| fail(format!("usage: PAIRS NODES [name=value ...]; bad or missing {what}")))
    };
    let (pairs, nodes) = (number(0, "PAIRS") as usize, number(1, "NODES"));
    let env = |name: &str, default: u64| std::env::var(name).ok().map_or(default, |v| v.parse().unwrap_or_else(|_| fail(format!("{name}={v} is not a number"))));
    let (playouts, open_plies) = (env("PLAYOUTS", 22_000), env("OPEN", 0));
    let first = env("FIRST", 1) as f64;
    let mut w = WEIGHTS;
    for setting in &args[2..] {
        let (name, value) = setting.split_once('=').unwrap_or_else(|| fail(format!("expected name=value, got {setting:?}")));
        let value: i32 = value.parse().unwrap_or_else(|_| fail(format!("{setting:?}: not a number")));
        match name {
            "zug" => w.zugzwang = value,
            "zug_empties" => w.zugzwang_empties = value as u32,
            "good" => w.good_threat = value,
            "bad" => w.bad_threat = value,
            "two" => w.two_in_window = value,
            "one" => w.one_in_window = value,
            _ => fail(format!("unknown weight {name:?}")),
        }
    }
    let path = std::env::var("NET").unwrap_or_else(|_| "checkpoints/connect4/net.czw".into());
    let bytes = std::fs::read(&path).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let net = Arc::new(Mlp::from_bytes(&bytes, "connect4").unwrap_or_else(|e| fail(e.to_string())));
    let jitter = |seed: u64| 0.7 + 0.6 * Rng::new(seed).unit_f64();
    let results = common::connect4_pairs(pairs, open_plies as usize, |opening, pair, seat| {
        let (pair, seat) = (pair as u64, seat as u64);
        let mut game = opening.clone();
        let mut classic = classic_search(Some((nodes as f64 * jitter(pair * 7 + seat)) as u64));
        classic.leaf = HandMade(w);
        let net_playouts = (playouts as f64 * jitter(pair * 11 + seat)) as u64;
        let mut net_bot = Connect4::bot_agent(Arc::clone(&net), net_search_config::<Connect4>(), Some(net_playouts));
        // Each player's first turn gets `FIRST` times the budget (CodinGame: 1000 ms
        // against 100 ms), from a fresh search.
        let first_turn = |game: &Connect4| {
            if game.to_move() == seat as usize {
                let mut c = classic_search(Some((nodes as f64 * first * jitter(pair * 7 + seat)) as u64));
                c.leaf = HandMade(w);
                c.choose(game, None)
            } else {
                Connect4::bot_agent(Arc::clone(&net), net_search_config::<Connect4>(), Some((net_playouts as f64 * first) as u64)).choose(game, None)
            }
        };
        while !game.is_terminal() {
            let action = if game.turn() < 2 && first > 1.0 {
                first_turn(&game)
            } else if game.to_move() == seat as usize {
                classic.choose(&game, None)
            } else {
                net_bot.choose(&game, None)
            };
            classic.observe(action);
            net_bot.observe(action);
            game.apply(action);
        }
        game
    });
    let score: f64 = results.iter().map(|r| r.1).sum();
    let as_first: f64 = results.iter().filter(|r| r.0 == 0).map(|r| r.1).sum();
    println!(
        "{w:?}\nclassic {score}/{} = {:.1}% against the net ({as_first} of {} as the first player; {nodes} nodes vs {playouts} playouts, {open_plies} random plies)",
        results.len(),
        100.0 * score / results.len() as f64,
        results.len() / 2
    );
}
