//! The classic Connect 4 bot: negamax alpha-beta on bitboards, with iterative deepening inside
//! the turn's budget, a transposition table, move ordering (table move, killers, history,
//! threats made, centre first), immediate wins and forced blocks handled before any search,
//! and an evaluation that plays out the zugzwang fight over the threats on the board.
//!
//! The position is kept as "the mover's chips + every occupied cell", and moves that hand the
//! opponent an immediate win are never searched: both as Pascal Pons described them for his
//! Connect 4 solver. The threat and parity reasoning follows Victor Allis's analysis of
//! Connect 4 (zugzwang, odd and even threats), redone here for CodinGame's 7 x 9 board and
//! its STEAL (see [`zugzwang`]).

use super::{threat_cells, Connect4, BOARD_MASK, CELLS, COLS, COL_BITS, ROWS, STEAL};
use crate::agent::Agent;
use crate::classic::Classic;
use crate::game::{Action, Game};
use std::time::Instant;

/// The lowest cell of every column.
const BOTTOM: u128 = {
    let mut m = 0u128;
    let mut col = 0;
    while col < COLS {
        m |= 1u128 << (col * COL_BITS);
        col += 1;
    }
    m
};
/// A won game scores `WIN` minus the chips on the board after the winning one, so faster wins
/// score higher and a score means the same wherever the table finds it.
const WIN: i32 = 100_000;
/// Scores beyond this are proven results, not estimates.
const PROVEN: i32 = WIN - 1_000;
const INFINITY: i32 = 1_000_000;
/// Columns from the centre out: the order moves are tried in when nothing else tells.
const CENTRE_FIRST: [usize; COLS] = [4, 3, 5, 2, 6, 1, 7, 0, 8];
const MAX_PLY: usize = CELLS + 2;

/// The evaluation's weights (from the mover's side; a chip is about 100).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// For the side [`zugzwang`] says wins the fight over the board's threats, once at most
    /// `zugzwang_empties` cells are empty (earlier, the free cells still make new threats: on
    /// open positions 10 cells from the end it names the exact winner 3 times in 4, and
    /// from the start position it cost games against the net, BENCHMARKS.md).
    pub zugzwang: i32,
    pub zugzwang_empties: u32,
    /// Per threat nobody has killed (no opponent threat below it in its column), on a row
    /// whose parity suits its owner ...
    pub good_threat: i32,
    /// ... and on the other parity.
    pub bad_threat: i32,
    /// Per window of four holding two own chips and no opponent chip, and one own chip.
    pub two_in_window: i32,
    pub one_in_window: i32,
}

/// Chosen by matches against the shipped net from the start position (BENCHMARKS.md,
/// "Connect 4: the classic bot"): weighting threats by row parity, or the zugzwang fight
/// before the endgame, lost more games there than it won.
pub const WEIGHTS: Weights = Weights { zugzwang: 100, zugzwang_empties: 20, good_threat: 100, bad_threat: 100, two_in_window: 6, one_in_window: 2 };

/// A position seen from the side to move: its chips and every occupied cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Position {
    mine: u128,
    mask: u128,
}

