//! Quantum tic-tac-toe on 4x4 (CodeCup 2012). Squares `A`..`P`, row by row. X (seat 0) moves on
//! odd turns, O on even ones. A move puts a spooky mark, subscripted with the turn number, in two
//! different squares that are not yet classical. Marks are edges of a graph on the squares; a
//! move joining two squares already connected closes a cycle, and the opponent of the player who
//! closed it chooses which of that move's two squares its mark collapses into; the whole
//! connected component then collapses (each square keeps one mark, marks pushed out of a square
//! go to their other square). Then the same opponent moves. The game ends after a collapse that
//! makes a line of four, or when no square is left; a single square left gets both marks of the
//! player to move (`PP`).
//!
//! Score: a lone four-line 20 / 0; both players with one (one collapse can do it): the player
//! whose best line has the lower largest subscript 15, the other 5; none 10 / 10. Bonus for
//! each: +1 per run of three in a line (runs inside a four-line count), +2 per 2x2 block.
//!
//! Actions: `0..120` the unordered pairs of squares, `120..136` collapse the pending move into
//! square s, `136..152` both marks in the last square s.

pub mod protocol;
pub mod referee;
pub mod training;
pub mod view;

use crate::encode::Encode;
use crate::game::{square_symmetry, Action, ActionList, Game, ParseActionError, Player, NUM_PLAYERS};
use crate::rng::{splitmix64, Rng};

pub const SQUARES: usize = 16;
const PAIRS: usize = 120;
const COLLAPSE: usize = PAIRS;
const LONE: usize = PAIRS + SQUARES;

/// The pair of squares of pair action `k`, and back.
pub fn pair_squares(k: usize) -> (usize, usize) {
    let mut k = k;
    for a in 0..SQUARES {
        let n = SQUARES - 1 - a;
        if k < n {
            return (a, a + 1 + k);
        }
        k -= n;
    }
    unreachable!("pair index out of range")
}

pub fn pair_action(a: usize, b: usize) -> Action {
    let (a, b) = if a < b { (a, b) } else { (b, a) };
    debug_assert!(a != b);
    let before: usize = (0..a).map(|x| SQUARES - 1 - x).sum();
    (before + (b - a - 1)) as Action
}

/// The squares an action names: a spooky mark's pair, or the one square of a collapse or of a
/// lone classical mark.
pub fn action_squares(action: Action) -> Vec<usize> {
    match action as usize {
        k if k < PAIRS => {
            let (a, b) = pair_squares(k);
            vec![a, b]
        }
        k if k < LONE => vec![k - COLLAPSE],
        k => vec![k - LONE],
    }
}

pub fn collapse_action(square: usize) -> Action {
    (COLLAPSE + square) as Action
}

pub fn lone_action(square: usize) -> Action {
    (LONE + square) as Action
}

/// Who owns a subscript: X moves on odd turns.
fn owner(subscript: u8) -> Player {
    if subscript % 2 == 1 { 0 } else { 1 }
}

const LINES4: [[usize; 4]; 10] = [
    [0, 1, 2, 3],
    [4, 5, 6, 7],
    [8, 9, 10, 11],
    [12, 13, 14, 15],
    [0, 4, 8, 12],
    [1, 5, 9, 13],
    [2, 6, 10, 14],
    [3, 7, 11, 15],
    [0, 5, 10, 15],
    [3, 6, 9, 12],
];

