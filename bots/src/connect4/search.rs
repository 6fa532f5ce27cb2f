//! Negamax alpha-beta on bitboards for Connect 4, with iterative deepening inside the turn's
//! budget, a transposition table, move ordering (table move, killers, history, threats made,
//! centre first), immediate wins and forced blocks handled before any search. What it scores
//! at its leaves is a [`Leaf`]: the classic bot's hand-made evaluation, or a net's value.
//! Searched to the end of the game it plays perfectly ([`ExactPlay`]).
//!
//! The position is kept as "the mover's chips + every occupied cell", and moves that hand the
//! opponent an immediate win are never searched: both as Pascal Pons described them for his
//! Connect 4 solver.

use super::{encode_chips, threat_cells, Connect4, BOARD_MASK, BOTTOM, CELLS, COLS, COL_BITS, STEAL};
use crate::agent::Agent;
use crate::game::{Action, Game};
use crate::infer::{QuantNet, Workspace};
use crate::nn::Mlp;
pub use crate::solver::ExactPlay;
use std::sync::Arc;
use std::time::Instant;

/// A won game scores `WIN` minus the chips on the board after the winning one, so faster wins
/// score higher and a score means the same wherever the table finds it.
pub const WIN: i32 = 100_000;
/// Scores beyond this are proven results, not estimates.
pub const PROVEN: i32 = WIN - 1_000;
pub(crate) const INFINITY: i32 = 1_000_000;
/// Columns from the centre out: the order moves are tried in when nothing else tells.
const CENTRE_FIRST: [usize; COLS] = [4, 3, 5, 2, 6, 1, 7, 0, 8];
const MAX_PLY: usize = CELLS + 2;


/// The score of a quiet position where the search stops (no immediate win, no forced move),
/// from the mover's side, in the units of [`WIN`]: well inside `±PROVEN`.
pub trait Leaf: Send {
    fn score(&mut self, pos: &Position, turn: usize) -> i32;
}

/// A net's value as the leaf score: the mover's utility in [-1, 1] times [`NET_SCALE`].
pub struct NetLeaf {
    net: QuantNet,
    features: Vec<f32>,
    work: Workspace,
}

/// Leaf scores of a net span ±`NET_SCALE`, far inside the proven scores.
pub const NET_SCALE: f32 = 10_000.0;

impl NetLeaf {
    pub fn new(net: Arc<Mlp>) -> Self {
        NetLeaf { features: vec![0.0; net.num_features()], net: QuantNet::new(&net), work: Workspace::default() }
    }
}

impl Leaf for NetLeaf {
    fn score(&mut self, pos: &Position, turn: usize) -> i32 {
        self.features.fill(0.0);
        encode_chips(pos.mine, pos.theirs(), turn, &mut self.features);
        let value = self.net.value(&mut self.work, 0, &self.features);
        (value[0] * NET_SCALE) as i32
    }
}

/// A position seen from the side to move: its chips and every occupied cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub mine: u128,
    pub mask: u128,
}

