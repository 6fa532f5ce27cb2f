//! Tactical playouts, and a net bot that mixes one into every searched position's value at a
//! chosen weight. The exported bot mixes one at [`super::protocol::ROLLOUT_WEIGHT`]
//! (docs/lab/connect4.md, Tactical playouts in the net's value);
//! `bots/examples/connect4_mixed_vs_uct.rs` plays other weights.

use super::{threat_cells, Connect4, BOARD_MASK, BOTTOM};
use crate::agent::{Agent, SearchAgent};
use crate::bot::Contest;
use crate::mcts::MctsConfig;
use crate::game::Game;
use crate::net_eval::NetEvaluator;
use crate::nn::Mlp;
use crate::rng::Rng;
use crate::rollout::{random_playout, MixedEvaluator, Playout};
use std::sync::Arc;

/// A playout that takes an immediate win, blocks the opponent's single threat, loses at once to
/// a double threat, never drops a chip right under an opponent's threat, and otherwise picks a
/// column at random: the "decisive and anti-decisive moves" of Teytaud and Teytaud's Havannah
/// playouts (2010), on bitboards. Uniformly random before STEAL is settled.
impl Playout for Connect4 {
    fn playout_utilities(&self, rng: &mut Rng) -> [f32; 2] {
        if self.turn < 2 || self.is_terminal() {
            return random_playout(self.clone(), rng).utilities();
        }
        let win = |p: usize| if p == 0 { [1.0, -1.0] } else { [-1.0, 1.0] };
        let mut mover = self.to_move();
        let mut mine = self.chips[mover];
        let mut mask = self.chips[0] | self.chips[1];
        loop {
            let playable = (mask + BOTTOM) & BOARD_MASK;
            if playable == 0 {
                return [0.0, 0.0];
            }
            if threat_cells(mine, mask) & playable != 0 {
                return win(mover);
            }
            let their_threats = threat_cells(mask ^ mine, mask);
            let forced = playable & their_threats;
            let candidates = match forced.count_ones() {
                0 => playable,
                1 => forced,
                _ => return win(1 - mover),
            };
            let mut safe = candidates & !(their_threats >> 1);
            if safe == 0 {
                return win(1 - mover);
            }
            for _ in 0..rng.below(safe.count_ones() as usize) {
                safe &= safe - 1;
            }
            let cell = safe & safe.wrapping_neg();
            let placed = mine | cell;
            mask |= cell;
            mine = mask ^ placed;
            mover = 1 - mover;
        }
    }
}

/// The net bot's search with `config` (both views averaged) and each leaf's value
/// `(1 - rollout_weight) * net + rollout_weight * one tactical playout`.
pub fn mixed_agent(net: Arc<Mlp>, config: MctsConfig, rollout_weight: f32, playouts: Option<u64>, seed: u64) -> Box<dyn Agent<Connect4>> {
    let views = NetEvaluator::averaged(net, Connect4::AVERAGED_VIEWS);
    Box::new(SearchAgent::new(Connect4::new(), config, MixedEvaluator::new(views, seed, rollout_weight), playouts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Action;

    fn after(moves: &[Action]) -> Connect4 {
        let mut s = Connect4::new();
        moves.iter().for_each(|&a| s.apply(a));
        s
    }

    #[test]
    fn tactical_playouts_take_the_win_and_see_a_double_threat() {
        let mut rng = Rng::new(3);
        // Player 0 to move with three in column 0: every playout wins at once.
        let three_up = after(&[0, 1, 0, 1, 0, 2]);
        assert!((0..200).all(|_| three_up.playout_utilities(&mut rng) == [1.0, -1.0]));
        // Player 1 holds 2, 3, 4 on the bottom row with 1 and 5 open: player 0 blocks one end
        // and loses at the other in every playout.
        let open_three = after(&[8, 2, 8, 3, 7, 4]);
        assert!((0..200).all(|_| open_three.playout_utilities(&mut rng) == [-1.0, 1.0]));
        // A quiet position: both sides win some playouts.
        let quiet = after(&[4, 4]);
        let wins: Vec<f32> = (0..200).map(|_| quiet.playout_utilities(&mut rng)[0]).collect();
        assert!(wins.contains(&1.0) && wins.contains(&-1.0));
    }
}