/// Every run of three squares in a row, column or diagonal of the 4x4 board (24).
fn runs_of_three() -> Vec<[usize; 3]> {
    let mut runs = Vec::new();
    let at = |r: i32, c: i32| (r * 4 + c) as usize;
    for r in 0..4 {
        for c in 0..4 {
            for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                let (r2, c2) = (r + 2 * dr, c + 2 * dc);
                if (0..4).contains(&r2) && (0..4).contains(&c2) {
                    runs.push([at(r, c), at(r + dr, c + dc), at(r2, c2)]);
                }
            }
        }
    }
    runs
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Spooky {
    subscript: u8,
    a: u8,
    b: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Qttt {
    /// Subscript of the classical mark in each square (0: not classical).
    classical: [u8; SQUARES],
    spooky: Vec<Spooky>,
    /// Moves made; the next move's subscript is `moves + 1`.
    moves: u8,
    /// The last move closed a cycle: the player to move first chooses its collapse.
    pending: bool,
    over: bool,
    hash: u64,
}

impl Default for Qttt {
    fn default() -> Self {
        let mut q = Qttt { classical: [0; SQUARES], spooky: Vec::new(), moves: 0, pending: false, over: false, hash: 0 };
        q.hash = q.compute_hash();
        q
    }
}

impl Qttt {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn moves(&self) -> usize {
        self.moves as usize
    }

    /// Whether the player to move must first choose a collapse.
    pub fn collapse_pending(&self) -> bool {
        self.pending
    }

    /// The squares of the move waiting for its collapse.
    pub fn pending_squares(&self) -> Option<(usize, usize)> {
        self.pending.then(|| self.spooky.last().map(|m| (m.a as usize, m.b as usize))).flatten()
    }

    /// The classical owner of a square, if any.
    pub fn classical_owner(&self, square: usize) -> Option<Player> {
        (self.classical[square] != 0).then(|| owner(self.classical[square]))
    }

    fn open_squares(&self) -> impl Iterator<Item = usize> + '_ {
        (0..SQUARES).filter(move |&s| self.classical[s] == 0)
    }

    /// Whether squares `a` and `b` are joined by spooky marks.
    fn connected(&self, a: usize, b: usize) -> bool {
        let mut reached = 1u32 << a;
        let mut grew = true;
        while grew {
            grew = false;
            for m in &self.spooky {
                let (x, y) = (1u32 << m.a, 1u32 << m.b);
                if (reached & x != 0) != (reached & y != 0) {
                    reached |= x | y;
                    grew = true;
                }
            }
        }
        reached >> b & 1 == 1
    }

    /// Collapses the last move's mark into `square` and everything that follows from it.
    fn collapse_into(&mut self, square: usize) {
        let last = self.spooky.len() - 1;
        let mut queue = vec![(self.spooky[last], square)];
        self.spooky.remove(last);
        while let Some((mark, sq)) = queue.pop() {
            debug_assert_eq!(self.classical[sq], 0, "a square receives two marks");
            self.classical[sq] = mark.subscript;
            // Other marks in this square are pushed to their other square.
            let mut k = 0;
            while k < self.spooky.len() {
                let m = self.spooky[k];
                if m.a as usize == sq || m.b as usize == sq {
                    let other = if m.a as usize == sq { m.b } else { m.a } as usize;
                    self.spooky.remove(k);
                    queue.push((m, other));
                } else {
                    k += 1;
                }
            }
        }
    }

    /// For each player, the smallest "largest subscript" among its four-lines, if it has one.
    fn best_lines(&self) -> [Option<u8>; NUM_PLAYERS] {
        let mut best = [None; NUM_PLAYERS];
        for line in LINES4 {
            let owners: Vec<Option<Player>> = line.iter().map(|&s| self.classical_owner(s)).collect();
            if let Some(p) = owners[0] {
                if owners.iter().all(|&o| o == Some(p)) {
                    let latest = line.iter().map(|&s| self.classical[s]).max().unwrap();
                    best[p] = Some(best[p].map_or(latest, |b: u8| b.min(latest)));
                }
            }
        }
        best
    }

    /// Bonus points of each player: +1 per run of three, +2 per 2x2 block.
    pub fn bonus(&self) -> [u32; NUM_PLAYERS] {
        let mut bonus = [0; NUM_PLAYERS];
        for run in runs_of_three() {
            if let Some(p) = self.classical_owner(run[0]) {
                if run.iter().all(|&s| self.classical_owner(s) == Some(p)) {
                    bonus[p] += 1;
                }
            }
        }
        for r in 0..3 {
            for c in 0..3 {
                let block = [r * 4 + c, r * 4 + c + 1, r * 4 + c + 4, r * 4 + c + 5];
                if let Some(p) = self.classical_owner(block[0]) {
                    if block.iter().all(|&s| self.classical_owner(s) == Some(p)) {
                        bonus[p] += 2;
                    }
                }
            }
        }
        bonus
    }

    fn check_end(&mut self) {
        self.over = self.best_lines().iter().any(|b| b.is_some()) || self.open_squares().count() == 0;
    }

    pub fn compute_hash(&self) -> u64 {
        let mut h = (self.moves as u64) << 1 | self.pending as u64;
        for chunk in self.classical.chunks(8) {
            h = splitmix64(h ^ chunk.iter().fold(0u64, |w, &c| w << 8 | c as u64)).1;
        }
        for m in &self.spooky {
            h = splitmix64(h ^ ((m.subscript as u64) << 16 | (m.a as u64) << 8 | m.b as u64)).1;
        }
        h
    }
}

