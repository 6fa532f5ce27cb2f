//! CodeCup's Zuniq referee: a move may carry a `!` win claim, which earns a bonus when right
//! and costs everything when wrong.

use super::Zuniq;
use crate::game::{Game, NUM_PLAYERS};
use crate::referee::RefereeRules;

impl RefereeRules for Zuniq {
    const TITLE: &'static str = "Zuniq, CodeCup 2021 (segments, zones of unique size, last mover wins)";

    /// 100 / 50, plus the claim bonus: (39 - x) / 2 for White, (40 - x) / 2 for Black, at most
    /// 10 and not negative; a player who claimed and lost gets 0.
    fn final_scores(&self, claims: [Option<usize>; NUM_PLAYERS]) -> [f32; NUM_PLAYERS] {
        let mut scores = self.scores();
        for (seat, claim) in claims.iter().enumerate() {
            if let Some(x) = *claim {
                if self.winner() == Some(seat) {
                    let base = if seat == 0 { 39.0 } else { 40.0 };
                    scores[seat] += ((base - x as f32) / 2.0).clamp(0.0, 10.0);
                } else {
                    scores[seat] = 0.0;
                }
            }
        }
        scores
    }

    fn transcripts() -> &'static [&'static str] {
        &[include_str!("transcript-seat0.txt"), include_str!("transcript-seat1.txt")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_earn_a_bonus_or_cost_everything() {
        let game = "D1h E1h B2h D2v F4h A5v C1h B1h A5h A2h A4v C4v F1h B3h E3h C6v D3v B1v F3h D4h C3h A1v E5h A3h A6v B3v F2h E2h C2v D5h D1v B6v B4h E5v E1v A2v E4v D6v F5h";
        let mut z = Zuniq::new();
        crate::tools::apply_texts(&mut z, &game.split(' ').collect::<Vec<_>>()).unwrap();
        assert_eq!(z.winner(), Some(0));
        assert_eq!(z.final_scores([None, None]), [100.0, 50.0]);
        // White claims at turn 31: (39 - 31) / 2 = 4 extra.
        assert_eq!(z.final_scores([Some(31), None]), [104.0, 50.0]);
        // An early claim is capped at 10.
        assert_eq!(z.final_scores([Some(3), None]), [110.0, 50.0]);
        // Black claimed and lost: nothing.
        assert_eq!(z.final_scores([None, Some(20)]), [100.0, 0.0]);
    }
}
