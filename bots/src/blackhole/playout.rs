//! The classic Black Hole playout, shared by the classic bot (its whole evaluation) and the net
//! bot (mixed into the net's value at the leaves, [`PlayoutMix`]): what a position reduces to,
//! a playout policy after the 2018 players' descriptions, and the exact filling phase.

use super::{fields_in, filling_margin, neighbours, BlackHole, FIELDS, MARGIN_SCALE};
use crate::game::{Action, Game};
use crate::mcts::{Evaluator, Values};
use crate::net_eval::NetEvaluator;
use crate::rng::Rng;

/// Playout policy: the share of moves that fill the hole worst for the mover with its smallest
/// stone; the others put a large stone on a field with many empty neighbours.
const KILL_SHARE: u32 = 40;
/// Fields compared per playout move (a tournament among random empty fields).
const TOURNAMENT: usize = 3;

/// What a position reduces to for the search: the empty fields, Red's minus Blue's stones next
/// to each empty field (the margin if it ends as the hole), the stones in hand.
#[derive(Clone, Copy)]
pub struct Board {
    pub empty: u64,
    pub sums: [i8; FIELDS],
    pub hand: [u16; 2],
    pub mover: u8,
    /// Pairs of neighbouring empty fields: 0 means the filling phase.
    pub links: u32,
}

impl Board {
    pub fn from_game(game: &BlackHole) -> Self {
        let mut b = Board { empty: 0, sums: [0; FIELDS], hand: [0; 2], mover: game.to_move() as u8, links: 0 };
        b.hand = [game.hand(0), game.hand(1)];
        b.empty = game.empty_fields();
        for f in fields_in(b.empty) {
            let (red, blue) = game.sums_around(f);
            b.sums[f] = (red as i32 - blue as i32) as i8;
            b.links += (neighbours(f) & b.empty).count_ones();
        }
        b.links /= 2;
        b
    }

    #[inline]
    pub fn open(&self, field: usize) -> u32 {
        (neighbours(field) & self.empty).count_ones()
    }

    /// The margin for the mover if `field` ends as the hole as it is now.
    #[inline]
    pub fn own(&self, field: usize) -> i32 {
        if self.mover == 0 {
            self.sums[field] as i32
        } else {
            -(self.sums[field] as i32)
        }
    }

    #[inline]
    pub fn play(&mut self, field: usize, value: u8) {
        self.empty &= !(1 << field);
        let open = neighbours(field) & self.empty;
        self.links -= open.count_ones();
        let signed = if self.mover == 0 { value as i8 } else { -(value as i8) };
        for g in fields_in(open) {
            self.sums[g] += signed;
        }
        self.hand[self.mover as usize] &= !(1 << (value - 1));
        self.mover ^= 1;
    }

    pub fn filling(&self) -> bool {
        self.links == 0
    }

    /// In the filling phase (or at the end): Red's final margin with perfect play
    /// ([`super::filling_margin`]).
    pub fn filling_margin(&self) -> i32 {
        let mut margins = [0i8; FIELDS];
        let mut n = 0;
        for f in fields_in(self.empty) {
            margins[n] = self.sums[f];
            n += 1;
        }
        filling_margin(&mut margins[..n], self.mover == 0)
    }

    /// The exact move in the filling phase: the smallest stone into the field worst for the mover.
    pub fn filling_move(&self) -> (usize, u8) {
        let field = fields_in(self.empty).min_by_key(|&f| self.own(f)).unwrap_or(0);
        (field, self.smallest())
    }

    #[inline]
    pub fn smallest(&self) -> u8 {
        self.hand[self.mover as usize].trailing_zeros() as u8 + 1
    }

    #[inline]
    pub fn largest(&self) -> u8 {
        16 - self.hand[self.mover as usize].leading_zeros() as u8
    }
}

