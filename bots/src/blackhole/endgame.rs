//! Exact Black Hole endgames: the margin both players get with perfect play from here to the
//! last stone. An alpha-beta search with a transposition table on a compact position (the empty
//! fields, what each empty field would count as the hole so far, the stones in hand), pruned by
//! bounds on what the hole can still count and by one dominance rule. The UCT and net searches
//! only estimate these last moves; margins are what the ranking sums, so every point counts.

use super::{fields_in, neighbours, BlackHole, EMPTY, FIELDS, STONES};
use crate::game::{Action, Game, Player};
use crate::rng::splitmix64;
use crate::solver::ExactPlay;
use std::time::Instant;

/// Transposition table entries (a power of two; 16 bytes each: 16 MB).
const TABLE_SIZE: usize = 1 << 20;
/// The clock is read once per this many nodes.
const CLOCK_EVERY: u64 = 4096;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    /// The true value is at least the stored one.
    Lower,
    /// The true value is at most the stored one.
    Upper,
}

#[derive(Clone, Copy)]
struct Entry {
    key: u64,
    value: i8,
    bound: Bound,
    /// The best move found, `field * 16 + value`; 0 when none (field 0 with value 0 is no move).
    best: u16,
}

const NO_ENTRY: Entry = Entry { key: 0, value: 0, bound: Bound::Exact, best: 0 };

/// A position reduced to what decides the rest of the game.
#[derive(Clone, Copy)]
struct Position {
    empty: u64,
    /// Red's stones minus Blue's next to each field: the margin if that field ends as the hole
    /// and no more stones are put next to it. Only empty fields' entries are kept up to date.
    sums: [i8; FIELDS],
    /// Stones still in hand, bit `value - 1`.
    hand: [u16; 2],
    mover: Player,
    key: u64,
}

/// A Zobrist key for stone `value` of `player` on `field`.
fn stone_key(field: usize, player: Player, value: u8) -> u64 {
    splitmix64((field * 64 + player * 16 + value as usize) as u64 ^ 0xB1AC_C401_E000_0000).1
}

impl Position {
    fn from_game(game: &BlackHole) -> Self {
        let mut pos = Position { empty: 0, sums: [0; FIELDS], hand: [0; 2], mover: game.to_move(), key: 0 };
        pos.hand = [game.hand(0), game.hand(1)];
        for f in 0..FIELDS {
            match game.cells[f] {
                EMPTY => pos.empty |= 1 << f,
                c @ 1..=30 => {
                    let (player, value) = if c as usize <= STONES { (0, c) } else { (1, c - STONES as u8) };
                    pos.key ^= stone_key(f, player, value);
                }
                // The brown stones are part of the key: one table serves many games.
                _ => pos.key ^= stone_key(f, 2, 0),
            }
        }
        for f in 0..FIELDS {
            let (red, blue) = game.sums_around(f);
            pos.sums[f] = (red as i32 - blue as i32) as i8;
        }
        pos.key ^= pos.mover as u64;
        pos
    }

    /// The margin for the mover if `field` ends as the hole with nothing more put next to it.
    #[inline]
    fn own_sum(&self, field: usize) -> i32 {
        let s = self.sums[field] as i32;
        if self.mover == 0 {
            s
        } else {
            -s
        }
    }

    fn play(&self, field: usize, value: u8) -> Position {
        let mut next = *self;
        next.empty &= !(1 << field);
        let signed = if self.mover == 0 { value as i8 } else { -(value as i8) };
        for g in fields_in(neighbours(field) & next.empty) {
            next.sums[g] += signed;
        }
        next.hand[self.mover] &= !(1 << (value - 1));
        next.key ^= stone_key(field, self.mover, value) ^ 1;
        next.mover = 1 - self.mover;
        next
    }
}

/// `best[k]`: the sum of the `k` largest stones in `hand`.
fn largest_sums(hand: u16) -> [i32; 7] {
    let mut best = [0; 7];
    let mut rest = hand;
    for k in 1..7 {
        if rest == 0 {
            best[k] = best[k - 1];
            continue;
        }
        let top = 15 - rest.leading_zeros() as i32;
        best[k] = best[k - 1] + top + 1;
        rest &= !(1 << top);
    }
    best
}

/// What a finished solve found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solved {
    /// The best move for the player to move.
    pub action: Action,
    /// The mover's final margin (own points minus 75) with perfect play by both.
    pub margin: i32,
}

