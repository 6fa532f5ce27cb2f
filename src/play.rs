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
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct PlayArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// `classic` (the game's net-free classic bot), `uct` (UCT1 with random playouts), `random`,
    /// `net` (the exported bot's search on a net: needs --weights), or a player of the game's
    /// field (6561: `greedy`, `corner`, `short-beam`).
    #[arg(long, default_value = "uct")]
    pub engine: String,
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
        match (a.engine.as_str(), &a.weights) {
            ("net", None) => bail!("--engine net needs --weights FILE"),
            ("net", Some(_)) | (_, None) => {}
            (_, Some(_)) => bail!("--weights goes with --engine net"),
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
    let mut agent: Box<dyn Agent<G>> = match args.engine.as_str() {
        "uct" => Box::new(SearchAgent::new(start, MctsConfig::uct(), RolloutEvaluator::new(config.seed), args.playouts)),
        "random" => Box::new(RandomAgent::new(config.seed)),
        "classic" => match G::classic_agent(config.seed, args.playouts) {
            Some(agent) => agent,
            None => bail!("{} has no classic bot", G::NAME),
        },
        "net" => {
            let path = args.weights.as_ref().expect("checked");
            let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let net = Mlp::from_bytes(&bytes, G::NAME).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            // With --playouts, the exported bot's search capped at a budget (as the league's
            // budget players).
            net_agent::<G>(net, args.playouts).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        }
        name => match G::field_player(name) {
            Some(player) => (player.agent)(config.seed, args.playouts),
            None => bail!("{} has no engine {name:?}: use {} or net", G::NAME, crate::arena::builtin_names::<G>().join(", ")),
        },
    };
    run_bot::<G>(&mut *agent, config.safety, config.time_scale, args.quiet)?;
    Ok(())
}