impl Position {
    pub fn from_game(game: &Connect4) -> Self {
        let me = game.to_move();
        Position { mine: game.chips[me], mask: game.chips[0] | game.chips[1] }
    }
    #[inline]
    pub fn theirs(&self) -> u128 {
        self.mask ^ self.mine
    }
    #[inline]
    pub fn chips(&self) -> usize {
        self.mask.count_ones() as usize
    }
    /// The cell each non-full column would take next.
    #[inline]
    pub fn playable(&self) -> u128 {
        (self.mask + BOTTOM) & BOARD_MASK
    }
    #[inline]
    pub fn winning_moves(&self) -> u128 {
        threat_cells(self.mine, self.mask) & self.playable()
    }
    /// Moves that do not let the opponent win at once: the forced block when the opponent
    /// threatens one cell, nothing when it threatens two (every move loses), and never a cell
    /// right under an opponent threat.
    #[inline]
    pub fn safe_moves(&self) -> u128 {
        let playable = self.playable();
        let their_threats = threat_cells(self.theirs(), self.mask);
        let forced = playable & their_threats;
        let candidates = match forced.count_ones() {
            0 => playable,
            1 => forced,
            _ => return 0,
        };
        candidates & !(their_threats >> 1)
    }
    /// The position after the mover drops a chip on cell `mv`, seen from the other side.
    #[inline]
    pub fn play(&self, mv: u128) -> Position {
        Position { mine: self.mine ^ self.mask, mask: self.mask | mv }
    }
    /// After a STEAL: the first player to move again, owning no chip.
    pub fn after_steal(&self) -> Position {
        Position { mine: 0, mask: self.mask }
    }
    /// A 64-bit key: `mine + mask` identifies the position (Pons), folded by multiplication.
    #[inline]
    pub fn key(&self) -> u64 {
        let k = self.mine.wrapping_add(self.mask);
        ((k as u64) ^ ((k >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xD6E8_FEB8_6659_FD93)
    }
}

#[inline]
pub(crate) fn column_of(cell: u128) -> usize {
    cell.trailing_zeros() as usize / COL_BITS
}


#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    score: i32,
    depth: i8,
    bound: Bound,
    /// Best column + 1 (0: none).
    best: u8,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

const TABLE_BITS: u32 = 20;

/// What the last decision found.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchReport {
    /// Deepest iteration completed (plies, forced replies not counted).
    pub depth: u32,
    pub nodes: u64,
    pub score: i32,
    pub millis: u128,
}

/// Negamax alpha-beta (see the module documentation) with the leaf evaluation `L`.
pub struct AlphaBeta<L: Leaf> {
    table: Vec<Entry>,
    killers: [[u8; 2]; MAX_PLY],
    /// Indexed by cell: raised by the depth squared whenever a move cuts off.
    history: [u32; COLS * COL_BITS],
    pub(crate) nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    aborted: bool,
    /// Node budget per decision when there is no deadline (or as a cap with one).
    pub(crate) budget: Option<u64>,
    /// Stop deepening here (tests; `None` in play).
    pub max_depth: Option<u32>,
    /// Scores the quiet positions where the search stops.
    pub leaf: L,
    root_turn: usize,
    pub(crate) last: SearchReport,
}

impl<L: Leaf> AlphaBeta<L> {
    pub fn new(leaf: L, budget: Option<u64>) -> Self {
        AlphaBeta {
            table: vec![Entry::default(); 1 << TABLE_BITS],
            killers: [[0; 2]; MAX_PLY],
            history: [0; COLS * COL_BITS],
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            aborted: false,
            budget,
            max_depth: None,
            leaf,
            root_turn: 0,
            last: SearchReport::default(),
        }
    }

    pub fn last_search(&self) -> SearchReport {
        self.last
    }

    #[inline]
    fn out_of_time(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes >= self.node_limit || (self.nodes & 1023 == 0 && self.deadline.map_or(false, |d| Instant::now() >= d)) {
            self.aborted = true;
        }
        self.aborted
    }

