//! Analysis: what each first move is worth once STEAL is settled. After a first chip in column
//! `c`, the second player either keeps it (plays a column) or steals it; either way the game
//! goes on from "one chip in `c`, its owner's opponent to move, no STEAL left", with the owner
//! being the first player (kept) or the second (stolen). So one number per column, the chip
//! owner's expected score V(c), says both: a second player steals when V(c) > 1/2, and the
//! first player gets min(V, 1 - V). Columns c and 8 - c are mirror images: five columns.
//!
//! V(c) is measured by games from the position after `c STEAL` (the owner to move second)
//! among three players at fixed budgets: the net bot (PUCT), the UCT bot (random playouts,
//! seeded: its games vary) and the classic alpha-beta, every ordered pairing, the owner
//! being either. `-- NET_PLAYOUTS UCT_PLAYOUTS CLASSIC_NODES SEEDS`; environment `NET`
//! (the weights, default the shipped net's). Prints each column's owner score by pairing
//! and in all.
use bots::agent::{Agent, SearchAgent};
use bots::bot::{net_search_config, Contest};
use bots::connect4::classic::classic_search;
use bots::connect4::{Connect4, STEAL};
use bots::game::Game;
use bots::mcts::MctsConfig;
use bots::nn::Mlp;
use bots::tools::RolloutEvaluator;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const PLAYERS: [&str; 3] = ["net", "uct", "classic"];

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().expect("numbers")).collect();
    let [net_playouts, uct_playouts, classic_nodes, seeds] = args[..] else {
        eprintln!("usage: connect4_openings NET_PLAYOUTS UCT_PLAYOUTS CLASSIC_NODES SEEDS");
        std::process::exit(2);
    };
    let path = std::env::var("NET").unwrap_or("checkpoints/connect4/net.czw".into());
    let net = Arc::new(Mlp::from_bytes(&std::fs::read(&path).unwrap(), "connect4").unwrap());
    let agent = |who: usize, seed: u64| -> Box<dyn Agent<Connect4>> {
        match who {
            0 => Connect4::bot_agent(Arc::clone(&net), net_search_config::<Connect4>(), Some(net_playouts)),
            1 => Box::new(SearchAgent::new(Connect4::new(), MctsConfig::uct(), RolloutEvaluator::new(seed), Some(uct_playouts))),
            _ => Box::new(classic_search(Some(classic_nodes))),
        }
    };
    // (column, owner, mover, seed): deterministic pairings (no UCT) play one game.
    let mut games = Vec::new();
    for column in 0..5 {
        for owner in 0..3 {
            for mover in 0..3 {
                let n = if owner == 1 || mover == 1 { seeds } else { 1 };
                games.extend((0..n).map(|seed| (column, owner, mover, seed)));
            }
        }
    }
    let results = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&(column, owner, mover, seed)) = games.get(i) else { break };
                let mut state = Connect4::new();
                state.apply(column as u16);
                state.apply(STEAL);
                // Seat 1 owns the chip; seat 0 moves next.
                let mut agents = [agent(mover, 100 + seed), agent(owner, 200 + seed)];
                for a in agents.iter_mut() {
                    a.observe(column as u16);
                    a.observe(STEAL);
                }
                let mut plies = 2;
                while !state.is_terminal() {
                    let action = agents[state.to_move()].choose(&state, None);
                    for a in agents.iter_mut() {
                        a.observe(action);
                    }
                    state.apply(action);
                    plies += 1;
                }
                let score = match state.winner() {
                    Some(1) => 1.0,
                    Some(_) => 0.0,
                    None => 0.5,
                };
                eprintln!("column {column}: owner {} vs {}, seed {seed}: {score} after {plies} plies", PLAYERS[owner], PLAYERS[mover]);
                results.lock().unwrap().push((column, owner, mover, score));
            });
        }
    });
    let results = results.into_inner().unwrap();
    println!("owner's score after `c STEAL` (net {net_playouts} playouts, uct {uct_playouts}, classic {classic_nodes} nodes, {seeds} seeds)");
    println!("column  all      {}", (0..3).flat_map(|o| (0..3).map(move |m| format!("{:>7}", format!("{}/{}", &PLAYERS[o][..1], &PLAYERS[m][..1])))).collect::<String>());
    for column in 0..5 {
        let of = |f: &dyn Fn(usize, usize) -> bool| {
            let s: Vec<f64> = results.iter().filter(|r| r.0 == column && f(r.1, r.2)).map(|r| r.3).collect();
            (s.iter().sum::<f64>(), s.len())
        };
        let (sum, n) = of(&|_, _| true);
        let cells: String = (0..3)
            .flat_map(|o| (0..3).map(move |m| (o, m)))
            .map(|(o, m)| {
                let (s, n) = of(&|a, b| a == o && b == m);
                format!("{:>7}", format!("{s}/{n}"))
            })
            .collect();
        println!("{column}/{}    {:.3}  {cells}", 8 - column, sum / n as f64);
    }
}
