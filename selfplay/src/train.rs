//! The AlphaZero loop: self-play with the current net, add the games to the replay window,
//! train, export the weights for the next round, evaluate now and then.
//!
//! A run directory survives `kill -9` at any moment with at most one iteration lost: every
//! file is written through a temporary file and a rename, each iteration's checkpoint goes to
//! its own folder, and `state.json` (written last) names the newest complete one.
//!
//! ```text
//! config.toml          the run's settings (fixed when the run starts)
//! state.json           last complete iteration, optimiser step, totals, checkpoint folder
//! checkpoint-NNNNNN/   Burn model + optimiser state + net config
//! weights.czw          the same net in the compact format self-play and bots read (f32)
//! snapshots/iter-NNNNNN.czw the net every `training.snapshot_every` iterations (f32)
//! games/iter-NNNNNN.jsonl   the iteration's self-play games (only those the replay window
//!                      still draws from, unless `training.keep_all_games`)
//! metrics.jsonl, metrics.csv, progress.svg
//! ```
//!
//! What a run needs to resume is `config.toml`, `state.json`, the newest checkpoint folder
//! and the games files: a few MB of weights plus the replay window's games. `--init` starts
//! a new run from weights alone (a shipped net, another machine's run).

use crate::arena::{run_arena, ArenaConfig, MoveLimit, PlayerSpec};
use crate::config::TrainConfig;
use crate::distributed::{gather, RemoteError, TrainerLink};
use bots::training::Training;
pub use crate::metrics::IterationMetrics;
use crate::replay::{distill, samples_from_record, ReplayBuffer, Sample};
use crate::worker::{generate, sample, GameRecord, LeagueNet, CLASSIC, TEACHER, UCT};
use bots::encode::Encode;
use bots::game::Game;
use bots::nn::Mlp;
use bots::rng::Rng;
use indicatif::{ProgressBar, ProgressStyle};
use model::{write_atomically, Losses, NetConfig, Trainer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("{0}")]
    Config(String),
    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },
    #[error(transparent)]
    Checkpoint(#[from] model::CheckpointError),
    #[error(transparent)]
    Lock(#[from] crate::lock::LockError),
}

fn file_error(path: &Path, e: impl std::fmt::Display) -> TrainError {
    TrainError::File { path: path.to_path_buf(), message: e.to_string() }
}

/// What `state.json` holds.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunState {
    pub game: String,
    pub iteration: u64,
    pub step: u64,
    pub games: u64,
    pub samples: u64,
    pub seconds: f64,
    pub checkpoint: String,
    /// The weights the run started from (`--init`): path and checksum; `None` from scratch.
    #[serde(default)]
    pub init: Option<String>,
    /// Distributed runs: each worker's highest batch number taken, so that a batch delivered
    /// twice counts once.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub remote_seen: BTreeMap<String, u64>,
}

const CSV_HEADER: &str = "iteration,games,samples_added,replay_size,train_steps,policy_loss,value_loss,aux_loss,learning_rate,mean_game_length,seat0_utility,selfplay_seconds,train_seconds,games_per_second,net_evals_per_second,train_samples_per_second,eval_score,eval_elo,total_seconds,eval_points,classic_games,classic_utility,league_games,league_utility,remote_games,uct_games,uct_utility";

impl IterationMetrics {
    fn csv_row(&self) -> String {
        let opt = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x:.4}"));
        format!(
            "{},{},{},{},{},{:.5},{:.5},{:.5},{:.6},{:.2},{:.4},{:.2},{:.2},{:.2},{:.0},{:.0},{},{},{:.1},{},{},{},{},{},{},{},{}",
            self.iteration,
            self.games,
            self.samples_added,
            self.replay_size,
            self.train_steps,
            self.policy_loss,
            self.value_loss,
            self.aux_loss,
            self.learning_rate,
            self.mean_game_length,
            self.seat0_utility,
            self.selfplay_seconds,
            self.train_seconds,
            self.games_per_second,
            self.net_evals_per_second,
            self.train_samples_per_second,
            opt(self.eval_score),
            opt(self.eval_elo),
            self.total_seconds,
            opt(self.eval_points),
            self.classic_games,
            opt(self.classic_utility),
            self.league_games,
            opt(self.league_utility),
            self.remote_games(),
            self.uct_games,
            opt(self.uct_utility)
        )
    }
}

/// The iteration in a file name `iter-NNNNNN<extension>` (games files, league nets).
fn iteration_of(path: &Path, extension: &str) -> Option<u64> {
    path.file_name()?.to_str()?.strip_prefix("iter-")?.strip_suffix(extension)?.parse().ok()
}

pub struct RunDir {
    pub root: PathBuf,
}

