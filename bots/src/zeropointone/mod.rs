//! Zero Point One ("0.1"), CodeCup 2026: 8x8 leapers with drops; rules, notation, the
//! setup, symmetries and features as `docs/rules/zeropointone.md` tells them. Taking the enemy
//! wazir wins (21 to 1); after 102 moves, both setups counted, the game is drawn (11 each).
//!
//! Actions (1,797): a move `24 * from + leap` ([`DIRS`]; the piece on `from` says which apply),
//! a drop `1536 + 64 * (kind - 1) + square`, a setup placement `1792 + kind` on the mover's next
//! setup square (a1..a8, b1..b8 for Red). Squares are `8 * row + column`, row `a` = 0. Text:
//! `b5d3`, `Df8`, `W`; the protocol writes a setup as one word, in the mover's letter case
//! ([`Game::turn_text`]). During the setup a state carries the symmetry its setup squares are
//! seen through (`frame`), so a turned setup is a setup too.

pub mod classic;
pub mod evaluation;
pub mod protocol;
pub mod referee;
pub mod training;
pub mod view;

use crate::encode::Encode;
use crate::game::{set_bits, square_symmetry, Action, ActionList, Game, ParseActionError, Player, NUM_PLAYERS};
use crate::rng::{zobrist_keys, Rng};

pub const SQUARES: usize = 64;
/// Wazir, ferz, dabbaba, knight, alfil: the index of a kind.
pub const KINDS: usize = 5;
pub const WAZIR: usize = 0;
pub const LETTERS: [u8; KINDS] = *b"WFDNA";
/// How many of each kind a side sets up.
pub const SETUP_COUNTS: [u8; KINDS] = [1, 2, 4, 1, 8];
pub const SETUP_PIECES: usize = 16;
/// The game is drawn after this many moves, both setups counted.
pub const MAX_MOVES: u8 = 102;
pub const WIN_POINTS: f32 = 21.0;
pub const DRAW_POINTS: f32 = 11.0;
pub const LOSS_POINTS: f32 = 1.0;

/// Every leap, grouped by kind ([`KIND_DIRS`]): (rows, columns).
pub const DIRS: [(i8, i8); 24] = [
    (1, 0), (0, 1), (-1, 0), (0, -1),
    (1, 1), (1, -1), (-1, 1), (-1, -1),
    (2, 0), (0, 2), (-2, 0), (0, -2),
    (1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1),
    (2, 2), (2, -2), (-2, 2), (-2, -2),
];
/// The leaps of each kind: a range of [`DIRS`].
pub const KIND_DIRS: [(usize, usize); KINDS] = [(0, 4), (4, 8), (8, 12), (12, 20), (20, 24)];
const MOVE_ACTIONS: usize = SQUARES * 24;
const DROP_BASE: usize = MOVE_ACTIONS;
const PLACE_BASE: usize = DROP_BASE + 4 * SQUARES;
const NO_SQUARE: u8 = 255;
const NO_WINNER: u8 = 2;

/// The square a leap from each square lands on, or [`NO_SQUARE`] off the board.
static DEST: [[u8; 24]; SQUARES] = {
    let mut table = [[NO_SQUARE; 24]; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let mut d = 0;
        while d < 24 {
            let (r, c) = ((sq / 8) as i8 + DIRS[d].0, (sq % 8) as i8 + DIRS[d].1);
            if r >= 0 && r < 8 && c >= 0 && c < 8 {
                table[sq][d] = (8 * r + c) as u8;
            }
            d += 1;
        }
        sq += 1;
    }
    table
};

/// The squares a piece of each kind on each square attacks.
pub static ATTACKS: [[u64; SQUARES]; KINDS] = {
    let mut table = [[0u64; SQUARES]; KINDS];
    let mut kind = 0;
    while kind < KINDS {
        let mut sq = 0;
        while sq < SQUARES {
            let mut d = KIND_DIRS[kind].0;
            while d < KIND_DIRS[kind].1 {
                if DEST[sq][d] != NO_SQUARE {
                    table[kind][sq] |= 1u64 << DEST[sq][d];
                }
                d += 1;
            }
            sq += 1;
        }
        kind += 1;
    }
    table
};

