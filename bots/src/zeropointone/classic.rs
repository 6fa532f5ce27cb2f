//! The classic Zero Point One bot, as the contest's players described theirs: alpha-beta
//! ([`crate::alphabeta`]) with quiescence on captures and iterative deepening on the clock,
//! over a material and mobility evaluation (`evaluation.rs`); a random setup with the wazir in
//! the middle of the back row. The yardstick every net is judged against, and a teacher.

use super::evaluation::TABLE_BITS;
use super::{ZeroPointOne, KINDS, SETUP_PIECES, WAZIR};
use crate::agent::Agent;
use crate::alphabeta::{AlphaBetaAgent, StaticValue};
use crate::classic::{Classic, Teacher};
use crate::game::{Action, Game};
use crate::rng::Rng;
use std::time::Instant;

/// The classic player: a random setup, then alpha-beta.
pub struct ClassicPlayer {
    search: AlphaBetaAgent<ZeroPointOne>,
    rng: Rng,
}

impl ClassicPlayer {
    pub fn new(seed: u64, node_budget: Option<u64>) -> Self {
        ClassicPlayer { search: AlphaBetaAgent::new(StaticValue, TABLE_BITS, node_budget), rng: Rng::new(seed) }
    }

    /// The next placement: the wazir on one of the back row's four middle squares (each
    /// equally likely), the other pieces at random.
    fn place(&mut self, state: &ZeroPointOne) -> Action {
        let i = state.placed() % SETUP_PIECES;
        let me = state.to_move();
        // Red's back row is placed first (row a), Blue's last (row h).
        let back_middle = |j: usize| (if me == 0 { j < 8 } else { j >= 8 }) && (2..6).contains(&(j % 8));
        let hand = state.hand(me);
        if hand[WAZIR] > 0 {
            let ahead = (i..SETUP_PIECES).filter(|&j| back_middle(j)).count();
            let take = if back_middle(i) { self.rng.below(ahead) == 0 } else { ahead == 0 && self.rng.below(SETUP_PIECES - i) == 0 };
            if take || SETUP_PIECES - i == 1 {
                return super::place_action(WAZIR);
            }
        }
        let others: usize = (1..KINDS).map(|k| hand[k] as usize).sum();
        let mut pick = self.rng.below(others.max(1));
        for k in 1..KINDS {
            if pick < hand[k] as usize {
                return super::place_action(k);
            }
            pick -= hand[k] as usize;
        }
        super::place_action(WAZIR)
    }
}

impl Agent<ZeroPointOne> for ClassicPlayer {
    fn choose(&mut self, state: &ZeroPointOne, deadline: Option<Instant>) -> Action {
        if state.in_setup() {
            return self.place(state);
        }
        self.search.choose(state, deadline)
    }

    fn last_report(&self) -> String {
        self.search.last_report()
    }

    fn last_playouts(&self) -> Option<u64> {
        self.search.last_playouts()
    }

    /// A placement takes no time: the setup's share of the clock goes to the moves.
    fn pace(&self, state: &ZeroPointOne) -> f64 {
        if state.in_setup() { 0.01 } else { 1.0 }
    }
}

/// Alpha-beta keeps no root visits: its chosen move is the whole policy target.
impl Teacher<ZeroPointOne> for ClassicPlayer {}

impl Classic for ZeroPointOne {
    fn classic_agent(seed: u64, budget: Option<u64>) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(ClassicPlayer::new(seed, budget)))
    }

    fn classic_teacher(seed: u64, budget: Option<u64>) -> Option<Box<dyn Teacher<Self>>> {
        Some(Box::new(ClassicPlayer::new(seed, budget)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alphabeta::Evaluation;
    use crate::game::set_bits;

    fn after(moves: &str) -> ZeroPointOne {
        let mut s = ZeroPointOne::from_setups("WNFFDDDDAAAAAAAA", "wnffddddaaaaaaaa").unwrap();
        for m in moves.split_whitespace() {
            s.apply(ZeroPointOne::parse_action(m).unwrap());
        }
        s
    }

    #[test]
    fn setups_are_legal_and_keep_the_wazir_on_the_back_row() {
        for seed in 0..20 {
            let mut s = ZeroPointOne::new();
            let mut p = ClassicPlayer::new(seed, Some(100));
            while s.in_setup() {
                let a = p.choose(&s, None);
                assert!(s.is_legal(a));
                s.apply(a);
            }
            let red = set_bits(s.pieces(0, WAZIR)).next().unwrap();
            let blue = set_bits(s.pieces(1, WAZIR)).next().unwrap();
            assert!(red / 8 == 0 && (2..6).contains(&(red % 8)), "seed {seed}: {red}");
            assert!(blue / 8 == 7 && (2..6).contains(&(blue % 8)), "seed {seed}: {blue}");
        }
    }

    /// With no time to search one root move, the move is the likeliest good one (a capture of
    /// the most valuable piece), not the first legal one (a wazir's step).
    #[test]
    fn out_of_time_at_once_it_still_captures() {
        let s = after("b1d3 h3f5");
        let mut p = ClassicPlayer::new(1, Some(1));
        let a = p.choose(&s, None);
        assert_eq!(ZeroPointOne::format_action(a), "d3f5", "{}", p.last_report());
    }

    #[test]
    fn takes_a_wazir_in_reach_and_saves_its_own() {
        // Red's knight reaches Blue's wazir on g1 from e2.
        let s = after("a2c3 h8f6 c3e2 f6d4");
        let mut p = ClassicPlayer::new(1, Some(20_000));
        assert_eq!(ZeroPointOne::format_action(p.choose(&s, None)), "e2g1");
        // Blue to move with its wazir attacked by the knight on e2: it must not lose it.
        let s = after("a2c3 h8f6 c3e2");
        let a = p.choose(&s, None);
        let mut t = s.clone();
        t.apply(a);
        assert!(!t.must_act() || t.pieces(1, WAZIR) & t.attacks(0) == 0, "{}", ZeroPointOne::format_action(a));
        assert_eq!(t.pieces(1, WAZIR) & t.attacks(0), 0, "after {} the wazir is still attacked", ZeroPointOne::format_action(a));
    }
}
