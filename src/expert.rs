//! `cupzero expert`: expert iteration for games scored by one shared number (6561): the game's
//! search plays games, a value net learns each position's final score, and the next round's
//! search judges its lines with that net (`selfplay::expert`). A game takes part by declaring
//! its target ([`Training::expert_target`]).

use anyhow::{bail, Context, Result};
use bots::game::Game;
use bots::rng::Rng;
use bots::training::Training;
use bots::nn::Mlp;
use clap::Args;
use selfplay::expert::{fit_value, play_reporting, td_lambda_targets, FitConfig, Labelled, PlayConfig};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct ExpertArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// Where the rounds' nets (`round-K.czw`, the newest also `weights.czw`) and `log.txt` go;
    /// a directory that has them resumes after its last round.
    #[arg(long)]
    pub run_dir: PathBuf,
    /// Rounds to reach (resumed runs count their earlier rounds).
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Games played per round.
    #[arg(long, default_value_t = 400)]
    pub games: usize,
    /// Beam width of the games' searches (fixed: no clock, so games repeat from a seed).
    #[arg(long, default_value_t = 256)]
    pub width: u64,
    /// Uniformly random moves opening each game.
    #[arg(long, default_value_t = 3)]
    pub random_opening: usize,
    /// Chance of a random move at every later move.
    #[arg(long, default_value_t = 0.01)]
    pub explore: f64,
    /// The value net's hidden layers.
    #[arg(long, value_delimiter = ',', default_value = "64,32")]
    pub hidden: Vec<usize>,
    /// Passes over each round's training positions.
    #[arg(long, default_value_t = 2.0)]
    pub epochs: f64,
    #[arg(long, default_value_t = 1e-3)]
    pub learning_rate: f64,
    /// TD(lambda) targets from the previous round's net (1: every position learns its game's
    /// final score; the first round without --init always does).
    #[arg(long, default_value_t = 1.0)]
    pub lambda: f32,
    /// Rounds of games the net learns from: the newest and the ones before it.
    #[arg(long, default_value_t = 2)]
    pub keep_rounds: usize,
    /// Weights (.czw) whose net judges the first round's games and starts the fit; without
    /// them the first round plays the hand-made evaluation.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// The net learns positions from this move on only (and judges only the lines that reach
    /// it: `--from-move` of the bot, `NET_FROM_MOVE` in the exported one).
    #[arg(long, default_value_t = 0)]
    pub from_move: usize,
    /// Every round's games are played by the hand-made beam (the nets only learn): more
    /// games of the expert, without the net's own mistakes in them.
    #[arg(long)]
    pub hand_made: bool,
    /// Play no games: fit a net on the saved games of the last --keep-rounds rounds (TD
    /// targets and the starting weights from the newest round's net) and write it here, to
    /// compare fitting settings on the same games.
    #[arg(long)]
    pub fit_only: Option<PathBuf>,
    /// Self-play threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(args: ExpertArgs) -> Result<()> {
    dispatch!(args.game, G => expert::<G>(&args))
}

/// Whether game `G` declares an expert-iteration target.
fn takes_part<G: Training>() -> bool {
    G::new_game(&mut Rng::new(0)).expert_target().is_some()
}

fn read_net<G: Training>(path: &Path) -> Result<Mlp> {
    let net = selfplay::train::load_weights::<G>(path)?;
    net.check_shape(G::NUM_FEATURES, G::NUM_ACTIONS).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(net)
}

/// The target of a finished game (checked to exist before any game is played).
fn target<G: Training>(end: &G) -> f32 {
    end.expert_target().expect("the game declares an expert target")
}

/// The rounds already in `dir` (files `round-K.czw`).
fn rounds_done(dir: &Path) -> usize {
    (1..).take_while(|k| dir.join(format!("round-{k}.czw")).exists()).count()
}

