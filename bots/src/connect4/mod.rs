//! Connect 4 as CodinGame's multiplayer referee plays it: 7 rows x 9 columns, player 0 moves
//! first, player 1 may STEAL the single chip on its first action (colours do not swap:
//! player 0 keeps moving on even turn indices), 4 or more in a line wins, a full board draws.
//!
//! Actions: `0..=8` drop in that column (0 = leftmost), `9` = STEAL.

pub mod classic;
pub mod playout;
pub mod protocol;
pub mod search;
pub mod referee;
pub mod training;
pub mod view;

use crate::encode::Encode;
use crate::game::{Action, ActionList, Game, ParseActionError, Player, NUM_PLAYERS};
use crate::rng::{zobrist_keys, Rng};

pub const ROWS: usize = 7;
pub const COLS: usize = 9;
pub const STEAL: Action = 9;
const CELLS: usize = ROWS * COLS;
/// Bits per column in the bitboards: 7 rows plus an always-empty sentinel bit, so that
/// diagonal shifts never wrap from the top of one column into the bottom of the next.
const COL_BITS: usize = ROWS + 1;
const NO_WINNER: u8 = 2;

/// Bit of the cell in `col`, `row_from_bottom`.
#[inline]
const fn bit(col: usize, row_from_bottom: usize) -> u128 {
    1u128 << (col * COL_BITS + row_from_bottom)
}

/// Every cell of the board (7 rows in each of the 9 columns, no sentinels).
const BOARD_MASK: u128 = {
    let mut m = 0u128;
    let mut col = 0;
    while col < COLS {
        m |= 0x7Fu128 << (col * COL_BITS);
        col += 1;
    }
    m
};

/// Empty cells where a chip of the owner of `chips` would complete four in a line (whether or
/// not the cell can be played yet): the threats that decide most Connect 4 games.
fn threat_cells(chips: u128, occupied: u128) -> u128 {
    // Vertical: three below.
    let mut r = (chips << 1) & (chips << 2) & (chips << 3);
    for s in [COL_BITS, COL_BITS + 1, COL_BITS - 1] {
        let pair = (chips << s) & (chips << (2 * s));
        r |= pair & (chips << (3 * s));
        r |= pair & (chips >> s);
        let pair = (chips >> s) & (chips >> (2 * s));
        r |= pair & (chips << s);
        r |= pair & (chips >> (3 * s));
    }
    r & BOARD_MASK & !occupied
}

/// Whether `chips` has four (or more) in a line in any direction.
#[inline]
fn has_four(chips: u128) -> bool {
    // vertical (1), horizontal (8), diagonal / (9), diagonal \ (7)
    for shift in [1, COL_BITS, COL_BITS + 1, COL_BITS - 1] {
        let pairs = chips & (chips >> shift);
        if pairs & (pairs >> (2 * shift)) != 0 {
            return true;
        }
    }
    false
}

/// Zobrist keys: one per (player, bitboard position), then one per turn index.
static KEYS: [u64; 2 * COLS * COL_BITS + CELLS + 2] = zobrist_keys(0xC0FF_EE00_0000_0004);

#[inline]
fn chip_key(player: usize, bit_index: usize) -> u64 {
    KEYS[player * COLS * COL_BITS + bit_index]
}

