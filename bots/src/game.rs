//! The one rules-only trait every game implements.
//!
//! # Adding a game
//!
//! A game is a `Clone` value holding one position plus whatever history the rules need
//! (turn number, pieces already used, the best score reached so far). Implement [`Game`]:
//!
//! 1. **Actions are small integers.** Give every decision a player can ever take an index in
//!    `0..NUM_ACTIONS`; that range is also the width of the policy head. Decisions that the
//!    contest sends as one protocol line but that are really two choices (quantum tic-tac-toe's
//!    "collapse, then move") become two actions in a row by the same player: the trait never
//!    assumes players alternate. [`Game::to_move`] is asked at every node.
//! 2. **Legal actions** go into a caller-owned [`ActionList`] (fixed capacity, no allocation).
//!    A non-terminal position must have at least one legal action; a game whose rules say
//!    "no legal move ends the game" must report [`Game::is_terminal`] there instead.
//! 3. **`apply`** may assume the action is legal (it is only checked by `debug_assert!`).
//!    Untrusted input goes through [`Game::parse_action`] and [`Game::is_legal`] first.
//! 4. **Scores.** At a terminal position [`Game::scores`] gives the contest's own points for
//!    each player (10/5/0, 75±(R−B), the shared 6561 sum, 20/15/10/5 plus bonuses), and
//!    [`Game::utilities`] maps them to what each player maximises, in `[-1, 1]`. Zero-sum games
//!    give opposite utilities, cooperative games the same utility to both, margin games a
//!    scaled margin. Search never flips signs: it backs up both utilities and lets each node's
//!    mover pick by its own component, so all these kinds of game need no special case.
//!    A utility of exactly `1.0` means "nothing can be better for this player": the search
//!    solver uses it to stop looking at siblings of a proven win.
//! 5. **Hash.** A 64-bit key of the whole state that decides future play (Zobrist, updated
//!    incrementally); two states with equal hashes are treated as the same position.
//! 6. **Symmetries.** `NUM_SYMMETRIES` transforms, index 0 the identity. [`Game::symmetric`]
//!    transforms the state, [`Game::map_action`] the action indices, consistently: playing
//!    `map_action(s, a)` in `symmetric(s)` gives `symmetric(s)` of the position after `a`.
//! 7. **Text.** [`Game::format_action`]/[`Game::parse_action`] are the canonical notation of a
//!    single action (the protocol codec of each game builds its lines from them).
//!
//! Then add the perft counts of the start position to `bots/tests/data/<game>.perft` and run
//! the generic invariant tests over random playouts (see `bots/tests/`; `tools::perft`).

use crate::rng::Rng;
use std::fmt;

/// An action index in `0..G::NUM_ACTIONS`.
pub type Action = u16;
/// A seat: 0 or 1. Every game here has two players, possibly moving several times in a row.
pub type Player = usize;
/// Every game in this crate has exactly two seats.
pub const NUM_PLAYERS: usize = 2;

/// Largest number of legal actions in any position of any game here
/// (Black Hole: 31 free fields x 15 stone values at most = 465).
pub const ACTION_LIST_CAPACITY: usize = 512;

/// A fixed-capacity list of actions; lives on the stack and never allocates.
#[derive(Clone)]
pub struct ActionList {
    len: usize,
    items: [Action; ACTION_LIST_CAPACITY],
}

impl ActionList {
    pub const fn new() -> Self {
        ActionList { len: 0, items: [0; ACTION_LIST_CAPACITY] }
    }
    /// Appends an action. Exceeding the capacity is a bug in a game's rules engine.
    #[inline]
    pub fn push(&mut self, a: Action) {
        assert!(self.len < ACTION_LIST_CAPACITY, "ActionList capacity exceeded");
        self.items[self.len] = a;
        self.len += 1;
    }
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn as_slice(&self) -> &[Action] {
        &self.items[..self.len]
    }
    pub fn contains(&self, a: Action) -> bool {
        self.as_slice().contains(&a)
    }
}

impl Default for ActionList {
    fn default() -> Self {
        Self::new()
    }
}

impl std::ops::Deref for ActionList {
    type Target = [Action];
    fn deref(&self) -> &[Action] {
        self.as_slice()
    }
}

/// The eight symmetries of a square grid of side `n`, as maps of `(row, col)`: 0 the identity,
/// 1-3 the quarter turns, 4-7 the reflections. Every game on a square grid uses this order.
pub const fn square_symmetry(sym: usize, row: usize, col: usize, n: usize) -> (usize, usize) {
    let m = n - 1;
    match sym {
        0 => (row, col),
        1 => (col, m - row),
        2 => (m - row, m - col),
        3 => (m - col, row),
        4 => (row, m - col),
        5 => (m - row, col),
        6 => (col, row),
        _ => (m - col, m - row),
    }
}

