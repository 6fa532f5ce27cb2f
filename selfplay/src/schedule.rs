//! A schedule that follows the run's plan (`training.follow_plan`): the learning rate and the
//! replay window at each point of a run, from the iterations planned and how far the run has
//! come. It counts iterations and samples, never wall time, so a resumed run, a run from
//! `--init` and workers joining through Redis all see the same schedule.
//!
//! - Learning rate: the configured decay (`decay_factor` down to `min_learning_rate`) spread
//!   over the plan, reaching the floor three quarters of the way through; without a plan it
//!   decays once each time the iterations done double past [`OPEN_ENDED_START`].
//! - Replay window: grows with the samples the run has seen, as KataGo's does (Wu, "Accelerating
//!   Self-Play Learning in Go", 2019: `c (1 + beta ((n / c)^alpha - 1) / alpha)` with
//!   alpha = 0.75, beta = 0.4), from `replay_window` up to [`MAX_WINDOW_GROWTH`] times it.

use crate::config::{SelfPlaySettings, TrainConfig, TrainingSection};

/// The share of the plan after which the learning rate stays at its floor: 3/4 (a ratio of
/// integers, so that the decays fall on exact iterations).
pub const FLOOR_AT: (u64, u64) = (3, 4);
/// Without a plan, the learning rate starts decaying after this many iterations.
pub const OPEN_ENDED_START: u64 = 200;
/// The replay window grows to at most this many times `replay_window`.
pub const MAX_WINDOW_GROWTH: f64 = 4.0;
const WINDOW_ALPHA: f64 = 0.75;
const WINDOW_BETA: f64 = 0.4;

/// Decay steps from `learning_rate` to `min_learning_rate` (each multiplies by `decay_factor`).
fn decays_to_floor(t: &TrainingSection) -> u32 {
    if t.decay_factor <= 0.0 || t.decay_factor >= 1.0 || t.min_learning_rate >= t.learning_rate {
        return 0;
    }
    // Less a hair: 0.125 is three halvings, whatever the logarithms round to.
    ((t.min_learning_rate / t.learning_rate).ln() / t.decay_factor.ln() - 1e-9).ceil().max(0.0) as u32
}

/// The learning rate for the training steps of `iteration` (1-based) of a run planned for
/// `planned` iterations (0: until stopped).
pub fn learning_rate(t: &TrainingSection, iteration: u64, planned: u64) -> f64 {
    let steps = decays_to_floor(t);
    let done = iteration.saturating_sub(1);
    let decays = if planned > 0 {
        // done / (planned * 3/4) of the way to the floor.
        (done.saturating_mul(steps as u64).saturating_mul(FLOOR_AT.1) / planned.saturating_mul(FLOOR_AT.0)).min(u32::MAX as u64) as u32
    } else if done < OPEN_ENDED_START {
        0
    } else {
        (done / OPEN_ENDED_START).ilog2() + 1
    };
    (t.learning_rate * t.decay_factor.powi(decays.min(steps) as i32)).max(t.min_learning_rate.min(t.learning_rate))
}

/// How many times its configured playouts self-play searches at `iteration` (1-based) of a
/// run planned for `planned` iterations: from 1 at the first iteration up to `growth` at the
/// last, in proportion (KataGo's self-play also searches more as its run goes on); 1 without a
/// plan, and `growth` past its end.
pub fn playouts_scale(growth: f32, iteration: u64, planned: u64) -> f64 {
    if planned < 2 {
        return 1.0;
    }
    let done = iteration.saturating_sub(1).min(planned - 1) as f64 / (planned - 1) as f64;
    1.0 + (growth as f64 - 1.0) * done
}

/// Self-play's settings for the games of `iteration` (1-based): with `training.follow_plan`
/// the search deepens over the plan by `selfplay.playouts_growth`.
pub fn selfplay_settings(config: &TrainConfig, iteration: u64) -> SelfPlaySettings {
    let mut settings = config.selfplay_settings();
    if config.training.follow_plan {
        let scale = playouts_scale(config.selfplay.playouts_growth, iteration, config.iterations);
        settings.full_playouts = (settings.full_playouts as f64 * scale).round() as u32;
        settings.fast_playouts = (settings.fast_playouts as f64 * scale).round() as u32;
    }
    settings
}