impl RunDir {
    fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }
    fn games_file(&self, iteration: u64) -> PathBuf {
        self.root.join("games").join(format!("iter-{iteration:06}.jsonl"))
    }
    fn checkpoint_dir(&self, iteration: u64) -> String {
        format!("checkpoint-{iteration:06}")
    }
    /// Deletes the games files of iterations before `first` (all of them, so that one left
    /// behind by a run killed while deleting goes with the next iteration).
    fn remove_games_before(&self, first: u64) -> Result<(), TrainError> {
        let folder = self.root.join("games");
        for entry in std::fs::read_dir(&folder).map_err(|e| file_error(&folder, e))? {
            let path = entry.map_err(|e| file_error(&folder, e))?.path();
            if iteration_of(&path, ".jsonl").is_some_and(|it| it < first) {
                std::fs::remove_file(&path).map_err(|e| file_error(&path, e))?;
            }
        }
        Ok(())
    }

    /// Deletes every checkpoint folder but `current` (the one `state.json` names): the previous
    /// one, and one left behind by a run killed between committing an iteration and deleting.
    fn remove_checkpoints_except(&self, current: &str) {
        let Ok(entries) = std::fs::read_dir(&self.root) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("checkpoint-") && name != current {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }

    fn snapshot_file(&self, iteration: u64) -> PathBuf {
        self.root.join("snapshots").join(format!("iter-{iteration:06}.czw"))
    }

    fn league_file(&self, iteration: u64) -> PathBuf {
        self.root.join("league").join(format!("iter-{iteration:06}.czw"))
    }

    /// The league's nets up to `iteration`, oldest first; later ones (written by an
    /// iteration that did not complete) are removed.
    fn read_league<G: Game>(&self, iteration: u64) -> Result<Vec<(u64, LeagueNet)>, TrainError> {
        let folder = self.root.join("league");
        let entries = match std::fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(file_error(&folder, e)),
        };
        let mut league = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| file_error(&folder, e))?.path();
            let Some(it) = iteration_of(&path, ".czw") else {
                continue;
            };
            if it > iteration {
                std::fs::remove_file(&path).map_err(|e| file_error(&path, e))?;
                continue;
            }
            league.push((it, LeagueNet { label: format!("iter {it}"), net: Arc::new(load_weights::<G>(&path)?) }));
        }
        league.sort_by_key(|(it, _)| *it);
        Ok(league)
    }

    fn read_state(&self) -> Result<Option<RunState>, TrainError> {
        let path = self.path("state.json");
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let json = unseal_json(&text).map_err(|why| file_error(&path, why))?;
                serde_json::from_str(&json).map(Some).map_err(|e| file_error(&path, e))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(file_error(&path, e)),
        }
    }

    fn write(&self, name: &str, contents: &[u8]) -> Result<(), TrainError> {
        let path = self.path(name);
        write_atomically(&path, contents).map_err(|e| file_error(&path, e))
    }
}

/// Reads the compact weights of a run or a shipped checkpoint.
pub fn load_weights<G: Game>(path: &Path) -> Result<Mlp, TrainError> {
    let bytes = std::fs::read(path).map_err(|e| file_error(path, e))?;
    Mlp::from_bytes(&bytes, G::NAME).map_err(|e| file_error(path, e))
}

/// The key that seals a JSON object (`state.json`, each line of `metrics.jsonl`): the FNV-1a
/// checksum of the object's text without it, as its last member, so that a changed byte is
/// found out even where the text still reads as JSON.
const SEAL_KEY: &str = ",\"fnv1a64\":\"";

/// `json` (one object) with its checksum as the last member.
fn seal_json(json: &str) -> String {
    let sum = bots::nn::fnv1a64(json.as_bytes());
    let body = json.trim_end().strip_suffix('}').expect("a JSON object");
    format!("{body}{SEAL_KEY}{sum:016x}\"}}")
}

/// The object's text as it was sealed, or why it cannot be trusted. Text without a seal
/// (written by an older cupzero) is returned as it is.
fn unseal_json(text: &str) -> Result<String, String> {
    let text = text.trim_end();
    let Some(at) = text.rfind(SEAL_KEY) else { return Ok(text.to_string()) };
    let rest = &text[at + SEAL_KEY.len()..];
    let stored = rest.strip_suffix("\"}").and_then(|hex| u64::from_str_radix(hex, 16).ok()).ok_or("its checksum does not read")?;
    let json = format!("{}}}", &text[..at]);
    if stored != bots::nn::fnv1a64(json.as_bytes()) {
        return Err("checksum mismatch (the file was changed or damaged)".into());
    }
    Ok(json)
}

/// The last line of a games file: the FNV-1a checksum of everything before it, so that a file
/// cut short or with a changed byte is found out instead of trained on.
const GAMES_CHECKSUM: &str = "# fnv1a64 ";

/// A games file's text: one JSON record a line, then the checksum line.
fn games_text(records: &[GameRecord]) -> String {
    let mut text = String::new();
    for r in records {
        text.push_str(&serde_json::to_string(r).expect("records serialise"));
        text.push('\n');
    }
    let sum = bots::nn::fnv1a64(text.as_bytes());
    text.push_str(&format!("{GAMES_CHECKSUM}{sum:016x}\n"));
    text
}

/// Reads a games file; `Err` says why it cannot be trusted (cut short, changed, unreadable).
fn read_games(path: &Path) -> Result<Vec<GameRecord>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let damaged = |why: &str| format!("{}: {why}", path.display());
    let body_end = bytes[..bytes.len().saturating_sub(1)].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let (body, last) = bytes.split_at(body_end);
    let last = std::str::from_utf8(last).unwrap_or("").trim_end();
    let stored = last.strip_prefix(GAMES_CHECKSUM).and_then(|hex| u64::from_str_radix(hex, 16).ok());
    match stored {
        None => return Err(damaged("no checksum line at the end (cut short, or written by an older cupzero)")),
        Some(sum) if sum != bots::nn::fnv1a64(body) => return Err(damaged("checksum mismatch (the file was changed or damaged)")),
        Some(_) => {}
    }
    let text = std::str::from_utf8(body).map_err(|_| damaged("not UTF-8"))?;
    text.lines().map(|l| serde_json::from_str(l).map_err(|e| damaged(&format!("a record does not read: {e}")))).collect()
}

