//! Experiment: the classic alpha-beta with the net's value at its leaves against the plain
//! classic bot, both at the same time per move. `-- PAIRS MS [scale]`.
use bots::agent::Agent;
use bots::connect4::classic::classic_search;
use bots::connect4::search::{AlphaBeta, NetLeaf};
use bots::connect4::Connect4;
use bots::game::{ActionList, Game};
use bots::nn::Mlp;
use bots::rng::Rng;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs: usize = args[0].parse().unwrap();
    let ms: u64 = args[1].parse().unwrap();
    let open_plies: usize = std::env::var("OPEN").map_or(2, |v| v.parse().unwrap());
    let path = std::env::var("NET").unwrap_or("checkpoints/connect4/net.czw".into());
    let net = Arc::new(Mlp::from_bytes(&std::fs::read(&path).unwrap(), "connect4").unwrap());
    let results = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let depths = Mutex::new((0u64, 0u64, 0u64, 0u64));
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let pair = next.fetch_add(1, Ordering::SeqCst);
                if pair >= pairs {
                    break;
                }
                let mut rng = Rng::new(1000 + pair as u64);
                let mut opening = Connect4::new();
                let mut legal = ActionList::new();
                for _ in 0..open_plies {
                    opening.legal_actions(&mut legal);
                    opening.apply(legal[rng.below(9)]);
                }
                for seat in 0..2 {
                    let mut game = opening.clone();
                    let mut classic = classic_search(None);
                    let mut hybrid = AlphaBeta::new(NetLeaf::new(Arc::clone(&net)), None);
                    while !game.is_terminal() {
                        let deadline = Some(Instant::now() + Duration::from_millis(if game.turn() < 2 { 10 * ms } else { ms }));
                        let action = if game.to_move() == seat { 
                            let a = hybrid.choose(&game, deadline);
                            let r = hybrid.last_search();
                            let mut d = depths.lock().unwrap(); d.0 += r.depth as u64; d.1 += 1; d.2 += r.nodes;
                            a
                        } else {
                            let a = classic.choose(&game, deadline);
                            let r = classic.last_search();
                            let mut d = depths.lock().unwrap(); d.3 += r.nodes;
                            a
                        };
                        game.apply(action);
                    }
                    let score = match game.winner() {
                        Some(w) if w == seat => 1.0,
                        None => 0.5,
                        _ => 0.0,
                    };
                    results.lock().unwrap().push((seat, score));
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let d = depths.into_inner().unwrap();
    let score: f64 = results.iter().map(|r| r.1).sum();
    let s0: f64 = results.iter().filter(|r| r.0 == 0).map(|r| r.1).sum();
    println!("hybrid {score}/{} = {:.1}% (as seat 0: {s0}) vs classic, {ms} ms; hybrid mean depth {:.1}, nodes/move {} vs classic {}",
        results.len(), 100.0 * score / results.len() as f64, d.0 as f64 / d.1 as f64, d.2 / d.1, d.3 / d.1);
}