/// A square under symmetry `sym`.
#[inline]
pub fn turn_square(sym: usize, sq: usize) -> usize {
    let (r, c) = square_symmetry(sym, sq / 8, sq % 8, 8);
    8 * r + c
}

/// The leap a leap `d` becomes under symmetry `sym` (a kind's leaps map among themselves).
fn turn_dir(sym: usize, d: usize) -> usize {
    let (r0, c0) = square_symmetry(sym, 3, 3, 8);
    let (r1, c1) = square_symmetry(sym, (3 + DIRS[d].0) as usize, (3 + DIRS[d].1) as usize, 8);
    let turned = (r1 as i8 - r0 as i8, c1 as i8 - c0 as i8);
    DIRS.iter().position(|&x| x == turned).expect("a symmetry maps leaps to leaps")
}

/// The symmetry `a` after `b`: square (0, 1) tells all eight apart.
fn compose(a: usize, b: usize) -> usize {
    let target = turn_square(a, turn_square(b, 1));
    (0..8).find(|&c| turn_square(c, 1) == target).expect("the symmetries form a group")
}

/// Zobrist keys: a piece of each side and kind on each square; each side's hand count of each
/// kind (0..=16); the move count; the setup frame.
static KEYS: [u64; 2 * KINDS * SQUARES + 2 * KINDS * 17 + 103 + 8] = zobrist_keys(0x0000_2026_0000_0D01);
const HAND_KEYS: usize = 2 * KINDS * SQUARES;
const MOVE_KEYS: usize = HAND_KEYS + 2 * KINDS * 17;
const FRAME_KEYS: usize = MOVE_KEYS + 103;

#[inline]
fn piece_key(side: usize, kind: usize, sq: usize) -> u64 {
    KEYS[(side * KINDS + kind) * SQUARES + sq]
}

#[inline]
fn hand_key(side: usize, kind: usize, count: u8) -> u64 {
    KEYS[HAND_KEYS + (side * KINDS + kind) * 17 + count as usize]
}

/// What an action does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Play {
    Move { from: usize, to: usize },
    Drop { kind: usize, to: usize },
    Place { kind: usize },
}

pub fn decode(action: Action) -> Play {
    let a = action as usize;
    if a < DROP_BASE {
        Play::Move { from: a / 24, to: DEST[a / 24][a % 24] as usize }
    } else if a < PLACE_BASE {
        Play::Drop { kind: 1 + (a - DROP_BASE) / SQUARES, to: (a - DROP_BASE) % SQUARES }
    } else {
        Play::Place { kind: a - PLACE_BASE }
    }
}

pub fn drop_action(kind: usize, to: usize) -> Action {
    (DROP_BASE + (kind - 1) * SQUARES + to) as Action
}

pub fn place_action(kind: usize) -> Action {
    (PLACE_BASE + kind) as Action
}

/// The move action from `from` to `to`, if some leap joins them.
pub fn move_action(from: usize, to: usize) -> Option<Action> {
    (0..24).find(|&d| DEST[from][d] as usize == to).map(|d| (24 * from + d) as Action)
}

pub fn square_text(sq: usize) -> String {
    format!("{}{}", (b'a' + (sq / 8) as u8) as char, sq % 8 + 1)
}

fn read_square(text: &[u8]) -> Option<usize> {
    match text {
        [r @ b'a'..=b'h', c @ b'1'..=b'8'] => Some(8 * (r - b'a') as usize + (c - b'1') as usize),
        _ => None,
    }
}

