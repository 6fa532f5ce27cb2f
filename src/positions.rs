//! A yardstick for nets that takes seconds: a labelled position set per game and the nets'
//! errors on it.
//!
//! `cupzero positions` samples positions from judged games (records of `judge` or `arena`:
//! games against other bots, not self-play) and labels each with a deep search of the best net,
//! or with the exact endgame search where it reaches. `cupzero grade` prints, for each net, its
//! value error against the labels and how often its top move is the label's. The set is a
//! quick check; `arena` at fixed playouts decides (docs/judging.md, The yardstick for nets).

use anyhow::{bail, Context, Result};
use bots::encode::Encode;
use bots::game::{Action, ActionList, Game};
use bots::mcts::{Evaluator, Mcts, SearchLimits};
use bots::net_eval::NetEvaluator;
use bots::nn::Mlp;
use bots::rng::Rng;
use bots::solver::ExactPlay;
use bots::training::Training;
use clap::Args;
use rayon::prelude::*;
use selfplay::config::TrainConfig;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The first line of a set file; the format's version is in it.
const HEADER: &str = "# cupzero positions v2";

#[derive(Args, Debug)]
pub struct PositionsArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// Records of judged games (`judge --records` or `arena --records`, one JSON line a game).
    #[arg(long, required = true, num_args = 1..)]
    pub records: Vec<PathBuf>,
    /// The net whose deep search labels the positions (.czw, or a run directory).
    #[arg(long)]
    pub net: PathBuf,
    /// Positions to keep (distinct, drawn uniformly from the games' positions with at least two
    /// legal actions).
    #[arg(long, default_value_t = 10_000)]
    pub count: usize,
    /// Playouts of each label's search.
    #[arg(long, default_value_t = 20_000)]
    pub playouts: u64,
    /// Exact labels from this many legal actions down, where the game has an exact endgame
    /// search (default: where self-play hands its games to it, `selfplay.solve_legal`).
    #[arg(long)]
    pub exact_legal: Option<usize>,
    /// Seconds the exact search may take on one position before the search's label stands.
    #[arg(long, default_value_t = 2.0)]
    pub exact_seconds: f64,
    /// Seed of the draw.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// The set file to write (whole, or not at all).
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(Args, Debug)]
pub struct GradeArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// The labelled set (`cupzero positions`).
    #[arg(long)]
    pub set: PathBuf,
    /// Nets to grade (.czw, or run directories).
    #[arg(required = true)]
    pub nets: Vec<PathBuf>,
    /// Also grade each net's search at this many playouts a position (the exported bot's
    /// search settings, the net's value at every leaf, as the labels' search): its move and
    /// value against the label's.
    #[arg(long)]
    pub playouts: Option<u64>,
    /// Threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

/// One labelled position: the game's setup seed, the actions that lead to it, and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Labelled {
    pub seed: u64,
    pub actions: Vec<String>,
    /// The value for the player to move, in [-1, 1].
    pub value: f32,
    pub best: String,
    /// Whether the label is exact (the endgame search's, or a proven search result).
    pub exact: bool,
}

/// The least of a judged game's record that replays it: `judge` and `arena` records both have it.
#[derive(serde::Deserialize)]
struct Replayable {
    seed: u64,
    actions: Vec<String>,
}

/// The positions of a game from its setup seed and actions (the judge's `Rng::new(seed)`).
pub fn replay<G: Game>(seed: u64, actions: &[String]) -> Result<(Vec<G>, Vec<Action>), String> {
    let mut state = G::new_game(&mut Rng::new(seed));
    let mut positions = vec![state.clone()];
    let mut played = Vec::with_capacity(actions.len());
    for (i, text) in actions.iter().enumerate() {
        let action = G::parse_action(text).map_err(|e| format!("move {}: {e}", i + 1))?;
        if state.is_terminal() || !state.is_legal(action) {
            return Err(format!("move {} ({text}) is not legal there", i + 1));
        }
        state.apply(action);
        positions.push(state.clone());
        played.push(action);
    }
    Ok((positions, played))
}

