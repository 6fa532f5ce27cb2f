//! 6561 (CodeCup 2016): a cooperative 4x4 sliding game for two players, A and B.
//!
//! A 10-move rhythm repeats until move 1000: A blue, B red, A gray, B slide, A slide, B blue,
//! A red, B gray, A slide, B slide. A placement puts a value-1 piece of the prescribed colour on
//! any empty square; a slide (up, down, left, right) must change the board. Sliding looks at each
//! line from the wall it moves toward, pairing consecutive pieces (gaps ignored): equal value
//! and colour merge into one piece of three times the value, equal value and different colour
//! annihilate, and a pair once merged or annihilated is not looked at again in that slide. The
//! game ends early when the player to move has no legal move. Both players score the largest
//! board sum (sum of piece values) reached during the game.
//!
//! Actions: `0..16` place on square `4 * (row - 1) + (column - 1)` (row 1 on top), then
//! `16..20` slide up, down, left, right.

pub mod classic;
pub mod field;
pub mod lookahead;
pub mod partner;
pub mod protocol;
pub mod referee;
pub mod training;
pub mod view;

use crate::encode::Encode;
use crate::game::{square_symmetry, Action, ActionList, Game, ParseActionError, Player, NUM_PLAYERS};
use crate::rng::{splitmix64, Rng};

pub const SIZE: usize = 4;
pub const SQUARES: usize = SIZE * SIZE;
pub const MAX_MOVES: usize = 1000;
pub const SLIDE_UP: Action = 16;
pub const SLIDE_DOWN: Action = 17;
pub const SLIDE_LEFT: Action = 18;
pub const SLIDE_RIGHT: Action = 19;

pub const RED: u8 = 0;
pub const BLUE: u8 = 1;
pub const GRAY: u8 = 2;

/// What the move with index `moves % 10` is: a colour to place, or a slide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Place(u8),
    Slide,
}

pub const RHYTHM: [Step; 10] = [
    Step::Place(BLUE),
    Step::Place(RED),
    Step::Place(GRAY),
    Step::Slide,
    Step::Slide,
    Step::Place(BLUE),
    Step::Place(RED),
    Step::Place(GRAY),
    Step::Slide,
    Step::Slide,
];

/// A square's content: 0 when empty, else `colour * 32 + exponent + 1` (value = 3^exponent).
pub type Piece = u8;

pub fn piece(colour: u8, exponent: u8) -> Piece {
    colour * 32 + exponent + 1
}

pub fn colour_of(p: Piece) -> u8 {
    (p - 1) / 32
}

pub fn exponent_of(p: Piece) -> u8 {
    (p - 1) % 32
}

/// Largest exponent a piece can reach: 3^20 is far beyond any real game (about 8,800 is the
/// maximum possible board sum), so merges are capped here only to keep values in range.
const MAX_EXPONENT: u8 = 20;

fn value_of(p: Piece) -> u64 {
    if p == 0 {
        0
    } else {
        3u64.pow(exponent_of(p) as u32)
    }
}

/// Slides one line toward its first square: pairs consecutive pieces, then packs them.
/// Returns the new line.
pub fn slide_line(line: [Piece; SIZE]) -> [Piece; SIZE] {
    let mut pieces = [0 as Piece; SIZE];
    let mut n = 0;
    for &p in line.iter().filter(|&&p| p != 0) {
        pieces[n] = p;
        n += 1;
    }
    let mut out = [0 as Piece; SIZE];
    let (mut i, mut k) = (0, 0);
    while i < n {
        if i + 1 < n && exponent_of(pieces[i]) == exponent_of(pieces[i + 1]) {
            if colour_of(pieces[i]) == colour_of(pieces[i + 1]) {
                out[k] = piece(colour_of(pieces[i]), (exponent_of(pieces[i]) + 1).min(MAX_EXPONENT));
                k += 1;
            }
            i += 2;
        } else {
            out[k] = pieces[i];
            k += 1;
            i += 1;
        }
    }
    out
}

