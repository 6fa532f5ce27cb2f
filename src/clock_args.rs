//! The time options shared by `play` and `export`: the bot's safety margin and a scale on
//! the contest's limits, checked once.

use anyhow::{bail, Result};
use bots::time::Safety;
use clap::Args;

#[derive(Args, Debug, Clone)]
pub struct ClockArgs {
    /// Fraction of every time budget the bot keeps unused.
    #[arg(long, default_value_t = 0.1)]
    pub margin_frac: f64,
    /// Milliseconds the bot keeps unused: on every turn of a per-turn clock, once per game of a
    /// per-game clock.
    #[arg(long, default_value_t = 15)]
    pub margin_ms: u64,
    /// Multiply the contest's time limits (below 1 for a judge slower than its clock says).
    #[arg(long, default_value_t = 1.0)]
    pub time_scale: f64,
}

impl ClockArgs {
    /// The validated margin, or one line saying which option is out of range.
    pub fn safety(&self) -> Result<Safety> {
        if !(0.0..0.95).contains(&self.margin_frac) {
            bail!("--margin-frac must be in [0, 0.95), got {}", self.margin_frac);
        }
        if !(self.time_scale > 0.0 && self.time_scale.is_finite()) {
            bail!("--time-scale must be a positive number, got {}", self.time_scale);
        }
        Ok(Safety::new(self.margin_frac, self.margin_ms))
    }
}
