//! Self-partnered 6561 games with the classic beam search, for tuning its evaluation:
//! `cargo run --release -p cupzero-bots --example g6561_lookahead -- GAMES WIDTH HORIZON [name=value ...]`
//! (weights by name, e.g. `third=0.1`). Each game opens with three random placements so games
//! differ; two games run at a time. Prints the mean score and every (score, moves, largest piece).
use bots::agent::Agent;
use bots::game::{ActionList, Game};
use bots::game6561::lookahead::{BeamAgent, Weights};
use bots::game6561::Game6561;
use bots::rng::Rng;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default);
    let (games, width, horizon) = (number(0, 10), number(1, 200), number(2, 20));
    let mut w = Weights::TUNED;
    for kv in args.iter().skip(3) {
        let (k, v) = kv.split_once('=').expect("weights as name=value");
        let v: f32 = v.parse().expect("a number");
        match k {
            "crowding" => w.crowding = v,
            "room" => w.room = v,
            "merge" => w.merge = v,
            "clash" => w.clash = v,
            "sum" => w.sum = v,
            "mass" => w.mass = v,
            "second" => w.second = v,
            "third" => w.third = v,
            "best" => w.best = v,
            "bare" => w.bare = v,
            _ => panic!("unknown weight {k}"),
        }
    }
    let start = std::time::Instant::now();
    let threads: Vec<_> = (0..2)
        .map(|t| {
            std::thread::spawn(move || {
                let mut results = vec![];
                for game in (t..games).step_by(2) {
                    let mut agent = BeamAgent::new(w, width, horizon);
                    let mut g = Game6561::new();
                    let mut rng = Rng::new(game as u64 + 1);
                    let mut list = ActionList::new();
                    for _ in 0..3 {
                        g.legal_actions(&mut list);
                        g.apply(list[rng.below(list.len())]);
                    }
                    while !g.is_terminal() {
                        let a = agent.choose(&g, None);
                        g.apply(a);
                    }
                    results.push((g.score(), g.moves(), g.largest_piece()));
                }
                results
            })
        })
        .collect();
    let mut all: Vec<(u64, usize, u64)> = threads.into_iter().flat_map(|h| h.join().unwrap()).collect();
    all.sort();
    let mean = all.iter().map(|r| r.0 as f64).sum::<f64>() / all.len() as f64;
    println!("{w:?} width {width} horizon {horizon}: mean {mean:.1} over {} games in {:.1}s: {all:?}", all.len(), start.elapsed().as_secs_f64());
}