fn expert<G: Training>(args: &ExpertArgs) -> Result<()> {
    if !takes_part::<G>() {
        let games: Vec<&str> = bots::GAMES.iter().filter(|g| bots::with_game!(g.name, H => takes_part::<H>()) == Some(true)).map(|g| g.name).collect();
        bail!("expert iteration is for games scored by one shared number ({}), not {}", games.join(", "), G::NAME);
    }
    if args.games < 2 || args.width == 0 || args.rounds == 0 || args.hidden.is_empty() {
        bail!("--games must be at least 2, --width, --rounds and --hidden must not be 0 or empty");
    }
    if !(0.0..=1.0).contains(&args.explore) || !(0.0..=1.0).contains(&args.lambda) {
        bail!("--explore and --lambda must lie between 0 and 1");
    }
    // One run writes the folder at a time; held to the end.
    let _lock = selfplay::lock::RunLock::folder(&args.run_dir)?;
    let done = rounds_done(&args.run_dir);
    let mut net = match (done, &args.init) {
        (0, None) => None,
        (0, Some(path)) => Some(read_net::<G>(path)?),
        (k, _) => Some(read_net::<G>(&args.run_dir.join(format!("round-{k}.czw")))?),
    };
    if (net.is_none() || args.hand_made) && !G::has_classic_bot() {
        bail!("{} has no classic bot to play the games: start from a net with --init, without --hand-made", G::NAME);
    }
    let threads = if args.threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { args.threads };
    let mut log = std::fs::OpenOptions::new().create(true).append(true).open(args.run_dir.join("log.txt")).context("cannot open the run's log.txt")?;
    let mut say = |line: String| {
        println!("{line}");
        let _ = writeln!(log, "{line}");
    };
    // The games of earlier rounds, as far as the pool reaches back and their files remain.
    let mut pool: Vec<Labelled<G>> = Vec::new();
    for round in done.saturating_sub(args.keep_rounds.max(1) - 1).max(1)..=done {
        let path = args.run_dir.join(format!("round-{round}.games"));
        match read_games::<G>(&path) {
            Ok(data) => pool.push(data),
            Err(e) => say(format!("round {round}'s games are not in the pool: {e}")),
        }
    }
    if let Some(out) = &args.fit_only {
        if pool.is_empty() {
            bail!("--fit-only needs the saved games of a round in {}", args.run_dir.display());
        }
        let fitted = fit_round(args, &pool, net.as_ref(), done, &mut say)?;
        selfplay::files::write_atomically(out, &bots::nn_write::to_bytes(&fitted)).with_context(|| format!("cannot write {}", out.display()))?;
        say(format!("wrote {} (lambda {}, hidden {:?}, epochs {}, learning rate {})", out.display(), args.lambda, args.hidden, args.epochs, args.learning_rate));
        return Ok(());
    }
    if done > 0 {
        say(format!("resuming after round {done}, {} earlier rounds of games in the pool", pool.len()));
    }
    for round in done + 1..=args.rounds {
        let start = Instant::now();
        let play_config = PlayConfig { games: args.games, threads, random_opening: args.random_opening, explore: args.explore, seed: args.seed ^ (round as u64) << 40 };
        let shared = net.clone().filter(|_| !args.hand_made).map(Arc::new);
        let width = Some(args.width);
        // Games done, the mean score so far with its 95% interval, and an ETA.
        let scores = std::sync::Mutex::new(Vec::<f64>::new());
        let report = |score: f32| {
            let mut scores = scores.lock().unwrap_or_else(|e| e.into_inner());
            scores.push(score as f64);
            let (mean, half) = selfplay::judge::mean_with_half_interval(&scores);
            eprint!(
                "\rround {round}: {}/{} games, mean score {mean:.1} ({:.1}..{:.1}) {}   ",
                scores.len(),
                args.games,
                mean - half,
                mean + half,
                selfplay::stats::eta(start.elapsed(), scores.len(), args.games)
            );
        };
        let data = play_reporting(
            &play_config,
            || match &shared {
                Some(net) => G::bot_agent(Arc::clone(net), bots::bot::net_search_config::<G>(), width),
                None => G::classic_agent(0, width).expect("checked: a classic bot or a net"),
            },
            target::<G>,
            &report,
        );
        eprintln!();
        let (mean, min, max) = summary(&data.scores);
        say(format!(
            "round {round}: {} games by the {} beam (width {}), mean score {mean:.1} (min {min}, max {max}), {} positions, {:.0} s",
            data.scores.len(),
            if shared.is_some() { "net" } else { "hand-made" },
            args.width,
            data.positions.len(),
            start.elapsed().as_secs_f64()
        ));
        let path = args.run_dir.join(format!("round-{round}.games"));
        selfplay::files::write_atomically(&path, &games_to_bytes(&data)).with_context(|| format!("cannot write {}", path.display()))?;
        pool.push(data);
        if pool.len() > args.keep_rounds.max(1) {
            pool.remove(0);
        }
        let fitted = fit_round(args, &pool, net.as_ref(), round, &mut say)?;
        let bytes = bots::nn_write::to_bytes(&fitted);
        for name in [format!("round-{round}.czw"), "weights.czw".to_string()] {
            let path = args.run_dir.join(name);
            selfplay::files::write_atomically(&path, &bytes).with_context(|| format!("cannot write {}", path.display()))?;
        }
        net = Some(fitted);
    }
    Ok(())
}

/// Fits the value net of `round` on the pooled games: TD(lambda) targets from `net` (the net
/// that played the newest games) unless lambda is 1, starting from `net` when its shape is
/// the one asked for.
fn fit_round<G: Training>(args: &ExpertArgs, pool: &[Labelled<G>], net: Option<&Mlp>, round: usize, say: &mut impl FnMut(String)) -> Result<Mlp> {
    let mut merged = merge(pool);
    if let (Some(net), true) = (net, args.lambda < 1.0) {
        td_lambda_targets(&mut merged, net, args.lambda);
    }
    if args.from_move > 0 {
        merged.retain_from_ply(args.from_move);
    }
    let start = Instant::now();
    let fit_config = FitConfig { hidden: args.hidden.clone(), epochs: args.epochs, batch_size: 512, learning_rate: args.learning_rate, held_out_share: 0.1, seed: args.seed + round as u64 };
    let init = net.filter(|n| n.hidden.iter().map(|d| d.outputs).eq(args.hidden.iter().copied()));
    let (fitted, fit) = fit_value(&merged, &fit_config, init, |step, loss| eprintln!("  step {step}: value loss {loss:.5}")).map_err(|e| anyhow::anyhow!(e))?;
    say(format!(
        "round {round}: value net fitted on {} games in {} steps ({:.0} s), held-out mean squared error {:.5} against {:.5} for the mean ({:.0}% explained)",
        merged.scores.len(),
        fit.steps,
        start.elapsed().as_secs_f64(),
        fit.held_out_mse,
        fit.held_out_baseline_mse,
        100.0 * (1.0 - fit.held_out_mse / fit.held_out_baseline_mse.max(1e-12))
    ));
    Ok(fitted)
}

