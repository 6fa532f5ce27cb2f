//! Ultimate tic-tac-toe as CodinGame's "Tic-Tac-Toe" referee plays it from the league that
//! unlocks nine boards: a 9x9 board of 3x3 small boards. A mark in cell `(r, c)` sends the
//! opponent to small board `(r % 3, c % 3)`; if that board is won or full, the opponent may
//! play any empty cell of any board that is neither. Three marks in a line win a small board,
//! which then takes no more marks; three won boards in a line win the game. When no cell is
//! left, the player who won more small boards wins (as many: a draw).
//!
//! Actions: `9 * row + col` (CodinGame's rows and columns, 0..8). Text: the two digits `rc`
//! (`44` is the centre); the protocol writes `row col`.

pub mod classic;
pub mod protocol;
pub mod referee;
pub mod training;
pub mod view;

use crate::encode::Encode;
use crate::game::{set_bits, square_symmetry, Action, ActionList, Game, ParseActionError, Player, NUM_PLAYERS};
use crate::mcts::Values;
use crate::rng::{zobrist_keys, Rng};
use crate::rollout::{decisive_playout, Playout};

pub const CELLS: usize = 81;
/// The 3x3 grid of a small board (and of the big board) as 9-bit masks, bit `3 * row + col`.
const FULL: u16 = 0x1FF;
/// `target` when the mover may play in any open board.
const ANY_BOARD: u8 = 9;
const NO_WINNER: u8 = 2;
/// Bit 15 of [`LINE_FACTS`]: the mask holds a line.
const HAS_LINE: u16 = 1 << 15;

/// For each 3x3 mask `m`: the places where one more mark would give the owner of `m` a line
/// (whether or not they are free), and [`HAS_LINE`] when `m` holds one already.
static LINE_FACTS: [u16; 512] = {
    const LINES: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];
    let mut table = [0u16; 512];
    let mut i = 0;
    while i < 512 * 8 {
        let missing = LINES[i % 8] & !(i as u16 / 8);
        table[i / 8] |= if missing == 0 { HAS_LINE } else if missing.count_ones() == 1 { missing } else { 0 };
        i += 1;
    }
    table
};

#[inline]
fn has_line(mask: u16) -> bool {
    LINE_FACTS[mask as usize] & HAS_LINE != 0
}

#[inline]
fn completing(mask: u16) -> u16 {
    LINE_FACTS[mask as usize] & FULL
}

/// The small board of each cell, and the cell's place (0..9) in it.
static BOARD_AND_PLACE: [(u8, u8); CELLS] = {
    let mut table = [(0u8, 0u8); CELLS];
    let mut cell = 0;
    while cell < CELLS {
        table[cell] = ((3 * (cell / 27) + cell % 9 / 3) as u8, (3 * (cell / 9 % 3) + cell % 3) as u8);
        cell += 1;
    }
    table
};

#[inline]
fn board_of(cell: usize) -> usize {
    BOARD_AND_PLACE[cell].0 as usize
}

#[inline]
fn place_of(cell: usize) -> usize {
    BOARD_AND_PLACE[cell].1 as usize
}

/// The cell at `place` of small board `board`.
#[inline]
pub fn cell_at(board: usize, place: usize) -> usize {
    9 * (3 * (board / 3) + place / 3) + 3 * (board % 3) + place % 3
}

/// Zobrist keys: a mark of each player on each cell, then the target board (or any).
static KEYS: [u64; 2 * CELLS + 10] = zobrist_keys(0x0051_7AC7_0E00_0009);

#[inline]
fn mark_key(player: usize, cell: usize) -> u64 {
    KEYS[player * CELLS + cell]
}