fn transform_square(sym: usize, square: usize) -> usize {
    let (row, col) = square_symmetry(sym, square / 4, square % 4, 4);
    4 * row + col
}

/// A score difference of this many points is worth utility 1: a lone four-line with a few
/// bonus points is about that much.
const SCORE_SCALE: f32 = 25.0;

impl Game for Qttt {
    const NAME: &'static str = "qttt";
    const NUM_ACTIONS: usize = LONE + SQUARES;
    /// 16 moves and at most one collapse after each.
    const MAX_GAME_LENGTH: usize = 2 * SQUARES;
    const NUM_SYMMETRIES: usize = 8;

    fn new_game(_rng: &mut Rng) -> Self {
        Self::default()
    }

    fn to_move(&self) -> Player {
        (self.moves % 2) as Player
    }

    fn legal_actions(&self, out: &mut ActionList) {
        out.clear();
        if self.over {
            return;
        }
        if let Some((a, b)) = self.pending_squares() {
            out.push(collapse_action(a));
            out.push(collapse_action(b));
            return;
        }
        let open: Vec<usize> = self.open_squares().collect();
        if open.len() == 1 {
            out.push(lone_action(open[0]));
            return;
        }
        for (i, &a) in open.iter().enumerate() {
            for &b in &open[i + 1..] {
                out.push(pair_action(a, b));
            }
        }
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "illegal action {action}");
        let k = action as usize;
        if k < PAIRS {
            let (a, b) = pair_squares(k);
            let closes_cycle = self.connected(a, b);
            self.moves += 1;
            self.spooky.push(Spooky { subscript: self.moves, a: a as u8, b: b as u8 });
            self.pending = closes_cycle;
        } else if k < LONE {
            self.collapse_into(k - COLLAPSE);
            self.pending = false;
            self.check_end();
        } else {
            self.moves += 1;
            self.classical[k - LONE] = self.moves;
            self.check_end();
        }
        self.hash = self.compute_hash();
    }

    fn is_terminal(&self) -> bool {
        self.over
    }

    fn scores(&self) -> [f32; NUM_PLAYERS] {
        let bonus = self.bonus();
        let base = match self.best_lines() {
            [None, None] => [10.0, 10.0],
            [Some(_), None] => [20.0, 0.0],
            [None, Some(_)] => [0.0, 20.0],
            [Some(x), Some(o)] => {
                if x < o {
                    [15.0, 5.0]
                } else {
                    [5.0, 15.0]
                }
            }
        };
        [base[0] + bonus[0] as f32, base[1] + bonus[1] as f32]
    }

    /// The score difference, scaled (both players keep their bonus, so the difference is what
    /// separates them in the ranking's sum of points).
    fn utilities(&self) -> [f32; NUM_PLAYERS] {
        let s = self.scores();
        let u = ((s[0] - s[1]) / SCORE_SCALE).clamp(-1.0, 1.0);
        [u, -u]
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn symmetric(&self, sym: usize) -> Self {
        let mut q = self.clone();
        for s in 0..SQUARES {
            q.classical[transform_square(sym, s)] = self.classical[s];
        }
        for m in q.spooky.iter_mut() {
            // Keep each mark's squares in order, as a played pair stores them.
            let (a, b) = (transform_square(sym, m.a as usize) as u8, transform_square(sym, m.b as usize) as u8);
            (m.a, m.b) = (a.min(b), a.max(b));
        }
        q.hash = q.compute_hash();
        q
    }

    fn map_action(sym: usize, action: Action) -> Action {
        let k = action as usize;
        if k < PAIRS {
            let (a, b) = pair_squares(k);
            pair_action(transform_square(sym, a), transform_square(sym, b))
        } else if k < LONE {
            collapse_action(transform_square(sym, k - COLLAPSE))
        } else {
            lone_action(transform_square(sym, k - LONE))
        }
    }

    /// Pairs as two letters (`AH`), a collapse as one letter (`C`), the last square as `PP`.
    fn format_action(action: Action) -> String {
        let letter = |s: usize| (b'A' + s as u8) as char;
        let k = action as usize;
        if k < PAIRS {
            let (a, b) = pair_squares(k);
            format!("{}{}", letter(a), letter(b))
        } else if k < LONE {
            letter(k - COLLAPSE).to_string()
        } else {
            format!("{0}{0}", letter(k - LONE))
        }
    }

    fn parse_action(text: &str) -> Result<Action, ParseActionError> {
        let err = || ParseActionError { text: text.to_string(), expected: "a square A..P, or two (AH, or PP for the last square)" };
        let square = |c: u8| (b'A'..=b'P').contains(&c).then(|| (c - b'A') as usize);
        match text.as_bytes() {
            [c] => square(*c).map(collapse_action).ok_or_else(err),
            [a, b] => match (square(*a), square(*b)) {
                (Some(a), Some(b)) if a == b => Ok(lone_action(a)),
                (Some(a), Some(b)) => Ok(pair_action(a, b)),
                _ => Err(err()),
            },
            _ => Err(err()),
        }
    }
}

