//! `cupzero perft` and `cupzero bench`: move generator counts and raw speed.

use anyhow::{bail, Result};
use bots::bot::Contest;
use bots::game::{ActionList, Game};
use bots::net_eval::NetEvaluator;
use bots::nn::Scratch;
use bots::nn_write::Describe;
use std::sync::Arc;
use bots::classic::Classic;
use bots::tools::{apply_texts, perft as count, RolloutEvaluator};
use bots::mcts::{Mcts, MctsConfig, SearchLimits};
use bots::rng::Rng;
use clap::Args;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct PerftArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// Count up to this depth.
    #[arg(long, default_value_t = 6)]
    pub depth: u32,
    /// Actions to play from the start first, in the game's notation, separated by spaces.
    #[arg(long, default_value = "")]
    pub moves: String,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Also measure a net (.czw): raw forward passes/s and net-guided search playouts/s.
    #[arg(long)]
    pub weights: Option<std::path::PathBuf>,
    /// Instead, measure the classic bot: one game against itself with this many milliseconds
    /// a move (its search speed and, for Connect 4, the depth reached).
    #[arg(long)]
    pub classic_ms: Option<u64>,
}

pub fn perft(args: PerftArgs) -> Result<()> {
    dispatch!(args.game, G => perft_game::<G>(&args))
}

fn perft_game<G: Game>(args: &PerftArgs) -> Result<()> {
    let mut state = G::new_game(&mut Rng::new(0));
    let moves: Vec<&str> = args.moves.split_whitespace().collect();
    apply_texts(&mut state, &moves).map_err(anyhow::Error::msg)?;
    for depth in 1..=args.depth {
        let start = Instant::now();
        let n = count(&state, depth);
        let secs = start.elapsed().as_secs_f64();
        println!("perft {depth} {n}  ({:.3} s, {:.1} M/s)", secs, n as f64 / secs.max(1e-9) / 1e6);
    }
    Ok(())
}

pub fn bench(args: BenchArgs) -> Result<()> {
    if !(args.seconds > 0.0 && args.seconds < 3600.0) {
        bail!("--seconds must be in (0, 3600), got {}", args.seconds);
    }
    let period = Duration::from_secs_f64(args.seconds);
    if let Some(ms) = args.classic_ms {
        return dispatch!(args.game, G => bench_classic::<G>(ms));
    }
    dispatch!(args.game, G => {
        bench_game::<G>(period);
        if let Some(path) = &args.weights {
            bench_net::<G>(path, period)?;
        }
    });
    Ok(())
}

fn bench_net<G: Contest>(path: &std::path::Path, period: Duration) -> Result<()> {
    let net = selfplay::train::load_weights::<G>(path)?;
    let mut rng = Rng::new(3);
    let mut list = ActionList::new();
    // Positions from random games, so the feature density is realistic.
    let mut positions = Vec::new();
    while positions.len() < 2000 {
        let mut s = G::new_game(&mut rng);
        while !s.is_terminal() {
            let mut f = vec![0.0; G::NUM_FEATURES];
            s.encode(&mut f);
            positions.push(f);
            s.legal_actions(&mut list);
            s.apply(list[rng.below(list.len())]);
        }
    }
    let mut logits = vec![0.0; G::NUM_ACTIONS];
    let mut scratch = Scratch::default();
    let start = Instant::now();
    let mut evals = 0u64;
    while start.elapsed() < period {
        for f in &positions {
            net.forward(f, &mut scratch, &mut logits);
        }
        evals += positions.len() as u64;
    }
    println!("{}: net forward passes: {:.0}/s ({} parameters)", G::NAME, evals as f64 / start.elapsed().as_secs_f64(), net.num_parameters());
    let agent_net = Arc::new(net);
    let mut mcts = Mcts::new(G::new_game(&mut Rng::new(0)), bots::bot::net_search_config::<G>());
    let stats = mcts.search(&mut NetEvaluator::new(agent_net), &SearchLimits::until(Instant::now() + period));
    println!(
        "{}: net-guided PUCT search from the start: {:.0} playouts/s (one thread)",
        G::NAME,
        stats.playouts as f64 / stats.elapsed.as_secs_f64()
    );
    Ok(())
}

/// One game of the classic bot against itself, `ms` per move: what each decision searched.
fn bench_classic<G: Classic>(ms: u64) -> Result<()> {
    let (Some(mut first), Some(mut second)) = (G::classic_agent(1, None), G::classic_agent(2, None)) else {
        bail!("{} has no classic bot", G::NAME);
    };
    let mut state = G::new_game(&mut Rng::new(1));
    let (mut nodes, mut seconds) = (0u64, 0.0);
    while !state.is_terminal() {
        let agent = if state.to_move() == 0 { &mut first } else { &mut second };
        let start = Instant::now();
        let action = agent.choose(&state, Some(start + Duration::from_millis(ms)));
        seconds += start.elapsed().as_secs_f64();
        nodes += agent.last_playouts().unwrap_or(0);
        println!("{}: {} {}: {}", G::NAME, state.to_move(), G::format_action(action), agent.last_report());
        first.observe(action);
        second.observe(action);
        state.apply(action);
    }
    println!("{}: classic bot against itself: {:.0} nodes or playouts/s over {:.2} s (one thread)", G::NAME, nodes as f64 / seconds.max(1e-9), seconds);
    Ok(())
}

fn bench_game<G: Game>(period: Duration) {
    let mut rng = Rng::new(1);
    let start_state = G::new_game(&mut rng);
    let start = Instant::now();
    let (mut games, mut actions) = (0u64, 0u64);
    let mut list = ActionList::new();
    while start.elapsed() < period {
        let mut state = start_state.clone();
        while !state.is_terminal() {
            state.legal_actions(&mut list);
            state.apply(list[rng.below(list.len())]);
            actions += 1;
        }
        games += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    println!("{}: random playouts from the start: {:.0}/s ({:.1} actions each)", G::NAME, games as f64 / secs, actions as f64 / games as f64);

    let mut mcts = Mcts::new(start_state, MctsConfig::uct());
    let stats = mcts.search(&mut RolloutEvaluator::new(2), &SearchLimits::until(Instant::now() + period));
    let secs = stats.elapsed.as_secs_f64();
    println!(
        "{}: UCT search from the start: {:.0} playouts/s, {:.0} tree nodes/s ({} nodes in {:.1} s, one thread)",
        G::NAME,
        stats.playouts as f64 / secs,
        stats.tree_nodes as f64 / secs,
        stats.tree_nodes,
        secs
    );
}
