//! The classic Zero Point One bot, as the contest's players described theirs: alpha-beta
//! ([`crate::alphabeta`]) with quiescence on captures and iterative deepening on the clock,
//! over a material and square evaluation; a random setup with the wazir in the middle of the
//! back row. The yardstick every net is judged against, and a teacher.

use super::{decode, Play, ZeroPointOne, ATTACKS, KINDS, SETUP_PIECES, WAZIR};
use crate::agent::Agent;
use crate::alphabeta::{AlphaBetaAgent, Evaluation, StaticValue};
use crate::classic::{Classic, Teacher};
use crate::game::{set_bits, Action, ActionList, Game};
use crate::rng::Rng;
use std::time::Instant;

/// A piece's worth on the board, by kind (the wazir's is the game).
pub const VALUES: [i32; KINDS] = [0, 200, 150, 300, 100];
/// A piece in hand may go anywhere: worth this many hundredths of it on the board.
const HAND_PERCENT: i32 = 115;
/// Each square a side's pieces attack.
const MOBILITY: i32 = 4;
/// Each enemy attack on a square next to (a wazir's leap from) the own wazir.
const WAZIR_PRESSURE: i32 = 12;
/// Transposition table: 2^20 entries, 16 MB.
const TABLE_BITS: u32 = 20;

impl Evaluation for ZeroPointOne {
    fn static_value(&self) -> i32 {
        let me = self.to_move();
        let mut value = 0;
        for (side, sign) in [(me, 1), (1 - me, -1)] {
            let mut attacked = 0u64;
            for k in 0..KINDS {
                for sq in set_bits(self.pieces(side, k)) {
                    value += sign * VALUES[k];
                    attacked |= ATTACKS[k][sq];
                }
                value += sign * VALUES[k] * HAND_PERCENT / 100 * self.hand(side)[k] as i32;
            }
            value += sign * MOBILITY * (attacked & !self.side(side)).count_ones() as i32;
            if let Some(wazir) = set_bits(self.pieces(side, WAZIR)).next() {
                let enemy = self.attacks(1 - side);
                value -= sign * WAZIR_PRESSURE * (ATTACKS[WAZIR][wazir] & enemy).count_ones() as i32;
            }
        }
        value
    }

    fn noisy_actions(&self, out: &mut ActionList) {
        let mut all = ActionList::new();
        self.legal_actions(&mut all);
        out.clear();
        let enemy = self.side(1 - self.to_move());
        for &a in all.iter() {
            if let Play::Move { to, .. } = decode(a) {
                if enemy >> to & 1 != 0 {
                    out.push(a);
                }
            }
        }
    }

    /// The mover's wazir is attacked: standing pat would lose it.
    fn must_act(&self) -> bool {
        let me = self.to_move();
        self.pieces(me, WAZIR) & self.attacks(1 - me) != 0
    }

    /// Captures by the value taken, then the cheaper piece first.
    fn action_order(&self, action: Action) -> i32 {
        match decode(action) {
            Play::Move { from, to } => match (self.piece_at(to), self.piece_at(from)) {
                (Some((_, WAZIR)), _) => 1 << 20,
                (Some((_, taken)), Some((_, by))) => 16 * VALUES[taken] - VALUES[by] / 10 + 10_000,
                _ => 0,
            },
            _ => -1,
        }
    }
}

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