#[inline]
fn turn_key(turn: usize) -> u64 {
    KEYS[2 * COLS * COL_BITS + turn]
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connect4 {
    chips: [u128; 2],
    heights: [u8; COLS],
    /// Actions played so far; equals CodinGame's `turnIndex` of the next action.
    turn: u8,
    filled: u8,
    winner: u8,
    hash: u64,
}

impl Default for Connect4 {
    fn default() -> Self {
        Connect4 { chips: [0; 2], heights: [0; COLS], turn: 0, filled: 0, winner: NO_WINNER, hash: turn_key(0) }
    }
}

/// Why a board given as text is not a position of this game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardError(pub String);

impl std::fmt::Display for BoardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BoardError {}

impl Connect4 {
    pub fn new() -> Self {
        Self::default()
    }

    /// CodinGame's turn index of the next action (number of actions played).
    pub fn turn(&self) -> usize {
        self.turn as usize
    }

    /// The winner once someone has four in a line.
    pub fn winner(&self) -> Option<Player> {
        (self.winner != NO_WINNER).then_some(self.winner as Player)
    }

    /// Owner of the cell at `row` (0 = TOP, as in the protocol) and `col`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Player> {
        let b = bit(col, ROWS - 1 - row);
        (0..2).find(|&p| self.chips[p] & b != 0)
    }

    /// The board as the protocol prints it: 7 lines top to bottom, `.`, `0`, `1`.
    pub fn rows(&self) -> [String; ROWS] {
        std::array::from_fn(|row| {
            (0..COLS)
                .map(|col| match self.cell(row, col) {
                    None => '.',
                    Some(0) => '0',
                    Some(_) => '1',
                })
                .collect()
        })
    }

    /// Whether the STEAL happened in this game (only visible as a missing chip).
    pub fn stolen(&self) -> bool {
        self.turn > self.filled
    }

    /// Rebuilds a position from the protocol's 7 rows and turn index, checking that chips rest
    /// on each other and that the chip counts fit the turn (with or without a STEAL).
    pub fn from_rows(rows: &[&str], turn: usize) -> Result<Self, BoardError> {
        if rows.len() != ROWS {
            return Err(BoardError(format!("expected {ROWS} board rows, got {}", rows.len())));
        }
        if turn >= CELLS + 1 {
            return Err(BoardError(format!("turn index {turn} is out of range 0..{}", CELLS + 1)));
        }
        let mut state = Connect4 { turn: turn as u8, ..Default::default() };
        for (row, line) in rows.iter().enumerate() {
            let bytes = line.as_bytes();
            if bytes.len() != COLS {
                return Err(BoardError(format!("board row {} {:?} should have {COLS} characters", row + 1, line)));
            }
            for (col, &ch) in bytes.iter().enumerate() {
                let player = match ch {
                    b'.' => continue,
                    b'0' => 0,
                    b'1' => 1,
                    _ => return Err(BoardError(format!("board row {} has {:?}; expected '.', '0' or '1'", row + 1, ch as char))),
                };
                state.chips[player] |= bit(col, ROWS - 1 - row);
            }
        }
        for col in 0..COLS {
            let column = ((state.chips[0] | state.chips[1]) >> (col * COL_BITS)) as u8 & 0x7F;
            // A column must be a solid stack from the bottom: 0b0..01..1.
            if column & (column.wrapping_add(1)) != 0 {
                return Err(BoardError(format!("column {col} has a chip floating above an empty cell")));
            }
            state.heights[col] = column.count_ones() as u8;
        }
        let (n0, n1) = (state.chips[0].count_ones() as usize, state.chips[1].count_ones() as usize);
        state.filled = (n0 + n1) as u8;
        // Without STEAL player 0 has one chip more than player 1 on odd turns; with STEAL player 1
        // owns the first chip, so the counts are those of the turn before, with the roles swapped.
        let plain = n0 + n1 == turn && n0 == (turn + 1) / 2;
        let stolen = turn >= 2 && n0 + n1 == turn - 1 && n1 == n0 + (turn % 2 == 0) as usize;
        if !plain && !stolen {
            return Err(BoardError(format!(
                "{n0} chips of player 0 and {n1} of player 1 do not fit turn index {turn}"
            )));
        }
        let wins = [has_four(state.chips[0]), has_four(state.chips[1])];
        state.winner = match wins {
            [false, false] => NO_WINNER,
            [true, false] => 0,
            [false, true] => 1,
            [true, true] => return Err(BoardError("both players have four in a row".into())),
        };
        state.hash = state.hash_from_scratch();
        Ok(state)
    }

    /// The Zobrist key computed from the chips and turn alone (the incremental one must match).
    pub fn hash_from_scratch(&self) -> u64 {
        let mut h = turn_key(self.turn as usize);
        for p in 0..2 {
            let mut bb = self.chips[p];
            while bb != 0 {
                h ^= chip_key(p, bb.trailing_zeros() as usize);
                bb &= bb - 1;
            }
        }
        h
    }

    #[inline]
    fn is_full(&self) -> bool {
        self.filled as usize == CELLS
    }
}

impl Game for Connect4 {
    const NAME: &'static str = "connect4";
    const NUM_ACTIONS: usize = COLS + 1;
    const MAX_GAME_LENGTH: usize = CELLS + 1;
    const NUM_SYMMETRIES: usize = 2;

    fn new_game(_rng: &mut Rng) -> Self {
        Self::default()
    }