/// What a run plans to do and the schedule it follows, for progress lines.
#[derive(Clone, Debug, PartialEq)]
pub struct RunPlan {
    /// Iterations in all (0: until stopped).
    pub iterations: u64,
    /// Iterations already done when this process took the run over.
    pub done: u64,
    /// Positions the replay window holds at most.
    pub replay_window: usize,
    /// Self-play playouts of a full search and of a fast one (playout-cap randomisation).
    pub full_playouts: u32,
    pub fast_playouts: u32,
    /// The learning rate and the window follow the plan (`training.follow_plan`).
    pub follows_plan: bool,
    /// The self-play playouts grow to this many times the configured ones over the plan
    /// (`selfplay.playouts_growth`, with `follows_plan`).
    pub playouts_growth: f32,
}

impl RunPlan {
    /// Self-play's playouts (full, fast) at `iteration`.
    pub fn playouts_at(&self, iteration: u64) -> (u32, u32) {
        let scale = if self.follows_plan { crate::schedule::playouts_scale(self.playouts_growth, iteration, self.iterations) } else { 1.0 };
        ((self.full_playouts as f64 * scale).round() as u32, (self.fast_playouts as f64 * scale).round() as u32)
    }
}

/// Receives progress as the loop runs (the CLI prints it; tests stay quiet).
pub trait TrainObserver {
    /// The run is accepted and about to train; `resumed` holds the state of a resumed run.
    fn started(&mut self, _run_dir: &Path, _resumed: Option<&RunState>) {}
    /// The plan the run follows from here (after `started`).
    fn planned(&mut self, _plan: &RunPlan) {}
    /// A new run starts from the weights named (`--init`).
    fn initialised(&mut self, _source: &str) {}
    fn iteration_done(&mut self, _metrics: &IterationMetrics) {}
    /// Something was skipped that the run can do without (a damaged games file).
    fn warning(&mut self, _message: &str) {}
    /// Whether to draw progress bars.
    fn show_progress(&self) -> bool {
        false
    }
}

/// Games the `--init` net plays against itself to judge which units a narrower net keeps.
const NARROWING_GAMES: usize = 200;

/// The features of every position in `games` games `net` plays against itself, each move drawn
/// from its policy over the legal moves (the positions a narrowed net must still read well).
fn own_play_positions<G: Encode>(net: &Mlp, games: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng::new(seed ^ 0x6e61_7272_6f77);
    let (mut positions, mut logits, mut legal) = (Vec::new(), vec![0.0; G::NUM_ACTIONS], bots::game::ActionList::new());
    for _ in 0..games {
        let mut game = G::new_game(&mut rng);
        while !game.is_terminal() {
            let mut features = vec![0.0; G::NUM_FEATURES];
            game.encode(&mut features);
            net.forward_f32(&features, &mut logits);
            positions.push(features);
            game.legal_actions(&mut legal);
            let top = legal.iter().map(|&a| logits[a as usize]).fold(f32::NEG_INFINITY, f32::max);
            let mut policy: Vec<f32> = legal.iter().map(|&a| (logits[a as usize] - top).exp()).collect();
            let total: f32 = policy.iter().sum();
            policy.iter_mut().for_each(|p| *p /= total);
            game.apply(legal[sample(&policy, &mut rng)]);
        }
    }
    positions
}

/// Weights to start a new run from: a `.czw` file, or a run directory's `weights.czw`.
/// Returns the net and how the run records where it came from (path and checksum).
pub fn read_init_weights<G: Encode>(path: &Path) -> Result<(Mlp, String), TrainError> {
    let file = if path.is_dir() { path.join("weights.czw") } else { path.to_path_buf() };
    let bytes = std::fs::read(&file).map_err(|e| file_error(&file, e))?;
    let mut net = Mlp::from_bytes(&bytes, G::NAME).map_err(|e| file_error(&file, e))?;
    let checksum = bytes[bytes.len() - 8..].iter().rev().fold(0u64, |acc, &b| acc << 8 | b as u64);
    let mut source = format!("{} (checksum {checksum:016x})", file.display());
    // Weights from before the game's features were extended (at the end): the new inputs start
    // with zero weights, so the run starts from the same play and learns to use them.
    let inputs = net.num_features();
    if inputs < G::NUM_FEATURES {
        net = net.with_inputs(G::NUM_FEATURES).map_err(|e| file_error(&file, e))?;
        source.push_str(&format!(", widened from {inputs} to {} inputs", G::NUM_FEATURES));
    }
    Ok((net, source))
}

/// Starts or resumes the run in `run_dir`. A new run uses `requested` (or the game's defaults); a
/// resumed run keeps the configuration it started with, and refuses a different `requested`
/// one. `iterations` (the total to reach) overrides the configuration's in both cases.
///
/// `init` starts a new run from existing weights (their shape must be the configuration's;
/// without `requested`, the defaults take the weights' hidden widths). Given again for the
/// same run, it resumes; other weights for an existing run are refused.
pub fn train<G: Training>(
    run_dir: &Path,
    requested: Option<&TrainConfig>,
    iterations: Option<u64>,
    init: Option<&Path>,
    observer: &mut dyn TrainObserver,
) -> Result<RunState, TrainError> {
    train_with::<G>(run_dir, requested, iterations, init, None, observer)
}

