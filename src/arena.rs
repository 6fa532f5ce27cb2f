//! `cupzero arena`: checkpoints and baselines head to head, in-process.

use anyhow::{bail, Context, Result};
use crate::book::read_book;
use bots::classic::Classic;
use clap::Args;
use selfplay::arena::{run_arena, ArenaConfig, Decision, MoveLimit, PlayerSpec, Sprt};
use selfplay::train::load_weights;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct ArenaArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// Player A: a weights file (.czw), `classic`, `uct`, `random` or a player of the game's
    /// field (6561: `greedy`, `corner`, `short-beam`).
    #[arg(long)]
    pub a: String,
    /// Player B: as A.
    #[arg(long)]
    pub b: String,
    #[arg(long, default_value_t = 200)]
    pub games: usize,
    /// Thinking time per move for both players, in milliseconds.
    #[arg(long, conflicts_with = "playouts")]
    pub move_ms: Option<u64>,
    /// Playouts per move for both players (nodes for an alpha-beta classic bot).
    #[arg(long)]
    pub playouts: Option<u64>,
    /// Playouts per move for B only (overrides --playouts / --move-ms for B).
    #[arg(long)]
    pub b_playouts: Option<u64>,
    /// PUCT exploration constant of net players (default: the exported bot's, per game).
    #[arg(long)]
    pub c_puct: Option<f32>,
    /// PUCT exploration constant of B only, if B is a net (overrides --c-puct for B).
    #[arg(long)]
    pub b_c_puct: Option<f32>,
    /// Actions a search node lists of net players (`MctsConfig::kept_candidates`; default:
    /// the exported bot's, per game).
    #[arg(long)]
    pub kept_candidates: Option<usize>,
    /// Actions a node lists of B only, if B is a net (overrides --kept-candidates for B).
    #[arg(long)]
    pub b_kept_candidates: Option<usize>,
    /// Hold every search tree to its share of this many MiB, as the exported bot does under
    /// its platform's limit (CodeCup: 256); default: no limit.
    #[arg(long)]
    pub memory_mb: Option<usize>,
    /// Stop early by SPRT: "ELO0,ELO1" (alpha = beta = 0.05), e.g. "0,30".
    #[arg(long)]
    pub sprt: Option<String>,
    /// Games at once (default: the number of cores).
    #[arg(long)]
    pub parallel: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Play this many actions at random before the players take over (the same opening for
    /// both seats of a pair of games): deterministic players otherwise repeat two games.
    #[arg(long, default_value_t = 0)]
    pub random_opening: usize,
    /// Write every game (number, seed, A's seat, points) to this JSONL file, for
    /// `cupzero compare`.
    #[arg(long)]
    pub records: Option<std::path::PathBuf>,
    /// An opening book (`cupzero book`) that A plays before its own search.
    #[arg(long)]
    pub a_book: Option<std::path::PathBuf>,
    /// An opening book that B plays before its own search.
    #[arg(long)]
    pub b_book: Option<std::path::PathBuf>,
}

/// `player`, playing the book in `path` first when one is given.
fn with_book<G: Classic>(player: PlayerSpec, path: Option<&Path>) -> Result<PlayerSpec> {
    let Some(path) = path else { return Ok(player) };
    Ok(PlayerSpec::Booked { book: Arc::new(read_book::<G>(path)?), player: Box::new(player) })
}

/// The built-in players of `G` by name: `classic` (which refuses a game without one in one
/// clear line), `uct`, `random`, then its field's.
pub fn builtin_names<G: Classic>() -> Vec<&'static str> {
    let mut names = vec!["classic", "uct", "random"];
    names.extend(G::field().iter().map(|p| p.name));
    names
}

pub fn player<G: Classic>(spec: &str, c_puct: Option<f32>, kept_candidates: Option<usize>) -> Result<PlayerSpec> {
    Ok(match spec {
        "classic" if !G::has_classic_bot() => bail!("{} has no classic bot", G::NAME),
        "classic" => PlayerSpec::Classic,
        "uct" => PlayerSpec::Uct,
        "random" => PlayerSpec::Random,
        name if G::field_player(name).is_some() => PlayerSpec::Field(name.to_string()),
        path => {
            let net = load_weights::<G>(Path::new(path))?;
            net.check_shape(G::NUM_FEATURES, G::NUM_ACTIONS).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
            let mut label = path.to_string();
            if let Some(c) = c_puct {
                label += &format!(" (c_puct {c})");
            }
            if let Some(k) = kept_candidates {
                label += &format!(" ({k} actions listed a node)");
            }
            PlayerSpec::Net { label, net: Arc::new(net), c_puct, kept_candidates }
        }
    })
}

