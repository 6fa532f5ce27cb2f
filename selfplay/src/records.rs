//! The records of self-play games: what the games files, the replay window and the workers'
//! batches hold.

use bots::game::{Action, NUM_PLAYERS, Player};
use serde::{Deserialize, Serialize};

/// A full search's result at one position.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SearchTarget {
    /// Improved policy, as (action, probability) over the legal actions.
    pub policy: Vec<(Action, f32)>,
    /// Search value at the root, by seat.
    pub root_value: [f32; NUM_PLAYERS],
}

/// One self-play game: enough to replay it and rebuild every training sample.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GameRecord {
    /// Seed of the game's setup (`Game::new_game`).
    pub seed: u64,
    pub actions: Vec<Action>,
    /// One entry per action: the search target when that move was a full search.
    pub targets: Vec<Option<SearchTarget>>,
    pub utilities: [f32; NUM_PLAYERS],
    pub scores: [f32; NUM_PLAYERS],
    /// Who played the other seat (`classic`, an earlier net's label); absent in plain
    /// self-play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<String>,
    /// The learner's seat when `opponent` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learner_seat: Option<Player>,
    /// The worker batch it came in (distributed runs); absent for the trainer's own games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<BatchSource>,
}

/// Where a game of the replay window came from, when not from the trainer's own threads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchSource {
    pub worker: String,
    pub batch: u64,
    /// The net version (iteration) the worker played with.
    pub net: u64,
}