/// Self-play on other machines (`cupzero worker`), through the run `run` on the Redis at `url`.
#[derive(Clone, Debug)]
pub struct RemoteSelfPlay {
    pub url: String,
    pub run: String,
    /// Whether the trainer's own threads play too.
    pub local: bool,
}

/// [`train`], with the games coming from workers through Redis when `remote` says so: the
/// trainer publishes every new net there, and acknowledges a batch of games only once the
/// iteration holding it is saved.
pub fn train_with<G: Training>(
    run_dir: &Path,
    requested: Option<&TrainConfig>,
    iterations: Option<u64>,
    init: Option<&Path>,
    remote: Option<&RemoteSelfPlay>,
    observer: &mut dyn TrainObserver,
) -> Result<RunState, TrainError> {
    // Held to the end: a second run on this folder is refused before it reads anything.
    let _lock = crate::lock::RunLock::folder(run_dir)?;
    let dir = RunDir { root: run_dir.to_path_buf() };
    let saved = dir.read_state()?;
    let init = init.map(read_init_weights::<G>).transpose()?;
    if let (Some(state), Some((_, source))) = (&saved, &init) {
        if state.init.as_ref() != Some(source) {
            return Err(TrainError::Config(format!(
                "{} already holds a run (iteration {}) not started from {source}; --init starts a new run: use a new --run-dir",
                dir.root.display(),
                state.iteration
            )));
        }
    }
    let mut config = match &saved {
        Some(state) => {
            if state.game != G::NAME {
                return Err(TrainError::Config(format!("{} holds a {} run, not {}", dir.root.display(), state.game, G::NAME)));
            }
            let path = dir.path("config.toml");
            let text = std::fs::read_to_string(&path).map_err(|e| file_error(&path, e))?;
            // A run writes every key; one its file lacks predates that setting, and the
            // auxiliary head was off before it existed.
            let mut before = TrainConfig::for_game::<G>();
            before.training.aux_loss_weight = 0.0;
            let original = TrainConfig::from_toml(&text, &before).map_err(|e| file_error(&path, e))?;
            if let Some(asked) = requested {
                if (TrainConfig { iterations: original.iterations, ..asked.clone() }) != original {
                    return Err(TrainError::Config(format!(
                        "{} was started with another configuration; resume it without --config, or use a new --run-dir",
                        dir.root.display()
                    )));
                }
            }
            original
        }
        None => requested.cloned().unwrap_or_else(|| {
            let mut config = TrainConfig::for_game::<G>();
            if let Some((net, _)) = &init {
                config.net.hidden = net.hidden.iter().map(|d| d.outputs).collect();
            }
            config
        }),
    };
    if let Some(n) = iterations {
        config.iterations = n;
    }
    config.validate().map_err(TrainError::Config)?;
    if config.selfplay.solve_legal > 0 && G::exact_player().is_none() {
        return Err(TrainError::Config(format!("selfplay.solve_legal needs a game with an exact endgame search, and {} has none", G::NAME)));
    }
    for (asks, setting) in [
        (config.eval.opponent == "classic", "eval.opponent = \"classic\""),
        (config.selfplay.classic_share > 0.0, "selfplay.classic_share"),
        (config.selfplay.teacher_share > 0.0, "selfplay.teacher_share"),
    ] {
        if asks && !G::has_classic_bot() {
            return Err(TrainError::Config(format!("{setting} needs a game with a classic bot, and {} has none", G::NAME)));
        }
    }
    let aux_outputs = if config.training.aux_loss_weight > 0.0 { G::AUX_OUTPUTS } else { 0 };
    let net_config = NetConfig::new(G::NUM_FEATURES, G::NUM_ACTIONS, config.net.hidden.clone()).with_aux_outputs(aux_outputs).with_train_bits(config.net.train_bits.clone());
    let initial = match (&saved, &init) {
        (None, Some((net, source))) => {
            // A configuration with wider hidden layers than the weights grows them (new units
            // start with zero outgoing weights: the same play, more capacity). Weights that
            // cannot grow into it are refused below, with the shapes named.
            // Narrower ones keep each layer's most useful units, judged on positions of the
            // net's own play ([`Mlp::narrowed`]): a wide net pruned into a faster one.
            let mut start = net.clone();
            let narrower = net.hidden.len() == config.net.hidden.len() && net.hidden.iter().zip(&config.net.hidden).any(|(d, &w)| w < d.outputs);
            if narrower {
                let positions = own_play_positions::<G>(net, NARROWING_GAMES, config.seed);
                start = start.narrowed(&config.net.hidden, &positions).map_err(|why| TrainError::Config(format!("--init {source}: {why}")))?;
            }
            let grown = start.clone().with_hidden(&config.net.hidden, config.seed).ok();
            let trainer = Trainer::from_mlp(grown.as_ref().unwrap_or(&start), net_config.clone(), config.optim_config(), config.seed).map_err(|why| TrainError::Config(format!("--init {source}: {why}")))?;
            Some(trainer)
        }
        _ => None,
    };
    let remote_error = |e: RemoteError| TrainError::Config(e.to_string());
    let mut link = match remote {
        Some(r) => Some(TrainerLink::open(&r.url, &r.run, G::NAME, &config).map_err(remote_error)?),
        None => None,
    };
    // Only now, so that a refused configuration leaves nothing behind.
    for folder in ["games", "league"] {
        std::fs::create_dir_all(dir.root.join(folder)).map_err(|e| file_error(&dir.root, e))?;
    }
    let (mut trainer, mut state, mut history) = match saved {
        Some(state) => {
            let trainer = Trainer::load(&dir.root.join(&state.checkpoint), config.optim_config(), state.step)?;
            let history = read_metrics(&dir.path("metrics.jsonl"), state.iteration)?;
            observer.started(&dir.root, Some(&state));
            (trainer, state, history)
        }
        None => {
            dir.write("config.toml", config.to_toml().as_bytes())?;
            let trainer = initial.unwrap_or_else(|| Trainer::new(net_config, config.optim_config(), config.seed));
            let state = RunState { game: G::NAME.to_string(), init: init.map(|(_, source)| source), ..Default::default() };
            observer.started(&dir.root, None);
            if let Some(source) = &state.init {
                observer.initialised(source);
            }
            (trainer, state, Vec::new())
        }
    };
    observer.planned(&RunPlan {
        iterations: config.iterations,
        done: state.iteration,
        replay_window: config.training.replay_window,
        full_playouts: config.selfplay.full_playouts,
        fast_playouts: config.selfplay.fast_playouts,
        follows_plan: config.training.follow_plan,
        playouts_growth: config.selfplay.playouts_growth,
    });
    // The window's size once the run has seen `samples` positions (it grows when the schedule
    // follows the plan).
    let window_at = |samples: u64| if config.training.follow_plan { crate::schedule::replay_window(&config.training, samples) } else { config.training.replay_window };
    // Refill the replay window from the newest games files of complete iterations.
    let mut replay = ReplayBuffer::<G>::new(window_at(state.samples), trainer.net_config.aux_outputs > 0);
    let q_weight = config.selfplay.value_target_q_weight;
    let teacher = match config.training.distill_net.as_str() {
        "" => None,
        name => {
            let path = PathBuf::from(name);
            let net = load_weights::<G>(&path)?;
            net.check_shape(G::NUM_FEATURES, G::NUM_ACTIONS).map_err(|e| file_error(&path, e))?;
            Some(Arc::new(net))
        }
    };
    // A record's samples, taught by the teacher where there is one.
    let samples_of = |records: &[GameRecord]| -> Vec<Sample<G>> {
        let mut samples: Vec<_> = records.iter().flat_map(|r| samples_from_record::<G>(r, q_weight)).collect();
        if let Some(teacher) = &teacher {
            distill(&mut samples, teacher, config.training.distill_weight);
        }
        samples
    };
    {
        let mut files = Vec::new();
        let mut held = 0;
        for it in (1..=state.iteration).rev() {
            let path = dir.games_file(it);
            if !path.exists() || held >= replay.capacity() {
                break;
            }
            let records = match read_games(&path) {
                Ok(records) => records,
                Err(why) => {
                    // Older games can go; the window refills from new self-play.
                    observer.warning(&format!("skipped the games in {why}"));
                    break;
                }
            };
            let samples = samples_of(&records);
            held += samples.len();
            files.push(samples);
        }
        for samples in files.into_iter().rev() {
            replay.extend(samples);
        }
    }
    let mut net = Arc::new(trainer.to_mlp(G::NAME));
    dir.write("weights.czw", &bots::nn_write::to_bytes(&net))?;
    let mut league = dir.read_league::<G>(state.iteration)?;
    // The fixed members (`selfplay.league_nets`), each under its file name, read once: remote
    // workers get the same bytes, under the league ids counting down from u64::MAX.
    let fixed: Vec<(u64, Vec<u8>, LeagueNet)> = config
        .selfplay
        .league_nets
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let path = PathBuf::from(name);
            let label = path.file_name().map_or(name.clone(), |f| f.to_string_lossy().into_owned());
            let bytes = std::fs::read(&path).map_err(|e| file_error(&path, e))?;
            let net = Mlp::from_bytes(&bytes, G::NAME).map_err(|e| file_error(&path, e))?;
            net.check_shape(G::NUM_FEATURES, G::NUM_ACTIONS).map_err(|e| file_error(&path, e))?;
            Ok((u64::MAX - i as u64, bytes, LeagueNet { label, net: Arc::new(net) }))
        })
        .collect::<Result<_, TrainError>>()?;
    let league_bytes = |league: &[(u64, LeagueNet)]| -> Result<Vec<(u64, Vec<u8>)>, TrainError> {
        let fixed_bytes = fixed.iter().map(|(id, bytes, _)| Ok((*id, bytes.clone())));
        fixed_bytes.chain(league.iter().map(|(it, _)| std::fs::read(dir.league_file(*it)).map(|b| (*it, b)).map_err(|e| file_error(&dir.league_file(*it), e)))).collect()
    };
    if let Some(link) = &mut link {
        link.publish(state.iteration, bots::nn_write::to_bytes(&net), league_bytes(&league)?).map_err(remote_error)?;
        eprintln!("run {} on redis {}: net {} published; waiting for games", remote.map_or("", |r| r.run.as_str()), link.url(), state.iteration);
    }
    let mut seen = state.remote_seen.clone();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.selfplay.threads)
        .build()
        .map_err(|e| TrainError::Config(format!("cannot start self-play threads: {e}")))?;
    let mut rng = Rng::new(config.seed ^ state.iteration.wrapping_mul(0x9E37_79B9));
    while config.iterations == 0 || state.iteration < config.iterations {
        let iteration = state.iteration + 1;
        let iteration_start = Instant::now();
        // 1. Self-play with the current net; 2. train on the window. With `training.overlap`
        // the two run side by side: the steps for the previous iteration's samples train on
        // the window as it stood, while the net of the previous round plays.
        if config.training.follow_plan {
            // The plan's learning rate for this iteration's steps, in place of the decay by steps.
            trainer.optim_config.learning_rate = crate::schedule::learning_rate(&config.training, iteration, config.iterations);
            trainer.optim_config.decay_every = 0;
            replay.set_capacity(window_at(state.samples));
        }
        let settings = crate::schedule::selfplay_settings(&config, iteration);
        let show = observer.show_progress() && !config.training.overlap;
        let bar = progress_bar(observer.show_progress(), config.selfplay.games_per_iteration as u64, &format!("iter {iteration} self-play"));
        let seed = config.seed.wrapping_mul(1_000_000_007).wrapping_add(iteration);
        let opponents: Vec<LeagueNet> = fixed.iter().map(|(_, _, l)| l.clone()).chain(league.iter().map(|(_, l)| l.clone())).collect();
        let wanted = config.selfplay.games_per_iteration;
        let mut play = || -> Result<_, TrainError> {
            let Some(link) = link.as_mut() else {
                let (records, sp) = pool.install(|| generate::<G>(&net, &opponents, &settings, wanted, seed, &|| bar.inc(1)));
                return Ok((records, sp, BTreeMap::new(), 0));
            };
            // The trainer's own share, a batch at a time between reads of the stream.
            let local_batch = settings.games_in_flight * pool.current_num_threads();
            let local = |round: u64| pool.install(|| generate::<G>(&net, &opponents, &settings, local_batch, seed ^ (round + 1) << 48, &|| bar.inc(1)));
            let plays_too = remote.is_some_and(|r| r.local);
            let got = gather(link, &mut seen, wanted, plays_too.then_some(&local as &dyn Fn(u64) -> _)).map_err(remote_error)?;
            // The trainer's own games moved the bar one by one already.
            bar.inc(got.records.len() as u64 - got.by_source.get("local").copied().unwrap_or(0));
            Ok((got.records, got.stats, got.by_source, got.bytes))
        };
        let steps_for = |added: u64, window: usize| {
            if window >= config.training.min_replay && added > 0 {
                ((added as f32 * config.training.sample_reuse / config.training.batch_size as f32).ceil() as u64).max(1)
            } else {
                0
            }
        };
        let (records, sp, samples_added, steps, trained, games_by_source, stream_bytes) = if config.training.overlap {
            let steps = steps_for(history.last().map_or(0, |m| m.samples_added), replay.len());
            let (played, trained) = std::thread::scope(|scope| {
                let training = scope.spawn(|| train_steps(&mut trainer, &replay, steps, config.training.batch_size, &mut rng, show, iteration));
                let played = play();
                (played, training.join().expect("the training thread does not panic"))
            });
            let (records, sp, by_source, stream_bytes) = played?;
            let added = samples_of(&records);
            let samples_added = added.len() as u64;
            replay.extend(added);
            (records, sp, samples_added, steps, trained, by_source, stream_bytes)
        } else {
            let (records, sp, by_source, stream_bytes) = play()?;
            let added = samples_of(&records);
            let samples_added = added.len() as u64;
            replay.extend(added);
            let steps = steps_for(samples_added, replay.len());
            let trained = train_steps(&mut trainer, &replay, steps, config.training.batch_size, &mut rng, show, iteration);
            (records, sp, samples_added, steps, trained, by_source, stream_bytes)
        };
        bar.finish_and_clear();
        let games_path = dir.games_file(iteration);
        write_atomically(&games_path, games_text(&records).as_bytes()).map_err(|e| file_error(&games_path, e))?;
        let (Losses { policy: policy_loss, value: value_loss, aux: aux_loss }, train_seconds) = trained;
        net = Arc::new(trainer.to_mlp(G::NAME));

        // 3. Save: checkpoint folder, weights, then the state that makes them current.
        let checkpoint = dir.checkpoint_dir(iteration);
        trainer.save(&dir.root.join(&checkpoint))?;
        let weights = bots::nn_write::to_bytes(&net);
        dir.write("weights.czw", &weights)?;
        if config.training.snapshot_every > 0 && iteration % config.training.snapshot_every == 0 {
            let path = dir.snapshot_file(iteration);
            std::fs::create_dir_all(dir.root.join("snapshots")).map_err(|e| file_error(&path, e))?;
            write_atomically(&path, &weights).map_err(|e| file_error(&path, e))?;
        }
        if config.selfplay.league_share > 0.0 && iteration % config.selfplay.league_every == 0 {
            // Half precision: a league opponent plays as well with it, in half the disk.
            let bytes = bots::nn_write::to_bytes_as(&net, bots::nn::Storage::F16).map_err(|e| TrainError::Config(format!("cannot store the net for the league: {e}")))?;
            let path = dir.league_file(iteration);
            write_atomically(&path, &bytes).map_err(|e| file_error(&path, e))?;
            league.push((iteration, LeagueNet { label: format!("iter {iteration}"), net: Arc::new(load_weights::<G>(&path)?) }));
            while league.len() > config.selfplay.league_size {
                let (old, _) = league.remove(0);
                let _ = std::fs::remove_file(dir.league_file(old));
            }
        }
        // The workers switch to the new net now, while the trainer evaluates and saves.
        if let Some(link) = &mut link {
            link.publish(iteration, bots::nn_write::to_bytes(&net), league_bytes(&league)?).map_err(remote_error)?;
        }

        // 4. Evaluate now and then.
        let (eval_score, eval_elo, eval_points) = if config.eval.every > 0 && iteration % config.eval.every == 0 && config.eval.games > 0 {
            let opponent = match config.eval.opponent.as_str() {
                "classic" => PlayerSpec::Classic,
                "uct" => PlayerSpec::Uct,
                _ => PlayerSpec::Random,
            };
            let players = [PlayerSpec::Net { label: format!("iter {iteration}"), net: Arc::clone(&net), c_puct: None, kept_candidates: None }, opponent];
            let arena = ArenaConfig {
                games: config.eval.games,
                parallel: pool.current_num_threads(),
                limits: [MoveLimit::Playouts(config.eval.playouts), MoveLimit::Playouts(config.eval.opponent_playouts)],
                seed: iteration,
                sprt: None,
                random_opening: config.eval.random_opening,
            };
            let s = run_arena::<G>(&players, &arena, &mut |_, _| {});
            (Some(s.stats.score()), Some(s.stats.elo()).filter(|e| e.is_finite()), Some(s.mean_points()[0]))
        } else {
            (None, None, None)
        };

        let n = records.len().max(1) as f64;
        // The learner's games against one kind of opponent: a bot by its name, or (`None`)
        // the earlier nets of the league.
        let against = |bot: Option<&str>| {
            let utilities: Vec<f64> = records
                .iter()
                .filter(|r| r.opponent.as_deref().is_some_and(|o| o != TEACHER && bot.map_or(o != CLASSIC && o != UCT, |b| o == b)))
                .map(|r| r.utilities[r.learner_seat.unwrap_or(0)] as f64)
                .collect();
            (utilities.len() as u64, (!utilities.is_empty()).then(|| utilities.iter().sum::<f64>() / utilities.len() as f64))
        };
        let ((classic_games, classic_utility), (uct_games, uct_utility), (league_games, league_utility)) = (against(Some(CLASSIC)), against(Some(UCT)), against(None));
        state.iteration = iteration;
        state.step = trainer.step;
        state.games += records.len() as u64;
        state.samples += samples_added;
        state.seconds += iteration_start.elapsed().as_secs_f64();
        state.checkpoint = checkpoint;
        let metrics = IterationMetrics {
            iteration,
            games: sp.games,
            samples_added,
            replay_size: replay.len(),
            train_steps: steps,
            policy_loss,
            value_loss,
            aux_loss,
            learning_rate: trainer.optim_config.learning_rate_at(trainer.step),
            replay_capacity: replay.capacity(),
            mean_game_length: sp.actions as f64 / n,
            seat0_utility: records.iter().map(|r| r.utilities[0] as f64).sum::<f64>() / n,
            selfplay_seconds: sp.elapsed.as_secs_f64(),
            train_seconds,
            games_per_second: sp.games as f64 / sp.elapsed.as_secs_f64().max(1e-9),
            net_evals_per_second: sp.net_evals as f64 / sp.elapsed.as_secs_f64().max(1e-9),
            train_samples_per_second: (steps as f64 * config.training.batch_size as f64) / train_seconds.max(1e-9),
            eval_score,
            eval_elo,
            eval_points,
            total_seconds: state.seconds,
            classic_games,
            classic_utility,
            league_games,
            league_utility,
            uct_games,
            uct_utility,
            games_by_source,
            stream_bytes,
        };
        history.push(metrics.clone());
        write_metrics(&dir, &history, config.iterations)?;
        state.remote_seen = seen.clone();
        dir.write("state.json", seal_json(&serde_json::to_string_pretty(&state).expect("state serialises")).as_bytes())?;
        // The iteration's games are saved: their batches can leave the stream.
        if let Some(link) = &mut link {
            link.acknowledge().map_err(remote_error)?;
        }
        // Only now is the previous checkpoint no longer needed, nor games the window has dropped.
        dir.remove_checkpoints_except(&state.checkpoint);
        if !config.training.keep_all_games {
            dir.remove_games_before(oldest_needed_games(&history, window_at(state.samples)))?;
        }
        observer.iteration_done(&metrics);
    }
    Ok(state)
}