/// Most moves a position can have: every field with every stone.
const MAX_MOVES: usize = FIELDS * STONES;

/// A position's moves with their ordering scores, on the stack.
struct Moves {
    len: usize,
    items: [(i32, u8, u8); MAX_MOVES],
}

impl Moves {
    fn push(&mut self, score: i32, field: usize, value: u8) {
        self.items[self.len] = (score, field as u8, value);
        self.len += 1;
    }
    fn as_slice(&self) -> &[(i32, u8, u8)] {
        &self.items[..self.len]
    }
}

pub struct EndgameSolver {
    table: Vec<Entry>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    aborted: bool,
}

impl Default for EndgameSolver {
    fn default() -> Self {
        Self::new()
    }
}

impl EndgameSolver {
    pub fn new() -> Self {
        EndgameSolver { table: vec![NO_ENTRY; TABLE_SIZE], nodes: 0, node_limit: u64::MAX, deadline: None, aborted: false }
    }

    /// Nodes visited by the last solve.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Solves `game` (not terminal) exactly, unless `node_limit` nodes or `deadline` come first.
    pub fn solve(&mut self, game: &BlackHole, node_limit: u64, deadline: Option<Instant>) -> Option<Solved> {
        assert!(!game.is_terminal(), "solve needs a position with a move to make");
        self.nodes = 0;
        self.node_limit = node_limit;
        self.deadline = deadline;
        self.aborted = false;
        let root = Position::from_game(game);
        let margin = self.search(&root, -128, 128);
        if self.aborted {
            return None;
        }
        let entry = self.table[root.key as usize & (TABLE_SIZE - 1)];
        let best = if entry.key == root.key && entry.best != 0 { entry.best } else { self.any_best(&root, margin)? };
        Some(Solved { action: BlackHole::action(best as usize / 16, (best % 16) as u8), margin })
    }

    /// A move reaching `margin`, by re-searching each child (only if the table lost the root).
    fn any_best(&mut self, root: &Position, margin: i32) -> Option<u16> {
        let moves = self.moves(root, 0);
        for &(_, field, value) in moves.as_slice() {
            if -self.search(&root.play(field as usize, value), -margin - 1, -margin + 1) == margin {
                return Some(field as u16 * 16 + value as u16);
            }
        }
        None
    }

    /// The moves worth trying, roughly best first: `tt_best` first, then by a static guess.
    fn moves(&self, pos: &Position, tt_best: u16) -> Moves {
        let hand = pos.hand[pos.mover];
        let smallest = hand.trailing_zeros() as u8 + 1;
        let mut moves = Moves { len: 0, items: [(0, 0, 0); MAX_MOVES] };
        for f in fields_in(pos.empty) {
            let open = (neighbours(f) & pos.empty).count_ones() as i32;
            // Filling a field that would be good for us as the hole costs us that hole.
            let lost_hole = pos.own_sum(f);
            if open == 0 {
                // No empty field next to it: this stone can never touch the hole, so spend the
                // smallest one (keeping larger ones in hand is never worse for their owner).
                moves.push(-2 * lost_hole - 1, f, smallest);
                continue;
            }
            let mut rest = hand;
            while rest != 0 {
                let v = rest.trailing_zeros() as u8 + 1;
                rest &= rest - 1;
                moves.push(-2 * lost_hole + open * v as i32, f, v);
            }
        }
        let len = moves.len;
        moves.items[..len].sort_unstable_by(|a, b| b.0.cmp(&a.0));
        if tt_best != 0 {
            let (f, v) = ((tt_best / 16) as u8, (tt_best % 16) as u8);
            if let Some(i) = moves.items[..len].iter().position(|&(_, mf, mv)| mf == f && mv == v) {
                moves.items[..=i].rotate_right(1);
            }
        }
        moves
    }

