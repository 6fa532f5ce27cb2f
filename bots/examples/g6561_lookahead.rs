//! Self-partnered 6561 games with the classic beam search, for tuning its evaluation:
//! `cargo run --release -p cupzero-bots --example g6561_lookahead -- GAMES WIDTH HORIZON [name=value ...]`
//! (weights by name, e.g. `third=0.1`). Each game opens with three random placements so games
//! differ; two games run at a time. Prints the mean score and every (score, moves, largest piece).
//! Options: `ms=N` gives every move N milliseconds (the bot's width rule then sets the width,
//! WIDTH being the first, narrow search); `dedup=0` keeps lines that meet on one board;
//! `predict=0` doubles the width while time allows instead of predicting it; `replay=FILE
//! start=K` starts game i from the first K moves of line i of FILE (a judge's `--records`
//! file) instead of random placements, to replay endgames of judged games; `net=FILE` lets a
//! value net (.czw) judge the last step's lines, `share=K` among the best K x width by the
//! hand-made evaluation, `every=1` at every step.
use bots::agent::Agent;
use bots::game::{ActionList, Game};
use bots::game6561::lookahead::{BeamAgent, Weights};
use bots::game6561::Game6561;
use bots::rng::Rng;
use std::time::{Duration, Instant};

mod common;

/// The actions of every game in a judge's records file.
fn recorded_games(path: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).expect("a records file");
    text.lines().map(|line| common::list(line, "actions").expect("an actions list").into_iter().map(String::from).collect()).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default);
    let (mut games, width, horizon) = (number(0, 10), number(1, 200), number(2, 20));
    let mut w = Weights::TUNED;
    // Unset: the bot's own setting.
    let (mut dedup, mut predict) = (None, None);
    let (mut ms, mut start_at, mut replay) = (0u64, 0, Vec::new());
    let (mut net, mut share, mut every, mut blend, mut from) = (None, None, false, 0.0, 0);
    for kv in args.iter().skip(3) {
        let (k, v) = kv.split_once('=').expect("options as name=value");
        if k == "replay" {
            replay = recorded_games(v);
            continue;
        }
        if k == "net" {
            let bytes = std::fs::read(v).expect("a weights file");
            net = Some(std::sync::Arc::new(bots::nn::Mlp::from_bytes(&bytes, "6561").expect("6561 weights")));
            continue;
        }
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
            "dedup" => dedup = Some(v > 0.0),
            "predict" => predict = Some(v > 0.0),
            "ms" => ms = v as u64,
            "start" => start_at = v as usize,
            "share" => share = Some(v as usize),
            "every" => every = v > 0.0,
            "blend" => blend = v,
            "from" => from = v as usize,
            _ => panic!("unknown option {k}"),
        }
    }
    if !replay.is_empty() {
        games = games.min(replay.len());
    }
    let replay = std::sync::Arc::new(replay);
    let clock = Instant::now();
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let replay = replay.clone();
            let net = net.clone();
            std::thread::spawn(move || {
                let mut results = vec![];
                for game in (t..games).step_by(2) {
                    let mut agent = BeamAgent::new(w, width, horizon);
                    agent.dedup = dedup.unwrap_or(agent.dedup);
                    agent.predict = predict.unwrap_or(agent.predict);
                    if let Some(net) = &net {
                        agent.net = Some(bots::game6561::lookahead::ScoreNet::new(net.clone()));
                    }
                    agent.net_share = share.unwrap_or(agent.net_share);
                    agent.net_every_step = every;
                    agent.net_weight = blend;
                    agent.net_from_move = from;
                    let mut g = Game6561::new();
                    if replay.is_empty() {
                        let mut rng = Rng::new(game as u64 + 1);
                        let mut list = ActionList::new();
                        for _ in 0..3 {
                            g.legal_actions(&mut list);
                            g.apply(list[rng.below(list.len())]);
                        }
                    } else {
                        let texts: Vec<&str> = replay[game].iter().take(start_at).map(|s| s.as_str()).collect();
                        bots::tools::apply_texts(&mut g, &texts).expect("a legal recorded game");
                    }
                    while !g.is_terminal() {
                        let deadline = (ms > 0).then(|| Instant::now() + Duration::from_millis(ms));
                        let a = agent.choose(&g, deadline);
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
    println!(
        "{w:?} dedup {dedup:?} predict {predict:?} net {} share {share:?} every {every} ms {ms} width {width} horizon {horizon}: mean {mean:.1} over {} games in {:.1}s: {all:?}",
        net.is_some(),
        all.len(),
        clock.elapsed().as_secs_f64()
    );
}