    #[inline]
    fn to_move(&self) -> Player {
        (self.turn & 1) as Player
    }

    fn legal_actions(&self, out: &mut ActionList) {
        out.clear();
        if self.is_terminal() {
            return;
        }
        for col in 0..COLS {
            if (self.heights[col] as usize) < ROWS {
                out.push(col as Action);
            }
        }
        if self.turn == 1 {
            out.push(STEAL);
        }
    }

    #[inline]
    fn is_legal(&self, action: Action) -> bool {
        if self.is_terminal() {
            return false;
        }
        match action as usize {
            col if col < COLS => (self.heights[col] as usize) < ROWS,
            _ => action == STEAL && self.turn == 1,
        }
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "illegal action {action} at turn {}", self.turn);
        let player = self.to_move();
        if action == STEAL {
            let b = self.chips[0];
            let index = b.trailing_zeros() as usize;
            self.chips[0] = 0;
            self.chips[1] |= b;
            self.hash ^= chip_key(0, index) ^ chip_key(1, index);
        } else {
            let col = action as usize;
            let index = col * COL_BITS + self.heights[col] as usize;
            self.chips[player] |= 1u128 << index;
            self.heights[col] += 1;
            self.filled += 1;
            self.hash ^= chip_key(player, index);
            if has_four(self.chips[player]) {
                self.winner = player as u8;
            }
        }
        self.hash ^= turn_key(self.turn as usize) ^ turn_key(self.turn as usize + 1);
        self.turn += 1;
    }

    #[inline]
    fn is_terminal(&self) -> bool {
        self.winner != NO_WINNER || self.is_full()
    }

    fn scores(&self) -> [f32; NUM_PLAYERS] {
        match self.winner() {
            Some(0) => [10.0, 0.0],
            Some(_) => [0.0, 10.0],
            None => [5.0, 5.0],
        }
    }

    fn utilities(&self) -> [f32; NUM_PLAYERS] {
        match self.winner() {
            Some(0) => [1.0, -1.0],
            Some(_) => [-1.0, 1.0],
            None => [0.0, 0.0],
        }
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }

    fn symmetric(&self, sym: usize) -> Self {
        if sym == 0 {
            return self.clone();
        }
        let mut out = self.clone();
        for p in 0..2 {
            out.chips[p] = 0;
            for col in 0..COLS {
                let column = (self.chips[p] >> (col * COL_BITS)) & 0xFF;
                out.chips[p] |= column << ((COLS - 1 - col) * COL_BITS);
            }
        }
        for col in 0..COLS {
            out.heights[col] = self.heights[COLS - 1 - col];
        }
        out.hash = out.hash_from_scratch();
        out
    }

    fn map_action(sym: usize, action: Action) -> Action {
        if sym == 0 || action == STEAL {
            action
        } else {
            (COLS - 1) as Action - action
        }
    }

    fn format_action(action: Action) -> String {
        if action == STEAL {
            "STEAL".to_string()
        } else {
            action.to_string()
        }
    }

    fn parse_action(text: &str) -> Result<Action, ParseActionError> {
        let err = || ParseActionError { text: text.to_string(), expected: "a column 0..8, STEAL or -2" };
        if text.eq_ignore_ascii_case("STEAL") || text == "-2" {
            return Ok(STEAL);
        }
        match text.parse::<u8>() {
            Ok(col) if (col as usize) < COLS && !text.starts_with('+') => Ok(col as Action),
            _ => Err(err()),
        }
    }
}

