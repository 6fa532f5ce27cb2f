//! CodeCup's Black Hole referee: each program first reads the five brown fields, the first
//! player then `Start`; after a fault the jury plays on ("Your opponent will finish the game
//! against a player controlled by the jury").

use super::{label, BlackHole};
use crate::game::Player;
use crate::referee::RefereeRules;

impl RefereeRules for BlackHole {
    const TITLE: &'static str = "Black Hole, CodeCup 2018 (36-field triangle, stones 1..15, margin score)";

    fn intro(&self, seat: Player) -> String {
        let mut text: String = self.brown_fields().iter().map(|&f| format!("{}\n", label(f))).collect();
        if seat == 0 {
            text.push_str("Start\n");
        }
        text
    }

    fn transcripts() -> &'static [&'static str] {
        &[include_str!("transcript-seat0.txt"), include_str!("transcript-seat1.txt")]
    }
}
