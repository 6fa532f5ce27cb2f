//! `cupzero train`: the self-play training loop on a run directory.

use anyhow::{Context, Result};
use clap::Args;
use selfplay::config::TrainConfig;
use selfplay::train::{train_with, IterationMetrics, RemoteSelfPlay, RunPlan, RunState, TrainObserver};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct TrainArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// TOML file with settings (see `cupzero train-config` for every key and its default).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Run directory (default: runs/<game>). An existing run there is resumed.
    #[arg(long)]
    pub run_dir: Option<PathBuf>,
    /// Train until this many iterations in total (default: the config's; 0 = until stopped).
    #[arg(long)]
    pub iterations: Option<u64>,
    /// Start a new run from these weights: a .czw file (a shipped net) or a run directory
    /// (its weights.czw). Without --config the run takes their hidden widths.
    #[arg(long, value_name = "WEIGHTS_OR_RUN_DIR")]
    pub init: Option<PathBuf>,
    /// Take self-play games from workers on other machines (`cupzero worker`) through this
    /// Redis: redis://[:PASSWORD@]HOST:PORT/DB. Needs --run.
    #[arg(long, value_name = "URL", requires = "run")]
    pub redis: Option<String>,
    /// The run's name on Redis (workers join it by this name).
    #[arg(long, value_name = "NAME", requires = "redis")]
    pub run: Option<String>,
    /// With --redis: only the workers play; the trainer's threads do not.
    #[arg(long, requires = "redis")]
    pub no_local_selfplay: bool,
}

#[derive(Args, Debug)]
pub struct TrainConfigArgs {
    /// The game whose defaults to print (each game has its own: evaluation opponent, exact endgames, 6561's short iterations).
    #[arg(value_parser = crate::GameParser)]
    pub game: Option<crate::GameArg>,
}

struct Printer {
    bars: bool,
    /// The run's plan, and when this process took it over (for the ETA).
    plan: Option<(RunPlan, std::time::Instant)>,
}

impl Printer {
    /// "12/200 (6%), ETA 1 h 05 min" for a planned run, "12" for one without an end.
    fn standing(&self, iteration: u64) -> String {
        match &self.plan {
            Some((plan, since)) if plan.iterations > 0 => {
                let eta = selfplay::stats::eta(since.elapsed(), iteration.saturating_sub(plan.done) as usize, plan.iterations.saturating_sub(plan.done) as usize);
                let eta = if eta.is_empty() { String::new() } else { format!(", {eta}") };
                format!("{iteration}/{} ({:.0}%){eta}", plan.iterations, 100.0 * iteration as f64 / plan.iterations as f64)
            }
            _ => iteration.to_string(),
        }
    }
}

impl TrainObserver for Printer {
    fn started(&mut self, run_dir: &Path, resumed: Option<&RunState>) {
        eprintln!("training in {} (metrics.csv, progress.svg, weights.czw); Ctrl-C stops, running again resumes", run_dir.display());
        if let Some(state) = resumed {
            eprintln!("resuming after iteration {} ({} games, {:.0} s so far)", state.iteration, state.games, state.seconds);
        }
    }

    fn planned(&mut self, plan: &RunPlan) {
        let length = if plan.iterations == 0 { "until stopped".to_string() } else { format!("{} iterations in all, {} done", plan.iterations, plan.done) };
        let schedule = if plan.follows_plan { "learning rate and replay window follow the plan" } else { "learning rate decays by optimiser steps" };
        let growth = if plan.follows_plan && plan.playouts_growth > 1.0 && plan.iterations > 0 {
            let (full, fast) = plan.playouts_at(plan.iterations);
            format!(", growing to {full}/{fast} by the plan's end")
        } else {
            String::new()
        };
        eprintln!("plan: {length}; replay window {} positions; self-play search {}/{} playouts (full/fast){growth}; {schedule}", plan.replay_window, plan.full_playouts, plan.fast_playouts);
        self.plan = Some((plan.clone(), std::time::Instant::now()));
    }

    fn initialised(&mut self, source: &str) {
        eprintln!("starting from {source}");
    }

    fn warning(&mut self, message: &str) {
        eprintln!("cupzero: warning: {message}");
    }

    fn iteration_done(&mut self, m: &IterationMetrics) {
        let eval = match (m.eval_score, m.eval_elo) {
            (Some(s), Some(e)) => format!(", eval {:.0}% ({e:+.0} Elo)", 100.0 * s),
            (Some(s), None) => format!(", eval {:.0}%", 100.0 * s),
            _ => String::new(),
        };
        let remote = m.remote_games();
        let eval = if remote > 0 { format!(", {remote} games from {} workers{eval}", m.games_by_source.keys().filter(|s| s.as_str() != "local").count()) } else { eval };
        let mut eval = match m.eval_points {
            Some(p) => format!("{eval}, {p:.1} points"),
            None => eval,
        };
        // The learner's mean utility against each kind of opponent it met this iteration.
        for (name, games, utility) in [("classic", m.classic_games, m.classic_utility), ("uct", m.uct_games, m.uct_utility), ("league", m.league_games, m.league_utility)] {
            if let Some(u) = utility {
                eval += &format!(", vs {name} {u:+.2} ({games})");
            }
        }
        let window = if m.replay_capacity > 0 { format!("/{}", m.replay_capacity) } else { String::new() };
        let search = self.plan.as_ref().map_or(String::new(), |(p, _)| {
            let (full, fast) = p.playouts_at(m.iteration);
            format!(", search {full}/{fast}")
        });
        eprintln!(
            "iter {}: {} games ({:.1}/s, {:.0} evals/s), {} samples, replay {}{window}, {} steps, lr {:.1e}{search}, loss policy {:.3} value {:.3}{eval}",
            self.standing(m.iteration),
            m.games,
            m.games_per_second,
            m.net_evals_per_second,
            m.samples_added,
            m.replay_size,
            m.train_steps,
            m.learning_rate,
            m.policy_loss,
            m.value_loss
        );
    }

    fn show_progress(&self) -> bool {
        self.bars
    }
}

pub fn run(args: TrainArgs) -> Result<()> {
    let name = args.game.name();
    let requested = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            let defaults = dispatch!(args.game, G => TrainConfig::for_game::<G>());
            Some(TrainConfig::from_toml(&text, &defaults).map_err(anyhow::Error::msg).with_context(|| format!("invalid config {}", path.display()))?)
        }
        None => None,
    };
    let run_dir = args.run_dir.unwrap_or_else(|| PathBuf::from("runs").join(name));
    let mut printer = Printer { bars: std::io::stderr().is_terminal(), plan: None };
    let init = args.init.as_deref();
    let remote = args.redis.map(|url| RemoteSelfPlay { url, run: args.run.unwrap_or_default(), local: !args.no_local_selfplay });
    let remote = remote.as_ref();
    let state = dispatch!(args.game, G => train_with::<G>(&run_dir, requested.as_ref(), args.iterations, init, remote, &mut printer))?;
    println!("{} iterations, {} games, {} samples, {:.0} s; weights: {}", state.iteration, state.games, state.samples, state.seconds, run_dir.join("weights.czw").display());
    Ok(())
}

pub fn print_default_config(args: TrainConfigArgs) -> Result<()> {
    let config = args.game.map_or_else(TrainConfig::default, |game| dispatch!(game, G => TrainConfig::for_game::<G>()));
    print!("{}", config.to_toml());
    Ok(())
}
