//! `cupzero perft` and `cupzero bench`: move generator counts and raw speed.

use anyhow::{bail, Result};
use bots::bot::Contest;
use bots::game::{ActionList, Game};
use bots::infer::{QuantNet, Workspace};
use bots::mcts::{Evaluator, Values};
use bots::net_eval::NetEvaluator;
use bots::nn::Mlp;
use bots::nn_write::Describe;
use std::sync::Arc;
use bots::classic::Classic;
use bots::tools::{apply_texts, perft as count, perft_ends_as_leaves, RolloutEvaluator};
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
    /// Count a line that ends the game before the depth as one leaf (as perft tables that
    /// stop a line at a win do), instead of as none.
    #[arg(long)]
    pub ends_as_leaves: bool,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Also measure a net (.czw): forward passes/s, net-guided search playouts/s and where a
    /// playout's time goes, the submission's own search, and how closely the integer forward
    /// pass follows the net in f32.
    #[arg(long)]
    pub weights: Option<std::path::PathBuf>,
    /// With --weights: the positions of these judge records (`judge --records`) are the ones
    /// the integer net is compared on (default: positions of the benchmark's own search).
    #[arg(long, value_name = "RECORDS", num_args = 1..)]
    pub positions: Vec<std::path::PathBuf>,
    /// With --weights: nothing but the plain net-guided search from the start, for --seconds
    /// and untimed, so that a sampling profiler sees only it (`scripts/profile-playouts`).
    #[arg(long, requires = "weights")]
    pub search_only: bool,
    /// With --weights: the submission's search on positions along one game, thinking this many
    /// milliseconds a move, with each CPU level's kernels in turn (AVX2, AVX, SSE2 alone; as
    /// `export --cpu` caps them), alternating: median playouts a second at each level, and the
    /// median ratio to the best level's on the same move.
    #[arg(long, requires = "weights", value_name = "MS")]
    pub cpu_compare: Option<u64>,
    /// Cap the kernels at this CPU level for every measurement (as `export --cpu` does).
    #[arg(long, value_enum, default_value = "any")]
    pub cpu: crate::export::CpuArg,
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
        let n = if args.ends_as_leaves { perft_ends_as_leaves(&state, depth) } else { count(&state, depth) };
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
    bots::cpu::set_cap(args.cpu.cap());
    if let Some(ms) = args.classic_ms {
        return dispatch!(args.game, G => bench_classic::<G>(ms));
    }
    if !args.positions.is_empty() && args.weights.is_none() {
        bail!("--positions goes with --weights");
    }
    dispatch!(args.game, G => {
        match &args.weights {
            Some(path) if args.search_only => search_only::<G>(path, period)?,
            Some(path) if args.cpu_compare.is_some() => cpu_compare::<G>(path, Duration::from_millis(args.cpu_compare.unwrap_or(100)), period)?,
            Some(path) => {
                bench_game::<G>(period);
                bench_net::<G>(path, period, &args.positions)?;
            }
            None => bench_game::<G>(period),
        }
    });
    Ok(())
}

/// The plain net-guided search from the start, with no timer inside: what a profiler samples.
fn search_only<G: Contest>(path: &std::path::Path, period: Duration) -> Result<()> {
    let net = selfplay::train::load_weights::<G>(path)?;
    let mut mcts = Mcts::new(G::new_game(&mut Rng::new(0)), bots::bot::net_search_config::<G>());
    let stats = mcts.search(&mut NetEvaluator::new(Arc::new(net)), &SearchLimits::until(Instant::now() + period));
    println!(
        "{}: net-guided PUCT search from the start: {:.0} playouts/s, {} nodes in {} MB (one thread, untimed)",
        G::NAME,
        stats.playouts as f64 / stats.elapsed.as_secs_f64(),
        mcts.tree_size(),
        mcts.tree_bytes() >> 20
    );
    Ok(())
}

