//! Net-free opponents at contest strength, built from what the contest players described in
//! public: the yardstick every net is judged against (`classic` on the command line).
//!
//! Each game that has one implements it in its own folder (`connect4/classic.rs`,
//! `blackhole/classic.rs`, `zuniq/classic.rs`), with the game's rules, clock and protocol;
//! the exporter bundles that file only into a classic bot, so a net bot carries none of it.

use crate::agent::Agent;
use crate::bot::{run_bot, Contest};
use crate::rng::Rng;
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