/// A random playout from `board` to the filling phase, then the exact result: Red's margin.
/// `list` holds the empty fields (any order), `n` of them.
pub fn playout(mut b: Board, rng: &mut Rng) -> i32 {
    let mut list = [0u8; FIELDS];
    let mut n = 0;
    for f in fields_in(b.empty) {
        list[n] = f as u8;
        n += 1;
    }
    while !b.filling() {
        let kill = (rng.next_u64() % 100) < KILL_SHARE as u64;
        // Tournament among a few random empty fields.
        let mut best_i = rng.below(n);
        let mut best_score = i32::MIN;
        for t in 0..TOURNAMENT {
            let i = if t == 0 { best_i } else { rng.below(n) };
            let f = list[i] as usize;
            let score = if kill {
                // The hole that favours the opponent most.
                -b.own(f)
            } else {
                // Many empty neighbours to carry the stone; among those, a field that would be
                // a bad hole for us anyway.
                4 * b.open(f) as i32 - b.own(f)
            };
            if score > best_score {
                best_score = score;
                best_i = i;
            }
        }
        let f = list[best_i] as usize;
        let value = if kill || b.open(f) == 0 { b.smallest() } else { b.largest() };
        b.play(f, value);
        n -= 1;
        list[best_i] = list[n];
    }
    b.filling_margin()
}


/// The net's priors, with a value mixed from the net's and the mean utility of `playouts`
/// classic playouts: `(1 - weight) * net + weight * playouts`. In-process, at equal playouts a
/// move, 16 playouts at weight 1.0 gained +0.78 points a game against the classic bot
/// (docs/lab/throughput.md, Stronger nets from the same CPU, "3. Hybrid leaf
/// evaluation"); each leaf costs the playouts' time on the clock.
pub struct PlayoutMix {
    net: NetEvaluator,
    rng: Rng,
    playouts: u32,
    weight: f32,
}

impl PlayoutMix {
    pub fn new(net: NetEvaluator, seed: u64, playouts: u32, weight: f32) -> Self {
        PlayoutMix { net, rng: Rng::new(seed), playouts, weight }
    }
}

impl Evaluator<BlackHole> for PlayoutMix {
    fn evaluate(&mut self, state: &BlackHole, legal: &[Action], priors: &mut [f32]) -> Values {
        let net = self.net.evaluate(state, legal, priors);
        if self.playouts == 0 || self.weight == 0.0 {
            return net;
        }
        let board = Board::from_game(state);
        // The game's own utility scale (`BlackHole::utilities`), averaged over the playouts.
        let red = (0..self.playouts).map(|_| (playout(board, &mut self.rng) as f32 / MARGIN_SCALE).clamp(-1.0, 1.0)).sum::<f32>() / self.playouts as f32;
        let w = self.weight;
        [(1.0 - w) * net[0] + w * red, (1.0 - w) * net[1] - w * red]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::{Dense, Mlp};
    use crate::encode::Encode;
    use std::sync::Arc;

    fn zero_net() -> NetEvaluator {
        let hidden = 4;
        NetEvaluator::new(Arc::new(Mlp {
            game: "blackhole".into(),
            hidden: vec![Dense::zeros(BlackHole::NUM_FEATURES, hidden)],
            policy: Dense::zeros(hidden, BlackHole::NUM_ACTIONS),
            value: Dense::zeros(hidden, 2),
        }))
    }

    /// Once no empty field has an empty neighbour the playout is exact: the mixed value is the
    /// game's utility of the filling margin, and weight 0 leaves the net's value alone.
    #[test]
    fn in_the_filling_phase_the_playout_value_is_exact() {
        let mut rng = Rng::new(5);
        for seed in 0..200 {
            let mut game = BlackHole::new_game(&mut Rng::new(seed));
            let mut list = crate::game::ActionList::new();
            while !game.is_terminal() && !Board::from_game(&game).filling() {
                game.legal_actions(&mut list);
                game.apply(list[rng.below(list.len())]);
            }
            if game.is_terminal() {
                continue;
            }
            let margin = Board::from_game(&game).filling_margin();
            game.legal_actions(&mut list);
            let mut priors = vec![0.0; list.len()];
            let mixed = PlayoutMix::new(zero_net(), 1, 4, 1.0).evaluate(&game, &list, &mut priors);
            let u = (margin as f32 / MARGIN_SCALE).clamp(-1.0, 1.0);
            assert!((mixed[0] - u).abs() < 1e-6 && (mixed[1] + u).abs() < 1e-6, "{mixed:?} for margin {margin}");
            let plain = PlayoutMix::new(zero_net(), 1, 4, 0.0).evaluate(&game, &list, &mut priors);
            assert_eq!(plain, [0.0, 0.0]);
            return;
        }
        panic!("no game reached the filling phase");
    }
}