/// The submission's playouts a second at each CPU level the machine has, on positions along
/// one game of the net (100 playouts a move), each level in turn on every position, rounds
/// repeated until `period` is spent (three at least).
fn cpu_compare<G: Contest>(path: &std::path::Path, think: Duration, period: Duration) -> Result<()> {
    use bots::cpu::{detected, set_cap, Cpu};
    let net = Arc::new(selfplay::train::load_weights::<G>(path)?);
    let mut positions = Vec::new();
    let mut mcts = Mcts::new(G::new_game(&mut Rng::new(5)), bots::bot::net_search_config::<G>());
    let mut evaluator = NetEvaluator::new(Arc::clone(&net));
    while !mcts.root_state().is_terminal() {
        positions.push(mcts.root_state().clone());
        mcts.search(&mut evaluator, &SearchLimits::playouts(100));
        let action = mcts.best_action().expect("a move");
        mcts.advance(action);
    }
    // Eight positions spread over the game.
    let step = (positions.len() / 8).max(1);
    let positions: Vec<G> = positions.into_iter().step_by(step).take(8).collect();
    let levels: Vec<Cpu> = Cpu::ALL.iter().rev().copied().filter(|&c| c <= detected()).collect();
    // Per level, each move's playouts a second, and the ratio to the first level's on the same
    // move (moves whose search stopped early, proven, are left out).
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); levels.len()];
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); levels.len()];
    let start = Instant::now();
    let mut rounds = 0;
    while rounds < 3 || start.elapsed() < period {
        for state in &positions {
            let mut move_rates = Vec::new();
            for &level in &levels {
                set_cap(level);
                let mut agent = G::bot_agent(Arc::clone(&net), bots::bot::net_search_config::<G>(), None);
                let begin = Instant::now();
                agent.choose(state, Some(begin + think));
                let took = begin.elapsed();
                move_rates.push((took >= think).then(|| agent.last_playouts().unwrap_or(0) as f64 / took.as_secs_f64()));
            }
            if move_rates.iter().all(Option::is_some) {
                let move_rates: Vec<f64> = move_rates.into_iter().flatten().collect();
                for l in 0..levels.len() {
                    rates[l].push(move_rates[l]);
                    ratios[l].push(move_rates[l] / move_rates[0]);
                }
            }
        }
        rounds += 1;
    }
    set_cap(Cpu::Avx2);
    if rates[0].is_empty() {
        bail!("every search stopped before its {} ms (proven): nothing to compare", think.as_millis());
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for l in 0..levels.len() {
        println!(
            "{}: the submission's search with {:>8} kernels: {:.0} playouts/s, {:.2}x the {}'s (medians over {} moves of {} ms)",
            G::NAME,
            levels[l].name(),
            median(&mut rates[l]),
            median(&mut ratios[l]),
            levels[0].name(),
            rates[l].len(),
            think.as_millis(),
        );
    }
    Ok(())
}

/// An evaluator that times its parts: encoding, the forward pass, the priors' softmax.
struct Timed<'a> {
    net: &'a QuantNet,
    work: Workspace,
    features: Vec<f32>,
    /// Seconds in encoding, the forward pass and the softmax, and the evaluations.
    spent: [f64; 3],
    calls: u64,
}

impl<G: Contest> Evaluator<G> for Timed<'_> {
    fn evaluate(&mut self, state: &G, legal: &[bots::game::Action], priors: &mut [f32]) -> Values {
        let start = Instant::now();
        self.features.fill(0.0);
        state.encode(&mut self.features);
        let encoded = Instant::now();
        let v = self.net.evaluate(&mut self.work, state.to_move(), &self.features, legal, priors);
        let forward = Instant::now();
        bots::net_eval::softmax_in_place(priors);
        let done = Instant::now();
        for (spent, (a, b)) in self.spent.iter_mut().zip([(start, encoded), (encoded, forward), (forward, done)]) {
            *spent += (b - a).as_secs_f64();
        }
        self.calls += 1;
        bots::net_eval::seat_values(state.to_move(), v)
    }
}

