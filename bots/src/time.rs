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
    /// Per-turn clocks: how far our recent moves overran the time planned for them, decaying
    /// (see `finish_move`).
    lag: Duration,
}

/// How much of the last overrun a per-turn clock still keeps back after each move.
const LAG_DECAY: f64 = 0.95;

impl TimeManager {
    pub fn new(clock: Clock, safety: Safety) -> Self {
        TimeManager { clock, safety, used: Duration::ZERO, moves_made: 0, lag: Duration::ZERO }
    }

    /// Time we may think on the coming move. `moves_left` estimates our own remaining moves
    /// including this one (only per-game clocks use it); it may be fractional, to give this
    /// move more or less than an even share (see `Agent::pace`).
    ///
    /// A per-turn clock keeps twice the fraction back on the first turn (the process's start
    /// and first allocations land there, unseen by our clock), and on later turns twice the
    /// recent overrun besides the margin, at most half the turn: on a loaded machine the search
    /// overruns its deadline when it is descheduled, and the same load delays reading the input
    /// and writing the move, which no clock of ours sees. On an idle machine the overrun is a
    /// fraction of a millisecond.
    pub fn budget(&self, moves_left: f64) -> Duration {
        let keep = |limit: Duration, fraction: f64| limit.mul_f64(1.0 - fraction).saturating_sub(self.safety.fixed);
        match self.clock {
            Clock::PerTurn { first, .. } if self.moves_made == 0 => keep(first, (2.0 * self.safety.fraction).min(0.95)),
            Clock::PerTurn { rest, .. } => {
                let planned = keep(rest, self.safety.fraction);
                planned.saturating_sub((2 * self.lag).min(planned / 2))
            }
            Clock::PerGame { total } => keep(total, self.safety.fraction).saturating_sub(self.used).div_f64(moves_left.max(1.0)),
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
        if let Clock::PerTurn { .. } = self.clock {
            let overrun = took.saturating_sub(self.budget(1.0));
            self.lag = overrun.max(self.lag.mul_f64(LAG_DECAY));
        }
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
        assert_eq!(tm.budget(30.0), Duration::from_millis(785), "twice the fraction on the first turn");
        tm.finish_move(Instant::now());
        assert_eq!(tm.budget(30.0), Duration::from_millis(75));
    }

    /// A move that overran its plan (a descheduled search) shortens the next turns by twice
    /// the overrun, at most by half, and the hold decays as moves come in on time.
    #[test]
    fn per_turn_overruns_are_kept_back_and_forgotten() {
        let clock = Clock::PerTurn { first: Duration::from_millis(1000), rest: Duration::from_millis(100) };
        let mut tm = TimeManager::new(clock, Safety::new(0.1, 15));
        tm.finish_move(Instant::now());
        let overran = Instant::now() - Duration::from_millis(75 + 10);
        tm.finish_move(overran);
        let after = tm.budget(1.0);
        assert!(after <= Duration::from_millis(55) && after >= Duration::from_millis(50), "{after:?}");
        tm.finish_move(Instant::now() - Duration::from_millis(75 + 100));
        assert_eq!(tm.budget(1.0), Duration::from_millis(37) + Duration::from_micros(500), "at most half the turn");
        for _ in 0..150 {
            tm.finish_move(Instant::now());
        }
        let rested = tm.budget(1.0);
        assert!(rested > Duration::from_millis(74), "{rested:?}");
        // A whole-game clock books overruns as time used and keeps nothing else back.
        let mut game = TimeManager::new(Clock::PerGame { total: Duration::from_secs(10) }, Safety::new(0.0, 0));
        game.finish_move(Instant::now() - Duration::from_secs(2));
        assert!(game.budget(4.0) <= Duration::from_secs(2) && game.budget(4.0) > Duration::from_millis(1990));
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