/// The squares of each line for a slide, listed from the wall the pieces move toward.
fn lines(direction: Action) -> [[usize; SIZE]; SIZE] {
    std::array::from_fn(|l| {
        std::array::from_fn(|k| match direction {
            SLIDE_UP => k * SIZE + l,
            SLIDE_DOWN => (SIZE - 1 - k) * SIZE + l,
            SLIDE_LEFT => l * SIZE + k,
            _ => l * SIZE + (SIZE - 1 - k),
        })
    })
}

/// `cells` after sliding toward `direction` (whether or not that changes them).
pub fn slide_cells(cells: &[Piece; SQUARES], direction: Action) -> [Piece; SQUARES] {
    let mut out = *cells;
    for line in lines(direction) {
        let new = slide_line(line.map(|sq| cells[sq]));
        for (k, &sq) in line.iter().enumerate() {
            out[sq] = new[k];
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game6561 {
    cells: [Piece; SQUARES],
    /// Moves made so far (0..=1000); the next one is number `moves + 1`.
    moves: u16,
    /// Largest board sum reached: the score of both players.
    best: u64,
    /// The player to move has no legal move.
    stuck: bool,
    hash: u64,
}

impl Default for Game6561 {
    fn default() -> Self {
        let mut g = Game6561 { cells: [0; SQUARES], moves: 0, best: 0, stuck: false, hash: 0 };
        g.hash = g.compute_hash();
        g
    }
}

impl Game6561 {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cells(&self) -> &[Piece; SQUARES] {
        &self.cells
    }

    pub fn moves(&self) -> usize {
        self.moves as usize
    }

    /// What the next move must be.
    pub fn step(&self) -> Step {
        RHYTHM[self.moves as usize % 10]
    }

    /// The value of the largest piece on the board.
    pub fn largest_piece(&self) -> u64 {
        self.cells.iter().map(|&p| value_of(p)).max().unwrap_or(0)
    }

    pub fn board_sum(&self) -> u64 {
        self.cells.iter().map(|&p| value_of(p)).sum()
    }

    /// The score so far: the largest board sum reached.
    pub fn score(&self) -> u64 {
        self.best
    }

    /// A position with the given squares and move count (tests and protocol checks).
    pub fn from_cells(cells: [Piece; SQUARES], moves: usize, best: u64) -> Self {
        let mut g = Game6561 { cells, moves: moves as u16, best, stuck: false, hash: 0 };
        g.best = g.best.max(g.board_sum());
        g.stuck = !g.has_legal_move();
        g.hash = g.compute_hash();
        g
    }

    /// The board after sliding toward `direction` (whether or not that changes it).
    pub fn slid(&self, direction: Action) -> [Piece; SQUARES] {
        slide_cells(&self.cells, direction)
    }

    fn has_legal_move(&self) -> bool {
        if self.moves as usize >= MAX_MOVES {
            return false;
        }
        match self.step() {
            Step::Place(_) => self.cells.contains(&0),
            Step::Slide => (SLIDE_UP..=SLIDE_RIGHT).any(|d| self.slid(d) != self.cells),
        }
    }

    /// A hash of everything that decides the rest of the game (squares, move count, score).
    pub fn compute_hash(&self) -> u64 {
        let mut h = (self.moves as u64) << 48 ^ self.best;
        for chunk in self.cells.chunks(8) {
            let word = chunk.iter().fold(0u64, |w, &p| w << 8 | p as u64);
            h = splitmix64(h ^ word).1;
        }
        h
    }

    /// The squares as text, row 1 first: `.` for empty, else colour letter and value, e.g. `b27`.
    pub fn rows(&self) -> Vec<String> {
        (0..SIZE)
            .map(|r| {
                (0..SIZE)
                    .map(|c| match self.cells[r * SIZE + c] {
                        0 => ".".to_string(),
                        p => format!("{}{}", ['r', 'b', 'g'][colour_of(p) as usize], value_of(p)),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }
}

/// The 8 symmetries of the square as signed permutation matrices acting on coordinates
/// doubled around the centre: `(2r - 3, 2c - 3)`.
const SYMMETRY_MATRICES: [[i32; 4]; 8] = [
    [1, 0, 0, 1],
    [0, 1, -1, 0],
    [-1, 0, 0, -1],
    [0, -1, 1, 0],
    [1, 0, 0, -1],
    [-1, 0, 0, 1],
    [0, 1, 1, 0],
    [0, -1, -1, 0],
];

fn transform_square(sym: usize, square: usize) -> usize {
    let (row, col) = square_symmetry(sym, square / SIZE, square % SIZE, SIZE);
    row * SIZE + col
}

fn transform_direction(sym: usize, direction: Action) -> Action {
    let m = SYMMETRY_MATRICES[sym];
    let (dy, dx) = match direction {
        SLIDE_UP => (-1, 0),
        SLIDE_DOWN => (1, 0),
        SLIDE_LEFT => (0, -1),
        _ => (0, 1),
    };
    match (m[0] * dy + m[1] * dx, m[2] * dy + m[3] * dx) {
        (-1, 0) => SLIDE_UP,
        (1, 0) => SLIDE_DOWN,
        (0, -1) => SLIDE_LEFT,
        _ => SLIDE_RIGHT,
    }
}

/// log(8,829), the largest possible score: utilities are log-scaled against it.
const LN_MAX_SCORE: f32 = 9.0857;

impl Game for Game6561 {
    const NAME: &'static str = "6561";
    const NUM_ACTIONS: usize = SQUARES + 4;
    const MAX_GAME_LENGTH: usize = MAX_MOVES;
    const NUM_SYMMETRIES: usize = 8;

    fn new_game(_rng: &mut Rng) -> Self {
        Self::default()
    }

    fn to_move(&self) -> Player {
        (self.moves % 2) as Player
    }

    fn legal_actions(&self, out: &mut ActionList) {
        out.clear();
        if self.is_terminal() {
            return;
        }
        match self.step() {
            Step::Place(_) => (0..SQUARES).filter(|&sq| self.cells[sq] == 0).for_each(|sq| out.push(sq as Action)),
            Step::Slide => (SLIDE_UP..=SLIDE_RIGHT).filter(|&d| self.slid(d) != self.cells).for_each(|d| out.push(d)),
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        if self.is_terminal() {
            return false;
        }
        match (self.step(), action) {
            (Step::Place(_), a) if (a as usize) < SQUARES => self.cells[a as usize] == 0,
            (Step::Slide, d) if (SLIDE_UP..=SLIDE_RIGHT).contains(&d) => self.slid(d) != self.cells,
            _ => false,
        }
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "illegal action {action} at move {}", self.moves + 1);
        match self.step() {
            Step::Place(colour) => self.cells[action as usize] = piece(colour, 0),
            Step::Slide => self.cells = self.slid(action),
        }
        self.moves += 1;
        self.best = self.best.max(self.board_sum());
        self.stuck = !self.has_legal_move();
        self.hash = self.compute_hash();
    }

    fn is_terminal(&self) -> bool {
        self.stuck || self.moves as usize >= MAX_MOVES
    }

    fn scores(&self) -> [f32; NUM_PLAYERS] {
        [self.best as f32; NUM_PLAYERS]
    }

    /// Both players share `2 ln(score) / ln(8829) - 1`, in [-1, 1]: each tripling of the score
    /// is worth the same, which matches how piece values grow.
    fn utilities(&self) -> [f32; NUM_PLAYERS] {
        let u = (2.0 * (self.best.max(1) as f32).ln() / LN_MAX_SCORE - 1.0).clamp(-1.0, 1.0);
        [u; NUM_PLAYERS]
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn symmetric(&self, sym: usize) -> Self {
        let mut cells = [0; SQUARES];
        for sq in 0..SQUARES {
            cells[transform_square(sym, sq)] = self.cells[sq];
        }
        let mut g = Game6561 { cells, ..self.clone() };
        g.hash = g.compute_hash();
        g
    }

    fn map_action(sym: usize, action: Action) -> Action {
        if (action as usize) < SQUARES {
            transform_square(sym, action as usize) as Action
        } else {
            transform_direction(sym, action)
        }
    }

    fn format_action(action: Action) -> String {
        match action {
            a if (a as usize) < SQUARES => format!("{}{}", a as usize / SIZE + 1, a as usize % SIZE + 1),
            SLIDE_UP => "U".into(),
            SLIDE_DOWN => "D".into(),
            SLIDE_LEFT => "L".into(),
            _ => "R".into(),
        }
    }

    fn parse_action(text: &str) -> Result<Action, ParseActionError> {
        let err = || ParseActionError { text: text.to_string(), expected: "a square rk (11..44) or a slide U, D, L, R" };
        match text.as_bytes() {
            [b'U'] => Ok(SLIDE_UP),
            [b'D'] => Ok(SLIDE_DOWN),
            [b'L'] => Ok(SLIDE_LEFT),
            [b'R'] => Ok(SLIDE_RIGHT),
            [r @ b'1'..=b'4', c @ b'1'..=b'4'] => Ok(((r - b'1') as usize * SIZE + (c - b'1') as usize) as Action),
            _ => Err(err()),
        }
    }
}

/// Units a piece holds: a piece of 3^e is 2^e unit pieces merged.
pub fn units_of(p: Piece) -> u32 {
    if p == 0 {
        0
    } else {
        1 << exponent_of(p).min(30)
    }
}

/// The colours ordered by the units they hold on `cells`, most first (ties: lower colour
/// first), and each colour's rank in that order.
pub fn colour_ranks(cells: &[Piece; SQUARES]) -> ([u8; 3], [u32; 3]) {
    let mut units = [0u32; 3];
    for &p in cells.iter().filter(|&&p| p != 0) {
        units[colour_of(p) as usize] += units_of(p);
    }
    let mut order = [0u8, 1, 2];
    order.sort_by_key(|&c| std::cmp::Reverse(units[c as usize]));
    let mut rank = [0u8; 3];
    for (r, &c) in order.iter().enumerate() {
        rank[c as usize] = r as u8;
    }
    (rank, order.map(|c| units[c as usize]))
}

/// Features for a value net (the beam search's leaf evaluation), colours named by rank: the
/// colour holding most units, then the others, so one pattern serves whichever colour leads.
/// Per square: empty, or rank (3) x exponent (9 slots, the last for 3^8 and up); the rhythm
/// step one-hot (10) and the rank of the colour it places (3, none for a slide); the moves
/// left in buckets (under 5, 10, 20, 40, 80, 160, 320, more: the endgame decides whether the
/// last merges make it) and the progress; free squares one-hot (17); units per rank / 128;
/// pairs the next slide along a line could merge, per rank, and pairs that would annihilate
/// (each / 8); the board sum and the score so far / 3,000.
impl Encode for Game6561 {
    const NUM_FEATURES: usize = SQUARES * SQUARE_STATES + 10 + 3 + MOVES_LEFT_BUCKETS.len() + 1 + (SQUARES + 1) + 3 + 3 + 1 + 2;

    fn encode(&self, out: &mut [f32]) {
        let (rank, units) = colour_ranks(&self.cells);
        let mut at = 0;
        for &p in &self.cells {
            if p != 0 {
                out[at + 1 + rank[colour_of(p) as usize] as usize * EXPONENT_SLOTS + (exponent_of(p) as usize).min(EXPONENT_SLOTS - 1)] = 1.0;
            } else {
                out[at] = 1.0;
            }
            at += SQUARE_STATES;
        }
        out[at + self.moves as usize % 10] = 1.0;
        at += 10;
        if let Step::Place(colour) = self.step() {
            out[at + rank[colour as usize] as usize] = 1.0;
        }
        at += 3;
        let left = MAX_MOVES.saturating_sub(self.moves as usize);
        let bucket = MOVES_LEFT_BUCKETS.iter().position(|&b| left < b).unwrap_or(MOVES_LEFT_BUCKETS.len() - 1);
        out[at + bucket] = 1.0;
        at += MOVES_LEFT_BUCKETS.len();
        out[at] = self.moves as f32 / MAX_MOVES as f32;
        at += 1;
        out[at + self.cells.iter().filter(|&&p| p == 0).count()] = 1.0;
        at += SQUARES + 1;
        for r in 0..3 {
            out[at + r] = units[r] as f32 / 128.0;
        }
        at += 3;
        let (mut merges, mut clashes) = ([0u32; 3], 0u32);
        for l in 0..SIZE {
            for line in [std::array::from_fn::<_, SIZE, _>(|k| self.cells[l * SIZE + k]), std::array::from_fn(|k| self.cells[k * SIZE + l])] {
                let mut previous: Piece = 0;
                for p in line.iter().copied().filter(|&p| p != 0) {
                    if previous != 0 && exponent_of(previous) == exponent_of(p) {
                        if colour_of(previous) == colour_of(p) {
                            merges[rank[colour_of(p) as usize] as usize] += 1;
                        } else {
                            clashes += 1;
                        }
                    }
                    previous = p;
                }
            }
        }
        for r in 0..3 {
            out[at + r] = merges[r] as f32 / 8.0;
        }
        at += 3;
        out[at] = clashes as f32 / 8.0;
        at += 1;
        out[at] = self.board_sum() as f32 / 3000.0;
        out[at + 1] = self.best as f32 / 3000.0;
    }
}

/// Exponent slots per rank in the features: 3^0 up to 3^7 (2,187, the largest piece a game
/// of 200 units a colour can make), then one for anything larger.
const EXPONENT_SLOTS: usize = 9;
const SQUARE_STATES: usize = 1 + 3 * EXPONENT_SLOTS;
/// Upper ends of the moves-left buckets; the last takes everything above.
const MOVES_LEFT_BUCKETS: [usize; 8] = [5, 10, 20, 40, 80, 160, 320, usize::MAX];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::apply_texts;

    const R: u8 = RED;
    const B: u8 = BLUE;
    const G: u8 = GRAY;

    /// A piece of `colour` with `value` (a power of 3).
    fn p(colour: u8, value: u64) -> Piece {
        piece(colour, (value as f64).log(3.0).round() as u8)
    }

    #[test]
    fn slide_line_rules_from_the_statement() {
        // [1b,1b,1b,_] left -> [3b,1b,_,_]: a new piece is not merged again.
        assert_eq!(slide_line([p(B, 1), p(B, 1), p(B, 1), 0]), [p(B, 3), p(B, 1), 0, 0]);
        // [1r,1b,1r,_] -> [1r,_,_,_]: the pair annihilates, the third piece stays.
        assert_eq!(slide_line([p(R, 1), p(B, 1), p(R, 1), 0]), [p(R, 1), 0, 0, 0]);
        // [1b,1b,3b,3b] -> [3b,9b,_,_]: pairs are consumed in order.
        assert_eq!(slide_line([p(B, 1), p(B, 1), p(B, 3), p(B, 3)]), [p(B, 3), p(B, 9), 0, 0]);
        // Gaps are ignored; different values just pack.
        assert_eq!(slide_line([0, p(G, 3), 0, p(G, 1)]), [p(G, 3), p(G, 1), 0, 0]);
    }

    /// The statement's slide-up example, column by column (its picture is lost; the columns
    /// are rebuilt from the text).
    #[test]
    fn statement_slide_up_example() {
        let mut cells = [0; SQUARES];
        let columns: [[Piece; 4]; 4] = [
            [p(R, 3), p(R, 3), p(B, 3), 0],         // two red 3s merge; the blue is not involved
            [p(G, 1), p(B, 1), p(R, 1), p(B, 1)],   // gray-blue and red-blue annihilate
            [p(B, 9), 0, p(B, 9), 0],               // two blue 9s (a gap between) make 27
            [p(G, 1), p(G, 1), p(G, 3), 0],         // two gray 1s make a 3, not merged again
        ];
        for (c, col) in columns.iter().enumerate() {
            for (r, &piece) in col.iter().enumerate() {
                cells[r * SIZE + c] = piece;
            }
        }
        let g = Game6561::from_cells(cells, 3, 0);
        assert_eq!(g.step(), Step::Slide);
        let up = g.slid(SLIDE_UP);
        let column = |c: usize| [0, 1, 2, 3].map(|r| up[r * SIZE + c]);
        assert_eq!(column(0), [p(R, 9), p(B, 3), 0, 0]);
        assert_eq!(column(1), [0, 0, 0, 0]);
        assert_eq!(column(2), [p(B, 27), 0, 0, 0]);
        assert_eq!(column(3), [p(G, 3), p(G, 3), 0, 0]);
        // Sliding the first column down instead, the blue 3 meets a red 3 first: both go.
        let down = g.slid(SLIDE_DOWN);
        assert_eq!([0, 1, 2, 3].map(|r| down[r * SIZE]), [0, 0, 0, p(R, 3)]);
    }

    fn features(g: &Game6561) -> Vec<f32> {
        let mut out = vec![0.0; Game6561::NUM_FEATURES];
        g.encode(&mut out);
        out
    }

    #[test]
    fn features_name_colours_by_the_units_they_hold() {
        // Blue holds 9 units (a 27 and a 1), gray 2 (a 3), red 1: ranks blue 0, gray 1, red 2.
        let mut cells = [0; SQUARES];
        cells[0] = p(B, 27);
        cells[1] = p(B, 1);
        cells[5] = p(G, 3);
        cells[15] = p(R, 1);
        let g = Game6561::from_cells(cells, 5, 0);
        assert_eq!(colour_ranks(&cells), ([2, 0, 1], [9, 2, 1]));
        let x = features(&g);
        let square = |sq: usize, rank: usize, exponent: usize| x[sq * SQUARE_STATES + 1 + rank * EXPONENT_SLOTS + exponent];
        assert_eq!((square(0, 0, 3), square(1, 0, 0), square(5, 1, 1), square(15, 2, 0)), (1.0, 1.0, 1.0, 1.0));
        assert_eq!(x[2 * SQUARE_STATES], 1.0, "square 2 is empty");
        // Move 6 places blue: rhythm step 5, the leading rank to place.
        let at = SQUARES * SQUARE_STATES;
        assert_eq!((x[at + 5], x[at + 10]), (1.0, 1.0));
        // Blue's 27 and 1 in row 1 cannot merge: no merge pairs; no clashes.
        let counts = at + 10 + 3 + MOVES_LEFT_BUCKETS.len() + 1 + SQUARES + 1;
        assert_eq!(&x[counts..counts + 3], &[9.0 / 128.0, 2.0 / 128.0, 1.0 / 128.0]);
        assert_eq!(&x[counts + 3..counts + 7], &[0.0; 4]);
        assert_eq!(x.iter().filter(|&&v| v != 0.0).count(), 16 + 2 + 1 + 1 + 1 + 3 + 2);
        // Swapping red and blue everywhere renames nothing the net sees but the colour to place
        // (now the last rank, the one red had).
        let swapped = cells.map(|q| if q == 0 || colour_of(q) == G { q } else { piece(1 - colour_of(q), exponent_of(q)) });
        let y = features(&Game6561::from_cells(swapped, 5, 0));
        assert_eq!(x[..at], y[..at]);
        assert_eq!((y[at + 10], y[at + 12]), (0.0, 1.0));
    }

    #[test]
    fn rhythm_players_and_colours() {
        let mut g = Game6561::new();
        let mut seen = vec![];
        let mut list = ActionList::new();
        for _ in 0..10 {
            seen.push((g.to_move(), g.step()));
            g.legal_actions(&mut list);
            g.apply(list[0]);
        }
        use Step::*;
        assert_eq!(
            seen,
            vec![(0, Place(B)), (1, Place(R)), (0, Place(G)), (1, Slide), (0, Slide), (1, Place(B)), (0, Place(R)), (1, Place(G)), (0, Slide), (1, Slide)]
        );
    }

    #[test]
    fn a_slide_that_changes_nothing_is_illegal() {
        // b1 at 11, r3 at 12, g9 at 21: packed into the top-left corner and no pair can merge or
        // annihilate, so up and left change nothing; down and right move pieces.
        let mut cells = [0; SQUARES];
        cells[0] = p(B, 1);
        cells[1] = p(R, 3);
        cells[4] = p(G, 9);
        let g = Game6561::from_cells(cells, 3, 0);
        assert!(!g.is_legal(SLIDE_UP));
        assert!(!g.is_legal(SLIDE_LEFT));
        assert!(g.is_legal(SLIDE_DOWN) && g.is_legal(SLIDE_RIGHT));
        let mut list = ActionList::new();
        g.legal_actions(&mut list);
        assert_eq!(list.as_slice(), &[SLIDE_DOWN, SLIDE_RIGHT]);
    }

    #[test]
    fn annihilation_lowers_the_sum_but_not_the_score() {
        // Blue at 11, red at 12: slide left annihilates both (sum 2 -> 0); gray at 13 stays.
        let mut g = Game6561::new();
        apply_texts(&mut g, &["11", "12", "13"]).unwrap();
        assert_eq!(g.board_sum(), 3);
        apply_texts(&mut g, &["R"]).unwrap();
        // Row 1 slid right: from the right wall: gray(1) then red(1) annihilate, blue packs right.
        assert_eq!(g.rows()[0], ". . . b1");
        assert_eq!(g.board_sum(), 1);
        assert_eq!(g.score(), 3, "the best sum reached stays");
        assert_eq!(g.scores(), [3.0, 3.0]);
    }

    #[test]
    fn game_ends_when_the_mover_is_stuck() {
        // After the first three placements, a slide that empties the board ends nothing yet;
        // but an empty board at a slide step has no legal slide: the game is over.
        let mut g = Game6561::new();
        apply_texts(&mut g, &["11", "12", "22"]).unwrap();
        // 11 blue, 12 red, 22 gray. Slide up: column 2 has red(12) then gray(22): annihilate.
        apply_texts(&mut g, &["U"]).unwrap();
        assert_eq!(g.rows()[0], "b1 . . .");
        // Slide left changes nothing now, right/down do: the game goes on.
        assert!(!g.is_terminal());
        // A full board with no equal neighbours at a slide step: stuck.
        let cells: [Piece; SQUARES] = std::array::from_fn(|sq| piece((sq % 3) as u8, (sq / 2 % 5) as u8 + (sq % 2) as u8 * 5));
        let stuck = Game6561::from_cells(cells, 3, 0);
        let mut list = ActionList::new();
        stuck.legal_actions(&mut list);
        assert!(stuck.is_terminal() && list.is_empty(), "{:?}", stuck.rows());
        // Move 1000 is the last.
        let late = Game6561::from_cells([0; SQUARES], MAX_MOVES, 5);
        assert!(late.is_terminal());
    }

    #[test]
    fn symmetries_map_squares_and_slides_consistently() {
        for sym in 0..8 {
            let mut seen = [false; SQUARES];
            for sq in 0..SQUARES {
                seen[transform_square(sym, sq)] = true;
            }
            assert!(seen.iter().all(|&s| s), "symmetry {sym} is a permutation");
        }
        // Rotation by a quarter turn: the top-left square goes to the top-right, up becomes right.
        assert_eq!(transform_square(1, 0), 3);
        assert_eq!(transform_direction(1, SLIDE_UP), SLIDE_RIGHT);
    }

    #[test]
    fn action_text() {
        assert_eq!(Game6561::format_action(0), "11");
        assert_eq!(Game6561::format_action(15), "44");
        assert_eq!(Game6561::parse_action("23"), Ok(6));
        assert_eq!(Game6561::parse_action("D"), Ok(SLIDE_DOWN));
        for bad in ["05", "45", "u", "UP", "", "1"] {
            assert!(Game6561::parse_action(bad).is_err(), "{bad}");
        }
    }
}