pub fn run(args: ArenaArgs) -> Result<()> {
    dispatch!(args.game, G => run_game::<G>(&args))
}

fn run_game<G: Classic>(args: &ArenaArgs) -> Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let limit = match (args.move_ms, args.playouts) {
        (Some(0), _) | (_, Some(0)) => bail!("--move-ms and --playouts must be positive"),
        (Some(ms), _) => MoveLimit::Time(Duration::from_millis(ms)),
        (None, Some(n)) => MoveLimit::Playouts(n),
        (None, None) => MoveLimit::Time(Duration::from_millis(100)),
    };
    let b_limit = match args.b_playouts {
        Some(0) => bail!("--b-playouts must be positive"),
        Some(n) => MoveLimit::Playouts(n),
        None => limit,
    };
    let sprt = args.sprt.as_deref().map(Sprt::parse).transpose().map_err(anyhow::Error::msg)?;
    for c in [args.c_puct, args.b_c_puct].into_iter().flatten() {
        if !(c.is_finite() && c > 0.0) {
            bail!("--c-puct and --b-c-puct must be positive, got {c}");
        }
    }
    if args.kept_candidates == Some(0) || args.b_kept_candidates == Some(0) || args.memory_mb == Some(0) {
        bail!("--kept-candidates, --b-kept-candidates and --memory-mb must be positive");
    }
    let players = [
        with_book::<G>(player::<G>(&args.a, args.c_puct, args.kept_candidates)?, args.a_book.as_deref())?,
        with_book::<G>(player::<G>(&args.b, args.b_c_puct.or(args.c_puct), args.b_kept_candidates.or(args.kept_candidates))?, args.b_book.as_deref())?,
    ];
    if let Some(mb) = args.memory_mb {
        bots::memory::set_limit_mb(mb);
    }
    let parallel = args.parallel.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let config = ArenaConfig { games: args.games, parallel, limits: [limit, b_limit], seed: args.seed, sprt, random_opening: args.random_opening };
    let mut records = String::new();
    let mut margins = Vec::new();
    let summary = run_arena::<G>(&players, &config, &mut |g, s| {
        records.push_str(&serde_json::to_string(g).expect("arena games serialise"));
        records.push('\n');
        margins.push((g.points[0] - g.points[1]) as f64);
        eprint!("\r{} games: A {}-{}-{} (W-D-L)   ", s.stats.games(), s.stats.wins, s.stats.draws, s.stats.losses);
        let _ = std::io::stderr().flush();
    });
    eprintln!();
    let mean = summary.mean_points();
    println!("A = {}\nB = {}", players[0].label(), players[1].label());
    println!("limits: A {:?}, B {:?}", config.limits[0], config.limits[1]);
    println!("A: {}", summary.stats.describe());
    println!("A as seat 0: {}\nA as seat 1: {}", summary.by_seat[0].describe(), summary.by_seat[1].describe());
    let (m, half) = selfplay::judge::mean_with_half_interval(&margins);
    println!("mean points: A {:.2}, B {:.2}, margin A-B {m:+.2} (95% CI {:+.2}..{:+.2})", mean[0], mean[1], m - half, m + half);
    if let Some(path) = &args.records {
        selfplay::files::write_atomically(path, records.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    }
    println!("playouts per move: A {:.0}, B {:.0}", summary.playouts_per_move[0], summary.playouts_per_move[1]);
    if let Some(outcome) = summary.sprt {
        let s = sprt.unwrap();
        match outcome {
            Decision::H1 => println!("SPRT: H1 accepted (A is at least {:+} Elo stronger)", s.elo1),
            Decision::H0 => println!("SPRT: H0 accepted (A is not {:+} Elo stronger)", s.elo1),
        }
    } else if sprt.is_some() {
        println!("SPRT: undecided after {} games", summary.stats.games());
    }
    Ok(())
}
