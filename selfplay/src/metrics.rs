//! What each training iteration records: one line of `metrics.jsonl` and `metrics.csv`, read
//! back by the chart and by a resumed run.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One line of `metrics.jsonl` / `metrics.csv`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct IterationMetrics {
    pub iteration: u64,
    pub games: u64,
    pub samples_added: u64,
    pub replay_size: usize,
    pub train_steps: u64,
    pub policy_loss: f32,
    pub value_loss: f32,
    /// Loss of the auxiliary head (0 without one).
    #[serde(default)]
    pub aux_loss: f32,
    pub learning_rate: f64,
    /// Positions the replay window could hold this iteration (0 in runs from before it was kept).
    #[serde(default)]
    pub replay_capacity: usize,
    pub mean_game_length: f64,
    /// Mean utility of the first player (seat 0) in self-play.
    pub seat0_utility: f64,
    pub selfplay_seconds: f64,
    pub train_seconds: f64,
    pub games_per_second: f64,
    pub net_evals_per_second: f64,
    pub train_samples_per_second: f64,
    /// Arena score against the evaluation opponent (when evaluated this iteration).
    pub eval_score: Option<f64>,
    pub eval_elo: Option<f64>,
    pub total_seconds: f64,
    /// The net's mean points in that evaluation: for 6561 the shared score, the one figure that
    /// moves (its games are never won or lost).
    #[serde(default)]
    pub eval_points: Option<f64>,
    /// Self-play games against the classic bot, and the learner's mean utility in them.
    #[serde(default)]
    pub classic_games: u64,
    #[serde(default)]
    pub classic_utility: Option<f64>,
    /// Self-play games against earlier nets, and the learner's mean utility in them.
    #[serde(default)]
    pub league_games: u64,
    #[serde(default)]
    pub league_utility: Option<f64>,
    /// Self-play games against the UCT bot, and the learner's mean utility in them.
    #[serde(default)]
    pub uct_games: u64,
    #[serde(default)]
    pub uct_utility: Option<f64>,
    /// Distributed runs: the iteration's games by where they were played (`local` for the
    /// trainer's own threads, else the worker's name), and their compressed bytes in the stream.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub games_by_source: BTreeMap<String, u64>,
    #[serde(default)]
    pub stream_bytes: u64,
}

impl IterationMetrics {
    /// Games played by workers on other machines.
    pub fn remote_games(&self) -> u64 {
        self.games_by_source.iter().filter(|(source, _)| source.as_str() != "local").map(|(_, n)| n).sum()
    }
}