#[inline]
fn target_key(target: u8) -> u64 {
    KEYS[2 * CELLS + target as usize]
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uttt {
    /// Each player's marks, by small board (3x3 masks).
    marks: [[u16; 9]; NUM_PLAYERS],
    /// The small boards each player won (a 3x3 mask of the big board).
    won: [u16; NUM_PLAYERS],
    /// The small boards filled without a winner.
    drawn: u16,
    /// The small board the mover must play in, or `ANY_BOARD`.
    target: u8,
    /// Marks played so far.
    plies: u8,
    winner: u8,
    hash: u64,
}

impl Default for Uttt {
    fn default() -> Self {
        Uttt { marks: [[0; 9]; NUM_PLAYERS], won: [0; NUM_PLAYERS], drawn: 0, target: ANY_BOARD, plies: 0, winner: NO_WINNER, hash: target_key(ANY_BOARD) }
    }
}

impl Uttt {
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks played so far.
    pub fn plies(&self) -> usize {
        self.plies as usize
    }

    /// Who has the mark on `cell`.
    pub fn cell(&self, cell: usize) -> Option<Player> {
        let (board, bit) = (board_of(cell), 1 << place_of(cell));
        (0..NUM_PLAYERS).find(|&p| self.marks[p][board] & bit != 0)
    }

    /// The small boards `player` won (bit `3 * row + col` of the big board).
    pub fn boards_won(&self, player: Player) -> u16 {
        self.won[player]
    }

    /// The small boards that take no more marks: won, or full.
    pub fn closed_boards(&self) -> u16 {
        self.won[0] | self.won[1] | self.drawn
    }

    /// The small board the mover must play in; `None` when any open board will do.
    pub fn target_board(&self) -> Option<usize> {
        (self.target != ANY_BOARD).then_some(self.target as usize)
    }

    /// The player with three won boards in a line, once there is one.
    pub fn line_winner(&self) -> Option<Player> {
        (self.winner != NO_WINNER).then_some(self.winner as usize)
    }

    /// The free places of small board `board`.
    #[inline]
    fn free(&self, board: usize) -> u16 {
        !(self.marks[0][board] | self.marks[1][board]) & FULL
    }

    /// The boards a mark may go to now.
    #[inline]
    fn playable_boards(&self) -> u16 {
        match self.target {
            ANY_BOARD => !self.closed_boards() & FULL,
            b => 1 << b,
        }
    }

    /// The cells where a mark of `player` would win its small board (playable now or not).
    pub fn board_winning_cells(&self, player: Player) -> [u16; 9] {
        let closed = self.closed_boards();
        let mut out = [0u16; 9];
        for (board, o) in out.iter_mut().enumerate() {
            if closed >> board & 1 == 0 {
                *o = completing(self.marks[player][board]) & self.free(board);
            }
        }
        out
    }

    /// The open boards whose win would give `player` three in a line on the big board.
    pub fn game_winning_boards(&self, player: Player) -> u16 {
        completing(self.won[player]) & !self.closed_boards() & FULL
    }

    /// A legal action that wins the game at once for the mover, if there is one.
    pub fn winning_action(&self) -> Option<Action> {
        let me = self.to_move();
        for board in set_bits((self.game_winning_boards(me) & self.playable_boards()) as u64) {
            let cells = completing(self.marks[me][board]) & self.free(board);
            if cells != 0 {
                return Some(cell_at(board, cells.trailing_zeros() as usize) as Action);
            }
        }
        None
    }

    /// The key of the position, from scratch (tests check the incremental one against it).
    pub fn hash_from_scratch(&self) -> u64 {
        let mut h = target_key(self.target);
        for cell in 0..CELLS {
            if let Some(p) = self.cell(cell) {
                h ^= mark_key(p, cell);
            }
        }
        h
    }
}

impl Game for Uttt {
    const NAME: &'static str = "uttt";
    const NUM_ACTIONS: usize = CELLS;
    const MAX_GAME_LENGTH: usize = CELLS;
    const NUM_SYMMETRIES: usize = 8;

    fn new_game(_rng: &mut Rng) -> Self {
        Self::new()
    }

    fn to_move(&self) -> Player {
        (self.plies % 2) as Player
    }

    fn legal_actions(&self, out: &mut ActionList) {
        out.clear();
        if self.is_terminal() {
            return;
        }
        for board in set_bits(self.playable_boards() as u64) {
            for place in set_bits(self.free(board) as u64) {
                out.push(cell_at(board, place) as Action);
            }
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        let cell = action as usize;
        cell < CELLS && !self.is_terminal() && self.playable_boards() >> board_of(cell) & 1 != 0 && self.free(board_of(cell)) >> place_of(cell) & 1 != 0
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action));
        let cell = action as usize;
        let (board, place) = (board_of(cell), place_of(cell));
        let me = self.to_move();
        self.marks[me][board] |= 1 << place;
        self.hash ^= mark_key(me, cell);
        if has_line(self.marks[me][board]) {
            self.won[me] |= 1 << board;
            if has_line(self.won[me]) {
                self.winner = me as u8;
            }
        } else if self.free(board) == 0 {
            self.drawn |= 1 << board;
        }
        self.hash ^= target_key(self.target);
        self.target = if self.closed_boards() >> place & 1 != 0 { ANY_BOARD } else { place as u8 };
        self.hash ^= target_key(self.target);
        self.plies += 1;
    }

    fn is_terminal(&self) -> bool {
        self.winner != NO_WINNER || self.closed_boards() == FULL
    }

    /// 1 to the winner and 0 to the loser, 1/2 each for a draw.
    fn scores(&self) -> [f32; NUM_PLAYERS] {
        let boards = [self.won[0].count_ones(), self.won[1].count_ones()];
        match self.line_winner().or((boards[0] != boards[1]).then(|| (boards[1] > boards[0]) as Player)) {
            Some(p) => std::array::from_fn(|seat| (seat == p) as u8 as f32),
            None => [0.5; NUM_PLAYERS],
        }
    }

    fn utilities(&self) -> [f32; NUM_PLAYERS] {
        self.scores().map(|s| 2.0 * s - 1.0)
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    /// Every 3x3 mask (a small board's marks, the boards won, the target) turns with the
    /// same symmetry of the 3x3 grid: a cell's small board and its place in it turn together
    /// (`8 - (3b + p) = 3(2 - b) + (2 - p)`).
    fn symmetric(&self, sym: usize) -> Self {
        let turn = |mask: u16| (0..9).filter(|p| mask >> p & 1 != 0).map(|p| square_symmetry(sym, p / 3, p % 3, 3)).fold(0u16, |m, (r, c)| m | 1 << (3 * r + c));
        let mut s = Uttt { won: self.won.map(turn), drawn: turn(self.drawn), ..self.clone() };
        if self.target != ANY_BOARD {
            s.target = turn(1 << self.target).trailing_zeros() as u8;
        }
        for (p, board) in (0..NUM_PLAYERS).flat_map(|p| (0..9).map(move |b| (p, b))) {
            s.marks[p][turn(1 << board).trailing_zeros() as usize] = turn(self.marks[p][board]);
        }
        s.hash = s.hash_from_scratch();
        s
    }

    fn map_action(sym: usize, action: Action) -> Action {
        let (r, c) = square_symmetry(sym, action as usize / 9, action as usize % 9, 9);
        (9 * r + c) as Action
    }

    fn format_action(action: Action) -> String {
        format!("{}{}", action / 9, action % 9)
    }

    fn parse_action(text: &str) -> Result<Action, ParseActionError> {
        let digits: Vec<u32> = text.chars().filter(|c| !matches!(c, ' ' | ',')).map(|c| c.to_digit(10).filter(|&d| d < 9).unwrap_or(99)).collect();
        match digits.as_slice() {
            [r, c] if *r < 9 && *c < 9 && text.trim() == text => Ok((9 * r + c) as Action),
            _ => Err(ParseActionError { text: text.to_string(), expected: "a row and a column, each 0..8 (e.g. 44, or 4 4)" }),
        }
    }
}

/// Decisive playouts: the classic bot's value, and the playout mixed into the net bot's.
impl Playout for Uttt {
    fn playout_utilities(&self, rng: &mut Rng) -> Values {
        decisive_playout(self.clone(), rng, Uttt::winning_action).utilities()
    }
}

/// Features per cell plane.
const PLANES: usize = 5;
/// Big-board features: boards won by each side, full boards, and the boards whose win would
/// win the game for each side.
const BOARD_FEATURES: usize = 5 * 9;

impl Encode for Uttt {
    /// Seen from the mover: own marks, the opponent's, the playable cells, and the cells that
    /// would win a small board for each side (81 each); then the big board (45) and whether
    /// the mover may play anywhere.
    const NUM_FEATURES: usize = PLANES * CELLS + BOARD_FEATURES + 1;

    fn encode(&self, out: &mut [f32]) {
        let me = self.to_move();
        let them = 1 - me;
        let playable = self.playable_boards();
        let wins = [self.board_winning_cells(me), self.board_winning_cells(them)];
        for board in 0..9 {
            let bits = [
                self.marks[me][board],
                self.marks[them][board],
                if playable >> board & 1 != 0 && !self.is_terminal() { self.free(board) } else { 0 },
                wins[0][board],
                wins[1][board],
            ];
            for (plane, &mask) in bits.iter().enumerate() {
                for place in set_bits(mask as u64) {
                    out[plane * CELLS + cell_at(board, place)] = 1.0;
                }
            }
        }
        let big = [self.won[me], self.won[them], self.drawn, self.game_winning_boards(me), self.game_winning_boards(them)];
        for (k, &mask) in big.iter().enumerate() {
            for board in 0..9 {
                out[PLANES * CELLS + 9 * k + board] = (mask >> board & 1) as f32;
            }
        }
        out[PLANES * CELLS + BOARD_FEATURES] = (self.target == ANY_BOARD) as u8 as f32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(moves: &[&str]) -> Uttt {
        let mut s = Uttt::new();
        crate::tools::apply_texts(&mut s, moves).unwrap();
        s
    }

    #[test]
    fn the_first_mark_may_go_anywhere_and_sends_the_opponent() {
        let s = Uttt::new();
        let mut list = ActionList::new();
        s.legal_actions(&mut list);
        assert_eq!(list.len(), 81);
        // Row 4, column 5 is place (1, 2) of the centre board: the reply goes to board 5.
        let s = play(&["45"]);
        assert_eq!(s.target_board(), Some(5));
        s.legal_actions(&mut list);
        let mut cells: Vec<Action> = list.to_vec();
        cells.sort();
        assert_eq!(cells, vec![6, 7, 8, 15, 16, 17, 24, 25, 26].into_iter().map(|c| c + 27).collect::<Vec<_>>());
    }

    /// The position with these marks: `(board, place, player)`.
    fn with_marks(marks: &[(usize, usize, Player)], target: u8) -> Uttt {
        let mut cells = [None; CELLS];
        for &(board, place, player) in marks {
            cells[cell_at(board, place)] = Some(player);
        }
        from_marks(&cells, target)
    }

    /// The position with these marks (`cells[c]` the owner of cell `c`) and target, with the
    /// won and full boards and the winner worked out. The caller keeps the marks reachable.
    fn from_marks(cells: &[Option<Player>; CELLS], target: u8) -> Uttt {
        let mut s = Uttt { target, ..Uttt::default() };
        for (cell, owner) in cells.iter().enumerate() {
            if let Some(p) = *owner {
                s.marks[p][board_of(cell)] |= 1 << place_of(cell);
                s.plies += 1;
            }
        }
        for board in 0..9 {
            for p in 0..NUM_PLAYERS {
                if has_line(s.marks[p][board]) {
                    s.won[p] |= 1 << board;
                }
            }
            if s.free(board) == 0 && (s.won[0] | s.won[1]) >> board & 1 == 0 {
                s.drawn |= 1 << board;
            }
        }
        for p in 0..NUM_PLAYERS {
            if has_line(s.won[p]) {
                s.winner = p as u8;
            }
        }
        s.hash = s.hash_from_scratch();
        s
    }

    #[test]
    fn a_won_board_takes_no_marks_and_frees_the_next_player() {
        // X holds places 0 and 4 of board 0 and completes the diagonal at 8.
        let mut s = with_marks(&[(0, 0, 0), (0, 4, 0), (1, 0, 1), (2, 0, 1)], 0);
        assert_eq!(s.to_move(), 0);
        s.apply(cell_at(0, 8) as Action);
        assert_eq!(s.boards_won(0), 1);
        assert!(!s.is_legal(cell_at(0, 1) as Action), "a won board is closed");
        assert_eq!(s.target_board(), Some(8), "place 8 sends the reply to board 8");
        // Sent to the closed board 0, the mover may play any free cell of any open board.
        s.apply(cell_at(8, 0) as Action);
        assert_eq!(s.target_board(), None);
        let mut list = ActionList::new();
        s.legal_actions(&mut list);
        let free_open = (0..CELLS).filter(|&c| board_of(c) != 0 && s.cell(c).is_none()).count();
        assert_eq!(list.len(), free_open);
        assert!(list.iter().all(|&a| board_of(a as usize) != 0));
    }

    #[test]
    fn three_boards_in_a_line_win_and_a_full_board_counts_the_boards() {
        let top_row: Vec<(usize, usize, Player)> = (0..3).flat_map(|board| (0..3).map(move |place| (board, place, 0))).collect();
        let s = with_marks(&top_row, ANY_BOARD);
        assert_eq!(s.line_winner(), Some(0));
        assert!(s.is_terminal());
        assert_eq!(s.scores(), [1.0, 0.0]);
        assert_eq!(s.utilities(), [1.0, -1.0]);
        // No line: X won boards 0 and 8, O board 4, the six others are full without a line.
        // The player with more boards wins.
        let drawn_x: u16 = 0o615; // X O X / X O O / O X X
        assert!(!has_line(drawn_x) && !has_line(FULL & !drawn_x));
        let mut marks = Vec::new();
        for (board, player) in [(0, 0), (8, 0), (4, 1)] {
            marks.extend((0..3).map(|place| (board, place, player)));
        }
        for board in [1, 2, 3, 5, 6, 7] {
            marks.extend((0..9).map(|place| (board, place, if drawn_x >> place & 1 != 0 { 0 } else { 1 })));
        }
        let s = with_marks(&marks, ANY_BOARD);
        assert_eq!(s.line_winner(), None);
        assert_eq!(s.drawn.count_ones(), 6);
        assert!(s.is_terminal(), "every board is closed");
        assert_eq!(s.scores(), [1.0, 0.0]);
        // As many boards each: a draw.
        let mut even = marks.clone();
        even.retain(|&(board, _, _)| board != 8);
        even.extend((0..9).map(|place| (8, place, if drawn_x >> place & 1 != 0 { 0 } else { 1 })));
        let s = with_marks(&even, ANY_BOARD);
        assert!(s.is_terminal());
        assert_eq!(s.scores(), [0.5, 0.5]);
        assert_eq!(s.utilities(), [0.0, 0.0]);
    }

    #[test]
    fn winning_action_finds_the_game_winning_mark() {
        // X owns boards 0 and 1 and has two in a row in board 2; eight marks each.
        let mut marks: Vec<(usize, usize, Player)> = (0..2).flat_map(|board| (0..3).map(move |place| (board, place, 0))).collect();
        marks.extend([(2, 3, 0), (2, 4, 0)]);
        marks.extend([(3, 0, 1), (3, 1, 1), (4, 0, 1), (4, 1, 1), (5, 0, 1), (6, 0, 1), (7, 0, 1), (8, 0, 1)]);
        let s = with_marks(&marks, 2);
        assert_eq!(s.to_move(), 0);
        assert_eq!(s.winning_action(), Some(cell_at(2, 5) as Action));
        let mut t = s.clone();
        t.apply(cell_at(2, 5) as Action);
        assert_eq!(t.line_winner(), Some(0));
        // Sent elsewhere, it has none.
        assert_eq!(with_marks(&marks, 8).winning_action(), None);
    }

    #[test]
    fn symmetries_turn_cells_boards_and_targets_together() {
        let s = play(&["45", "37"]);
        for sym in 0..8 {
            let t = s.symmetric(sym);
            for cell in 0..CELLS {
                assert_eq!(t.cell(Uttt::map_action(sym, cell as Action) as usize), s.cell(cell));
            }
            let target = t.target_board().unwrap();
            // The target is the place of the last mark, turned.
            let last = Uttt::map_action(sym, Uttt::parse_action("37").unwrap()) as usize;
            assert_eq!(target, place_of(last), "sym {sym}");
        }
    }

    #[test]
    fn features_are_the_movers_and_count_the_marks() {
        let s = play(&["44", "33", "00"]);
        let mut f = vec![0.0; Uttt::NUM_FEATURES];
        s.encode(&mut f);
        // O to move: its own mark is 33 (cell 30), X has two.
        assert_eq!(f[..CELLS].iter().sum::<f32>(), 1.0);
        assert_eq!(f[30], 1.0);
        assert_eq!(f[CELLS..2 * CELLS].iter().sum::<f32>(), 2.0);
        // 00 sends O to board 0, which has X's mark: eight free cells.
        assert_eq!(f[2 * CELLS..3 * CELLS].iter().sum::<f32>(), 8.0);
        assert_eq!(f[Uttt::NUM_FEATURES - 1], 0.0, "a target board, not any");
        assert!(f.iter().all(|&x| x == 0.0 || x == 1.0));
    }

    #[test]
    fn action_text_round_trip() {
        for a in 0..CELLS as Action {
            assert_eq!(Uttt::parse_action(&Uttt::format_action(a)), Ok(a));
        }
        assert_eq!(Uttt::parse_action("4 4"), Ok(40));
        assert_eq!(Uttt::parse_action("8,0"), Ok(72));
        for bad in ["", "9 0", "4", "444", "a4", " 44", "-1 -1"] {
            assert!(Uttt::parse_action(bad).is_err(), "{bad:?}");
        }
    }
}
