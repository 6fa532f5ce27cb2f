//! The quantum tic-tac-toe referee: a line may hold a collapse and a move (`CAD`); the judge
//! adds `!` to a relayed line whose move closed a cycle, so the reader collapses first. A fault
//! scores 0 and the judge plays the first legal actions for the faulty player; the other player
//! then gets at least a win (20 plus its bonus).

use super::protocol::parse_line;
use super::Qttt;
use crate::game::{Action, ActionList, Game, Player, NUM_PLAYERS};
use crate::referee::{Answer, Misplay, RefereeRules};
use crate::rng::Rng;

impl RefereeRules for Qttt {
    const TITLE: &'static str = "Quantum tic-tac-toe 4x4, CodeCup 2012 (spooky marks, cycles, collapse, bonus points)";

    fn parse_answer(&self, line: &str) -> Result<Answer, Misplay> {
        let actions = parse_line(self, line.trim_end_matches('\r')).map_err(Misplay::Illegal)?;
        Ok(Answer { actions, claim: false })
    }

    fn relay(&self, actions: &[Action]) -> String {
        let text: String = actions.iter().map(|&a| Qttt::format_action(a)).collect();
        let mark = if self.collapse_pending() { "!" } else { "" };
        format!("{text}{mark}\n")
    }

    /// The jury plays the first legal actions: a collapse if due, then a move.
    fn takeover(&self, _rng: &mut Rng) -> Vec<Action> {
        let mut list = ActionList::new();
        let mut s = self.clone();
        let mut taken = Vec::new();
        loop {
            s.legal_actions(&mut list);
            let a = list[0];
            let collapse = s.collapse_pending();
            s.apply(a);
            taken.push(a);
            if !collapse || s.is_terminal() {
                break;
            }
        }
        taken
    }

    fn scores_after_fault(&self, mut scores: [f32; NUM_PLAYERS], faulty: Player) -> [f32; NUM_PLAYERS] {
        scores[faulty] = 0.0;
        scores[1 - faulty] = scores[1 - faulty].max(20.0 + self.bonus()[1 - faulty] as f32);
        scores
    }

    fn end_text(&self, actions: usize) -> String {
        format!("game over after {actions} actions, scores {:?}", self.scores())
    }

    fn transcripts() -> &'static [&'static str] {
        &[include_str!("transcript-seat0.txt"), include_str!("transcript-seat1.txt")]
    }
}
