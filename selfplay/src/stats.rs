//! Match statistics shared by the judge and the arena: W/D/L, score fraction, Elo difference
//! with a 95% interval.

use serde::Serialize;

/// Results of one side of a match, counted game by game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct MatchStats {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_964;

/// Elo difference implied by a score fraction (±infinity at 1 and 0).
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

impl MatchStats {
    pub fn add(&mut self, score: f64) {
        if score > 0.5 {
            self.wins += 1;
        } else if score < 0.5 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points per game, a win counting 1 and a draw 1/2.
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
    }

    pub fn elo(&self) -> f64 {
        elo_from_score(self.score())
    }

    /// 95% interval of the score fraction: the Wilson interval, which stays informative at
    /// 0% and 100% (a 200-0 match still bounds the Elo difference from below).
    pub fn score_interval(&self) -> (f64, f64) {
        let n = self.games() as f64;
        if n == 0.0 {
            return (0.0, 1.0);
        }
        let p = self.score();
        let z2 = Z95 * Z95;
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        // At p = 0 or 1 the exact bound is 0 or 1; keep rounding from making it finite.
        let lo = if p == 0.0 { 0.0 } else { (centre - half).max(0.0) };
        let hi = if p == 1.0 { 1.0 } else { (centre + half).min(1.0) };
        (lo, hi)
    }

    pub fn elo_interval(&self) -> (f64, f64) {
        let (lo, hi) = self.score_interval();
        (elo_from_score(lo), elo_from_score(hi))
    }

    /// `W-D-L, score 97.5% (95% CI 94.3..98.9%), Elo +636 (+497..+792)`.
    pub fn describe(&self) -> String {
        let (lo, hi) = self.score_interval();
        let (elo_lo, elo_hi) = self.elo_interval();
        format!(
            "{}-{}-{} (W-D-L), score {:.1}% (95% CI {:.1}..{:.1}%), Elo {} ({}..{})",
            self.wins,
            self.draws,
            self.losses,
            100.0 * self.score(),
            100.0 * lo,
            100.0 * hi,
            fmt_elo(self.elo()),
            fmt_elo(elo_lo),
            fmt_elo(elo_hi)
        )
    }
}

/// How long the rest of a job of `total` units will take at the pace of the `done` ones:
/// "ETA 3 min 20 s" (empty before the first unit is done).
pub fn eta(elapsed: std::time::Duration, done: usize, total: usize) -> String {
    if done == 0 || done >= total {
        return String::new();
    }
    let left = elapsed.as_secs_f64() / done as f64 * (total - done) as f64;
    format!("ETA {}", fmt_duration(left))
}

/// Seconds as "42 s", "3 min 20 s" or "2 h 05 min".
pub fn fmt_duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

/// One progress line of a match: games done out of the total, A's W-D-L, its score so far
/// with the 95% interval, and an ETA.
pub fn match_progress(stats: &MatchStats, total: usize, elapsed: std::time::Duration) -> String {
    let (lo, hi) = stats.score_interval();
    format!(
        "{}/{total} games, A {}-{}-{} (W-D-L), score {:.1}% ({:.1}..{:.1}%) {}",
        stats.games(),
        stats.wins,
        stats.draws,
        stats.losses,
        100.0 * stats.score(),
        100.0 * lo,
        100.0 * hi,
        eta(elapsed, stats.games() as usize, total)
    )
}

pub fn fmt_elo(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 { "+inf".into() } else { "-inf".into() }
    } else {
        format!("{elo:+.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_says_how_far_how_well_and_how_long() {
        let mut stats = MatchStats::default();
        for score in [1.0, 0.5, 1.0, 0.0] {
            stats.add(score);
        }
        let line = match_progress(&stats, 10, std::time::Duration::from_secs(40));
        assert!(line.starts_with("4/10 games, A 2-1-1 (W-D-L), score 62.5% ("), "{line}");
        assert!(line.ends_with("ETA 1 min 00 s"), "{line}");
        assert_eq!(eta(std::time::Duration::from_secs(7200), 1, 3), "ETA 4 h 00 min");
        assert_eq!(eta(std::time::Duration::from_secs(5), 0, 3), "");
        assert_eq!(fmt_duration(59.4), "59 s");
    }

    #[test]
    fn even_match_is_zero_elo() {
        let s = MatchStats { wins: 40, draws: 20, losses: 40 };
        assert_eq!(s.score(), 0.5);
        assert!(s.elo().abs() < 1e-9);
        let (lo, hi) = s.elo_interval();
        assert!(lo < -50.0 && hi > 50.0 && (lo + hi).abs() < 1e-6);
    }

    #[test]
    fn known_elo_values() {
        // 75% is +191 Elo, 90% is +382.
        assert!((elo_from_score(0.75) - 190.85).abs() < 0.1);
        assert!((elo_from_score(0.9) - 381.7).abs() < 0.1);
    }

    #[test]
    fn a_perfect_score_still_has_a_finite_lower_bound() {
        let s = MatchStats { wins: 200, draws: 0, losses: 0 };
        let (lo, hi) = s.elo_interval();
        assert!(hi.is_infinite());
        assert!(lo > 600.0 && lo < 800.0, "{lo}");
    }
}