    /// Negamax with alpha-beta (principal variation search) to `depth` plies; forced replies
    /// do not count. The mover has no immediate win here (the caller checked).
    fn search(&mut self, pos: &Position, depth: i32, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        let chips = pos.chips();
        if chips == CELLS {
            return 0;
        }
        let safe = pos.safe_moves();
        if safe == 0 {
            return -(WIN - (chips as i32 + 2));
        }
        // The best and worst results still possible narrow the window.
        let best_possible = WIN - (chips as i32 + 3);
        if beta > best_possible {
            beta = best_possible;
            if alpha >= beta {
                return beta;
            }
        }
        let worst_possible = -(WIN - (chips as i32 + 4));
        if alpha < worst_possible {
            alpha = worst_possible;
            if alpha >= beta {
                return alpha;
            }
        }
        let forced = safe & (safe - 1) == 0;
        if depth <= 0 && !forced {
            return self.leaf.score(pos, self.root_turn + ply);
        }
        let key = pos.key();
        let slot = (key >> (64 - TABLE_BITS)) as usize;
        let entry = self.table[slot];
        let mut table_move = 0;
        if entry.key == key {
            table_move = entry.best;
            if entry.depth as i32 >= depth {
                let s = entry.score;
                match entry.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        let child_depth = if forced { depth } else { depth - 1 };
        let mut moves = [(0u128, 0i64); COLS];
        let count = self.order_moves(pos, safe, table_move, ply, &mut moves);
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_col = 0u8;
        for (i, &(mv, _)) in moves[..count].iter().enumerate() {
            // A safe move leaves the opponent no immediate win, as `search` expects.
            let child = pos.play(mv);
            let score = if i == 0 {
                -self.search(&child, child_depth, -beta, -alpha, ply + 1)
            } else {
                let probe = -self.search(&child, child_depth, -alpha - 1, -alpha, ply + 1);
                if probe > alpha && probe < beta {
                    -self.search(&child, child_depth, -beta, -alpha, ply + 1)
                } else {
                    probe
                }
            };
            if self.aborted {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_col = column_of(mv) as u8 + 1;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                let col = column_of(mv) as u8 + 1;
                if self.killers[ply][0] != col {
                    self.killers[ply][1] = self.killers[ply][0];
                    self.killers[ply][0] = col;
                }
                let d = depth.max(1) as u32;
                self.history[mv.trailing_zeros() as usize] += d * d;
                break;
            }
        }
        let bound = if best_score <= original_alpha {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table[slot] = Entry { key, score: best_score, depth: depth.clamp(-1, 100) as i8, bound, best: best_col };
        best_score
    }

    /// Writes the moves of `safe` into `out`, best first; returns how many.
    fn order_moves(&self, pos: &Position, safe: u128, table_move: u8, ply: usize, out: &mut [(u128, i64); COLS]) -> usize {
        let mut count = 0;
        for (rank, &col) in CENTRE_FIRST.iter().enumerate() {
            let mv = safe & (0x7Fu128 << (col * COL_BITS));
            if mv == 0 {
                continue;
            }
            let tag = col as u8 + 1;
            let mut key = -(rank as i64);
            if tag == table_move {
                key += 1 << 40;
            } else if tag == self.killers[ply][0] {
                key += 1 << 36;
            } else if tag == self.killers[ply][1] {
                key += 1 << 35;
            }
            // Threats the move makes, then the history of cut-offs.
            let made = (threat_cells(pos.mine | mv, pos.mask | mv) & !pos.mask).count_ones() as i64;
            key += made << 24;
            key += (self.history[mv.trailing_zeros() as usize] as i64).min((1 << 23) - 1) << 1;
            out[count] = (mv, key);
            count += 1;
        }
        out[..count].sort_unstable_by(|a, b| b.1.cmp(&a.1));
        count
    }

    /// The best action at `game` by iterative deepening until the deadline or budget.
    pub fn best_action(&mut self, game: &Connect4, deadline: Option<Instant>) -> Action {
        let start = Instant::now();
        let pos = Position::from_game(game);
        self.root_turn = game.turn();
        self.nodes = 0;
        self.aborted = false;
        self.deadline = deadline;
        self.node_limit = self.budget.unwrap_or(u64::MAX);
        for h in self.history.iter_mut() {
            *h /= 8;
        }
        // Root moves: (action, position after it, whether it wins at once).
        let mut roots: Vec<(Action, Option<Position>)> = Vec::new();
        let winning = pos.winning_moves();
        if winning != 0 {
            self.last = SearchReport { depth: 0, nodes: 0, score: WIN - (pos.chips() as i32 + 1), millis: start.elapsed().as_millis() };
            return column_of(winning & winning.wrapping_neg()) as Action;
        }
        let safe = pos.safe_moves();
        for &col in CENTRE_FIRST.iter() {
            let mv = pos.playable() & (0x7Fu128 << (col * COL_BITS));
            if mv != 0 {
                roots.push((col as Action, (safe & mv != 0).then(|| pos.play(mv))));
            }
        }
        if game.is_legal(STEAL) {
            roots.insert(0, (STEAL, Some(pos.after_steal())));
        }
        // Every move loses at once: block what can be blocked.
        let fallback = {
            let forced = pos.playable() & threat_cells(pos.theirs(), pos.mask);
            if forced != 0 { column_of(forced & forced.wrapping_neg()) as Action } else { roots[0].0 }
        };
        if roots.iter().all(|r| r.1.is_none()) {
            self.last = SearchReport { depth: 0, nodes: 0, score: -(WIN - (pos.chips() as i32 + 2)), millis: start.elapsed().as_millis() };
            return fallback;
        }
        roots.retain(|r| r.1.is_some());
        let mut best = (roots[0].0, -INFINITY);
        let mut completed = 0;
        let max_depth = self.max_depth.unwrap_or(CELLS as u32);
        for depth in 1..=max_depth {
            let mut alpha = -INFINITY;
            let mut scored: Vec<(Action, i32)> = Vec::with_capacity(roots.len());
            for (i, &(action, child)) in roots.iter().enumerate() {
                let child = child.expect("kept only safe moves");
                let score = if child.winning_moves() != 0 {
                    -(WIN - (pos.chips() as i32 + 2))
                } else if game.turn() == 0 {
                    // The opponent may STEAL the first chip: a first move is worth the worse of
                    // the two answers (full windows: the first turn has time to spare).
                    let kept = -self.search(&child, depth as i32 - 1, -INFINITY, INFINITY, 1);
                    let stolen = self.search(&child.after_steal(), depth as i32 - 2, -INFINITY, INFINITY, 2);
                    kept.min(stolen)
                } else if i == 0 {
                    -self.search(&child, depth as i32 - 1, -INFINITY, -alpha, 1)
                } else {
                    let probe = -self.search(&child, depth as i32 - 1, -alpha - 1, -alpha, 1);
                    if probe > alpha { -self.search(&child, depth as i32 - 1, -INFINITY, -alpha, 1) } else { probe }
                };
                if self.aborted {
                    break;
                }
                scored.push((action, score));
                alpha = alpha.max(score);
            }
            if self.aborted {
                // The unfinished iteration searched the last best move first; a move that proved
                // better than it there (an exact score above the first) is the better choice.
                if let Some(&(_, first)) = scored.first() {
                    if let Some(&better) = scored.iter().filter(|s| s.1 > first).max_by_key(|s| s.1) {
                        best = better;
                    }
                }
                break;
            }
            completed = depth;
            // The next iteration tries the moves best first.
            scored.sort_by(|a, b| b.1.cmp(&a.1));
            best = scored[0];
            let order: Vec<Action> = scored.iter().map(|s| s.0).collect();
            roots.sort_by_key(|r| order.iter().position(|&a| a == r.0));
            if best.1.abs() >= PROVEN || self.nodes >= self.node_limit {
                break;
            }
        }
        self.last = SearchReport { depth: completed, nodes: self.nodes, score: best.1, millis: start.elapsed().as_millis() };
        best.0
    }
}

/// Positions with more empty cells than this are not tried by [`ExactPlay`]: in self-play
/// they rarely finish within the solve budget (about 2,000 nodes at 24 empty cells, 50,000
/// at 28 and millions at 35, on positions of judged games).
pub const EXACT_EMPTIES: usize = 26;

/// The search run to the end of the game plays perfectly: a win, the draw, or (in a lost
/// position) the move that loses last.
impl<L: Leaf> ExactPlay<Connect4> for AlphaBeta<L> {
    fn exact_action(&mut self, state: &Connect4, node_limit: u64, deadline: Option<Instant>) -> Option<Action> {
        let empties = CELLS - state.filled as usize;
        if empties > EXACT_EMPTIES {
            return None;
        }
        let (budget, max_depth) = (self.budget.replace(node_limit), self.max_depth.take());
        let action = self.best_action(state, deadline);
        (self.budget, self.max_depth) = (budget, max_depth);
        // Forced replies do not count as plies, so a depth of `empties` reaches every end.
        let exact = self.last.score.abs() >= PROVEN || self.last.depth as usize >= empties;
        exact.then_some(action)
    }
    fn nodes(&self) -> u64 {
        self.nodes
    }
}

impl<L: Leaf> Agent<Connect4> for AlphaBeta<L> {
    fn choose(&mut self, state: &Connect4, deadline: Option<Instant>) -> Action {
        self.best_action(state, deadline)
    }
    fn last_report(&self) -> String {
        let r = self.last;
        let secs = (r.millis as f64 / 1e3).max(1e-6);
        format!("depth {} nodes {} ({:.0}/s) score {:+}", r.depth, r.nodes, r.nodes as f64 / secs, r.score)
    }
    fn last_playouts(&self) -> Option<u64> {
        Some(self.last.nodes)
    }
}