/// Positions the replay window holds once the run has seen `samples` positions in all.
pub fn replay_window(t: &TrainingSection, samples: u64) -> usize {
    let base = t.replay_window as f64;
    let seen = samples as f64;
    if seen <= base {
        return t.replay_window;
    }
    let grown = base * (1.0 + WINDOW_BETA * ((seen / base).powf(WINDOW_ALPHA) - 1.0) / WINDOW_ALPHA);
    grown.min(base * MAX_WINDOW_GROWTH) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_learning_rate_reaches_its_floor_three_quarters_through_the_plan() {
        let t = TrainingSection::default(); // 2e-3 halving to 2.5e-4: three decays
        assert_eq!(decays_to_floor(&t), 3);
        let at = |iteration| learning_rate(&t, iteration, 400);
        assert_eq!(at(1), 2e-3);
        assert_eq!(at(100), 2e-3);
        assert_eq!(at(101), 1e-3);
        assert_eq!(at(201), 5e-4);
        assert_eq!(at(300), 5e-4);
        assert_eq!(at(301), 2.5e-4);
        assert_eq!(at(400), 2.5e-4);
        // A plan twice as long decays twice as late.
        assert_eq!(learning_rate(&t, 201, 800), 1e-3);
        // Never rising, never below the floor, past the plan too.
        let rates: Vec<f64> = (1..=600).map(at).collect();
        assert!(rates.windows(2).all(|w| w[1] <= w[0]) && rates.iter().all(|&r| r >= 2.5e-4));
    }

    #[test]
    fn without_a_plan_the_learning_rate_decays_as_the_run_doubles() {
        let t = TrainingSection::default();
        let at = |iteration| learning_rate(&t, iteration, 0);
        assert_eq!(at(200), 2e-3);
        assert_eq!(at(201), 1e-3);
        assert_eq!(at(400), 1e-3);
        assert_eq!(at(401), 5e-4);
        assert_eq!(at(801), 2.5e-4);
        assert_eq!(at(100_000), 2.5e-4);
    }

    #[test]
    fn a_constant_learning_rate_stays_constant() {
        let t = TrainingSection { min_learning_rate: 2e-3, ..TrainingSection::default() };
        assert!((1..2000).all(|i| learning_rate(&t, i, 500) == 2e-3 && learning_rate(&t, i, 0) == 2e-3));
    }

    #[test]
    fn the_window_grows_with_the_samples_seen_up_to_its_cap() {
        let t = TrainingSection::default(); // 200,000
        assert_eq!(replay_window(&t, 0), 200_000);
        assert_eq!(replay_window(&t, 200_000), 200_000);
        // 1,000,000 seen: 200,000 (1 + 0.4 (5^0.75 - 1) / 0.75), about 450,000.
        let at_million = replay_window(&t, 1_000_000);
        assert!((440_000..460_000).contains(&at_million), "{at_million}");
        let sizes: Vec<usize> = (0..100).map(|k| replay_window(&t, k * 500_000)).collect();
        assert!(sizes.windows(2).all(|w| w[1] >= w[0]));
        assert_eq!(replay_window(&t, u64::MAX / 2), 800_000);
    }

    #[test]
    fn self_play_deepens_in_proportion_over_the_plan() {
        assert_eq!(playouts_scale(3.0, 1, 101), 1.0);
        assert_eq!(playouts_scale(3.0, 51, 101), 2.0);
        assert_eq!(playouts_scale(3.0, 101, 101), 3.0);
        assert_eq!(playouts_scale(3.0, 500, 101), 3.0, "past the plan's end");
        assert_eq!(playouts_scale(3.0, 40, 0), 1.0, "no plan: constant");
        assert_eq!(playouts_scale(1.0, 60, 101), 1.0);
    }
}