#[inline]
pub(crate) fn column_bits(bits: u128, col: usize) -> u8 {
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
            let row = match self.lowest_threat(col) { Some(v) => v, None => continue };
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

/// The lowest cell of every column.
pub(crate) const BOTTOM: u128 = {
    let mut m = 0u128;
    let mut col = 0;
    while col < COLS {
        m |= 1u128 << (col * COL_BITS);
        col += 1;
    }
    m
};
/// The rows whose threats suit the side placing the odd-numbered chips (rows 1, 3, 5, 7
/// counted from 1 at the bottom) or, with `odd` false, the even-numbered ones (rows 2, 4, 6).
pub(crate) fn own_rows(odd: bool) -> u128 {
    if odd { BOTTOM * 0x55 } else { BOTTOM * 0x2A }
}

/// The threats of each side that are still alive: no threat of the other side lies below
/// them in their column (the lower threat decides that column first).
pub(crate) fn live_threats(threats: [u128; 2]) -> [u128; 2] {
    let mut live = [0u128; 2];
    for col in 0..COLS {
        let t = [column_bits(threats[0], col), column_bits(threats[1], col)];
        for side in 0..2 {
            let lowest_other = if t[1 - side] == 0 { 8 } else { t[1 - side].trailing_zeros() };
            live[side] |= ((t[side] & ((1u16 << lowest_other) - 1) as u8) as u128) << (col * COL_BITS);
        }
    }
    live
}

/// Features, from the player to move: its chips (63), the opponent's chips (63), the empty
/// cells where it would complete four (63) and where the opponent would (63); then the context
/// of the zugzwang fight that decides most games on this 7-row board (Allis's odd and even
/// threats): whether STEAL is available, whether the mover is player 0, whether the mover
/// places an odd-numbered chip (a STEAL flips it), whether a STEAL happened; each side's live
/// threats (no opposing threat below them) on rows of its own parity and on the others; the
/// immediate wins each side has (the opponent's double threat loses), and each side's
/// stacked threats (two threat cells one above the other: the lower one wins whoever blocks).
impl Encode for Connect4 {
    const NUM_FEATURES: usize = 4 * CELLS + 15;

    fn encode(&self, out: &mut [f32]) {
        let me = self.to_move();
        encode_chips(self.chips[me], self.chips[1 - me], self.turn as usize, out);
    }
}

/// The features of the position where the mover owns `mine`, the opponent `theirs`, at turn
/// index `turn` (the mover is player 0 on even turns): [`Encode::encode`] without a
/// [`Connect4`], for searches that keep bitboards only.
pub fn encode_chips(mine: u128, theirs: u128, turn: usize, out: &mut [f32]) {
    let occupied = mine | theirs;
    let threats = [threat_cells(mine, occupied), threat_cells(theirs, occupied)];
    let planes = [mine, theirs, threats[0], threats[1]];
    for (plane, &bits) in planes.iter().enumerate() {
        let mut bb = bits;
        while bb != 0 {
            let index = bb.trailing_zeros() as usize;
            let (col, row) = (index / COL_BITS, index % COL_BITS);
            out[plane * CELLS + row * COLS + col] = 1.0;
            bb &= bb - 1;
        }
    }
    let filled = occupied.count_ones() as usize;
    let mover_odd = filled % 2 == 0;
    let live = live_threats(threats);
    let playable = (occupied + BOTTOM) & BOARD_MASK;
    let count = |bits: u128| bits.count_ones() as f32;
    let x = &mut out[4 * CELLS..];
    x[0] = (turn == 1) as u8 as f32;
    x[1] = (turn % 2 == 0) as u8 as f32;
    x[2] = mover_odd as u8 as f32;
    x[3] = (filled < turn) as u8 as f32;
    for side in 0..2 {
        let own = own_rows((side == 0) == mover_odd);
        x[4 + 2 * side] = 0.5 * count(live[side] & own);
        x[5 + 2 * side] = 0.5 * count(live[side] & !own);
        x[8 + side] = count(threats[side] & (threats[side] >> 1));
    }
    x[10] = count(threats[0] & playable).min(1.0);
    x[11] = count(threats[1] & playable).min(2.0);
    let fight = zugzwang(mine, theirs);
    x[12] = (fight == Some(0)) as u8 as f32;
    x[13] = (fight == Some(1)) as u8 as f32;
    x[14] = filled as f32 / CELLS as f32;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::apply_texts;

    fn play(moves: &str) -> Connect4 {
        let mut s = Connect4::new();
        let texts: Vec<&str> = moves.split_whitespace().collect();
        apply_texts(&mut s, &texts).unwrap();
        s
    }

    #[test]
    fn vertical_win() {
        let s = play("0 1 0 1 0 1");
        assert!(!s.is_terminal());
        let s = play("0 1 0 1 0 1 0");
        assert_eq!(s.winner(), Some(0));
        assert_eq!(s.utilities(), [1.0, -1.0]);
        assert_eq!(s.scores(), [10.0, 0.0]);
    }

    #[test]
    fn horizontal_win_for_player_one() {
        // Player 1 builds 5..8 on the bottom row while player 0 stacks harmlessly.
        let s = play("0 5 0 6 1 7 1 8");
        assert_eq!(s.winner(), Some(1));
        assert_eq!(s.utilities(), [-1.0, 1.0]);
    }

    #[test]
    fn horizontal_win_needs_four_adjacent() {
        // 0,1,2 and 4 on the bottom row is no win; filling 3 makes five in a row.
        let s = play("0 0 1 1 2 2 4 4");
        assert!(!s.is_terminal());
        let s = play("0 0 1 1 2 2 4 4 3");
        assert_eq!(s.winner(), Some(0));
    }

    #[test]
    fn rising_diagonal_win() {
        // 0 at (c0,r0), (c1,r1), (c2,r2), (c3,r3).
        let s = play("0 1 1 2 2 3 2 3 3 8 3");
        assert_eq!(s.winner(), Some(0), "{:?}", s.rows());
    }

    #[test]
    fn falling_diagonal_win() {
        // Mirror image of the rising diagonal: columns 8,7,6,5.
        let s = play("8 7 7 6 6 5 6 5 5 0 5");
        assert_eq!(s.winner(), Some(0), "{:?}", s.rows());
    }

    #[test]
    fn diagonal_at_the_right_edge_does_not_wrap() {
        // Chips of player 0 at (c8,r0) and (c0,r1),(c1,r2),(c2,r3): adjacent bits modulo the
        // column height, but not a line. The sentinel bit must keep this from counting.
        let mut s = Connect4::new();
        s.chips[0] = bit(8, 6) | bit(0, 0) | bit(1, 1) | bit(2, 2);
        assert!(!has_four(s.chips[0]));
        s.chips[0] = bit(0, 6) | bit(1, 0) | bit(2, 1) | bit(3, 2);
        assert!(!has_four(s.chips[0]));
    }

    #[test]
    fn steal_repaints_the_chip_and_keeps_colours() {
        let s = play("4 STEAL");
        assert_eq!(s.cell(6, 4), Some(1));
        assert_eq!(s.to_move(), 0);
        assert_eq!(s.turn(), 2);
        assert!(s.stolen());
        assert_eq!(s.hash(), s.hash_from_scratch());
        // Player 1 owns column 4's bottom chip and wins vertically on top of it.
        let s = play("4 STEAL 0 4 0 4 0 4");
        assert_eq!(s.winner(), Some(1), "{:?}", s.rows());
    }

    #[test]
    fn steal_only_at_turn_one() {
        let s = Connect4::new();
        assert!(!s.is_legal(STEAL));
        let s = play("3");
        assert!(s.is_legal(STEAL));
        let s = play("3 4");
        assert!(!s.is_legal(STEAL));
        let s = play("3 STEAL");
        assert!(!s.is_legal(STEAL));
    }

    /// Two hand-checked boards, full but for the top of column 4, with player 0 to move at
    /// turn 62: in one the last chip makes no line (draw), in the other it completes a diagonal.
    #[test]
    fn full_board_is_a_draw_and_a_last_cell_win_beats_it() {
        let draw_rows = ["0001.1000", "000111001", "011000101", "101110111", "111001000", "110100011", "010110110"];
        let s = Connect4::from_rows(&draw_rows, 62).unwrap();
        assert!(!s.is_terminal());
        let mut list = ActionList::new();
        s.legal_actions(&mut list);
        assert_eq!(list.as_slice(), &[4]);
        let mut end = s.clone();
        end.apply(4);
        assert!(end.is_terminal());
        assert_eq!(end.winner(), None);
        assert_eq!(end.scores(), [5.0, 5.0]);
        assert_eq!(end.utilities(), [0.0, 0.0]);

        let win_rows = ["0110.0011", "110110010", "110011001", "100110111", "011100100", "000110010", "011001010"];
        let mut s = Connect4::from_rows(&win_rows, 62).unwrap();
        assert!(!s.is_terminal());
        s.apply(4);
        assert!(s.is_full());
        assert_eq!(s.winner(), Some(0));
        assert_eq!(s.scores(), [10.0, 0.0]);
    }

    #[test]
    fn from_rows_round_trips_and_detects_steal() {
        for moves in ["", "4", "4 STEAL", "4 STEAL 0 4 0", "0 1 2 3 4 5 6 7 8 0 1"] {
            let s = play(moves);
            let rows = s.rows();
            let refs: Vec<&str> = rows.iter().map(|r| r.as_str()).collect();
            let back = Connect4::from_rows(&refs, s.turn()).unwrap();
            assert_eq!(back, s, "moves {moves:?}");
        }
    }

    #[test]
    fn from_rows_rejects_impossible_boards() {
        let empty = ["........."; 7];
        assert!(Connect4::from_rows(&empty, 1).is_err());
        let mut floating = empty;
        floating[0] = "0........";
        assert!(Connect4::from_rows(&floating, 1).is_err());
        let mut bad_char = empty;
        bad_char[6] = "x........";
        assert!(Connect4::from_rows(&bad_char, 1).unwrap_err().0.contains("'x'"));
        let mut one = empty;
        one[6] = "1........";
        assert!(Connect4::from_rows(&one, 1).is_err(), "player 1 cannot own the only chip at turn 1");
        assert!(Connect4::from_rows(&one, 2).is_ok(), "after a steal it can");
    }

    #[test]
    fn mirror_symmetry_commutes_with_play() {
        let mut rng = Rng::new(5);
        let mut list = ActionList::new();
        for _ in 0..200 {
            let mut s = Connect4::new();
            while !s.is_terminal() {
                s.legal_actions(&mut list);
                let a = list[rng.below(list.len())];
                let mut mirrored = s.symmetric(1);
                mirrored.apply(Connect4::map_action(1, a));
                s.apply(a);
                assert_eq!(mirrored, s.symmetric(1));
                assert_eq!(s.symmetric(1).symmetric(1), s);
            }
        }
    }

    #[test]
    fn encoding_is_from_the_movers_side() {
        let mut f = vec![0.0; Connect4::NUM_FEATURES];
        play("4").encode(&mut f);
        // Player 1 to move: the chip at column 4, bottom row, is the opponent's.
        assert_eq!(f[CELLS + 4], 1.0);
        let x = &f[4 * CELLS..];
        assert_eq!(x[..4], [1.0, 0.0, 0.0, 0.0], "STEAL possible; player 1 places the even-numbered chips; no STEAL yet");
        assert_eq!(x[14], 1.0 / CELLS as f32, "the share of the board filled");
        assert_eq!(f.iter().sum::<f32>(), 2.0 + x[14], "one chip, the STEAL flag and the filled share");
        let mut g = vec![0.0; Connect4::NUM_FEATURES];
        play("4 STEAL").encode(&mut g);
        assert_eq!(g[CELLS + 4], 1.0, "after STEAL the chip is player 1's, the opponent of player 0");
        assert_eq!(g[4 * CELLS..4 * CELLS + 4], [0.0, 1.0, 0.0, 1.0], "player 0 to move now places the even-numbered chips");
    }

    /// Player 0 has one threat, on the third row from the bottom (an odd row) of column 3;
    /// 10 chips are on the board (the position of the classic bot's zugzwang tests).
    pub(crate) const ODD_THREAT: [&str; ROWS] = [".........", ".........", ".........", ".........", "000......", "011......", "101.....1"];

    #[test]
    fn parity_features_follow_who_places_the_odd_chips() {
        let features = |s: &Connect4| {
            let mut f = vec![0.0; Connect4::NUM_FEATURES];
            s.encode(&mut f);
            f[4 * CELLS..].to_vec()
        };
        // No STEAL: player 0 moves and places the 11th chip; its odd-row threat is live and of
        // its own parity, and it wins the zugzwang fight.
        let x = features(&Connect4::from_rows(&ODD_THREAT, 10).unwrap());
        assert_eq!(x[2..4], [1.0, 0.0]);
        assert_eq!(x[4..8], [0.5, 0.0, 0.0, 0.0], "mine on own parity, mine on the other, theirs on theirs, theirs on the other");
        assert_eq!(x[12..14], [1.0, 0.0]);
        // After a STEAL the same chips put player 1 on move with the 11th chip: the threat is
        // the opponent's, on a row of the wrong parity for it, and nobody wins the fight.
        let x = features(&Connect4::from_rows(&ODD_THREAT, 11).unwrap());
        assert_eq!(x[2..4], [1.0, 1.0]);
        assert_eq!(x[4..8], [0.0, 0.0, 0.0, 0.5]);
        assert_eq!(x[12..14], [0.0, 0.0]);
    }

    #[test]
    fn immediate_and_stacked_threats_are_counted() {
        let features = |moves: &str| {
            let mut f = vec![0.0; Connect4::NUM_FEATURES];
            play(moves).encode(&mut f);
            f[4 * CELLS..].to_vec()
        };
        // Player 0 owns 3, 4, 5 of the bottom row: two playable wins for it; after player 1's
        // answer it is player 1 who faces them (a double threat, counted as 2).
        let x = features("3 3 4 4 5 8");
        assert_eq!((x[10], x[11]), (1.0, 0.0));
        let x = features("3 3 4 4 5 8 8");
        assert_eq!((x[10], x[11]), (0.0, 2.0));
        // Player 0 holds 0, 1, 2 on the bottom and second rows of columns 0-2 (player 1 stacks
        // on column 8): threats at column 3, rows 1 and 2 from the bottom, one above the other.
        let x = features("0 8 1 8 2 8 0 7 1 7 2");
        assert_eq!(x[9], 1.0, "player 1 to move: the opponent's stacked pair");
        assert_eq!(x[8], 0.0);
    }

    #[test]
    fn threat_maps_mark_the_cells_that_complete_four() {
        // Player 0 owns columns 3,4,5 of the bottom row: threats at columns 2 and 6 (row 0).
        let s = play("3 3 4 4 5 8");
        let occupied = s.chips[0] | s.chips[1];
        assert_eq!(threat_cells(s.chips[0], occupied), bit(2, 0) | bit(6, 0));
        // Player 1 has 3,4 on row 1 and 8 on row 0: no threat.
        assert_eq!(threat_cells(s.chips[1], occupied), 0);
        // A vertical three threatens the cell above it; a gap in the middle of a line counts.
        let v = play("0 1 0 1 0");
        assert_eq!(threat_cells(v.chips[0], v.chips[0] | v.chips[1]), bit(0, 3));
        let gap = play("0 0 1 1 3 3");
        // Player 0: 0,1,_,3 on row 0 -> column 2 completes four; player 1 the same on row 1.
        let occ = gap.chips[0] | gap.chips[1];
        assert_eq!(threat_cells(gap.chips[0], occ), bit(2, 0));
        assert_eq!(threat_cells(gap.chips[1], occ), bit(2, 1), "a threat above an empty cell counts too");
        // Features: planes 2 and 3 carry the mover's and the opponent's threats.
        let mut f = vec![0.0; Connect4::NUM_FEATURES];
        s.encode(&mut f);
        let cell = |col: usize, row: usize| row * COLS + col;
        assert_eq!(s.to_move(), 0);
        assert_eq!(f[2 * CELLS + cell(2, 0)], 1.0, "player 0 to move sees its own threats in plane 2");
        assert_eq!(f[2 * CELLS + cell(6, 0)], 1.0);
        assert_eq!(f[3 * CELLS..4 * CELLS].iter().sum::<f32>(), 0.0);
    }

    #[test]
    fn threat_maps_agree_with_trying_every_cell() {
        // Brute force: a cell is a threat if adding the chip there makes four.
        let mut rng = Rng::new(17);
        let mut list = ActionList::new();
        for _ in 0..300 {
            let mut s = Connect4::new();
            while !s.is_terminal() {
                let occupied = s.chips[0] | s.chips[1];
                for p in 0..2 {
                    let mut expected = 0u128;
                    for col in 0..COLS {
                        for row in 0..ROWS {
                            let b = bit(col, row);
                            if occupied & b == 0 && has_four(s.chips[p] | b) && !has_four(s.chips[p]) {
                                expected |= b;
                            }
                        }
                    }
                    if !has_four(s.chips[p]) {
                        assert_eq!(threat_cells(s.chips[p], occupied), expected, "{:?}", s.rows());
                    }
                }
                s.legal_actions(&mut list);
                s.apply(list[rng.below(list.len())]);
            }
        }
    }

    #[test]
    fn action_text_round_trip() {
        for a in 0..Connect4::NUM_ACTIONS as Action {
            assert_eq!(Connect4::parse_action(&Connect4::format_action(a)), Ok(a));
        }
        assert_eq!(Connect4::parse_action("steal"), Ok(STEAL));
        assert_eq!(Connect4::parse_action("-2"), Ok(STEAL));
        for bad in ["9", "-1", "", " 3", "3 ", "+3", "x", "10"] {
            assert!(Connect4::parse_action(bad).is_err(), "{bad:?}");
        }
    }
}