/// Our search's value of `state` for both seats and its move (none at the end). Where the
/// game's exact endgame search takes over in self-play (at most `solve_legal` legal actions),
/// the exact value: both sides play its moves to the end (`exact_time` at most, else the
/// search's). Also whether the value is exact.
pub fn label<G: Training>(state: &G, net: &Arc<Mlp>, playouts: u64, exact: &mut Option<Box<dyn ExactPlay<G>>>, solve_legal: usize, exact_time: Duration) -> ([f32; 2], Option<Action>, bool) {
    if state.is_terminal() {
        return (state.utilities(), None, true);
    }
    let mut legal = ActionList::new();
    state.legal_actions(&mut legal);
    if let Some(solver) = exact.as_mut().filter(|_| legal.len() <= solve_legal) {
        let deadline = Instant::now() + exact_time;
        let mut s = state.clone();
        let mut first = None;
        while !s.is_terminal() {
            match solver.exact_action(&s, u64::MAX, Some(deadline)) {
                Some(a) => {
                    first.get_or_insert(a);
                    s.apply(a);
                }
                None => break,
            }
        }
        if s.is_terminal() {
            return (s.utilities(), first, true);
        }
    }
    let mut mcts = Mcts::new(state.clone(), bots::bot::net_search_config::<G>());
    mcts.search(&mut NetEvaluator::averaged(Arc::clone(net), G::AVERAGED_VIEWS), &SearchLimits::playouts(playouts));
    let value = mcts.root_proven().unwrap_or_else(|| mcts.root_value());
    (value, mcts.best_action(), mcts.root_proven().is_some())
}

/// Reads records of judged games (several files are one pool of games).
fn read_games(paths: &[PathBuf]) -> Result<Vec<Replayable>> {
    let mut games = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let game: Replayable = serde_json::from_str(line).map_err(|e| anyhow::anyhow!("{} line {}: not a game record: {e}", path.display(), i + 1))?;
            games.push(game);
        }
    }
    if games.is_empty() {
        bail!("the records files hold no game");
    }
    Ok(games)
}

fn load_net<G: Game + Encode>(path: &Path) -> Result<Arc<Mlp>> {
    let file = if path.is_dir() { path.join("weights.czw") } else { path.to_path_buf() };
    let net = selfplay::train::load_weights::<G>(&file)?;
    net.check_shape(G::NUM_FEATURES, G::NUM_ACTIONS).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    Ok(Arc::new(net))
}

fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    Ok(rayon::ThreadPoolBuilder::new().num_threads(threads).build()?)
}

pub fn run_positions(args: PositionsArgs) -> Result<()> {
    if args.count == 0 || args.playouts == 0 {
        bail!("--count and --playouts must be at least 1");
    }
    if !(args.exact_seconds > 0.0 && args.exact_seconds < 3600.0) {
        bail!("--exact-seconds must lie in (0, 3600), got {}", args.exact_seconds);
    }
    dispatch!(args.game, G => make_set::<G>(&args))
}

fn make_set<G: Training>(args: &PositionsArgs) -> Result<()> {
    let games = read_games(&args.records)?;
    let net = load_net::<G>(&args.net)?;
    // Every distinct position with a choice to make, as (game, plies).
    let mut candidates = Vec::new();
    let mut seen = HashSet::new();
    let mut legal = ActionList::new();
    for (index, game) in games.iter().enumerate() {
        let (positions, _) = replay::<G>(game.seed, &game.actions).map_err(|e| anyhow::anyhow!("game {} of the records (seed {}): {e}", index + 1, game.seed))?;
        for (plies, state) in positions.iter().enumerate() {
            if state.is_terminal() {
                continue;
            }
            state.legal_actions(&mut legal);
            if legal.len() >= 2 && seen.insert(state.hash()) {
                candidates.push((index, plies));
            }
        }
    }
    if candidates.len() < args.count {
        bail!("the records hold {} distinct positions with a choice, fewer than --count {}", candidates.len(), args.count);
    }
    let mut rng = Rng::new(args.seed);
    for i in (1..candidates.len()).rev() {
        candidates.swap(i, rng.below(i + 1));
    }
    candidates.truncate(args.count);
    candidates.sort_unstable();
    let solve_legal = args.exact_legal.unwrap_or_else(|| TrainConfig::for_game::<G>().selfplay.solve_legal);
    let exact_time = Duration::from_secs_f64(args.exact_seconds);
    let start = Instant::now();
    let done = AtomicUsize::new(0);
    let total = candidates.len();
    let labelled: Vec<Labelled> = thread_pool(args.threads)?.install(|| {
        candidates
            .par_iter()
            .map_init(
                || if solve_legal > 0 { G::exact_player() } else { None },
                |exact, &(index, plies)| {
                    let game = &games[index];
                    let actions = game.actions[..plies].to_vec();
                    let (positions, _) = replay::<G>(game.seed, &actions).expect("replayed above");
                    let state = positions.last().expect("the start at least");
                    let (values, best, exact_label) = label(state, &net, args.playouts, exact, solve_legal, exact_time);
                    let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if finished % 250 == 0 || finished == total {
                        eprint!("\r{finished}/{total} positions labelled {}   ", selfplay::stats::eta(start.elapsed(), finished, total));
                    }
                    Labelled { seed: game.seed, actions, value: values[state.to_move()], best: G::format_action(best.expect("a position with a choice has a move")), exact: exact_label }
                },
            )
            .collect()
    });
    eprintln!();
    let exact = labelled.iter().filter(|p| p.exact).count();
    let files: Vec<String> = args.records.iter().map(|p| p.display().to_string()).collect();
    let mut text = format!(
        "{HEADER}\n# game {}\n# labels: the search of {} at {} playouts, exact from {} legal actions down ({} of {} exact)\n# from {} judged games: {}\n# `g SEED ACTIONS...`: a game; `p GAME PLIES VALUE BEST EXACT`: the position after PLIES actions of game GAME (0-based, in the order of the g lines), the mover's value, the best action, exact (1) or searched (0)\n",
        G::NAME,
        args.net.display(),
        args.playouts,
        solve_legal,
        exact,
        labelled.len(),
        games.len(),
        files.join(" ")
    );
    // Only the games the positions come from, renumbered in order.
    let mut numbers = std::collections::BTreeMap::new();
    for &(index, _) in &candidates {
        let next = numbers.len();
        numbers.entry(index).or_insert(next);
    }
    for &index in numbers.keys() {
        text.push_str(&format!("g {} {}\n", games[index].seed, games[index].actions.join(" ")));
    }
    for (&(index, plies), p) in candidates.iter().zip(&labelled) {
        text.push_str(&format!("p {} {plies} {:.4} {} {}\n", numbers[&index], p.value, p.best, p.exact as u8));
    }
    selfplay::files::write_atomically(&args.output, text.as_bytes()).with_context(|| format!("cannot write {}", args.output.display()))?;
    println!("{}: {} positions of {} ({} exact), from {} games, in {:.0} s", args.output.display(), labelled.len(), G::NAME, exact, games.len(), start.elapsed().as_secs_f64());
    Ok(())
}