fn kind_of_letter(letter: u8) -> Option<usize> {
    LETTERS.iter().position(|&l| l == letter.to_ascii_uppercase())
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZeroPointOne {
    /// Each side's pieces.
    side: [u64; NUM_PLAYERS],
    /// The pieces of each kind, both sides.
    kind: [u64; KINDS],
    /// Each side's pieces in hand; during the setup, the pieces still to place.
    hand: [[u8; KINDS]; NUM_PLAYERS],
    /// Moves made, each setup counted as one.
    moves: u8,
    /// Setup placements made (0..=32).
    placed: u8,
    /// The symmetry the setup squares are seen through (0 once the setup is over).
    frame: u8,
    winner: u8,
    hash: u64,
}

impl ZeroPointOne {
    pub fn new() -> Self {
        let mut s = ZeroPointOne { side: [0; 2], kind: [0; KINDS], hand: [SETUP_COUNTS; 2], moves: 0, placed: 0, frame: 0, winner: NO_WINNER, hash: 0 };
        s.hash = s.hash_from_scratch();
        s
    }

    pub fn in_setup(&self) -> bool {
        (self.placed as usize) < 2 * SETUP_PIECES
    }

    /// Setup placements made, both sides (0..=32).
    pub fn placed(&self) -> usize {
        self.placed as usize
    }

    /// Moves made, both setups counted.
    pub fn moves(&self) -> usize {
        self.moves as usize
    }

    pub fn side(&self, player: Player) -> u64 {
        self.side[player]
    }

    pub fn pieces(&self, player: Player, kind: usize) -> u64 {
        self.side[player] & self.kind[kind]
    }

    pub fn hand(&self, player: Player) -> [u8; KINDS] {
        self.hand[player]
    }

    /// The side and kind of the piece on `sq`, if any.
    pub fn piece_at(&self, sq: usize) -> Option<(Player, usize)> {
        let bit = 1u64 << sq;
        let side = if self.side[0] & bit != 0 { 0 } else if self.side[1] & bit != 0 { 1 } else { return None };
        Some((side, (0..KINDS).find(|&k| self.kind[k] & bit != 0).expect("a piece has a kind")))
    }

    /// The winner once a wazir is taken, or the loser's opponent when the mover cannot move.
    pub fn winner(&self) -> Option<Player> {
        if self.winner != NO_WINNER {
            Some(self.winner as Player)
        } else if self.moves < MAX_MOVES && !self.in_setup() && !self.can_act() {
            Some(1 - self.to_move())
        } else {
            None
        }
    }

    /// The squares `player`'s pieces attack.
    pub fn attacks(&self, player: Player) -> u64 {
        let mut all = 0;
        for k in 0..KINDS {
            for sq in set_bits(self.pieces(player, k)) {
                all |= ATTACKS[k][sq];
            }
        }
        all
    }

    /// The square the next setup placement goes to.
    pub fn setup_square(&self) -> usize {
        self.setup_square_at(self.placed as usize)
    }

    /// The square setup placement `i` (0..32) goes to.
    pub fn setup_square_at(&self, i: usize) -> usize {
        let canonical = if i < SETUP_PIECES { i } else { 48 + i - SETUP_PIECES };
        turn_square(self.frame as usize, canonical)
    }

    fn can_act(&self) -> bool {
        let me = self.to_move();
        if self.hand[me].iter().any(|&n| n > 0) {
            return true;
        }
        (0..KINDS).any(|k| set_bits(self.pieces(me, k)).any(|sq| ATTACKS[k][sq] & !self.side[me] != 0))
    }

    fn put(&mut self, side: usize, kind: usize, sq: usize) {
        self.side[side] |= 1 << sq;
        self.kind[kind] |= 1 << sq;
        self.hash ^= piece_key(side, kind, sq);
    }

    fn lift(&mut self, side: usize, kind: usize, sq: usize) {
        self.side[side] &= !(1 << sq);
        self.kind[kind] &= !(1 << sq);
        self.hash ^= piece_key(side, kind, sq);
    }

    fn add_to_hand(&mut self, side: usize, kind: usize, delta: i8) {
        self.hash ^= hand_key(side, kind, self.hand[side][kind]);
        self.hand[side][kind] = (self.hand[side][kind] as i8 + delta) as u8;
        self.hash ^= hand_key(side, kind, self.hand[side][kind]);
    }

    fn count_move(&mut self) {
        self.hash ^= KEYS[MOVE_KEYS + self.moves as usize];
        self.moves += 1;
        self.hash ^= KEYS[MOVE_KEYS + self.moves as usize];
    }

    pub fn hash_from_scratch(&self) -> u64 {
        let mut h = KEYS[MOVE_KEYS + self.moves as usize];
        if self.in_setup() {
            h ^= KEYS[FRAME_KEYS + self.frame as usize];
        }
        for sq in 0..SQUARES {
            if let Some((side, kind)) = self.piece_at(sq) {
                h ^= piece_key(side, kind, sq);
            }
        }
        for side in 0..2 {
            for kind in 0..KINDS {
                h ^= hand_key(side, kind, self.hand[side][kind]);
            }
        }
        h
    }

    /// A turn's text as `mover` writes it: Blue's letters in lower case.
    pub fn text_of_turn(&self, mover: Player, actions: &[Action]) -> String {
        let text: String = actions.iter().map(|&a| Self::format_action(a)).collect();
        if mover == 1 { text.to_lowercase() } else { text }
    }

    /// The position after two setups (16 letters each, Red's upper case, Blue's lower).
    pub fn from_setups(red: &str, blue: &str) -> Result<Self, String> {
        let mut s = ZeroPointOne::new();
        for line in [red, blue] {
            for a in s.parse_turn(line).map_err(|e| e.to_string())? {
                if !s.is_legal(a) {
                    return Err(format!("setup {line:?} does not hold exactly W1 F2 D4 N1 A8"));
                }
                s.apply(a);
            }
        }
        Ok(s)
    }
}

impl Game for ZeroPointOne {
    const NAME: &'static str = "zeropointone";
    const NUM_ACTIONS: usize = PLACE_BASE + KINDS;
    const MAX_GAME_LENGTH: usize = 2 * SETUP_PIECES + MAX_MOVES as usize - 2;
    const NUM_SYMMETRIES: usize = 8;

    fn new_game(_rng: &mut Rng) -> Self {
        Self::new()
    }

    fn to_move(&self) -> Player {
        (self.moves % 2) as Player
    }

    fn legal_actions(&self, out: &mut ActionList) {
        out.clear();
        if self.is_terminal() {
            return;
        }
        let me = self.to_move();
        if self.in_setup() {
            for k in (0..KINDS).filter(|&k| self.hand[me][k] > 0) {
                out.push(place_action(k));
            }
            return;
        }
        let own = self.side[me];
        for k in 0..KINDS {
            let (first, last) = KIND_DIRS[k];
            for from in set_bits(self.pieces(me, k)) {
                for d in first..last {
                    let to = DEST[from][d];
                    if to != NO_SQUARE && own >> to & 1 == 0 {
                        out.push((24 * from + d) as Action);
                    }
                }
            }
        }
        let empty = !(self.side[0] | self.side[1]);
        for k in (1..KINDS).filter(|&k| self.hand[me][k] > 0) {
            for to in set_bits(empty) {
                out.push(drop_action(k, to));
            }
        }
    }

    /// Taking the enemy wazir wins: where the mover can, that move alone (a search then sees
    /// a hanging wazir at its first visit to the reply).
    fn search_actions(&self, out: &mut ActionList) {
        let me = self.to_move();
        let wazir = self.pieces(1 - me, WAZIR);
        if self.in_setup() || self.is_terminal() || self.attacks(me) & wazir == 0 {
            return self.legal_actions(out);
        }
        let to = wazir.trailing_zeros() as usize;
        let from = (0..SQUARES).find(|&sq| self.piece_at(sq).map_or(false, |(side, k)| side == me && ATTACKS[k][sq] >> to & 1 != 0)).expect("an attacker");
        out.clear();
        out.push(move_action(from, to).expect("a leap joins them"));
    }

    fn is_legal(&self, action: Action) -> bool {
        if action as usize >= Self::NUM_ACTIONS || self.is_terminal() {
            return false;
        }
        let me = self.to_move();
        match (decode(action), self.in_setup()) {
            (Play::Place { kind }, true) => self.hand[me][kind] > 0,
            (Play::Move { from, to }, false) => {
                to != NO_SQUARE as usize && self.side[me] >> to & 1 == 0 && self.piece_at(from).map_or(false, |(side, kind)| side == me && (KIND_DIRS[kind].0..KIND_DIRS[kind].1).contains(&(action as usize % 24)))
            }
            (Play::Drop { kind, to }, false) => self.hand[me][kind] > 0 && (self.side[0] | self.side[1]) >> to & 1 == 0,
            _ => false,
        }
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "{} is not legal", Self::format_action(action));
        let me = self.to_move();
        match decode(action) {
            Play::Place { kind } => {
                let sq = self.setup_square();
                self.put(me, kind, sq);
                self.add_to_hand(me, kind, -1);
                self.placed += 1;
                if self.placed as usize % SETUP_PIECES == 0 {
                    self.count_move();
                }
                if !self.in_setup() {
                    // Play does not depend on the orientation the setup was made in.
                    self.hash ^= KEYS[FRAME_KEYS + self.frame as usize];
                    self.frame = 0;
                }
            }
            Play::Drop { kind, to } => {
                self.put(me, kind, to);
                self.add_to_hand(me, kind, -1);
                self.count_move();
            }
            Play::Move { from, to } => {
                let kind = (0..KINDS).find(|&k| self.kind[k] >> from & 1 != 0).expect("a piece moves");
                if let Some((_, taken)) = self.piece_at(to) {
                    self.lift(1 - me, taken, to);
                    if taken == WAZIR {
                        self.winner = me as u8;
                    } else {
                        self.add_to_hand(me, taken, 1);
                    }
                }
                self.lift(me, kind, from);
                self.put(me, kind, to);
                self.count_move();
            }
        }
    }

    fn is_terminal(&self) -> bool {
        self.winner != NO_WINNER || self.moves >= MAX_MOVES || (!self.in_setup() && !self.can_act())
    }

    fn scores(&self) -> [f32; NUM_PLAYERS] {
        match self.winner() {
            Some(p) => std::array::from_fn(|seat| if seat == p { WIN_POINTS } else { LOSS_POINTS }),
            None => [DRAW_POINTS; NUM_PLAYERS],
        }
    }

    fn utilities(&self) -> [f32; NUM_PLAYERS] {
        self.scores().map(|s| (s - DRAW_POINTS) / (WIN_POINTS - DRAW_POINTS))
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn symmetric(&self, sym: usize) -> Self {
        let mut s = ZeroPointOne { side: [0; 2], kind: [0; KINDS], ..self.clone() };
        for sq in 0..SQUARES {
            if let Some((side, kind)) = self.piece_at(sq) {
                let to = turn_square(sym, sq);
                s.side[side] |= 1 << to;
                s.kind[kind] |= 1 << to;
            }
        }
        if self.in_setup() {
            s.frame = compose(sym, self.frame as usize) as u8;
        }
        s.hash = s.hash_from_scratch();
        s
    }

    fn map_action(sym: usize, action: Action) -> Action {
        let a = action as usize;
        match decode(action) {
            Play::Move { from, .. } => (24 * turn_square(sym, from) + turn_dir(sym, a % 24)) as Action,
            Play::Drop { kind, to } => drop_action(kind, turn_square(sym, to)),
            Play::Place { .. } => action,
        }
    }

    /// `b5d3`, a drop `Df8` and a placement `W` (upper case: the mover's case is the
    /// protocol's, [`Game::turn_text`]).
    fn format_action(action: Action) -> String {
        match decode(action) {
            Play::Move { from, to } if to != NO_SQUARE as usize => format!("{}{}", square_text(from), square_text(to)),
            Play::Move { from, .. } => format!("{}?{}", square_text(from), action % 24),
            Play::Drop { kind, to } => format!("{}{}", LETTERS[kind] as char, square_text(to)),
            Play::Place { kind } => (LETTERS[kind] as char).to_string(),
        }
    }

    /// Either letter case.
    fn parse_action(text: &str) -> Result<Action, ParseActionError> {
        let bytes = text.as_bytes();
        let parsed = match bytes.len() {
            1 => kind_of_letter(bytes[0]).map(place_action),
            3 => kind_of_letter(bytes[0]).filter(|&k| k != WAZIR).zip(read_square(&bytes[1..])).map(|(k, to)| drop_action(k, to)),
            4 => read_square(&bytes[..2]).zip(read_square(&bytes[2..])).and_then(|(from, to)| move_action(from, to)),
            _ => None,
        };
        parsed.ok_or_else(|| ParseActionError { text: text.to_string(), expected: "a move (b5d3: a leap of 1 or 2 squares, or a knight's), a drop (Df8: F, D, N or A), or a setup letter (W, F, D, N, A)" })
    }

    /// A setup is one line of sixteen letters; drops and setups are written in the mover's
    /// case (Red upper, Blue lower).
    fn turn_text(&self, actions: &[Action]) -> String {
        self.text_of_turn(self.to_move(), actions)
    }

    fn parse_turn(&self, text: &str) -> Result<Vec<Action>, ParseActionError> {
        let me = self.to_move();
        let case_ok = |b: &u8| if me == 0 { b.is_ascii_uppercase() } else { b.is_ascii_lowercase() };
        let wrong_case = || ParseActionError { text: text.to_string(), expected: if me == 0 { "Red's letters in upper case" } else { "Blue's letters in lower case" } };
        if self.in_setup() {
            if text.len() != SETUP_PIECES || !text.bytes().all(|b| kind_of_letter(b).is_some()) {
                return Err(ParseActionError { text: text.to_string(), expected: "a setup of 16 letters: W once, F twice, D 4 times, N once, A 8 times" });
            }
            if !text.as_bytes().iter().all(case_ok) {
                return Err(wrong_case());
            }
            return Ok(text.bytes().map(|b| place_action(kind_of_letter(b).expect("checked"))).collect());
        }
        let action = Self::parse_action(text)?;
        if matches!(decode(action), Play::Place { .. }) {
            return Err(ParseActionError { text: text.to_string(), expected: "a move or a drop: the setup is over" });
        }
        if matches!(decode(action), Play::Drop { .. }) && !case_ok(&text.as_bytes()[0]) {
            return Err(wrong_case());
        }
        Ok(vec![action])
    }
}

/// Feature planes per square, from the mover's side: own pieces by kind, the opponent's by
/// kind, squares each side attacks, and the next setup square.
const PLANES: usize = 2 * KINDS + 3;
/// Per side and droppable kind, hand counts as a thermometer up to this many.
const HAND_STEPS: usize = 4;

impl Encode for ZeroPointOne {
    /// 13 planes of 64, both hands (2 x 4 kinds x 4 steps), setup or not, and the moves left
    /// before the draw in tenths of the game.
    const NUM_FEATURES: usize = PLANES * SQUARES + 2 * 4 * HAND_STEPS + 2 + 10;

    fn encode(&self, out: &mut [f32]) {
        let me = self.to_move();
        for (i, &side) in [me, 1 - me].iter().enumerate() {
            for k in 0..KINDS {
                for sq in set_bits(self.pieces(side, k)) {
                    out[(i * KINDS + k) * SQUARES + sq] = 1.0;
                }
            }
            for sq in set_bits(self.attacks(side)) {
                out[(2 * KINDS + i) * SQUARES + sq] = 1.0;
            }
            for k in 1..KINDS {
                for step in 0..(self.hand[side][k] as usize).min(HAND_STEPS) {
                    out[PLANES * SQUARES + (i * 4 + k - 1) * HAND_STEPS + step] = 1.0;
                }
            }
        }
        let tail = PLANES * SQUARES + 2 * 4 * HAND_STEPS;
        if self.in_setup() {
            out[(2 * KINDS + 2) * SQUARES + self.setup_square()] = 1.0;
            out[tail] = 1.0;
        } else {
            out[tail + 1] = 1.0;
        }
        let left = (MAX_MOVES - self.moves.min(MAX_MOVES)) as usize;
        for step in 0..(left / 10).min(10) {
            out[tail + 2 + step] = 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT_SETUPS: (&str, &str) = ("WNFFDDDDAAAAAAAA", "wnffddddaaaaaaaa");

    #[test]
    fn setups_fill_the_home_rows_in_order() {
        let s = ZeroPointOne::from_setups(DEFAULT_SETUPS.0, DEFAULT_SETUPS.1).unwrap();
        let at = |t: &str| s.piece_at(read_square(t.as_bytes()).unwrap());
        assert_eq!(at("a1"), Some((0, WAZIR)));
        assert_eq!(at("a2"), Some((0, 3)));
        assert_eq!(at("a4"), Some((0, 1)));
        assert_eq!(at("b8"), Some((0, 4)));
        assert_eq!(at("g1"), Some((1, WAZIR)));
        assert_eq!(at("h8"), Some((1, 4)));
        assert_eq!(s.moves(), 2);
        assert_eq!(s.to_move(), 0);
        assert_eq!(s.hand(0), [0; KINDS]);
        assert!(ZeroPointOne::from_setups("WWFFDDDDAAAAAAAA", DEFAULT_SETUPS.1).is_err());
        assert!(ZeroPointOne::from_setups(DEFAULT_SETUPS.1, DEFAULT_SETUPS.1).is_err(), "Red writes upper case");
    }

    fn play(s: &mut ZeroPointOne, moves: &str) {
        for text in moves.split(' ') {
            let a = ZeroPointOne::parse_action(text).unwrap();
            assert!(s.is_legal(a), "{text}");
            s.apply(a);
        }
    }

    #[test]
    fn a_capture_goes_to_hand_and_the_wazir_ends_the_game() {
        let mut s = ZeroPointOne::from_setups(DEFAULT_SETUPS.0, DEFAULT_SETUPS.1).unwrap();
        play(&mut s, "b1d3 h3f5 d3f5");
        assert_eq!(s.hand(0), [0, 0, 0, 0, 1], "the alfil taken on f5 is Red's");
        assert_eq!(s.piece_at(44), Some((0, 4)), "on f5");
        assert!(s.is_legal(drop_action(4, 27)) == false, "Blue to move, and its hand is empty");
        play(&mut s, "h8f6 a2c3 f6d4 c3e2 d4b2");
        assert!(!s.is_terminal());
        let mut search = ActionList::new();
        s.search_actions(&mut search);
        assert_eq!(search.as_slice(), [ZeroPointOne::parse_action("e2g1").unwrap()], "taking the wazir is the only move searched");
        play(&mut s, "e2g1");
        assert!(s.is_terminal());
        assert_eq!(s.scores(), [WIN_POINTS, LOSS_POINTS]);
        assert_eq!(s.utilities(), [1.0, -1.0]);
        assert_eq!(s.hand(0)[WAZIR], 0, "a taken wazir goes to no hand");
    }

    #[test]
    fn notation_round_trips_and_cases_follow_the_mover() {
        for a in 0..ZeroPointOne::NUM_ACTIONS as Action {
            if matches!(decode(a), Play::Move { to, .. } if to == NO_SQUARE as usize) {
                continue;
            }
            assert_eq!(ZeroPointOne::parse_action(&ZeroPointOne::format_action(a)), Ok(a));
        }
        let s = ZeroPointOne::from_setups(DEFAULT_SETUPS.0, DEFAULT_SETUPS.1).unwrap();
        assert!(s.parse_turn("df8").is_err(), "Red drops in upper case");
        assert!(ZeroPointOne::parse_action("Wd4").is_err(), "no wazir is dropped");
        assert!(ZeroPointOne::parse_action("a1a4").is_err(), "no leap of three");
        assert!(ZeroPointOne::parse_action("i1a1").is_err());
        let mut blue = s.clone();
        blue.apply(ZeroPointOne::parse_action("b1c2").unwrap());
        assert_eq!(blue.turn_text(&[drop_action(4, 27)]), "ad4");
        assert_eq!(blue.parse_turn("ad4"), Ok(vec![drop_action(4, 27)]));
        assert_eq!(ZeroPointOne::new().turn_text(&[place_action(0), place_action(4)]), "WA");
    }

    #[test]
    fn symmetries_turn_setups_and_leaps_alike() {
        let mut s = ZeroPointOne::new();
        for (i, b) in "AWAAAAAADFFDDDAN".bytes().enumerate() {
            if i == 5 {
                // Half-way through Red's setup, a turned position goes on turned.
                for sym in 0..8 {
                    let mut t = s.symmetric(sym);
                    let mut u = s.clone();
                    let a = place_action(kind_of_letter(b).unwrap());
                    t.apply(ZeroPointOne::map_action(sym, a));
                    u.apply(a);
                    assert_eq!(t, u.symmetric(sym));
                }
            }
            s.apply(place_action(kind_of_letter(b).unwrap()));
        }
        assert_eq!(compose(1, 3), 0);
        assert_eq!(compose(1, 1), 2);
        for sym in 0..8 {
            for d in 0..24 {
                let t = turn_dir(sym, d);
                assert_eq!(KIND_DIRS.iter().position(|r| (r.0..r.1).contains(&d)), KIND_DIRS.iter().position(|r| (r.0..r.1).contains(&t)));
            }
        }
    }
}
