//! What alpha-beta needs of Zero Point One (`crate::alphabeta::Evaluation`): the classic bot's
//! evaluation (material, in hand worth more than on the board, mobility, pressure around the
//! wazir), captures for quiescence, no standing pat with the wazir attacked, captures ordered
//! by the piece taken. The net bot's alpha-beta uses all of it but the evaluation.

use super::{decode, Play, ZeroPointOne, ATTACKS, KINDS, WAZIR};
use crate::alphabeta::{AlphaBeta, Evaluation, StaticValue};
use crate::game::{set_bits, Action, ActionList, Game, NUM_PLAYERS};
use crate::mcts::Values;
use crate::rng::Rng;
use crate::rollout::Playout;

/// A piece's worth on the board, by kind (the wazir's is the game).
pub const VALUES: [i32; KINDS] = [0, 200, 150, 300, 100];
/// A piece in hand may go anywhere: worth this many hundredths of it on the board.
const HAND_PERCENT: i32 = 115;
/// Each square a side's pieces attack.
const MOBILITY: i32 = 4;
/// Each enemy attack on a square next to (a wazir's leap from) the own wazir.
const WAZIR_PRESSURE: i32 = 12;
/// Alpha-beta's table, the classic bot's and the net bot's: 2^20 entries, 16 MB.
pub const TABLE_BITS: u32 = 20;

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

/// The evaluation's units a utility of tanh(1) is worth: about a knight and a ferz.
const UTILITY_SCALE: f32 = 500.0;
/// Nodes one leaf's quiescence may take.
const QUIESCENCE_NODES: u64 = 400;

/// The tree search's "playout" mixed into each leaf's value (`rollout::MixedEvaluator`): no
/// random game, but the captures played out by quiescence over the classic evaluation, as a
/// utility (the tactics a young net misses).
impl Playout for ZeroPointOne {
    fn playout_utilities(&self, _rng: &mut Rng) -> Values {
        thread_local! {
            static SEARCH: std::cell::RefCell<AlphaBeta<ZeroPointOne>> = std::cell::RefCell::new(AlphaBeta::new(StaticValue, 0));
        }
        let v = SEARCH.with(|s| s.borrow_mut().quiescence_value(self, QUIESCENCE_NODES));
        let u = (v as f32 / UTILITY_SCALE).tanh();
        let me = self.to_move();
        let mut values = [0.0; NUM_PLAYERS];
        values[me] = u;
        values[1 - me] = -u;
        values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mover may stand pat, so the captures played out are worth at least the static value
    /// to it, and in some positions more (a capture wins material); level at the start.
    #[test]
    fn the_captures_played_out_are_worth_at_least_standing_pat() {
        let start = ZeroPointOne::from_setups("WNFFDDDDAAAAAAAA", "wnffddddaaaaaaaa").unwrap();
        let level = start.playout_utilities(&mut Rng::new(0));
        assert!(level[0].abs() < 0.1 && level[0] == -level[1], "{level:?}");
        let mut gains = 0;
        for seed in 0..300 {
            let s: ZeroPointOne = crate::tools::after_random_actions(seed, 32 + (seed as usize % 40));
            if s.is_terminal() || s.must_act() {
                continue;
            }
            let stand = (s.static_value() as f32 / UTILITY_SCALE).tanh();
            let played = s.playout_utilities(&mut Rng::new(0))[s.to_move()];
            assert!(played >= stand - 1e-6, "seed {seed}: {played} below {stand}");
            gains += (played > stand + 0.05) as usize;
        }
        assert!(gains > 10, "{gains} positions where a capture gains");
    }
}
