//! CodeCup's 6561 referee: the programs read `A` and `B`; the record notes the largest piece.

use super::Game6561;
use crate::game::Player;
use crate::referee::RefereeRules;

impl RefereeRules for Game6561 {
    const TITLE: &'static str = "6561, CodeCup 2016 (cooperative 4x4 sliding game, shared score)";
    const COOPERATIVE: bool = true;

    fn intro(&self, seat: Player) -> String {
        if seat == 0 { "A\n".into() } else { "B\n".into() }
    }

    /// The largest piece seen so far: `, largest piece 243`.
    fn note(&self, previous: &str) -> String {
        let largest = self.largest_piece().max(previous.rsplit(' ').next().and_then(|v| v.parse().ok()).unwrap_or(0));
        format!(", largest piece {largest}")
    }

    fn transcripts() -> &'static [&'static str] {
        &[include_str!("transcript-seat0.txt"), include_str!("transcript-seat1.txt")]
    }
}
