//! Net-free opponents at contest strength, built from what the contest players described in
//! public: the yardstick every net is judged against (`classic` on the command line).
//!
//! Each game that has one implements it in its own folder (`connect4/classic.rs`,
//! `blackhole/classic.rs`, `zuniq/classic.rs`), with the game's rules, clock and protocol;
//! the exporter bundles that file only into a classic bot, so a net bot carries none of it.

use crate::agent::{Agent, SearchAgent};
use crate::bot::{run_bot, Contest};
use crate::game::{Action, Game, NUM_PLAYERS};
use crate::mcts::{Evaluator, MctsConfig, Selection, Values};
use crate::rng::Rng;
use crate::rollout::Playout;
use crate::time::Safety;

/// A game's classic bot. Games without one keep the default (`None`).
pub trait Classic: Contest {
    /// The classic bot, seeded by `seed` (for any randomness it uses). `budget` caps every
    /// decision's search in the bot's own unit (playouts for a tree search, nodes for
    /// alpha-beta) so in-process matches repeat; `None` leaves the deadline alone in charge.
    fn classic_agent(_seed: u64, _budget: Option<u64>) -> Option<Box<dyn Agent<Self>>> {
        None
    }
    /// Whether the game has a classic bot: what every command checks before it relies on one.
    fn has_classic_bot() -> bool {
        Self::classic_agent(0, Some(1)).is_some()
    }
    /// The classic bot as a teacher (teacher games in training): the same agent, which also
    /// shows what its search knew at the root. Games without one keep the default (`None`).
    fn classic_teacher(_seed: u64, _budget: Option<u64>) -> Option<Box<dyn Teacher<Self>>> {
        None
    }
    /// Named built-in players beyond `random`, `uct` and `classic`: a cooperative game's field
    /// of partners (the kinds of program a contest field holds). None by default.
    fn field() -> &'static [FieldPlayer<Self>] {
        &[]
    }
    /// The field player named `name`, if the game has one.
    fn field_player(name: &str) -> Option<&'static FieldPlayer<Self>> {
        Self::field().iter().find(|p| p.name == name)
    }
}

/// A named built-in player of a game's field.
pub struct FieldPlayer<G: Game> {
    /// Its name on the command line (`--p0 NAME`, `--a NAME`, `builtin = "NAME"`).
    pub name: &'static str,
    /// What it does, in a few words.
    pub about: &'static str,
    /// The player, seeded; `budget` caps its search where it has one (as `classic_agent`'s).
    pub agent: fn(seed: u64, budget: Option<u64>) -> Box<dyn Agent<G>>,
}

/// An agent whose searches can be training targets.
pub trait Teacher<G: Game>: Agent<G> {
    /// What the last decision's search knew at its root: see [`RootStatistics`]. `None` (the
    /// default) when the agent keeps no such statistics (alpha-beta), or did not search the
    /// last move (an exact solve, a forced move): its chosen move is then the whole target.
    fn root_statistics(&self) -> Option<RootStatistics> {
        None
    }
}

/// The root of a finished search, as a training target.
#[derive(Clone, Debug, PartialEq)]
pub struct RootStatistics {
    /// Each searched action's share of the root's visits (summing to 1).
    pub policy: Vec<(Action, f32)>,
    /// The root's value by seat on the game's own utility scale (`Game::utilities`), where the
    /// agent's values are on that scale; `None` where they are not (a search that backs up a
    /// reward of its own).
    pub value: Option<[f32; NUM_PLAYERS]>,
}

impl RootStatistics {
    /// Statistics from visit counts; `None` when nothing was visited.
    pub fn from_visits(visits: impl IntoIterator<Item = (Action, u32)>, value: Option<[f32; NUM_PLAYERS]>) -> Option<Self> {
        let visits: Vec<(Action, u32)> = visits.into_iter().filter(|&(_, n)| n > 0).collect();
        let total: u64 = visits.iter().map(|&(_, n)| n as u64).sum();
        (total > 0).then(|| RootStatistics { policy: visits.iter().map(|&(a, n)| (a, (n as f64 / total as f64) as f32)).collect(), value })
    }
}

/// A tree search teaches what its root knew: the visits and the value.
impl<G: Game, E: Evaluator<G>> Teacher<G> for SearchAgent<G, E> {
    fn root_statistics(&self) -> Option<RootStatistics> {
        let mcts = self.mcts();
        RootStatistics::from_visits(mcts.root_children().iter().map(|c| (c.action, c.visits)), Some(mcts.root_value()))
    }
}

/// Uniform priors, and one playout of the game's own ([`Playout`]) as a leaf's value.
pub struct PlayoutEvaluator {
    rng: Rng,
}

impl<G: Playout> Evaluator<G> for PlayoutEvaluator {
    fn evaluate(&mut self, state: &G, _legal: &[Action], priors: &mut [f32]) -> Values {
        priors.fill(1.0);
        state.playout_utilities(&mut self.rng)
    }
}

/// The classic bot many contest players describe: UCT (exploration constant `c`) with the
/// game's own playout at each leaf, an MCTS-solver for proven wins and losses, and the tree
/// kept between turns. A game that plays this way fills in its [`Playout`] and `c`.
pub fn uct_classic<G: Playout>(seed: u64, budget: Option<u64>, c: f32) -> SearchAgent<G, PlayoutEvaluator> {
    let config = MctsConfig { selection: Selection::Uct { c }, max_nodes: 2_000_000, ..MctsConfig::uct() };
    SearchAgent::new(G::new_game(&mut Rng::new(0)), config, PlayoutEvaluator { rng: Rng::new(seed) }, budget)
}

/// `main` of an exported classic bot: the protocol loop around the game's classic agent.
/// Returns the process exit code; any failure is one line on stderr.
pub fn exported_classic_main<G: Classic>(safety: Safety, time_scale: f64) -> i32 {
    let result = match G::classic_agent(Rng::from_entropy().next_u64(), None) {
        Some(mut agent) => run_bot::<G>(&mut *agent, safety, time_scale, false).map_err(|e| e.to_string()),
        None => Err(format!("{} has no classic bot", G::NAME)),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