/// `steps` optimiser steps on batches from `replay`: the mean losses and the seconds taken.
fn train_steps<G: Training>(trainer: &mut Trainer, replay: &ReplayBuffer<G>, steps: u64, batch_size: usize, rng: &mut Rng, show: bool, iteration: u64) -> (Losses, f64) {
    let start = Instant::now();
    let bar = progress_bar(show, steps, &format!("iter {iteration} training"));
    let mut mean = Losses::default();
    for _ in 0..steps {
        let losses = trainer.train_step(&replay.batch(batch_size, rng));
        mean.policy += losses.policy / steps as f32;
        mean.value += losses.value / steps as f32;
        mean.aux += losses.aux / steps as f32;
        bar.inc(1);
    }
    bar.finish_and_clear();
    (mean, start.elapsed().as_secs_f64())
}

/// The oldest iteration whose games the replay window still holds (what a resume reads
/// back): the newest iterations whose samples fill the window.
fn oldest_needed_games(history: &[IterationMetrics], window: usize) -> u64 {
    let mut held = 0;
    for m in history.iter().rev() {
        held += m.samples_added as usize;
        if held >= window {
            return m.iteration;
        }
    }
    history.first().map_or(1, |m| m.iteration)
}

fn progress_bar(show: bool, len: u64, label: &str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template("{msg:>24} [{bar:30}] {pos}/{len} {per_sec} eta {eta}").expect("valid template").progress_chars("=> "));
    bar.set_message(label.to_string());
    bar
}