fn bench_net<G: Contest>(path: &std::path::Path, period: Duration, records: &[std::path::PathBuf]) -> Result<()> {
    let net = selfplay::train::load_weights::<G>(path)?;
    let quantised = QuantNet::new(&net);
    let mut rng = Rng::new(3);
    let mut list = ActionList::new();
    // Positions from random games, so the feature density is realistic.
    let mut positions = Vec::new();
    while positions.len() < 2000 {
        let mut s = G::new_game(&mut rng);
        while !s.is_terminal() {
            let mut f = vec![0.0; G::NUM_FEATURES];
            s.encode(&mut f);
            s.legal_actions(&mut list);
            positions.push((f, list.to_vec()));
            s.apply(list[rng.below(list.len())]);
        }
    }
    let mut logits = vec![0.0; G::NUM_ACTIONS];
    let mut work = Workspace::default();
    let start = Instant::now();
    let mut evals = 0u64;
    while start.elapsed() < period {
        for (f, legal) in &positions {
            // One slot: unrelated positions, so the first layer is mostly computed afresh.
            quantised.evaluate(&mut work, 0, f, legal, &mut logits);
        }
        evals += positions.len() as u64;
    }
    println!(
        "{}: net forward passes (integer, the legal moves' logits, unrelated random-game positions): {:.0}/s ({} parameters)",
        G::NAME,
        evals as f64 / start.elapsed().as_secs_f64(),
        net.num_parameters()
    );
    // The search the issue of speed is about: the plain net evaluator, from the start.
    let mut mcts = Mcts::new(G::new_game(&mut Rng::new(0)), bots::bot::net_search_config::<G>());
    let mut timed = Timed { net: &quantised, work: Workspace::default(), features: vec![0.0; G::NUM_FEATURES], spent: [0.0; 3], calls: 0 };
    let stats = mcts.search(&mut timed, &SearchLimits::until(Instant::now() + period));
    let secs = stats.elapsed.as_secs_f64();
    println!("{}: net-guided PUCT search from the start: {:.0} playouts/s (one thread)", G::NAME, stats.playouts as f64 / secs);
    let per = |s: f64| s / stats.playouts.max(1) as f64 * 1e6;
    let tree = secs - timed.spent.iter().sum::<f64>();
    println!(
        "{}: a playout's {:.2} us: tree (selection, rules, expansion, backup) {:.2} us, encoding {:.2} us, forward pass {:.2} us, priors {:.2} us (with the timers' cost); first layer updated from the last position in {:.0}% of the {} evaluations",
        G::NAME,
        per(secs),
        per(tree),
        per(timed.spent[0]),
        per(timed.spent[1]),
        per(timed.spent[2]),
        100.0 * timed.work.incremental as f64 / (timed.work.incremental + timed.work.refreshed).max(1) as f64,
        timed.calls
    );
    // The submission's own search (symmetric views averaged, playouts mixed in, solvers).
    let mut agent = G::bot_agent(Arc::new(net.clone()), bots::bot::net_search_config::<G>(), None);
    let state = G::new_game(&mut Rng::new(0));
    let start = Instant::now();
    agent.choose(&state, Some(start + period));
    let playouts = agent.last_playouts().unwrap_or(0);
    println!("{}: the submission's search from the start: {:.0} playouts/s ({})", G::NAME, playouts as f64 / start.elapsed().as_secs_f64(), agent.last_report());
    agreement::<G>(&net, &quantised, records)
}

/// How the integer net compares with the net in f32: the policy's top legal move, the value.
fn agreement<G: Contest>(net: &Mlp, quantised: &QuantNet, records: &[std::path::PathBuf]) -> Result<()> {
    let (states, source): (Vec<G>, String) = if records.is_empty() {
        let mut rng = Rng::new(4);
        let mut states = Vec::new();
        let mut mcts = Mcts::new(G::new_game(&mut Rng::new(1)), bots::bot::net_search_config::<G>());
        while states.len() < 2000 && !mcts.root_state().is_terminal() {
            // Positions along one search-played game.
            let mut evaluator = NetEvaluator::quantised(Arc::new(quantised.clone()), 1);
            mcts.search(&mut evaluator, &SearchLimits::playouts(200));
            states.push(mcts.root_state().clone());
            let action = mcts.best_action().expect("a move");
            mcts.advance(action);
            if mcts.root_state().is_terminal() {
                mcts.reset(G::new_game(&mut rng));
            }
        }
        (states, "positions of games the net played with 200 playouts a move".into())
    } else {
        let games = crate::view::read_records(records)?;
        let mut states = Vec::new();
        for game in &games {
            let (positions, _) = crate::positions::replay::<G>(game.seed, &game.actions).map_err(|e| anyhow::anyhow!("game {}: {e}", game.game))?;
            states.extend(positions.into_iter().filter(|s| !s.is_terminal()));
        }
        let source = format!("{} positions of {} judged games", states.len(), games.len());
        (states, source)
    };
    let (mut same, mut value_error, mut largest, mut n) = (0usize, 0f64, 0f32, 0usize);
    let mut work = Workspace::default();
    let (mut features, mut reference, mut list) = (vec![0.0; G::NUM_FEATURES], vec![0.0; G::NUM_ACTIONS], ActionList::new());
    for state in &states {
        features.fill(0.0);
        state.encode(&mut features);
        state.legal_actions(&mut list);
        let v = net.forward_f32(&features, &mut reference);
        let mut logits = vec![0.0; list.len()];
        let w = quantised.evaluate(&mut work, 0, &features, &list, &mut logits);
        let top_reference = list.iter().copied().max_by(|&a, &b| reference[a as usize].total_cmp(&reference[b as usize])).expect("a legal move");
        let top = (0..list.len()).max_by(|&a, &b| logits[a].total_cmp(&logits[b])).map(|i| list[i]).expect("a legal move");
        same += (top == top_reference) as usize;
        let error = (v[0] - w[0]).abs();
        value_error += error as f64;
        largest = largest.max(error);
        n += 1;
    }
    println!(
        "{}: integer net against f32 on {source}: the same top move in {:.2}% of {n}, value error {:.5} on average, {:.4} at most",
        G::NAME,
        100.0 * same as f64 / n.max(1) as f64,
        value_error / n.max(1) as f64,
        largest
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
