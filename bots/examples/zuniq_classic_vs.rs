//! The classic Zuniq bot in-process: its playout speed, and games against the net bot (or a
//! second classic configuration) on a whole-game clock split the way the CodeCup protocol
//! splits it (`codecup_alternate`: the agent's planned game and pace), one game at a time.
//!
//! `cargo run --release -p cupzero-bots --example zuniq_classic_vs -- bench`
//! `cargo run --release -p cupzero-bots --example zuniq_classic_vs -- net GAMES TIME_SCALE [SEED]`
//! `cargo run --release -p cupzero-bots --example zuniq_classic_vs -- self GAMES TIME_SCALE [SEED]`
//! Search settings of the (first) classic bot from the environment: `ZQ_C` (exploration),
//! `ZQ_B` (RAVE bias), `ZQ_FPU`, `ZQ_EXPAND`, `ZQ_IMPACT`, `ZQ_SOLVE`, `ZQ_SHARE`, `ZQ_DECISIVE`, `ZQ_DPACE`,
//! `ZQ_OPACE`; the second classic bot (`self`) keeps the defaults.

use bots::agent::Agent;
use bots::game::{ActionList, Game};
use bots::nn::Mlp;
use bots::time::{Clock, Safety, TimeManager};
use bots::zuniq::classic::{ClassicAgent, RaveConfig, RaveSearch};
use bots::zuniq::protocol::PLAY;
use bots::zuniq::Zuniq;
use std::time::{Duration, Instant};

fn env_config() -> RaveConfig {
    let mut c = RaveConfig::default();
    let get = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<f32>().ok());
    if let Some(v) = get("ZQ_C") {
        c.exploration = v;
    }
    if let Some(v) = get("ZQ_B") {
        c.rave_bias = v;
    }
    if let Some(v) = get("ZQ_FPU") {
        c.first_play = v;
    }
    if let Some(v) = get("ZQ_EXPAND") {
        c.expand_after = v as u32;
    }
    if let Some(v) = get("ZQ_IMPACT") {
        c.impact_weight = v;
    }
    if let Some(v) = get("ZQ_SOLVE") {
        c.solver_legal = v as usize;
    }
    if let Some(v) = get("ZQ_SHARE") {
        c.solver_share = v as f64;
    }
    if let Some(v) = get("ZQ_DECISIVE") {
        c.decisive_legal = v as usize;
    }
    if let Some(v) = get("ZQ_DPACE") {
        c.decisive_pace = v as f64;
    }
    if let Some(v) = get("ZQ_OPACE") {
        c.opening_pace = v as f64;
    }
    c
}

fn bench() {
    for (label, moves) in [("start", 0usize), ("after 16 random moves", 16)] {
        let state: Zuniq = bots::tools::after_random_actions(3, moves);
        let mut search = RaveSearch::new(state, env_config(), 1);
        let start = Instant::now();
        let n = search.search(None, Some(start + Duration::from_secs(2)));
        let secs = start.elapsed().as_secs_f64();
        println!("{label}: {n} simulations in {secs:.2} s, {:.0}/s, {} edges", n as f64 / secs, search.tree_edges());
    }
}

/// One game on a whole-game clock per side; returns (winner seat, claims right, claims wrong).
fn play_game(agents: &mut [Box<dyn Agent<Zuniq>>; 2], time_scale: f64) -> (usize, [u32; 2], [u32; 2], [Duration; 2]) {
    let mut state = Zuniq::new();
    let mut times = [0, 1].map(|_| TimeManager::new(Clock::per_game(30, time_scale), Safety::new(0.1, 15)));
    let mut claims: [Option<usize>; 2] = [None, None];
    let mut played = 0usize;
    while !state.is_terminal() {
        let me = state.to_move();
        let agent = &mut agents[me];
        let start = Instant::now();
        let (length, reserve) = agent.planned_game().unwrap_or((PLAY.planned_length, PLAY.reserve_moves));
        let own_left = ((length.saturating_sub(played) + 1) / 2) as u32 + reserve;
        let weight = agent.pace(&state);
        let shares = (own_left.max(1) as f64 - 1.0 + weight) / weight;
        let action = agent.choose(&state, Some(times[me].deadline(start, shares)));
        let mut legal = ActionList::new();
        state.legal_actions(&mut legal);
        assert!(legal.contains(action), "illegal move {}", Zuniq::format_action(action));
        if claims[me].is_none() && agent.proved_win() {
            claims[me] = Some(played);
        }
        times[me].finish_move(start);
        for a in agents.iter_mut() {
            a.observe(action);
        }
        state.apply(action);
        played += 1;
    }
    let winner = state.winner().unwrap();
    let mut right = [0; 2];
    let mut wrong = [0; 2];
    for p in 0..2 {
        if claims[p].is_some() {
            if p == winner {
                right[p] += 1;
            } else {
                wrong[p] += 1;
            }
        }
    }
    (winner, right, wrong, [times[0].used(), times[1].used()])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map(String::as_str).unwrap_or("bench");
    if mode == "bench" {
        bench();
        return Ok(());
    }
    let games: usize = args.get(1).map_or(Ok(10), |s| s.parse())?;
    let time_scale: f64 = args.get(2).map_or(Ok(0.1), |s| s.parse())?;
    let seed: u64 = args.get(3).map_or(Ok(1), |s| s.parse())?;
    let weights = std::fs::read("checkpoints/zuniq/net.czw")?;
    let (mut wins, mut white_wins, mut black_wins) = (0, 0, 0);
    let (mut right, mut wrong) = (0, 0);
    let mut most = Duration::ZERO;
    for g in 0..games {
        let classic: Box<dyn Agent<Zuniq>> = Box::new(ClassicAgent::new(seed + g as u64, None, env_config()));
        let other: Box<dyn Agent<Zuniq>> = match mode {
            "net" => bots::bot::net_agent::<Zuniq>(Mlp::from_bytes(&weights, "zuniq")?, None)?,
            _ => Box::new(ClassicAgent::new(1000 + seed + g as u64, None, RaveConfig::default())),
        };
        // The classic bot takes seat g % 2.
        let seat = g % 2;
        let mut agents = if seat == 0 { [classic, other] } else { [other, classic] };
        let (winner, r, w, used) = play_game(&mut agents, time_scale);
        most = most.max(used[seat]);
        right += r[seat];
        wrong += w[seat];
        if winner == seat {
            wins += 1;
            if seat == 0 {
                white_wins += 1;
            } else {
                black_wins += 1;
            }
        }
        println!(
            "game {g}: classic as {} {} ({} ms vs {} ms); classic {wins}/{} so far",
            if seat == 0 { "White" } else { "Black" },
            if winner == seat { "won" } else { "lost" },
            used[seat].as_millis(),
            used[1 - seat].as_millis(),
            g + 1
        );
    }
    println!(
        "classic vs {mode}: {wins} of {games} ({:.1}%), as White {white_wins}/{}, as Black {black_wins}/{}; claims {right} right, {wrong} wrong; most time in a game {} ms",
        100.0 * wins as f64 / games as f64,
        (games + 1) / 2,
        games / 2,
        most.as_millis()
    );
    Ok(())
}