/// Features, from the player to move: classical own / opponent marks (16 + 16), spooky marks
/// on each pair of squares, own / opponent (120 + 120), the pending move's squares (16), whether
/// a collapse is pending, and the move count / 16.
impl Encode for Qttt {
    const NUM_FEATURES: usize = 2 * SQUARES + 2 * PAIRS + SQUARES + 2;

    fn encode(&self, out: &mut [f32]) {
        let me = self.to_move();
        for s in 0..SQUARES {
            if let Some(p) = self.classical_owner(s) {
                out[if p == me { s } else { SQUARES + s }] = 1.0;
            }
        }
        for m in &self.spooky {
            let pair = pair_action(m.a as usize, m.b as usize) as usize;
            out[2 * SQUARES + if owner(m.subscript) == me { pair } else { PAIRS + pair }] = 1.0;
        }
        if let Some((a, b)) = self.pending_squares() {
            out[2 * SQUARES + 2 * PAIRS + a] = 1.0;
            out[2 * SQUARES + 2 * PAIRS + b] = 1.0;
            out[2 * SQUARES + 2 * PAIRS + SQUARES] = 1.0;
        }
        out[2 * SQUARES + 2 * PAIRS + SQUARES + 1] = self.moves as f32 / SQUARES as f32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::apply_texts;

    fn play(moves: &str) -> Qttt {
        let mut q = Qttt::new();
        apply_texts(&mut q, &moves.split_whitespace().collect::<Vec<_>>()).unwrap();
        q
    }

    fn letters(q: &Qttt) -> String {
        (0..SQUARES)
            .map(|s| match q.classical_owner(s) {
                Some(0) => 'X',
                Some(_) => 'O',
                None => '.',
            })
            .collect()
    }

    #[test]
    fn pair_indices_round_trip() {
        for k in 0..PAIRS {
            let (a, b) = pair_squares(k);
            assert!(a < b);
            assert_eq!(pair_action(a, b) as usize, k);
        }
        assert_eq!(Qttt::format_action(pair_action(0, 7)), "AH");
        assert_eq!(Qttt::parse_action("HA"), Ok(pair_action(0, 7)));
        assert_eq!(Qttt::parse_action("PP"), Ok(lone_action(15)));
        assert_eq!(Qttt::parse_action("C"), Ok(collapse_action(2)));
        for bad in ["Q", "AQ", "", "ABC", "a"] {
            assert!(Qttt::parse_action(bad).is_err(), "{bad}");
        }
    }

    /// The statement's figure 1: X1 (A,B), O2 (A,C), X3 (B,F), O4 (A,F) closes the cycle
    /// A-B-F; X chooses where O4 lands.
    #[test]
    fn figure_one_cycle_and_both_collapses() {
        let q = play("AB AC BF AF");
        assert!(q.collapse_pending());
        assert_eq!(q.to_move(), 0, "X, the opponent of the cycle closer, chooses");
        let mut list = ActionList::new();
        q.legal_actions(&mut list);
        assert_eq!(list.as_slice(), &[collapse_action(0), collapse_action(5)]);
        // O4 into A: A=O4, B=X1, C=O2, F=X3.
        let mut a = q.clone();
        a.apply(collapse_action(0));
        assert_eq!(&letters(&a)[..6], "OXO..X");
        assert_eq!((a.classical[0], a.classical[1], a.classical[2], a.classical[5]), (4, 1, 2, 3));
        // O4 into F: F=O4, B=X3, A=X1, C=O2.
        let mut f = q.clone();
        f.apply(collapse_action(5));
        assert_eq!(&letters(&f)[..6], "XXO..O");
        assert_eq!((f.classical[0], f.classical[1], f.classical[2], f.classical[5]), (1, 3, 2, 4));
        // After the collapse the same player (X) makes its move.
        assert_eq!(f.to_move(), 0);
        f.legal_actions(&mut list);
        assert!(list.iter().all(|&x| (x as usize) < PAIRS));
    }

    #[test]
    fn two_marks_on_the_same_pair_are_a_cycle() {
        let q = play("AB AB");
        assert!(q.collapse_pending());
        let mut x = q.clone();
        x.apply(collapse_action(1)); // O2 into B, so X1 into A
        assert_eq!(&letters(&x)[..2], "XO");
    }

    #[test]
    fn bonus_counts() {
        let mut q = Qttt::new();
        // X owns the top row and the square below A: runs of three in row A-D: 2; the 2x2 block
        // A,B,E,F is not complete (F empty).
        for (s, sub) in [(0, 1), (1, 3), (2, 5), (3, 7), (4, 9)] {
            q.classical[s] = sub;
        }
        assert_eq!(q.bonus(), [2, 0]);
        q.classical[5] = 11; // F: block A,B,E,F complete
        assert_eq!(q.bonus(), [2 + 2, 0]);
        // O owns the whole bottom-right 3x3: rows 3 runs, columns 3, 2 diagonals, 4 blocks.
        let mut o = Qttt::new();
        for s in [5, 6, 7, 9, 10, 11, 13, 14, 15] {
            o.classical[s] = 2;
        }
        assert_eq!(o.bonus(), [0, 3 + 3 + 2 + 4 * 2]);
        assert_eq!(runs_of_three().len(), 24);
    }

    #[test]
    fn double_four_in_a_row_goes_to_the_earlier_line() {
        let mut q = Qttt::new();
        // X: top row with subscripts 1,3,5,7 (latest 7); O: bottom row 2,4,6,16 (latest 16).
        for (s, sub) in [(0, 1), (1, 3), (2, 5), (3, 7), (12, 2), (13, 4), (14, 6), (15, 16)] {
            q.classical[s] = sub;
        }
        let bonus = q.bonus();
        assert_eq!(bonus, [2, 2]);
        assert_eq!(q.scores(), [15.0 + 2.0, 5.0 + 2.0]);
        // Make X's line the later one: O wins the tiebreak.
        q.classical[3] = 15;
        q.classical[15] = 8;
        assert_eq!(q.scores(), [5.0 + 2.0, 15.0 + 2.0]);
        // A single four-line: 20 / 0.
        q.classical[15] = 0;
        assert_eq!(q.scores(), [20.0 + 2.0, 0.0 + 1.0]);
    }

    #[test]
    fn the_last_square_takes_both_marks_of_the_mover() {
        // Fill 15 squares classically without any line, O to move at turn 16, P left.
        let mut q = Qttt::new();
        let owners = "XOXOOXOXXOXOOXO"; // no four in a line
        for (s, ch) in owners.chars().enumerate() {
            let sub = if ch == 'X' { 2 * s as u8 + 1 } else { 2 * s as u8 + 2 };
            q.classical[s] = sub.min(16);
        }
        q.moves = 15;
        let mut list = ActionList::new();
        q.legal_actions(&mut list);
        assert_eq!(list.as_slice(), &[lone_action(15)]);
        assert_eq!(q.to_move(), 1, "it is O");
        q.apply(lone_action(15));
        assert!(q.is_terminal());
        assert_eq!(q.classical_owner(15), Some(1));
    }

    #[test]
    fn symmetric_states_replay_consistently() {
        let q = play("AB AC BF AF");
        for sym in 0..8 {
            let mut t = q.symmetric(sym);
            let mut u = q.clone();
            t.apply(Qttt::map_action(sym, collapse_action(0)));
            u.apply(collapse_action(0));
            assert_eq!(t, u.symmetric(sym));
        }
    }
}
