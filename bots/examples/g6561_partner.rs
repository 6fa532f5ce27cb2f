//! 6561 with partners that are not itself, in-process, for developing the partner-aware search:
//! `cargo run --release -p cupzero-bots --example g6561_partner -- GAMES MS US PARTNER`
//! US and PARTNER: `random`, `beam` (the classic beam, MS a move), `chance:D` (the chance
//! search with a uniform partner, at most D moves deep, MS a move), `partner` (the
//! submission's PartnerAgent), or a field player (`greedy`, `corner`, `short-beam`). Weights
//! by name after them (`second=-0.3`) set the chance search's evaluation. Seats alternate; two games
//! at a time. Prints the mean shared score and every (score, moves, largest piece, our seat).
use bots::agent::Agent;
use bots::game::Game;
use bots::game6561::lookahead::{BeamAgent, Weights};
use bots::game6561::field::ExpectimaxAgent;
use bots::game6561::partner::ChanceSearch;
use bots::game6561::Game6561;
use bots::tools::RandomAgent;
use std::time::{Duration, Instant};

/// Weights by name from `name=value` pairs after the players.
fn weights(pairs: &[String]) -> Weights {
    let mut w = bots::game6561::partner::STRANGER_WEIGHTS;
    for kv in pairs {
        let (k, v) = kv.split_once('=').expect("options as name=value");
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
            "risk" => w.risk = v,
            _ => panic!("unknown option {k}"),
        }
    }
    w
}

fn player(spec: &str, seed: u64, w: Weights) -> (Box<dyn Agent<Game6561>>, bool) {
    let parts: Vec<&str> = spec.split(':').collect();
    match parts[0] {
        "random" => (Box::new(RandomAgent::new(seed)), false),
        "beam" => (Box::new(BeamAgent::new(Weights::TUNED, 64, 20)), true),
        "partner" => (Box::new(bots::game6561::partner::PartnerAgent::new(BeamAgent::new(Weights::TUNED, 64, 20))), true),
        name if bots::game6561::field::FIELD.iter().any(|p| p.name == name) => {
            let player = bots::game6561::field::FIELD.iter().find(|p| p.name == name).unwrap();
            ((player.agent)(seed, None), false)
        }
        "chance" => {
            let d: u32 = parts.get(1).map_or(40, |v| v.parse().unwrap());
            (Box::new(ExpectimaxAgent { search: ChanceSearch::new(w), depth: d }), true)
        }
        other => panic!("unknown player {other}"),
    }
}

