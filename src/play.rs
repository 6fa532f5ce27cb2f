//! `cupzero play`: a bot on the contest protocol (the same code an exported bot runs).

use crate::clock_args::ClockArgs;
use anyhow::{bail, Context, Result};
use bots::agent::{Agent, SearchAgent};
use bots::bot::{net_agent, run_bot};
use bots::classic::Classic;
use bots::mcts::MctsConfig;
use bots::tools::{RandomAgent, RolloutEvaluator};
use bots::nn::Mlp;
use bots::rng::Rng;
use bots::time::Safety;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// The game's net-free classic bot at contest strength (Connect 4, Black Hole, Zuniq).
    Classic,
    /// MCTS (UCT1) with random playouts: the net-free baseline.
    Uct,
    /// Uniformly random legal moves.
    Random,
    /// PUCT guided by a net (needs --weights), exactly as an exported bot plays.
    Net,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    #[arg(long, value_enum, default_value = "uct")]
    pub engine: Engine,
    /// Weights file (.czw) for `--engine net`.
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Stop each search after this many playouts (nodes for an alpha-beta classic bot; the
    /// clock still applies).
    #[arg(long)]
    pub playouts: Option<u64>,
    #[command(flatten)]
    pub clock: ClockArgs,
    /// Random seed (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    /// No per-move log on stderr.
    #[arg(long)]
    pub quiet: bool,
}

/// The checked settings of a `play` run.
struct PlayConfig {
    safety: Safety,
    time_scale: f64,
    seed: u64,
}

impl TryFrom<&PlayArgs> for PlayConfig {
    type Error = anyhow::Error;
    fn try_from(a: &PlayArgs) -> Result<Self> {
        if a.playouts == Some(0) {
            bail!("--playouts must be at least 1");
        }
        match (a.engine, &a.weights) {
            (Engine::Net, None) => bail!("--engine net needs --weights FILE"),
            (Engine::Classic | Engine::Uct | Engine::Random, Some(_)) => bail!("--weights goes with --engine net"),
            _ => {}
        }
        Ok(PlayConfig {
            safety: a.clock.safety()?,
            time_scale: a.clock.time_scale,
            seed: a.seed.unwrap_or_else(|| Rng::from_entropy().next_u64()),
        })
    }
}

pub fn run(args: PlayArgs) -> Result<()> {
    dispatch!(args.game, G => play::<G>(&args))
}

fn play<G: Classic>(args: &PlayArgs) -> Result<()> {
    let config = PlayConfig::try_from(args)?;
    let start = G::new_game(&mut Rng::new(0));
    let mut agent: Box<dyn Agent<G>> = match args.engine {
        Engine::Uct => Box::new(SearchAgent::new(start, MctsConfig::uct(), RolloutEvaluator::new(config.seed), args.playouts)),
        Engine::Random => Box::new(RandomAgent::new(config.seed)),
        Engine::Classic => match G::classic_agent(config.seed, args.playouts) {
            Some(agent) => agent,
            None => bail!("{} has no classic bot", G::NAME),
        },
        Engine::Net => {
            let path = args.weights.as_ref().expect("checked");
            let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let net = Mlp::from_bytes(&bytes, G::NAME).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            // With --playouts, the exported bot's search capped at a budget (as the league's
            // budget players).
            net_agent::<G>(net, args.playouts).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        }
    };
    run_bot::<G>(&mut *agent, config.safety, config.time_scale, args.quiet)?;
    Ok(())
}