    /// The mover's final margin under perfect play, or a bound on it outside `(alpha, beta)`.
    fn search(&mut self, pos: &Position, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes % CLOCK_EVERY == 0 && (self.nodes >= self.node_limit || self.deadline.map_or(false, |d| Instant::now() >= d)) {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let empties = pos.empty.count_ones();
        if empties == 1 {
            return pos.own_sum(pos.empty.trailing_zeros() as usize);
        }
        if empties == 2 {
            // The last stone: fill one field, the other is the hole.
            let a = pos.empty.trailing_zeros() as usize;
            let b = 63 - pos.empty.leading_zeros() as usize;
            let v = 15 - pos.hand[pos.mover].leading_zeros() as i32 + 1;
            let touching = if neighbours(a) >> b & 1 == 1 { v } else { 0 };
            return pos.own_sum(a).max(pos.own_sum(b)) + touching;
        }
        // Whatever field ends as the hole, its margin lies between these bounds.
        let own_best = largest_sums(pos.hand[pos.mover]);
        let their_best = largest_sums(pos.hand[1 - pos.mover]);
        let (mut low, mut high) = (i32::MAX, i32::MIN);
        for f in fields_in(pos.empty) {
            let open = (neighbours(f) & pos.empty).count_ones() as usize;
            let s = pos.own_sum(f);
            low = low.min(s - their_best[open]);
            high = high.max(s + own_best[open]);
        }
        if low >= beta {
            return low;
        }
        if high <= alpha {
            return high;
        }
        alpha = alpha.max(low - 1);
        beta = beta.min(high + 1);

        let slot = pos.key as usize & (TABLE_SIZE - 1);
        let entry = self.table[slot];
        let mut tt_best = 0;
        if entry.key == pos.key {
            let v = entry.value as i32;
            match entry.bound {
                Bound::Exact => return v,
                Bound::Lower if v >= beta => return v,
                Bound::Upper if v <= alpha => return v,
                Bound::Lower => alpha = alpha.max(v),
                Bound::Upper => beta = beta.min(v),
            }
            if alpha >= beta {
                return v;
            }
            tt_best = entry.best;
        }
        let original_alpha = alpha;
        let mut best = i32::MIN;
        let mut best_move = 0u16;
        let moves = self.moves(pos, tt_best);
        for &(_, field, value) in moves.as_slice() {
            let field = field as usize;
            let score = -self.search(&pos.play(field, value), -beta, -alpha);
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_move = (field * 16 + value as usize) as u16;
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= original_alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table[slot] = Entry { key: pos.key, value: best as i8, bound, best: best_move };
        best
    }
}

impl ExactPlay<BlackHole> for EndgameSolver {
    fn exact_action(&mut self, state: &BlackHole, node_limit: u64, deadline: Option<Instant>) -> Option<Action> {
        self.solve(state, node_limit, deadline).map(|s| s.action)
    }
    fn nodes(&self) -> u64 {
        self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::ActionList;

    /// Plain minimax over the rules engine: the reference the solver must agree with.
    fn minimax(game: &BlackHole) -> i32 {
        if game.is_terminal() {
            let s = game.scores();
            return (s[0] - s[1]) as i32 / 2;
        }
        let mut list = ActionList::new();
        game.legal_actions(&mut list);
        let sign = if game.to_move() == 0 { 1 } else { -1 };
        list.iter()
            .map(|&a| {
                let mut next = game.clone();
                next.apply(a);
                sign * minimax(&next)
            })
            .max()
            .map(|v| sign * v)
            .unwrap()
    }

    /// A position `left` moves before the end, reached by random play.
    fn random_position(seed: u64, left: usize) -> BlackHole {
        crate::tools::after_random_actions(seed, super::super::TURNS - left)
    }

    #[test]
    fn agrees_with_plain_minimax_on_small_endgames() {
        let mut solver = EndgameSolver::new();
        for seed in 0..40 {
            let left = 1 + seed as usize % 5;
            let game = random_position(seed, left);
            let solved = solver.solve(&game, u64::MAX, None).unwrap();
            let red_margin = minimax(&game);
            let mover_margin = if game.to_move() == 0 { red_margin } else { -red_margin };
            assert_eq!(solved.margin, mover_margin, "seed {seed}, {left} moves left");
            // The move it names reaches that margin.
            let mut after = game.clone();
            assert!(game.is_legal(solved.action));
            after.apply(solved.action);
            let red_after = minimax(&after);
            let after_margin = if game.to_move() == 0 { red_after } else { -red_after };
            assert_eq!(after_margin, mover_margin, "seed {seed}: the named move is not best");
        }
    }

    #[test]
    fn a_budget_stops_it_cleanly() {
        let game = random_position(7, 16);
        let mut solver = EndgameSolver::new();
        assert_eq!(solver.solve(&game, 10_000, None), None);
        assert!(solver.nodes() <= 10_000 + CLOCK_EVERY);
    }
}