/// Slides `cells` toward `direction` carrying each piece's tag (who placed it; merged pieces
/// become 3), and adds the units of lead-colour pieces annihilated to `lost[tag]`.
fn slide_tags(cells: &[u8; 16], tags: &mut [u8; 16], direction: u16, lead: u8, lost: &mut [u32; 4]) {
    use bots::game6561::{colour_of, exponent_of};
    for l in 0..4 {
        let line: [usize; 4] = std::array::from_fn(|k| match direction {
            16 => k * 4 + l,
            17 => (3 - k) * 4 + l,
            18 => l * 4 + k,
            _ => l * 4 + (3 - k),
        });
        let pieces: Vec<(u8, u8)> = line.iter().filter(|&&sq| cells[sq] != 0).map(|&sq| (cells[sq], tags[sq])).collect();
        let mut out_tags = vec![];
        let mut i = 0;
        while i < pieces.len() {
            if i + 1 < pieces.len() && exponent_of(pieces[i].0) == exponent_of(pieces[i + 1].0) {
                if colour_of(pieces[i].0) == colour_of(pieces[i + 1].0) {
                    out_tags.push(3);
                } else {
                    for k in [i, i + 1] {
                        if colour_of(pieces[k].0) == lead {
                            lost[pieces[k].1 as usize] += 1 << exponent_of(pieces[k].0);
                        }
                    }
                }
                i += 2;
            } else {
                out_tags.push(pieces[i].1);
                i += 1;
            }
        }
        for (k, &sq) in line.iter().enumerate() {
            tags[sq] = out_tags.get(k).copied().unwrap_or(0);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: usize = args[0].parse().unwrap();
    let ms: u64 = args[1].parse().unwrap();
    let (us, partner) = (args[2].clone(), args[3].clone());
    let w = weights(&args[4..]);
    let clock = Instant::now();
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let (us, partner) = (us.clone(), partner.clone());
            std::thread::spawn(move || {
                let mut results = vec![];
                for game in (t..games).step_by(2) {
                    if std::env::var("ONLY").map_or(false, |only| only.parse::<usize>().unwrap() != game) {
                        continue;
                    }
                    let seat = game % 2;
                    let (a, a_timed) = player(&us, game as u64 * 7 + 1, w);
                    let (b, b_timed) = player(&partner, game as u64 * 7 + 2, Weights::TUNED);
                    let mut agents = if seat == 0 { [(a, a_timed), (b, b_timed)] } else { [(b, b_timed), (a, a_timed)] };
                    let mut g = Game6561::new();
                    let mut think = [Duration::ZERO; 2];
                    let mut depths = [0u32; 32];
                    let mut losses = [0u32; 2];
                    let mut tags = [0u8; 16];
                    let mut lost_by_tag = [0u32; 4];
                    while !g.is_terminal() {
                        let mover = g.to_move();
                        let started = Instant::now();
                        let deadline = agents[mover].1.then(|| started + Duration::from_millis(ms));
                        let action = agents[mover].0.choose(&g, deadline);
                        think[mover] += started.elapsed();
                        if mover == seat {
                            let report = agents[mover].0.last_report();
                            if std::env::var("TRACE").map_or(false, |t| t == "3") {
                                eprintln!("  move {}: {report}", g.moves() + 1);
                            }
                            if let Some(d) = report.split("depth ").nth(1).and_then(|r| r.split(',').next()).and_then(|d| d.parse::<u32>().ok()) {
                                depths[d.min(31) as usize] += 1;
                            }
                        }
                        for (agent, _) in agents.iter_mut() {
                            agent.observe(action);
                        }
                        let before = bots::game6561::colour_ranks(g.cells()).1;
                        let lead = bots::game6561::colour_ranks(g.cells()).0.iter().position(|&r| r == 0).unwrap() as u8;
                        if action >= 16 {
                            slide_tags(g.cells(), &mut tags, action, lead, &mut lost_by_tag);
                        } else {
                            tags[action as usize] = if mover == seat { 1 } else { 2 };
                        }
                        g.apply(action);
                        let after = bots::game6561::colour_ranks(g.cells()).1;
                        if after[0] < before[0] {
                            losses[(mover != seat) as usize] += before[0] - after[0];
                        }
                        if std::env::var("TRACE").map_or(false, |t| t == "2") && after[0] < before[0] {
                            eprintln!("  move {} by {}: lead units {} -> {} {:?}", g.moves(), if mover == seat { "us" } else { "partner" }, before[0], after[0], g.rows());
                        }
                        if std::env::var("TRACE").is_ok() && g.moves() % 100 == 0 {
                            eprintln!("  lead units lost so far: by us {}, by the partner {}; pieces placed by us {}, by the partner {}, merged {}", losses[0], losses[1], lost_by_tag[1], lost_by_tag[2], lost_by_tag[3]);
                            eprintln!("  game {game} move {}: units {:?} best {} rows {:?}", g.moves(), after, g.score(), g.rows());
                        }
                    }
                    eprintln!("game {game}: {} ({} moves, largest {}, us seat {seat}, {:.1} s, depths {:?})", g.score(), g.moves(), g.largest_piece(), think[seat].as_secs_f64(), depths.iter().enumerate().filter(|(_, &n)| n > 0).collect::<Vec<_>>());
                    results.push((g.score(), g.moves(), g.largest_piece(), seat));
                }
                results
            })
        })
        .collect();
    let mut all: Vec<(u64, usize, u64, usize)> = threads.into_iter().flat_map(|h| h.join().unwrap()).collect();
    all.sort();
    let mean = all.iter().map(|r| r.0 as f64).sum::<f64>() / all.len() as f64;
    let big = all.iter().filter(|r| r.2 >= 2187).count();
    let big_mean = all.iter().filter(|r| r.2 >= 2187).map(|r| r.0 as f64).sum::<f64>() / big.max(1) as f64;
    println!("{us} with {partner}, {ms} ms, {:?}: {big} of {} with a 2187 (their mean {big_mean:.1})", &args[4..], all.len()); println!(" mean {mean:.1} over {} games in {:.0} s: {all:?}", all.len(), clock.elapsed().as_secs_f64());
}