/// The metrics of iterations up to `up_to`; a damaged line (a changed byte, found by its
/// checksum) refuses the resume with one line rather than plot or resume from wrong figures.
fn read_metrics(path: &Path, up_to: u64) -> Result<Vec<IterationMetrics>, TrainError> {
    match std::fs::read_to_string(path) {
        Ok(text) => text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                let json = unseal_json(l).map_err(|why| file_error(path, format!("line {}: {why}", i + 1)))?;
                serde_json::from_str::<IterationMetrics>(&json).map_err(|e| file_error(path, format!("line {}: {e}", i + 1)))
            })
            .filter(|m| m.as_ref().map_or(true, |m| m.iteration <= up_to))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(file_error(path, e)),
    }
}

fn write_metrics(dir: &RunDir, history: &[IterationMetrics], planned: u64) -> Result<(), TrainError> {
    let mut jsonl = String::new();
    let mut csv = format!("{CSV_HEADER}\n");
    for m in history {
        jsonl.push_str(&seal_json(&serde_json::to_string(m).expect("metrics serialise")));
        jsonl.push('\n');
        csv.push_str(&m.csv_row());
        csv.push('\n');
    }
    dir.write("metrics.jsonl", jsonl.as_bytes())?;
    dir.write("metrics.csv", csv.as_bytes())?;
    dir.write("progress.svg", crate::plot::progress_svg(history, planned).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records() -> Vec<GameRecord> {
        (0..3)
            .map(|seed| GameRecord {
                seed,
                actions: vec![1, 2, 3],
                targets: vec![None, None, None],
                utilities: [1.0, -1.0],
                scores: [10.0, 0.0],
                opponent: None,
                learner_seat: None,
                source: None,
            })
            .collect()
    }

    /// A games file that was cut short, had a byte changed, or lost its checksum line is
    /// refused with one line, never read as games.
    #[test]
    fn damaged_games_files_are_found_out() {
        let dir = std::env::temp_dir().join(format!("cupzero-games-damage-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("iter-000001.jsonl");
        let text = games_text(&records());
        std::fs::write(&path, &text).unwrap();
        assert_eq!(read_games(&path).unwrap(), records());
        let body_len = text.rfind(GAMES_CHECKSUM).unwrap();
        let mut damaged: Vec<(&str, Vec<u8>)> = vec![
            ("cut mid-record", text.as_bytes()[..body_len / 2].to_vec()),
            ("cut before the checksum line", text.as_bytes()[..body_len].to_vec()),
            ("empty", Vec::new()),
        ];
        // A digit changed inside a record still parses as JSON: only the checksum sees it.
        let mut changed = text.clone().into_bytes();
        let digit = text.find("\"seed\":1").unwrap() + "\"seed\":".len();
        changed[digit] = b'7';
        damaged.push(("a digit changed", changed));
        let mut flipped = text.clone().into_bytes();
        flipped[body_len + 12] ^= 0x01;
        damaged.push(("the checksum changed", flipped));
        for (what, bytes) in damaged {
            std::fs::write(&path, bytes).unwrap();
            let why = read_games(&path).expect_err(what);
            assert!(!why.contains('\n') && why.starts_with(&path.display().to_string()), "{what}: {why}");
        }
    }

    /// `state.json` and each `metrics.jsonl` line carry their checksum: a changed digit, which
    /// still reads as JSON, is refused; text from before the seal still reads.
    #[test]
    fn sealed_json_finds_a_changed_digit() {
        let state = RunState { game: "connect4".into(), iteration: 12, step: 3400, ..Default::default() };
        let json = serde_json::to_string_pretty(&state).unwrap();
        let sealed = seal_json(&json);
        assert!(serde_json::from_str::<serde_json::Value>(&sealed).is_ok(), "still JSON: {sealed}");
        assert_eq!(unseal_json(&sealed).unwrap(), json);
        assert_eq!(unseal_json(&format!("{sealed}\n")).unwrap(), json, "a final newline is no damage");
        assert_eq!(unseal_json(&json).unwrap(), json, "unsealed text from an older cupzero");
        let changed = sealed.replace("3400", "3401");
        assert!(unseal_json(&changed).unwrap_err().contains("checksum mismatch"));
        let bad_sum = sealed.replace(SEAL_KEY, ",\"fnv1a64\":\"zz");
        assert!(unseal_json(&bad_sum).is_err());
        let line = seal_json(r#"{"iteration":4,"loss":0.5}"#);
        assert_eq!(unseal_json(&line).unwrap(), r#"{"iteration":4,"loss":0.5}"#);
        assert!(unseal_json(&line.replace("0.5", "0.6")).is_err());
    }
}
