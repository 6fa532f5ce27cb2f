//! `cupzero play`: a bot on the contest protocol.

use crate::GameName;
use anyhow::{bail, Result};
use bots::agent::{Agent, RandomAgent, SearchAgent};
use bots::connect4::{self, Connect4};
use bots::mcts::{MctsConfig, RolloutEvaluator};
use bots::rng::Rng;
use bots::time::{Clock, Safety, TimeManager};
use clap::{Args, ValueEnum};
use std::io::{self, BufReader};
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// MCTS (UCT1) with random playouts: the net-free baseline.
    Uct,
    /// Uniformly random legal moves.
    Random,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    pub game: GameName,
    #[arg(long, value_enum, default_value = "uct")]
    pub engine: Engine,
    /// Stop each search after this many playouts (the clock still applies).
    #[arg(long)]
    pub playouts: Option<u64>,
    /// Fraction of every time budget kept unused.
    #[arg(long, default_value_t = 0.1)]
    pub margin_frac: f64,
    /// Milliseconds kept unused on every move.
    #[arg(long, default_value_t = 10)]
    pub margin_ms: u64,
    /// Multiply the contest's time limits (e.g. 0.5 for a judge that halves them).
    #[arg(long, default_value_t = 1.0)]
    pub time_scale: f64,
    /// Random seed (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    /// No per-move log on stderr.
    #[arg(long)]
    pub quiet: bool,
}

/// The checked settings of a `play` run.
struct PlayConfig {
    engine: Engine,
    playouts: Option<u64>,
    safety: Safety,
    time_scale: f64,
    seed: u64,
    quiet: bool,
}

impl TryFrom<&PlayArgs> for PlayConfig {
    type Error = anyhow::Error;
    fn try_from(a: &PlayArgs) -> Result<Self> {
        if !(0.0..0.95).contains(&a.margin_frac) {
            bail!("--margin-frac must be in [0, 0.95), got {}", a.margin_frac);
        }
        if !(a.time_scale > 0.0 && a.time_scale.is_finite()) {
            bail!("--time-scale must be a positive number, got {}", a.time_scale);
        }
        if a.playouts == Some(0) {
            bail!("--playouts must be at least 1");
        }
        Ok(PlayConfig {
            engine: a.engine,
            playouts: a.playouts,
            safety: Safety::new(a.margin_frac, a.margin_ms),
            time_scale: a.time_scale,
            seed: a.seed.unwrap_or_else(|| Rng::from_entropy().next_u64()),
            quiet: a.quiet,
        })
    }
}

pub fn run(args: PlayArgs) -> Result<()> {
    let config = PlayConfig::try_from(&args)?;
    match args.game {
        GameName::Connect4 => {
            let scale = |ms: u64| Duration::from_secs_f64(ms as f64 / 1000.0 * config.time_scale);
            let clock = Clock::PerTurn { first: scale(1000), rest: scale(100) };
            let mut time = TimeManager::new(clock, config.safety);
            let mut agent: Box<dyn Agent<Connect4>> = match config.engine {
                Engine::Uct => Box::new(SearchAgent::new(
                    Connect4::new(),
                    MctsConfig::uct(),
                    RolloutEvaluator::new(config.seed),
                    config.playouts,
                )),
                Engine::Random => Box::new(RandomAgent::new(config.seed)),
            };
            let stdin = io::stdin();
            let mut log: Box<dyn io::Write> = if config.quiet { Box::new(io::sink()) } else { Box::new(io::stderr()) };
            connect4::protocol::run(BufReader::new(stdin.lock()), io::stdout().lock(), &mut agent, &mut time, &mut log)?;
        }
    }
    Ok(())
}