/// Reads a set file of game `G`; a bad line is one error naming the file and line.
pub fn read_set<G: Game>(path: &Path) -> Result<Vec<(Labelled, G)>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut lines = text.lines().enumerate();
    if lines.next().map(|(_, l)| l) != Some(HEADER) {
        bail!("{}: not a labelled position set (its first line is not {HEADER:?})", path.display());
    }
    let mut set = Vec::new();
    let mut games: Vec<(u64, Vec<String>, Vec<G>)> = Vec::new();
    for (i, line) in lines {
        let bad = |why: String| anyhow::anyhow!("{} line {}: {why}", path.display(), i + 1);
        if let Some(name) = line.strip_prefix("# game ") {
            if name.trim() != G::NAME {
                return Err(bad(format!("the set is of {}, not {}", name.trim(), G::NAME)));
            }
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.first() {
            Some(&"g") => {
                let seed = fields.get(1).and_then(|t| t.parse::<u64>().ok()).ok_or_else(|| bad("a game line is `g SEED ACTIONS...`".into()))?;
                let actions: Vec<String> = fields[2..].iter().map(|s| s.to_string()).collect();
                let (positions, _) = replay::<G>(seed, &actions).map_err(bad)?;
                games.push((seed, actions, positions));
            }
            Some(&"p") if fields.len() == 6 => {
                let game = fields[1].parse::<usize>().ok().filter(|&g| g < games.len()).ok_or_else(|| bad(format!("no game {} above this line", fields[1])))?;
                let (seed, actions, positions) = &games[game];
                let plies = fields[2].parse::<usize>().ok().filter(|&p| p < positions.len()).ok_or_else(|| bad(format!("game {game} has no position after {} actions", fields[2])))?;
                let value = fields[3].parse::<f32>().ok().filter(|v| (-1.0..=1.0).contains(v)).ok_or_else(|| bad(format!("the value {:?} is not a number in [-1, 1]", fields[3])))?;
                let exact = match fields[5] {
                    "0" => false,
                    "1" => true,
                    other => return Err(bad(format!("the exact flag {other:?} is neither 0 nor 1"))),
                };
                let state = positions[plies].clone();
                let best = G::parse_action(fields[4]).map_err(|e| bad(e.to_string()))?;
                if state.is_terminal() || !state.is_legal(best) {
                    return Err(bad(format!("the best action {} is not legal in the position", fields[4])));
                }
                set.push((Labelled { seed: *seed, actions: actions[..plies].to_vec(), value, best: fields[4].to_string(), exact }, state));
            }
            _ => return Err(bad("expected a game line `g SEED ACTIONS...` or a position line `p GAME PLIES VALUE BEST EXACT`".into())),
        }
    }
    if set.is_empty() {
        bail!("{}: the set holds no position", path.display());
    }
    Ok(set)
}