/// The set bits of `mask`, lowest first: the squares of a bitboard.
#[inline]
pub fn set_bits(mask: u64) -> impl Iterator<Item = usize> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        let bit = (rest != 0).then(|| rest.trailing_zeros() as usize);
        rest &= rest.wrapping_sub(1);
        bit
    })
}

/// Why a piece of action text was not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseActionError {
    pub text: String,
    pub expected: &'static str,
}

impl fmt::Display for ParseActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read action {:?}: expected {}", self.text, self.expected)
    }
}

impl std::error::Error for ParseActionError {}

/// Rules of a two-seat game with a fixed action space. See the module documentation.
pub trait Game: Clone + Send + Sync + 'static {
    /// Short lowercase id used on the command line and in files, e.g. `"connect4"`.
    const NAME: &'static str;
    /// Number of action indices; the policy head has this many outputs.
    const NUM_ACTIONS: usize;
    /// No game lasts more actions than this (a hard bound, used by tests and buffers).
    const MAX_GAME_LENGTH: usize;
    /// Size of the symmetry group; transform 0 is the identity.
    const NUM_SYMMETRIES: usize;
    /// Every finished game has a winner and a loser (utilities +1 and -1, no draw, no margin),
    /// so an exact win/loss search ([`crate::solver`]) can settle its endgames.
    const WIN_OR_LOSS: bool = false;

    /// The start of a new game. Games with a random setup draw it from `rng`; others ignore it.
    fn new_game(rng: &mut Rng) -> Self;
    /// The seat that takes the next action (meaningless at a terminal state).
    fn to_move(&self) -> Player;
    /// Writes the legal actions into `out` (cleared first). Empty exactly when terminal.
    fn legal_actions(&self, out: &mut ActionList);
    /// Plays a legal action.
    fn apply(&mut self, action: Action);
    /// True once the game is over.
    fn is_terminal(&self) -> bool;
    /// The contest's points for each seat; only meaningful at a terminal state.
    fn scores(&self) -> [f32; NUM_PLAYERS];
    /// What each seat maximises, in `[-1, 1]`; only meaningful at a terminal state.
    fn utilities(&self) -> [f32; NUM_PLAYERS];
    /// The utilities already fixed under best play by both sides: at the end, and wherever a
    /// rule fixes them before it (Black Hole's filling phase); `None` while the game is open.
    /// The search treats such a position as solved: it is neither evaluated nor expanded.
    fn decided_utilities(&self) -> Option<[f32; NUM_PLAYERS]> {
        self.is_terminal().then(|| self.utilities())
    }
    /// Zobrist-style key of the state.
    fn hash(&self) -> u64;
    /// The state transformed by symmetry `sym` (`0..NUM_SYMMETRIES`).
    fn symmetric(&self, sym: usize) -> Self;
    /// The index of action `action` under symmetry `sym`.
    fn map_action(sym: usize, action: Action) -> Action;
    /// Canonical text of one action.
    fn format_action(action: Action) -> String;
    /// Reads the canonical text of one action (not checking legality).
    fn parse_action(text: &str) -> Result<Action, ParseActionError>;

    /// The protocol's text of one turn: `actions`, the run of actions the mover here takes
    /// before the other seat moves, played from this position. Default: each action's canonical
    /// text, joined by spaces (one action: its text). A game overrides it where a turn is
    /// several actions written as one word (a setup of sixteen letters) or where the text
    /// depends on the mover (a drop in the mover's letter case).
    fn turn_text(&self, actions: &[Action]) -> String {
        actions.iter().map(|&a| Self::format_action(a)).collect::<Vec<_>>().join(" ")
    }

    /// Reads the text of one turn played from this position into its actions (not checking
    /// legality; the caller applies them in turn and checks each, and that the turn is whole).
    /// Default: what the default [`Game::turn_text`] writes, canonical texts joined by spaces
    /// (one action in most games).
    fn parse_turn(&self, text: &str) -> Result<Vec<Action>, ParseActionError> {
        text.split(' ').map(Self::parse_action).collect()
    }

    /// The actions a search expands here: the legal ones, or a subset that keeps a best action
    /// (a game may drop moves another move dominates). Empty exactly when terminal.
    fn search_actions(&self, out: &mut ActionList) {
        self.legal_actions(out);
    }

    /// Whether `action` is legal here. Games may override with something faster.
    fn is_legal(&self, action: Action) -> bool {
        let mut list = ActionList::new();
        self.legal_actions(&mut list);
        list.contains(action)
    }
}