fn summary(scores: &[f32]) -> (f64, f32, f32) {
    let mean = scores.iter().map(|&s| s as f64).sum::<f64>() / scores.len().max(1) as f64;
    let min = scores.iter().copied().fold(f32::INFINITY, f32::min);
    let max = scores.iter().copied().fold(0.0, f32::max);
    (mean, min, max)
}

/// The pooled rounds as one data set, game boundaries kept.
fn merge<G: Game>(pool: &[Labelled<G>]) -> Labelled<G> {
    let mut all = Labelled::new();
    for data in pool {
        all.extend(data);
    }
    all
}

const GAMES_MAGIC: &[u8; 8] = b"czexpg02";

/// A round's games in a compact file, so a resumed run keeps learning from them: the game's
/// name, then per game its setup seed, length, score and outcome, and the actions it played
/// (two bytes each); reading replays them.
fn games_to_bytes<G: Game>(data: &Labelled<G>) -> Vec<u8> {
    let mut out = GAMES_MAGIC.to_vec();
    out.extend((G::NAME.len() as u32).to_le_bytes());
    out.extend(G::NAME.as_bytes());
    out.extend((data.scores.len() as u32).to_le_bytes());
    for game in 0..data.scores.len() {
        let (start, end) = (data.game_starts[game], data.game_starts[game + 1]);
        out.extend(data.setups[game].to_le_bytes());
        out.extend(((end - start) as u32).to_le_bytes());
        out.extend(data.scores[game].to_le_bytes());
        out.extend(data.outcomes[game].to_le_bytes());
        for &action in &data.played[start..end] {
            out.extend(action.to_le_bytes());
        }
    }
    out
}

fn read_games<G: Game>(path: &Path) -> Result<Labelled<G>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let bad = || anyhow::anyhow!("{} is not a {} games file of this version", path.display(), G::NAME);
    let mut at = 0;
    let mut take = |n: usize| -> Result<&[u8]> {
        let part = bytes.get(at..at + n).ok_or_else(bad)?;
        at += n;
        Ok(part)
    };
    let word = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap());
    if take(8)? != GAMES_MAGIC {
        return Err(bad());
    }
    let name_length = word(take(4)?) as usize;
    if take(name_length)? != G::NAME.as_bytes() {
        return Err(bad());
    }
    let games = word(take(4)?);
    let mut data = Labelled::new();
    for _ in 0..games {
        let setup = u64::from_le_bytes(take(8)?.try_into().unwrap());
        let positions = word(take(4)?) as usize;
        let score = f32::from_bits(word(take(4)?));
        let outcome = f32::from_bits(word(take(4)?));
        let mut state = G::new_game(&mut Rng::new(setup));
        for _ in 0..positions {
            let action = u16::from_le_bytes(take(2)?.try_into().unwrap());
            if state.is_terminal() || !state.is_legal(action) {
                return Err(bad());
            }
            data.positions.push(state.clone());
            data.played.push(action);
            data.targets.push(outcome);
            state.apply(action);
        }
        data.game_starts.push(data.positions.len());
        data.setups.push(setup);
        data.scores.push(score);
        data.outcomes.push(outcome);
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bots::classic::Classic;
    use bots::game6561::Game6561;
    use selfplay::expert::play;

    #[test]
    fn games_files_round_trip() {
        let config = PlayConfig { games: 2, threads: 1, random_opening: 3, explore: 0.1, seed: 3 };
        let data = play(&config, || Game6561::classic_agent(0, Some(2)).unwrap(), target::<Game6561>);
        let path = std::env::temp_dir().join(format!("cupzero-games-{}.games", std::process::id()));
        selfplay::files::write_atomically(&path, &games_to_bytes(&data)).unwrap();
        let back = read_games::<Game6561>(&path).unwrap();
        assert_eq!((&back.game_starts, &back.scores, &back.outcomes, &back.targets), (&data.game_starts, &data.scores, &data.outcomes, &data.targets));
        assert!(back.positions.iter().zip(&data.positions).all(|(a, b)| a.hash() == b.hash()));
        assert!(read_games::<bots::zuniq::Zuniq>(&path).unwrap_err().to_string().contains("not a zuniq games file"), "another game's file");
        std::fs::write(&path, b"czexpg02\x04\0\0\06561\x05\0\0\0").unwrap();
        assert!(read_games::<Game6561>(&path).unwrap_err().to_string().contains("not a 6561 games file"), "cut short");
        std::fs::remove_file(&path).unwrap();
    }
}