/// A net's errors on a labelled set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grade {
    pub positions: usize,
    /// Mean squared error of the net's value against the label's, and its 95% half-interval.
    pub value_mse: f64,
    pub value_mse_half: f64,
    /// The same over the exactly labelled positions only (their count first).
    pub exact_positions: usize,
    pub exact_value_mse: f64,
    /// Share of positions where the net's likeliest move is the label's best.
    pub top_move: f64,
    /// With a search: the share where the search's move is the label's best, and its value's
    /// mean squared error.
    pub search_move: Option<f64>,
    pub search_value_mse: Option<f64>,
}

/// Grades `net` on `set` (in parallel on the current thread pool).
pub fn grade<G: Training>(set: &[(Labelled, G)], net: &Arc<Mlp>, playouts: Option<u64>) -> Grade {
    struct One {
        error: f64,
        exact: bool,
        top: bool,
        search: Option<(bool, f64)>,
    }
    let each: Vec<One> = set
        .par_iter()
        .map_init(
            || NetEvaluator::averaged(Arc::clone(net), G::AVERAGED_VIEWS),
            |evaluator, (label, state)| {
                let mut legal = ActionList::new();
                state.legal_actions(&mut legal);
                let mut priors = vec![0.0; legal.len()];
                let values = evaluator.evaluate(state, &legal, &mut priors);
                let mover = state.to_move();
                let top = (0..legal.len()).max_by(|&a, &b| priors[a].total_cmp(&priors[b])).map(|k| legal[k]);
                let best = G::parse_action(&label.best).expect("checked on reading");
                let search = playouts.map(|n| {
                    let mut mcts = Mcts::new(state.clone(), bots::bot::net_search_config::<G>());
                    mcts.search(evaluator, &SearchLimits::playouts(n));
                    let v = mcts.root_proven().unwrap_or_else(|| mcts.root_value())[mover];
                    (mcts.best_action() == Some(best), ((v - label.value) as f64).powi(2))
                });
                One { error: ((values[mover] - label.value) as f64).powi(2), exact: label.exact, top: top == Some(best), search }
            },
        )
        .collect();
    let n = each.len().max(1) as f64;
    let mean = each.iter().map(|o| o.error).sum::<f64>() / n;
    let variance = each.iter().map(|o| (o.error - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let exact: Vec<f64> = each.iter().filter(|o| o.exact).map(|o| o.error).collect();
    let searched: Vec<(bool, f64)> = each.iter().filter_map(|o| o.search).collect();
    Grade {
        positions: each.len(),
        value_mse: mean,
        value_mse_half: 1.96 * (variance / n).sqrt(),
        exact_positions: exact.len(),
        exact_value_mse: exact.iter().sum::<f64>() / exact.len().max(1) as f64,
        top_move: each.iter().filter(|o| o.top).count() as f64 / n,
        search_move: (!searched.is_empty()).then(|| searched.iter().filter(|s| s.0).count() as f64 / n),
        search_value_mse: (!searched.is_empty()).then(|| searched.iter().map(|s| s.1).sum::<f64>() / n),
    }
}

pub fn run_grade(args: GradeArgs) -> Result<()> {
    if args.playouts == Some(0) {
        bail!("--playouts must be at least 1");
    }
    dispatch!(args.game, G => grade_nets::<G>(&args))
}

fn grade_nets<G: Training>(args: &GradeArgs) -> Result<()> {
    let set = read_set::<G>(&args.set)?;
    let pool = thread_pool(args.threads)?;
    println!("{}: {} positions of {}, {} labelled exactly", args.set.display(), set.len(), G::NAME, set.iter().filter(|(l, _)| l.exact).count());
    for path in &args.nets {
        let net = load_net::<G>(path)?;
        let start = Instant::now();
        let g = pool.install(|| grade(&set, &net, args.playouts));
        let search = match (g.search_move, g.search_value_mse, args.playouts) {
            (Some(moves), Some(mse), Some(n)) => format!("; search at {n} playouts: move {:.1}%, value MSE {mse:.4}", 100.0 * moves),
            _ => String::new(),
        };
        // A share's 95% half-interval over the set.
        let half = |p: f64| 100.0 * 1.96 * (p * (1.0 - p) / g.positions.max(1) as f64).sqrt();
        println!(
            "{}: value MSE {:.4} (±{:.4}; exact positions {:.4}), top move {:.1}% (±{:.1}){search} [{:.1} s]",
            path.display(),
            g.value_mse,
            g.value_mse_half,
            g.exact_value_mse,
            100.0 * g.top_move,
            half(g.top_move),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
