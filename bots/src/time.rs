//! Time management: how long the bot may think on this move, from the contest's clock and a
//! safety margin for slow or jittery judges.

use std::time::{Duration, Instant};

/// The contest's clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clock {
    /// A fixed limit per turn, larger on the player's first turn (CodinGame).
    PerTurn { first: Duration, rest: Duration },
    /// One budget for all the player's moves of a game (CodeCup).
    PerGame { total: Duration },
}

impl Clock {
    /// A whole-game budget of `seconds`, scaled (CodeCup).
    pub fn per_game(seconds: u64, time_scale: f64) -> Self {
        Clock::PerGame { total: Duration::from_secs_f64(seconds as f64 * time_scale) }
    }
}

/// How much of the clock to leave unused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Safety {
    /// Fraction of every budget kept back (the judge may be slower or busier than we are).
    pub fraction: f64,
    /// Fixed time kept back: on every turn of a per-turn clock (reading input, writing output,
    /// process wake-up), once from a per-game clock (whose fraction already covers hundreds of
    /// such sub-millisecond costs).
    pub fixed: Duration,
}

impl Safety {
    pub fn new(fraction: f64, fixed_ms: u64) -> Self {
        Safety { fraction: fraction.clamp(0.0, 0.95), fixed: Duration::from_millis(fixed_ms) }
    }
}

#[derive(Clone, Debug)]
pub struct TimeManager {
    clock: Clock,
    safety: Safety,
    /// Our own thinking time so far (per-game clocks).
    used: Duration,
    moves_made: u32,
}

impl TimeManager {
    pub fn new(clock: Clock, safety: Safety) -> Self {
        TimeManager { clock, safety, used: Duration::ZERO, moves_made: 0 }
    }

    /// Time we may think on the coming move. `moves_left` estimates our own remaining moves
    /// including this one (only per-game clocks use it); it may be fractional, to give this
    /// move more or less than an even share (see `Agent::pace`).
    pub fn budget(&self, moves_left: f64) -> Duration {
        let keep = |limit: Duration| {
            limit.mul_f64(1.0 - self.safety.fraction).saturating_sub(self.safety.fixed)
        };
        match self.clock {
            Clock::PerTurn { first, rest } => keep(if self.moves_made == 0 { first } else { rest }),
            Clock::PerGame { total } => keep(total).saturating_sub(self.used).div_f64(moves_left.max(1.0)),
        }
    }

    /// The deadline for a move whose input started arriving at `turn_start`.
    pub fn deadline(&self, turn_start: Instant, moves_left: f64) -> Instant {
        turn_start + self.budget(moves_left)
    }

    /// Records a move that started at `turn_start` and returns the time it took. Call it
    /// before the move is written: a CodeCup judge suspends the program as soon as its move
    /// arrives, and a clock read after the write may then book the opponent's whole turn.
    pub fn finish_move(&mut self, turn_start: Instant) -> Duration {
        let took = turn_start.elapsed();
        self.used += took;
        self.moves_made += 1;
        took
    }

    pub fn used(&self) -> Duration {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_turn_budgets_keep_the_margin() {
        let clock = Clock::PerTurn { first: Duration::from_millis(1000), rest: Duration::from_millis(100) };
        let mut tm = TimeManager::new(clock, Safety::new(0.1, 15));
        assert_eq!(tm.budget(30.0), Duration::from_millis(885));
        tm.finish_move(Instant::now());
        assert_eq!(tm.budget(30.0), Duration::from_millis(75));
    }

    #[test]
    fn per_game_budget_spreads_what_is_left() {
        let clock = Clock::PerGame { total: Duration::from_secs(10) };
        let tm = TimeManager::new(clock, Safety::new(0.0, 0));
        assert_eq!(tm.budget(10.0), Duration::from_secs(1));
        let mut tm = tm;
        tm.used = Duration::from_secs(8);
        assert_eq!(tm.budget(4.0), Duration::from_millis(500));
        tm.used = Duration::from_secs(11);
        assert_eq!(tm.budget(4.0), Duration::ZERO, "over budget: think as little as possible");
    }
}