impl Position {
    fn from_game(game: &Connect4) -> Self {
        let me = game.to_move();
        Position { mine: game.chips[me], mask: game.chips[0] | game.chips[1] }
    }
    #[inline]
    fn theirs(&self) -> u128 {
        self.mask ^ self.mine
    }
    #[inline]
    fn chips(&self) -> usize {
        self.mask.count_ones() as usize
    }
    /// The cell each non-full column would take next.
    #[inline]
    fn playable(&self) -> u128 {
        (self.mask + BOTTOM) & BOARD_MASK
    }
    #[inline]
    fn winning_moves(&self) -> u128 {
        threat_cells(self.mine, self.mask) & self.playable()
    }
    /// Moves that do not let the opponent win at once: the forced block when the opponent
    /// threatens one cell, nothing when it threatens two (every move loses), and never a cell
    /// right under an opponent threat.
    #[inline]
    fn safe_moves(&self) -> u128 {
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
    fn play(&self, mv: u128) -> Position {
        Position { mine: self.mine ^ self.mask, mask: self.mask | mv }
    }
    /// After a STEAL: the first player to move again, owning no chip.
    fn after_steal(&self) -> Position {
        Position { mine: 0, mask: self.mask }
    }
    /// A 64-bit key: `mine + mask` identifies the position (Pons), folded by multiplication.
    #[inline]
    fn key(&self) -> u64 {
        let k = self.mine.wrapping_add(self.mask);
        ((k as u64) ^ ((k >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xD6E8_FEB8_6659_FD93)
    }
}

#[inline]
fn column_of(cell: u128) -> usize {
    cell.trailing_zeros() as usize / COL_BITS
}

#[inline]
fn column_bits(bits: u128, col: usize) -> u8 {
    (bits >> (col * COL_BITS)) as u8 & 0x7F
}

/// Who wins the zugzwang fight if both sides only fill the cells that give nothing away:
/// `Some(0)` the mover, `Some(1)` the opponent, `None` nobody (the board fills up).
///
/// Every column with a threat freezes the cells from just under its lowest threat upwards:
/// whoever plays under a threat gives it away. The other cells are filled first, by both
/// sides in turn; then the side to move must play under a threat. Under the opponent's, it
/// loses; under its own, the opponent blocks it and the cells above become free again, which
/// may hand the obligation back. Both sides pick their best column. On this 7-row board with
/// 63 cells the result differs from the classic 6-row rules: a lone threat still wins for the
/// side that places odd-numbered chips on an odd row (the side that places even-numbered ones
/// on an even row), but when each side has one such threat in different columns, the even
/// side wins. Who places odd-numbered chips flips with a STEAL; the chip count carries that.
pub fn zugzwang(mine: u128, theirs: u128) -> Option<usize> {
    let mask = mine | theirs;
    let threats = [threat_cells(mine, mask), threat_cells(theirs, mask)];
    let mut columns = Columns { height: [0; COLS], threats: [[0; COLS]; 2] };
    for col in 0..COLS {
        columns.height[col] = column_bits(mask, col).count_ones() as u8;
        for side in 0..2 {
            columns.threats[side][col] = column_bits(threats[side], col);
        }
    }
    let free = columns.free_cells();
    // The mover is side 0; after `free` moves the side to move is forced.
    let forced = (free % 2) as usize;
    columns.resolve(forced, 0)
}

/// The columns as the zugzwang fight sees them: heights and each side's threat cells.
#[derive(Clone, Copy)]
struct Columns {
    height: [u8; COLS],
    threats: [[u8; COLS]; 2],
}

impl Columns {
    /// The lowest threat cell (row from the bottom) at or above the column's height.
    fn lowest_threat(&self, col: usize) -> Option<u8> {
        let above = (self.threats[0][col] | self.threats[1][col]) >> self.height[col] << self.height[col];
        (above != 0).then(|| above.trailing_zeros() as u8)
    }
    /// Cells that can be filled without playing right under a threat.
    fn free_cells(&self) -> u32 {
        (0..COLS)
            .map(|col| match self.lowest_threat(col) {
                Some(row) => row.saturating_sub(1).saturating_sub(self.height[col]) as u32,
                None => ROWS as u32 - self.height[col] as u32,
            })
            .sum()
    }
    /// The winner when side `forced` must play under a threat now (all free cells filled).
    fn resolve(&self, forced: usize, depth: u32) -> Option<usize> {
        let other = 1 - forced;
        let mut best: Option<Option<usize>> = None;
        for col in 0..COLS {
            let Some(row) = self.lowest_threat(col) else { continue };
            let bit = 1u8 << row;
            if self.threats[other][col] & bit != 0 {
                continue; // the opponent takes the cell and wins
            }
            // Own threat: play under it, the opponent blocks it; then see who must move.
            let outcome = if depth > 12 { None } else { self.after_sacrifice(col, row, forced, depth) };
            if outcome == Some(forced) {
                return outcome;
            }
            if best.is_none() || outcome.is_none() {
                best = Some(outcome);
            }
        }
        // No threat column at all: the board is full, a draw.
        match best {
            Some(outcome) => outcome,
            None if (0..COLS).all(|col| self.lowest_threat(col).is_none()) => None,
            None => Some(other),
        }
    }
    /// `side` plays under its own threat at `row` of `col`, the opponent blocks it; returns the
    /// winner of what follows.
    fn after_sacrifice(&self, col: usize, row: u8, side: usize, depth: u32) -> Option<usize> {
        let mut next = *self;
        next.height[col] = row + 1;
        // Cells that become playable right away alternate: `to_move` must take or block them.
        let mut to_move = side;
        while (next.height[col] as usize) < ROWS {
            let bit = 1u8 << next.height[col];
            if next.threats[to_move][col] & bit != 0 {
                return Some(to_move);
            }
            if next.threats[1 - to_move][col] & bit == 0 {
                break;
            }
            next.height[col] += 1; // forced block
            to_move = 1 - to_move;
        }
        let free = next.free_cells();
        let forced = if free % 2 == 0 { to_move } else { 1 - to_move };
        next.resolve(forced, depth + 1)
    }
}

/// Counts, over all windows of four cells holding none of `theirs`, those with one and with
/// two of `mine`.
fn window_counts(mine: u128, theirs: u128) -> (u32, u32) {
    let open = BOARD_MASK & !theirs;
    let (mut ones, mut twos) = (0, 0);
    for shift in [1, COL_BITS, COL_BITS + 1, COL_BITS - 1] {
        // Bit p set: the window p, p+s, p+2s, p+3s lies on the board and holds no opponent chip.
        let start = open & (open >> shift) & (open >> (2 * shift)) & (open >> (3 * shift));
        let a = [mine & start, (mine >> shift) & start, (mine >> (2 * shift)) & start, (mine >> (3 * shift)) & start];
        // Bit-sliced sum of the four chips in each window.
        let (s1, c1) = (a[0] ^ a[1], a[0] & a[1]);
        let (s2, c2) = (a[2] ^ a[3], a[2] & a[3]);
        let b0 = s1 ^ s2;
        let carry = s1 & s2;
        let b1 = c1 ^ c2 ^ carry;
        let b2 = (c1 & c2) | (carry & (c1 | c2));
        ones += (b0 & !b1 & !b2).count_ones();
        twos += (!b0 & b1 & !b2 & start).count_ones();
    }
    (ones, twos)
}

/// Static value of a quiet position (no immediate win, no forced move) for the mover.
fn evaluate(pos: &Position, w: &Weights) -> i32 {
    let (mine, theirs) = (pos.mine, pos.theirs());
    let mut score = 0;
    if CELLS - pos.chips() <= w.zugzwang_empties as usize {
        score += match zugzwang(mine, theirs) {
            Some(0) => w.zugzwang,
            Some(_) => -w.zugzwang,
            None => 0,
        };
    }
    // The mover places the next chip: odd-numbered when the board holds an even number.
    let mover_odd = pos.chips() % 2 == 0;
    let threats = [threat_cells(mine, pos.mask), threat_cells(theirs, pos.mask)];
    for col in 0..COLS {
        let t = [column_bits(threats[0], col), column_bits(threats[1], col)];
        for side in 0..2 {
            // A threat above an opponent threat in its column is dead: the lower one decides.
            let lowest_other = if t[1 - side] == 0 { 8 } else { t[1 - side].trailing_zeros() };
            let live = t[side] & ((1u16 << lowest_other) - 1) as u8;
            // Rows counted from 1 at the bottom: bits 0, 2, 4, 6 are the odd rows.
            let odd_rows = (live & 0x55).count_ones() as i32;
            let even_rows = (live & 0x2A).count_ones() as i32;
            let side_odd = (side == 0) == mover_odd;
            let (good, bad) = if side_odd { (odd_rows, even_rows) } else { (even_rows, odd_rows) };
            let value = good * w.good_threat + bad * w.bad_threat;
            score += if side == 0 { value } else { -value };
        }
    }
    let (my_ones, my_twos) = window_counts(mine, theirs);
    let (their_ones, their_twos) = window_counts(theirs, mine);
    score += (my_twos as i32 - their_twos as i32) * w.two_in_window + (my_ones as i32 - their_ones as i32) * w.one_in_window;
    score
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

/// The classic Connect 4 bot (see the module documentation).
pub struct AlphaBeta {
    table: Vec<Entry>,
    killers: [[u8; 2]; MAX_PLY],
    /// Indexed by cell: raised by the depth squared whenever a move cuts off.
    history: [u32; COLS * COL_BITS],
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    aborted: bool,
    /// Node budget per decision when there is no deadline (or as a cap with one).
    budget: Option<u64>,
    /// Stop deepening here (tests; `None` in play).
    pub max_depth: Option<u32>,
    pub weights: Weights,
    last: SearchReport,
}

impl AlphaBeta {
    pub fn new(budget: Option<u64>) -> Self {
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
            weights: WEIGHTS,
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
        if self.nodes >= self.node_limit || (self.nodes & 1023 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d)) {
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
            return evaluate(pos, &self.weights);
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

impl Agent<Connect4> for AlphaBeta {
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

impl Classic for Connect4 {
    fn classic_agent(_seed: u64, budget: Option<u64>) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(AlphaBeta::new(budget)))
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::ActionList;
    use crate::rng::Rng;

    /// A position `empties` cells from the end, reached by random moves that neither win nor
    /// hand the opponent a win (so the game is still open), or `None` if that ran out.
    fn open_position(seed: u64, empties: usize) -> Option<Connect4> {
        let mut rng = Rng::new(seed);
        let mut game = Connect4::new();
        while CELLS - game.filled as usize > empties {
            let pos = Position::from_game(&game);
            let quiet = pos.safe_moves() & !threat_cells(pos.mine, pos.mask);
            let cells: Vec<u128> = (0..COLS * COL_BITS).map(|i| 1u128 << i).filter(|&b| quiet & b != 0).collect();
            if cells.is_empty() {
                return None;
            }
            game.apply(column_of(cells[rng.below(cells.len())]) as Action);
        }
        Some(game)
    }

    /// Plain minimax over the `Game` rules: the mover's result, +1, 0 or -1.
    fn minimax(game: &Connect4) -> i32 {
        if game.is_terminal() {
            return game.utilities()[game.to_move()] as i32;
        }
        let mut legal = ActionList::new();
        game.legal_actions(&mut legal);
        legal
            .iter()
            .map(|&a| {
                let mut next = game.clone();
                next.apply(a);
                if next.is_terminal() { next.utilities()[game.to_move()] as i32 } else { -minimax(&next) }
            })
            .max()
            .unwrap()
    }

    fn exact_result(game: &Connect4) -> i32 {
        let mut search = AlphaBeta::new(None);
        search.best_action(game, None);
        search.last_search().score.signum()
    }

    #[test]
    fn alpha_beta_agrees_with_minimax_near_the_end() {
        let mut checked = [0; 3];
        for seed in 0..400 {
            let Some(game) = open_position(seed, 9) else { continue };
            let expected = minimax(&game);
            assert_eq!(exact_result(&game), expected, "seed {seed}: {:?}", game.rows());
            checked[(expected + 1) as usize] += 1;
        }
        assert!(checked.iter().all(|&n| n >= 5), "losses, draws and wins all checked: {checked:?}");
    }

    #[test]
    fn takes_a_win_and_blocks_a_loss() {
        let mut game = Connect4::new();
        for col in [0, 8, 0, 8, 0] {
            game.apply(col);
        }
        // Player 1 must block column 0 (player 0 has three there); nothing else saves it.
        let mut search = AlphaBeta::new(Some(100_000));
        assert_eq!(search.best_action(&game, None), 0);
        game.apply(1);
        // Player 0 wins at once.
        assert_eq!(search.best_action(&game, None), 0);
        assert!(search.last_search().score >= PROVEN);
    }

    fn position(rows: [&str; ROWS], turn: usize) -> Connect4 {
        Connect4::from_rows(&rows, turn).unwrap()
    }

    /// Player 0 has one threat, on the third row from the bottom (an odd row) of column 3;
    /// 10 chips are on the board.
    const ODD_THREAT: [&str; ROWS] = [".........", ".........", ".........", ".........", "000......", "011......", "101.....1"];

    #[test]
    fn a_lone_odd_threat_wins_for_the_side_that_places_odd_chips() {
        // No STEAL: player 0 is to move and places the 11th chip, an odd one; the threat wins.
        let game = position(ODD_THREAT, 10);
        assert!(!game.stolen());
        let pos = Position::from_game(&game);
        assert_eq!(zugzwang(pos.mine, pos.theirs()), Some(0));
        assert!(evaluate(&pos, &WEIGHTS) > 0);
    }

    #[test]
    fn a_steal_flips_who_profits_from_odd_threats() {
        // The same chips after a STEAL: the turn is 11, player 1 places the 11th chip, and
        // player 0's odd threat no longer wins the zugzwang.
        let game = position(ODD_THREAT, 11);
        assert!(game.stolen() && game.to_move() == 1);
        let pos = Position::from_game(&game);
        assert_eq!(zugzwang(pos.mine, pos.theirs()), None);
    }

    #[test]
    fn the_zugzwang_fight_predicts_exact_results() {
        // On open positions 10 cells from the end, the predicted winner is the exact one
        // far more often than not.
        let (mut right, mut wrong) = (0, 0);
        for seed in 0..4000 {
            let Some(game) = open_position(seed, 10) else { continue };
            let pos = Position::from_game(&game);
            if pos.safe_moves().count_ones() <= 1 {
                continue;
            }
            let predicted = match zugzwang(pos.mine, pos.theirs()) {
                Some(0) => 1,
                Some(_) => -1,
                None => continue,
            };
            if exact_result(&game) == predicted { right += 1 } else { wrong += 1 }
        }
        assert!(right + wrong >= 50 && right >= 3 * wrong, "{right} right, {wrong} wrong");
    }

    #[test]
    fn steal_is_searched_and_deadlines_hold() {
        let mut game = Connect4::new();
        game.apply(4);
        let mut search = AlphaBeta::new(None);
        let start = Instant::now();
        let action = search.best_action(&game, Some(start + std::time::Duration::from_millis(50)));
        assert!(start.elapsed().as_millis() < 150);
        assert!(game.is_legal(action));
        assert!(search.last_search().depth >= 4);
    }
}
