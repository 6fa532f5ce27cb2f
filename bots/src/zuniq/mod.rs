//! Zuniq (CodeCup 2021): 6x6 dots, players alternately draw one segment between two adjacent
//! dots, White first. Cells joined by undrawn segments form regions; a region is a closed zone
//! once every segment around it is drawn (the board's border is not a wall: border segments must
//! be drawn too). Segments inside a closed zone can never be drawn, and no two closed zones may
//! have the same size (in cells). A player with no legal move loses.
//!
//! Labels: dot rows `A`..`F` (A on top), dot columns `1`..`6`. `Xnh` joins (X,n)-(X,n+1), `Xnv`
//! joins (X,n)-(X+1,n). Actions: `0..30` horizontal `row * 5 + n - 1`, `30..60` vertical
//! `30 + row * 6 + n - 1`.

pub mod classic;
pub mod exact;
pub mod light;
pub mod protocol;
pub mod referee;
pub mod training;
pub mod view;

use crate::encode::Encode;
use crate::game::{square_symmetry, Action, ActionList, Game, ParseActionError, Player, NUM_PLAYERS};
use crate::rng::{splitmix64, Rng};
use std::cell::Cell;

pub const DOTS: usize = 6;
pub const CELLS_PER_SIDE: usize = DOTS - 1;
pub const CELLS: usize = CELLS_PER_SIDE * CELLS_PER_SIDE;
pub const SEGMENTS: usize = 60;
const HORIZONTAL: usize = 30;

pub fn horizontal(row: usize, col: usize) -> usize {
    row * CELLS_PER_SIDE + col
}

pub fn vertical(row: usize, col: usize) -> usize {
    HORIZONTAL + row * DOTS + col
}

/// The cells on each side of a segment (one for a border segment).
const fn segment_cells(segment: usize) -> (Option<usize>, Option<usize>) {
    // `const`, for the table below: no closures or `Option` combinators.
    const fn cell(r: usize, c: usize) -> Option<usize> {
        if r < CELLS_PER_SIDE && c < CELLS_PER_SIDE { Some(r * CELLS_PER_SIDE + c) } else { None }
    }
    if segment < HORIZONTAL {
        let (row, col) = (segment / CELLS_PER_SIDE, segment % CELLS_PER_SIDE);
        (if row > 0 { cell(row - 1, col) } else { None }, cell(row, col))
    } else {
        let (row, col) = ((segment - HORIZONTAL) / DOTS, (segment - HORIZONTAL) % DOTS);
        (if col > 0 { cell(row, col - 1) } else { None }, cell(row, col))
    }
}

/// For the drawn segments, per direction (right, left, down, up): the cells whose side is
/// open to a neighbour cell (`inner`) and the cells whose side is an undrawn border segment
/// (`outer`).
#[derive(Clone, Copy)]
struct OpenSides {
    inner: [u32; 4],
    outer: [u32; 4],
}

const RIGHT: usize = 0;
const LEFT: usize = 1;
const DOWN: usize = 2;
const UP: usize = 3;

impl OpenSides {
    /// From the drawn segments with bit operations (the search asks for this at every node).
    /// Horizontal segment `row * 5 + col` is the top side of cell `row * 5 + col` and the
    /// bottom side of the cell above it; vertical segments come in rows of 6, of which the
    /// first 5 are the left sides of that row's cells and the last 5 their right sides.
    fn of(drawn: u64) -> Self {
        const TOP_ROW: u32 = (1 << CELLS_PER_SIDE) - 1;
        const BOTTOM_ROW: u32 = TOP_ROW << (CELLS - CELLS_PER_SIDE);
        const LEFT_COLUMN: u32 = 0b00001_00001_00001_00001_00001;
        const RIGHT_COLUMN: u32 = LEFT_COLUMN << (CELLS_PER_SIDE - 1);
        let open_h = !drawn as u32 & ((1 << HORIZONTAL) - 1);
        let open_v = !(drawn >> HORIZONTAL) as u32 & ((1 << HORIZONTAL) - 1);
        let (mut left, mut right) = (0u32, 0u32);
        for row in 0..CELLS_PER_SIDE {
            let sides = open_v >> (row * DOTS) & ((1 << DOTS) - 1);
            left |= (sides & TOP_ROW) << (row * CELLS_PER_SIDE);
            right |= (sides >> 1 & TOP_ROW) << (row * CELLS_PER_SIDE);
        }
        let up = open_h & ALL_CELLS;
        let down = open_h >> CELLS_PER_SIDE & ALL_CELLS;
        let mut o = OpenSides { inner: [0; 4], outer: [0; 4] };
        o.inner[RIGHT] = right & !RIGHT_COLUMN;
        o.outer[RIGHT] = right & RIGHT_COLUMN;
        o.inner[LEFT] = left & !LEFT_COLUMN;
        o.outer[LEFT] = left & LEFT_COLUMN;
        o.inner[DOWN] = down & !BOTTOM_ROW;
        o.outer[DOWN] = down & BOTTOM_ROW;
        o.inner[UP] = up & !TOP_ROW;
        o.outer[UP] = up & TOP_ROW;
        o
    }

    /// Marks segment `s` open (`true`) or drawn (`false`) on the cells beside it.
    fn set(&mut self, s: usize, open: bool) {
        let put = |mask: &mut u32, cell: usize| {
            if open {
                *mask |= 1 << cell;
            } else {
                *mask &= !(1 << cell);
            }
        };
        let (before, after) = segment_cells(s);
        // A horizontal segment is the lower side of the cell above it and the upper side of the
        // one below; a vertical one the right side of the cell left of it and the left side of
        // the one right of it. A missing cell makes the other side a border side.
        let (side_of_before, side_of_after) = if s < HORIZONTAL { (DOWN, UP) } else { (RIGHT, LEFT) };
        match (before, after) {
            (Some(a), Some(b)) => {
                put(&mut self.inner[side_of_before], a);
                put(&mut self.inner[side_of_after], b);
            }
            (Some(a), None) => put(&mut self.outer[side_of_before], a),
            (None, Some(b)) => put(&mut self.outer[side_of_after], b),
            (None, None) => {}
        }
    }

    /// Whether the two cells beside inner `segment` stay joined without it, around one of the
    /// two squares of four cells it is a side of (its other three sides open). Then drawing it
    /// closes nothing: a cheap test that spares most segments of open areas the flood fills.
    fn joined_around(&self, segment: usize) -> bool {
        let a = match segment_cells(segment) {
            (Some(a), Some(_)) => a,
            _ => return false,
        };
        let around = if segment < HORIZONTAL { self.joined_to_below() } else { self.joined_to_right() };
        around >> a & 1 == 1
    }

    /// The cells that stay joined to the cell below them without the segment between, around
    /// a square: via the cells to their right, or to their left.
    fn joined_to_below(&self) -> u32 {
        let [right, left, down, _] = self.inner;
        let n = CELLS_PER_SIDE;
        right & down >> 1 & right >> n | left & down << 1 & left >> n
    }

    /// The same for the cell to their right: via the cells below them, or above them.
    fn joined_to_right(&self) -> u32 {
        let [right, _, down, up] = self.inner;
        let n = CELLS_PER_SIDE;
        down & right >> n & down >> 1 | up & right << n & up >> 1
    }

    /// Whether some undrawn segment beside the `live` cells (those outside closed zones)
    /// surely closes nothing, so is legal: an inner one whose two cells stay joined around a
    /// square, or a border side of a cell whose region keeps another open border side (the
    /// cell's own, or a joined neighbour's). Bit-parallel; `false` proves nothing. Every move
    /// asks whether the next player is stuck, and this usually answers at once.
    fn surely_legal(&self, live: u32) -> bool {
        let [right, left, down, up] = self.inner;
        let n = CELLS_PER_SIDE;
        // Only where the segment itself is still undrawn.
        if (down & self.joined_to_below() | right & self.joined_to_right()) & live != 0 {
            return true;
        }
        let [r, l, d, u] = self.outer;
        let border = r | l | d | u;
        let two_sides = r & (l | d | u) | l & (d | u) | d & u;
        let neighbour_border = right & border >> 1 | left & border << 1 | down & border >> n | up & border << n;
        border & live & (two_sides | neighbour_border) != 0
    }

    /// The region of `start` if it is closed: a flood fill that gives up at the first cell
    /// with an open border side or in `stop` (most regions are open, and this is asked for
    /// every segment: `stop` is the cell on the segment's other side, whose region is open
    /// when the two are still joined).
    fn closed_region(&self, start: usize, stop: u32) -> Option<u32> {
        let n = CELLS_PER_SIDE;
        let i = &self.inner;
        let give_up = self.outer.iter().fold(stop, |m, &x| m | x);
        let mut cells = 1u32 << start;
        loop {
            if cells & give_up != 0 {
                return None;
            }
            let grown = cells | (cells & i[RIGHT]) << 1 | (cells & i[LEFT]) >> 1 | (cells & i[DOWN]) << n | (cells & i[UP]) >> n;
            if grown == cells {
                return Some(cells);
            }
            cells = grown;
        }
    }

    /// The region of `start`: (cells, whether it is closed). A bit-parallel flood fill.
    fn region(&self, start: usize) -> (u32, bool) {
        let n = CELLS_PER_SIDE;
        let i = &self.inner;
        let mut cells = 1u32 << start;
        loop {
            let grown = cells | (cells & i[RIGHT]) << 1 | (cells & i[LEFT]) >> 1 | (cells & i[DOWN]) << n | (cells & i[UP]) >> n;
            if grown == cells {
                let border = self.outer.iter().fold(0, |m, &x| m | x);
                return (cells, cells & border == 0);
            }
            cells = grown;
        }
    }
}

/// The region of `start` given the drawn segments: (cells, whether it is closed).
fn region(drawn: u64, start: usize) -> (u32, bool) {
    OpenSides::of(drawn).region(start)
}

const ALL_CELLS: u32 = (1 << CELLS) - 1;

/// [`segment_cells`] as bit sets, one per segment.
const SEGMENT_CELLS: [u32; SEGMENTS] = {
    const fn bit(cell: Option<usize>) -> u32 {
        match cell {
            Some(c) => 1 << c,
            None => 0,
        }
    }
    let mut masks = [0u32; SEGMENTS];
    let mut s = 0;
    while s < SEGMENTS {
        let (a, b) = segment_cells(s);
        masks[s] = bit(a) | bit(b);
        s += 1;
    }
    masks
};

/// The segment between two neighbouring cells.
fn segment_between_cells(a: usize, b: usize) -> usize {
    let (a, b) = (a.min(b), a.max(b));
    let (row, col) = (a / CELLS_PER_SIDE, a % CELLS_PER_SIDE);
    if b == a + 1 { vertical(row, col + 1) } else { horizontal(row + 1, col) }
}

/// The border segment on side `direction` of border cell `cell`.
fn border_segment(cell: usize, direction: usize) -> usize {
    let (row, col) = (cell / CELLS_PER_SIDE, cell % CELLS_PER_SIDE);
    match direction {
        RIGHT => vertical(row, col + 1),
        LEFT => vertical(row, col),
        DOWN => horizontal(row + 1, col),
        _ => horizontal(row, col),
    }
}

/// The live neighbour of `cell` in `direction` through an undrawn segment.
fn neighbour(open: &OpenSides, live: u32, cell: usize, direction: usize) -> Option<usize> {
    if open.inner[direction] >> cell & 1 == 0 {
        return None;
    }
    let other = match direction {
        RIGHT => cell + 1,
        LEFT => cell - 1,
        DOWN => cell + CELLS_PER_SIDE,
        _ => cell - CELLS_PER_SIDE,
    };
    (live >> other & 1 == 1).then_some(other)
}

/// What [`Zuniq::legal_segments`] finds: the legal segments, those of them that close a zone,
/// and the size each of those closes.
#[derive(Clone, Copy)]
struct LegalSegments {
    legal: u64,
    closing: u64,
    size: [u8; SEGMENTS],
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zuniq {
    drawn: u64,
    /// Cells inside closed zones.
    closed_cells: u32,
    /// Bit `s` set when a closed zone of size `s` exists.
    sizes: u32,
    moves: u8,
    /// The player to move has no legal move (and has lost).
    stuck: bool,
    hash: u64,
}

impl Default for Zuniq {
    fn default() -> Self {
        let mut z = Zuniq { drawn: 0, closed_cells: 0, sizes: 0, moves: 0, stuck: false, hash: 0 };
        z.hash = z.compute_hash();
        z
    }
}

impl Zuniq {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn moves(&self) -> usize {
        self.moves as usize
    }

    pub fn closed_cells(&self) -> u32 {
        self.closed_cells
    }

    /// Sizes of the closed zones, as a bit set.
    pub fn zone_sizes(&self) -> u32 {
        self.sizes
    }

    /// The winner once the game is over: the player who made the last move.
    pub fn winner(&self) -> Option<Player> {
        self.stuck.then(|| 1 - self.to_move())
    }

    pub fn compute_hash(&self) -> u64 {
        splitmix64(self.drawn ^ (self.moves as u64) << 60).1
    }

    /// The zone that drawing `segment` would close, as (cells, size), if any.
    fn closes(&self, segment: usize) -> Option<(u32, u32)> {
        self.closes_with(&OpenSides::of(self.drawn), segment)
    }

    /// [`Zuniq::closes`] given the open sides of the current position (computed once for all
    /// the segments tried from it).
    fn closes_with(&self, open: &OpenSides, segment: usize) -> Option<(u32, u32)> {
        if open.joined_around(segment) {
            return None;
        }
        let mut after = *open;
        after.set(segment, false);
        let (a, b) = segment_cells(segment);
        let bit = |cell: Option<usize>| cell.map_or(0, |c| 1u32 << c);
        for (cell, other) in [(a, bit(b)), (b, bit(a))] {
            let cell = match cell { Some(v) => v, None => continue };
            if let Some(cells) = after.closed_region(cell, other) {
                if cells & self.closed_cells == 0 {
                    return Some((cells, cells.count_ones()));
                }
            }
        }
        None
    }

    /// Every segment's legality and the zone each would close, from one depth-first search
    /// per region of open cells (the flood fills of [`Zuniq::legal_closing`], once per
    /// segment, were most of the exact solver's time). Drawing a segment closes a zone only
    /// when it cuts the last open path to the border: it is the region's one open border
    /// side, or a bridge of the region's cell graph with no open border side beyond it.
    /// [`Self::legal_segments`] of this position, kept for the next call on the same position:
    /// a search asks for a leaf's legal moves and for its encoding one after the other, and
    /// both need them (computed twice, they took a fifth of a net-guided playout).
    fn legal_segments_kept(&self) -> LegalSegments {
        thread_local! {
            static LAST: Cell<(u64, u32, u32, bool, LegalSegments)> =
                const { Cell::new((u64::MAX, 0, 0, false, LegalSegments { legal: 0, closing: 0, size: [0; SEGMENTS] })) };
        }
        LAST.with(|last| {
            // `replace`, not `set`: the exporter's shortener renames the methods the bundle
            // declares, and it declares a `set` of its own.
            let (drawn, closed_cells, sizes, stuck, found) = last.get();
            if (drawn, closed_cells, sizes, stuck) == (self.drawn, self.closed_cells, self.sizes, self.stuck) {
                return found;
            }
            let found = self.legal_segments(&OpenSides::of(self.drawn));
            last.replace((self.drawn, self.closed_cells, self.sizes, self.stuck, found));
            found
        })
    }

    fn legal_segments(&self, open: &OpenSides) -> LegalSegments {
        const NONE: u8 = u8::MAX;
        let live = !self.closed_cells & ALL_CELLS;
        let mut result = LegalSegments { legal: 0, closing: 0, size: [0; SEGMENTS] };
        if self.stuck {
            return result;
        }
        // Undrawn segments beside no closed cell: legal unless they close a zone whose size
        // is taken (an undrawn segment beside exactly one closed cell cannot exist).
        for (s, &cells) in SEGMENT_CELLS.iter().enumerate() {
            if self.drawn >> s & 1 == 0 && cells & self.closed_cells == 0 {
                result.legal |= 1 << s;
            }
        }
        let mut close = |segment: usize, size: u32| {
            if self.sizes >> size & 1 == 1 {
                result.legal &= !(1 << segment);
            } else {
                result.closing |= 1 << segment;
                result.size[segment] = size as u8;
            }
        };
        let border_sides = |cell: usize| open.outer.iter().map(|m| (m >> cell & 1) as u8).sum::<u8>();
        // Discovery time, lowest time reachable from the subtree, subtree size and open
        // border sides in the subtree, per cell.
        let mut discovered = [NONE; CELLS];
        let mut low = [0u8; CELLS];
        let mut subtree_cells = [0u8; CELLS];
        let mut subtree_border = [0u8; CELLS];
        let mut time = 0u8;
        // The depth-first path: (cell, parent cell, next direction to try).
        let mut stack = [(0u8, NONE, 0u8); CELLS];
        let mut bridges = [(0u8, 0u8); CELLS];
        let mut unvisited = live;
        while unvisited != 0 {
            let root = unvisited.trailing_zeros() as usize;
            let mut region = 0u32;
            let mut bridge_count = 0;
            macro_rules! visit {
                ($cell:expr) => {{
                    let cell: usize = $cell;
                    discovered[cell] = time;
                    low[cell] = time;
                    time += 1;
                    subtree_cells[cell] = 1;
                    subtree_border[cell] = border_sides(cell);
                    region |= 1 << cell;
                }};
            }
            visit!(root);
            stack[0] = (root as u8, NONE, 0);
            let mut depth = 1;
            while depth > 0 {
                let (cell, parent, direction) = stack[depth - 1];
                let v = cell as usize;
                if direction < 4 {
                    stack[depth - 1].2 += 1;
                    let w = match neighbour(open, live, v, direction as usize) { Some(v) => v, None => continue };
                    if w as u8 == parent {
                        continue;
                    }
                    if discovered[w] == NONE {
                        visit!(w);
                        stack[depth] = (w as u8, cell, 0);
                        depth += 1;
                    } else {
                        low[v] = low[v].min(discovered[w]);
                    }
                    continue;
                }
                depth -= 1;
                if parent != NONE {
                    let p = parent as usize;
                    low[p] = low[p].min(low[v]);
                    subtree_cells[p] += subtree_cells[v];
                    subtree_border[p] += subtree_border[v];
                    if low[v] > discovered[p] {
                        bridges[bridge_count] = (parent, cell);
                        bridge_count += 1;
                    }
                }
            }
            unvisited &= !region;
            let (cells, border) = (subtree_cells[root] as u32, subtree_border[root]);
            debug_assert!(border > 0, "an open region touches the border");
            for &(parent, child) in &bridges[..bridge_count] {
                let (inside, inside_border) = (subtree_cells[child as usize] as u32, subtree_border[child as usize]);
                let segment = segment_between_cells(parent as usize, child as usize);
                if inside_border == 0 {
                    close(segment, inside);
                } else if inside_border == border {
                    close(segment, cells - inside);
                }
            }
            if border == 1 {
                let last = (0..4).find_map(|d| {
                    let cells_there = open.outer[d] & region;
                    (cells_there != 0).then(|| border_segment(cells_there.trailing_zeros() as usize, d))
                });
                if let Some(segment) = last {
                    close(segment, cells);
                }
            }
        }
        result
    }

    fn segment_legal(&self, segment: usize) -> bool {
        self.segment_legal_with(&OpenSides::of(self.drawn), segment)
    }

    fn segment_legal_with(&self, open: &OpenSides, segment: usize) -> bool {
        self.legal_closing(open, segment).is_some()
    }

    /// For a legal `segment`, the size of the zone it closes (if any); None when illegal.
    fn legal_closing(&self, open: &OpenSides, segment: usize) -> Option<Option<u32>> {
        if self.drawn >> segment & 1 == 1 {
            return None;
        }
        // Inside a closed zone: both cells on its sides are in closed zones.
        if let (Some(a), Some(b)) = segment_cells(segment) {
            if self.closed_cells >> a & 1 == 1 && self.closed_cells >> b & 1 == 1 {
                return None;
            }
        }
        match self.closes_with(open, segment) {
            Some((_, size)) if self.sizes >> size & 1 == 1 => None,
            closed => Some(closed.map(|(_, size)| size)),
        }
    }

    fn any_legal(&self) -> bool {
        let open = OpenSides::of(self.drawn);
        open.surely_legal(!self.closed_cells & ALL_CELLS) || (0..SEGMENTS).any(|t| self.segment_legal_with(&open, t))
    }

    /// Closed zones computed from the drawn segments alone (the incremental state must agree).
    pub fn zones_from_scratch(&self) -> (u32, u32) {
        let (mut closed_cells, mut sizes, mut seen) = (0u32, 0u32, 0u32);
        for cell in 0..CELLS {
            if seen >> cell & 1 == 1 {
                continue;
            }
            let (cells, closed) = region(self.drawn, cell);
            seen |= cells;
            if closed {
                closed_cells |= cells;
                sizes |= 1 << cells.count_ones();
            }
        }
        (closed_cells, sizes)
    }
}

/// The segment joining two adjacent dots.
fn segment_between(a: (usize, usize), b: (usize, usize)) -> usize {
    let ((r0, c0), (r1, c1)) = if a <= b { (a, b) } else { (b, a) };
    if r0 == r1 {
        debug_assert_eq!(c1, c0 + 1);
        horizontal(r0, c0)
    } else {
        debug_assert_eq!((r1, c1), (r0 + 1, c0));
        vertical(r0, c0)
    }
}

/// The two dots of a segment.
fn segment_dots(segment: usize) -> ((usize, usize), (usize, usize)) {
    if segment < HORIZONTAL {
        let (r, c) = (segment / CELLS_PER_SIDE, segment % CELLS_PER_SIDE);
        ((r, c), (r, c + 1))
    } else {
        let (r, c) = ((segment - HORIZONTAL) / DOTS, (segment - HORIZONTAL) % DOTS);
        ((r, c), (r + 1, c))
    }
}

impl Game for Zuniq {
    const NAME: &'static str = "zuniq";
    const NUM_ACTIONS: usize = SEGMENTS;
    const MAX_GAME_LENGTH: usize = SEGMENTS;
    const NUM_SYMMETRIES: usize = 8;
    const WIN_OR_LOSS: bool = true;

    fn new_game(_rng: &mut Rng) -> Self {
        Self::default()
    }

    fn to_move(&self) -> Player {
        (self.moves % 2) as Player
    }

    fn legal_actions(&self, out: &mut ActionList) {
        out.clear();
        if self.stuck {
            return;
        }
        // Segments that close a zone come first: the exact solver tries actions in this order,
        // and closing moves, which take the zone's inner segments out of play, win most often
        // (solved 17 of 34 judged positions in 3 s each instead of 12: docs/lab/zuniq.md,
        // Where judged games were lost, and what changed).
        let found = self.legal_segments_kept();
        for mut set in [found.closing, found.legal & !found.closing] {
            while set != 0 {
                out.push(set.trailing_zeros() as Action);
                set &= set - 1;
            }
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        !self.stuck && (action as usize) < SEGMENTS && self.segment_legal(action as usize)
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(self.is_legal(action), "illegal segment {action}");
        let s = action as usize;
        if let Some((cells, size)) = self.closes(s) {
            self.closed_cells |= cells;
            self.sizes |= 1 << size;
        }
        self.drawn |= 1 << s;
        self.moves += 1;
        self.stuck = !self.any_legal();
        self.hash = self.compute_hash();
    }

    fn is_terminal(&self) -> bool {
        self.stuck
    }

    /// 100 for the winner, 50 for the loser (claim bonuses are the judge's business).
    fn scores(&self) -> [f32; NUM_PLAYERS] {
        match self.winner() {
            Some(0) => [100.0, 50.0],
            Some(_) => [50.0, 100.0],
            None => [0.0, 0.0],
        }
    }

    fn utilities(&self) -> [f32; NUM_PLAYERS] {
        match self.winner() {
            Some(0) => [1.0, -1.0],
            Some(_) => [-1.0, 1.0],
            None => [0.0, 0.0],
        }
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn symmetric(&self, sym: usize) -> Self {
        let mut z = self.clone();
        z.drawn = 0;
        for s in 0..SEGMENTS {
            if self.drawn >> s & 1 == 1 {
                z.drawn |= 1 << Self::map_action(sym, s as Action);
            }
        }
        let (closed_cells, sizes) = z.zones_from_scratch();
        z.closed_cells = closed_cells;
        z.sizes = sizes;
        z.hash = z.compute_hash();
        z
    }

    fn map_action(sym: usize, action: Action) -> Action {
        let (a, b) = segment_dots(action as usize);
        segment_between(square_symmetry(sym, a.0, a.1, DOTS), square_symmetry(sym, b.0, b.1, DOTS)) as Action
    }

    fn format_action(action: Action) -> String {
        let ((r, c), (r1, _)) = segment_dots(action as usize);
        format!("{}{}{}", (b'A' + r as u8) as char, c + 1, if r1 == r { 'h' } else { 'v' })
    }

    fn parse_action(text: &str) -> Result<Action, ParseActionError> {
        let err = || ParseActionError { text: text.to_string(), expected: "a segment like A2h or E5v" };
        match text.as_bytes() {
            [row @ b'A'..=b'F', col @ b'1'..=b'6', b'h'] if *col <= b'5' => Ok(horizontal((row - b'A') as usize, (col - b'1') as usize) as Action),
            [row @ b'A'..=b'E', col @ b'1'..=b'6', b'v'] => Ok(vertical((row - b'A') as usize, (col - b'1') as usize) as Action),
            _ => Err(err()),
        }
    }
}

/// Features: drawn segments (60), cells inside closed zones (25), the zone sizes already taken
/// (25, sizes 1..25), whether the mover is White; then the legal segments (60), their count / 60
/// and its parity; then for each legal segment the size of the zone it would close / 25 (0 when
/// it closes none) and for each cell the size of its region / 25. The last mover wins, so which
/// moves stay legal, how many, and which ones close a zone (removing the segments inside it from
/// play) decide the game: handing these to the net spares it re-deriving regions from bits.
impl Encode for Zuniq {
    const NUM_FEATURES: usize = SEGMENTS + CELLS + CELLS + 1 + SEGMENTS + 2 + SEGMENTS + CELLS;

    fn encode(&self, out: &mut [f32]) {
        for s in 0..SEGMENTS {
            out[s] = (self.drawn >> s & 1) as f32;
        }
        for c in 0..CELLS {
            out[SEGMENTS + c] = (self.closed_cells >> c & 1) as f32;
        }
        for size in 1..=CELLS {
            out[SEGMENTS + CELLS + size - 1] = (self.sizes >> size & 1) as f32;
        }
        out[SEGMENTS + 2 * CELLS] = (self.to_move() == 0) as u8 as f32;
        let legal_at = SEGMENTS + 2 * CELLS + 1;
        let closing_at = legal_at + SEGMENTS + 2;
        let region_at = closing_at + SEGMENTS;
        let open = OpenSides::of(self.drawn);
        let found = self.legal_segments_kept();
        let legal = found.legal.count_ones() as usize;
        for s in 0..SEGMENTS {
            out[legal_at + s] = (found.legal >> s & 1) as f32;
            out[closing_at + s] = found.size[s] as f32 / CELLS as f32;
        }
        out[legal_at + SEGMENTS] = legal as f32 / SEGMENTS as f32;
        out[legal_at + SEGMENTS + 1] = (legal % 2) as f32;
        let mut seen = 0u32;
        for cell in 0..CELLS {
            if seen >> cell & 1 == 1 {
                continue;
            }
            let (cells, _) = open.region(cell);
            seen |= cells;
            let size = cells.count_ones() as f32 / CELLS as f32;
            let mut rest = cells;
            while rest != 0 {
                out[region_at + rest.trailing_zeros() as usize] = size;
                rest &= rest - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::apply_texts;

    fn play(moves: &str) -> Zuniq {
        let mut z = Zuniq::new();
        apply_texts(&mut z, &moves.split_whitespace().collect::<Vec<_>>()).unwrap();
        z
    }

    #[test]
    fn labels() {
        assert_eq!(Zuniq::parse_action("A1h"), Ok(0));
        assert_eq!(Zuniq::parse_action("F5h"), Ok(29));
        assert_eq!(Zuniq::parse_action("A1v"), Ok(30));
        assert_eq!(Zuniq::parse_action("E6v"), Ok(59));
        for bad in ["A6h", "F1v", "G1h", "a1h", "A1x", "A1"] {
            assert!(Zuniq::parse_action(bad).is_err(), "{bad}");
        }
        for a in 0..SEGMENTS as Action {
            assert_eq!(Zuniq::parse_action(&Zuniq::format_action(a)), Ok(a));
        }
        // The page's first moves: A2h on the top line, B3h, E5v joining E5 and F5.
        assert_eq!(segment_dots(Zuniq::parse_action("A2h").unwrap() as usize), ((0, 1), (0, 2)));
        assert_eq!(segment_dots(Zuniq::parse_action("E5v").unwrap() as usize), ((4, 4), (5, 4)));
    }

    #[test]
    fn closing_the_top_left_cell_with_a1v() {
        // The top-left cell: A1h on top, B1h below, A2v on the right; A1v on the left closes it.
        let z = play("A1h B1h A2v");
        assert_eq!(z.closed_cells(), 0, "the border is not a wall");
        let z2 = play("A1h B1h A2v A1v");
        assert_eq!(z2.closed_cells(), 1);
        assert_eq!(z2.zone_sizes(), 1 << 1);
    }

    #[test]
    fn a_move_is_illegal_when_its_zone_size_exists() {
        // Close the top-left cell (size 1), then try to close the top-right cell (also size 1).
        let mut z = play("A1h B1h A2v A1v A5h B5h A5v");
        let last = Zuniq::parse_action("A6v").unwrap();
        assert!(!z.is_legal(last), "a second zone of size 1 is forbidden");
        // A zone of size 2 is fine: close cells A2-A3 (row A, columns 2..3): top A2h A3h,
        // bottom B2h B3h, the left side A2v exists, right side A4v.
        apply_texts(&mut z, &["A2h", "A3h", "B2h", "B3h"]).unwrap();
        assert!(z.is_legal(Zuniq::parse_action("A4v").unwrap()));
        z.apply(Zuniq::parse_action("A4v").unwrap());
        assert_eq!(z.zone_sizes(), 1 << 1 | 1 << 2);
    }

    #[test]
    fn segments_inside_a_closed_zone_are_out_of_bounds() {
        // Close the 2x1 zone of cells A1 and B1 (column 1): A1h, C1h, A1v, B1v, A2v, B2v.
        let z = play("A1h C1h A1v B1v A2v B2v");
        assert_eq!(z.closed_cells().count_ones(), 2);
        // B1h separates the two cells: it lies inside the zone.
        assert!(!z.is_legal(Zuniq::parse_action("B1h").unwrap()));
    }

    #[test]
    fn the_player_who_cannot_move_loses() {
        // Play random games to the end: the last mover wins; scores 100/50.
        let mut rng = Rng::new(3);
        let mut list = ActionList::new();
        for _ in 0..200 {
            let mut z = Zuniq::new();
            let mut last = 0;
            while !z.is_terminal() {
                z.legal_actions(&mut list);
                last = z.to_move();
                z.apply(list[rng.below(list.len())]);
            }
            assert_eq!(z.winner(), Some(last));
            let mut s = z.scores();
            s.sort_by(f32::total_cmp);
            assert_eq!(s, [50.0, 100.0]);
            assert_eq!(z.zones_from_scratch(), (z.closed_cells(), z.zone_sizes()));
        }
    }

    /// Random games that end with undrawn segments outside closed zones: each of them would
    /// close a zone of a size that exists, so the player to move has lost.
    #[test]
    fn games_end_when_every_remaining_move_repeats_a_size() {
        let mut rng = Rng::new(11);
        let mut list = ActionList::new();
        let mut seen = 0;
        for _ in 0..300 {
            let mut z = Zuniq::new();
            while !z.is_terminal() {
                z.legal_actions(&mut list);
                z.apply(list[rng.below(list.len())]);
            }
            let open: Vec<usize> = (0..SEGMENTS)
                .filter(|&s| z.drawn >> s & 1 == 0)
                .filter(|&s| !matches!(segment_cells(s), (Some(a), Some(b)) if z.closed_cells >> a & 1 == 1 && z.closed_cells >> b & 1 == 1))
                .collect();
            for &s in &open {
                let (_, size) = z.closes(s).expect("a remaining move outside the zones must close one");
                assert_eq!(z.sizes >> size & 1, 1, "and its size must be taken");
            }
            seen += !open.is_empty() as usize;
        }
        assert!(seen > 0, "some games end this way");
    }

    /// The bit-operation construction of the open sides equals marking every undrawn segment.
    #[test]
    fn kept_legal_segments_follow_the_position_asked_about() {
        // Two games side by side, asked about in turn: what is kept from one position must
        // never answer for another.
        let mut rng = Rng::new(23);
        for _ in 0..20 {
            let (mut a, mut b) = (Zuniq::new(), Zuniq::new());
            let mut actions = ActionList::new();
            while !a.is_terminal() || !b.is_terminal() {
                for z in [&mut a, &mut b] {
                    let fresh = z.legal_segments(&OpenSides::of(z.drawn));
                    let kept = z.legal_segments_kept();
                    assert_eq!((kept.legal, kept.closing, kept.size), (fresh.legal, fresh.closing, fresh.size));
                    z.legal_actions(&mut actions);
                    if !actions.is_empty() {
                        z.apply(actions[rng.below(actions.len())]);
                    }
                }
            }
        }
    }

    #[test]
    fn open_sides_from_bits_match_segment_by_segment() {
        let mut rng = Rng::new(17);
        for _ in 0..2000 {
            let drawn = rng.next_u64() & ((1 << SEGMENTS) - 1);
            let mut slow = OpenSides { inner: [0; 4], outer: [0; 4] };
            for s in (0..SEGMENTS).filter(|&s| drawn >> s & 1 == 0) {
                slow.set(s, true);
            }
            let fast = OpenSides::of(drawn);
            assert_eq!((fast.inner, fast.outer), (slow.inner, slow.outer), "drawn {drawn:#x}");
        }
    }

    /// The one-search legality of all segments agrees with the segment-by-segment flood fills,
    /// closing sizes included, along random games (which end in every way the rules allow).
    #[test]
    fn all_segments_at_once_match_one_at_a_time() {
        let mut rng = Rng::new(23);
        let mut closing_seen = 0;
        for _ in 0..300 {
            let mut z = Zuniq::new();
            loop {
                let open = OpenSides::of(z.drawn);
                let found = z.legal_segments(&open);
                for s in 0..SEGMENTS {
                    let expected = if z.stuck { None } else { z.legal_closing(&open, s) };
                    let got = (found.legal >> s & 1 == 1).then(|| (found.closing >> s & 1 == 1).then_some(found.size[s] as u32));
                    assert_eq!(got, expected, "segment {} after {} moves, drawn {:#x}", Zuniq::format_action(s as Action), z.moves, z.drawn);
                    closing_seen += matches!(got, Some(Some(_))) as usize;
                }
                if z.is_terminal() {
                    break;
                }
                let mut legal = ActionList::new();
                z.legal_actions(&mut legal);
                z.apply(legal[rng.below(legal.len())]);
            }
        }
        assert!(closing_seen > 1000, "closing segments were tried: {closing_seen}");
    }

    /// The quick "some move is surely legal" test never claims a move where there is none,
    /// and answers most positions of random games.
    #[test]
    fn surely_legal_is_never_wrong() {
        let mut rng = Rng::new(29);
        let (mut asked, mut answered) = (0, 0);
        for _ in 0..300 {
            let mut z = Zuniq::new();
            while !z.is_terminal() {
                let open = OpenSides::of(z.drawn);
                let live = !z.closed_cells & ALL_CELLS;
                let exists = (0..SEGMENTS).any(|t| z.segment_legal_with(&open, t));
                asked += 1;
                if open.surely_legal(live) {
                    answered += 1;
                    assert!(exists, "drawn {:#x}", z.drawn);
                }
                let mut legal = ActionList::new();
                z.legal_actions(&mut legal);
                z.apply(legal[rng.below(legal.len())]);
            }
            let open = OpenSides::of(z.drawn);
            assert!(!open.surely_legal(!z.closed_cells & ALL_CELLS), "a finished game has no legal move");
        }
        assert!(answered * 2 > asked, "answered {answered} of {asked}");
    }

    #[test]
    fn closing_a_second_single_cell_is_illegal() {
        let mut z = Zuniq::new();
        for m in ["A1h", "B1h", "A2v", "A1v"] {
            z.apply(Zuniq::parse_action(m).unwrap());
        }
        // Isolate the bottom-right cell except its right side, F5h/E5h/E5v drawn; E6v would
        // make a second zone of size 1.
        for m in ["E5h", "F5h", "E5v"] {
            z.apply(Zuniq::parse_action(m).unwrap());
        }
        assert!(!z.is_legal(Zuniq::parse_action("E6v").unwrap()));
    }

    #[test]
    fn symmetries_keep_segments_and_zones() {
        let z = play("A1h B1h A2v A1v C3h D3v");
        for sym in 0..8 {
            let t = z.symmetric(sym);
            assert_eq!(t.drawn.count_ones(), z.drawn.count_ones());
            assert_eq!(t.zone_sizes(), z.zone_sizes());
            assert_eq!(t.closed_cells().count_ones(), 1);
        }
        // A quarter turn maps the top line to the right edge: A1h -> A6v.
        assert_eq!(Zuniq::format_action(Zuniq::map_action(1, Zuniq::parse_action("A1h").unwrap())), "A6v");
    }

    #[test]
    fn features_carry_the_legal_segments_and_their_parity() {
        let legal_at = SEGMENTS + 2 * CELLS + 1;
        let mut x = vec![0.0; Zuniq::NUM_FEATURES];
        Zuniq::new().encode(&mut x);
        assert!(x[legal_at..legal_at + SEGMENTS].iter().all(|&v| v == 1.0));
        assert_eq!(&x[legal_at + SEGMENTS..legal_at + SEGMENTS + 2], &[1.0, 0.0]);
        // A closed 1-cell zone top left, and three sides of the bottom-right cell: its fourth
        // side (E6v) would make a second zone of size 1, so it is the one illegal segment.
        let z = play("A1h B1h A1v A2v E5h F5h E5v");
        assert_eq!(z.zone_sizes(), 1 << 1, "one zone of size 1");
        let mut x = vec![0.0; Zuniq::NUM_FEATURES];
        z.encode(&mut x);
        let mut legal = ActionList::new();
        z.legal_actions(&mut legal);
        for s in 0..SEGMENTS {
            assert_eq!(x[legal_at + s] == 1.0, legal.contains(s as Action), "segment {}", Zuniq::format_action(s as Action));
        }
        assert_eq!(x[legal_at + Zuniq::parse_action("E6v").unwrap() as usize], 0.0);
        assert_eq!(legal.len(), 52);
        assert_eq!(&x[legal_at + SEGMENTS..legal_at + SEGMENTS + 2], &[52.0 / 60.0, 0.0]);
        // No legal segment closes a zone here (E6v would, but is illegal). Regions: the closed
        // corner cell, the bottom-right cell (cut off from its neighbours, open to the border
        // only), and the other 23 cells.
        let closing_at = legal_at + SEGMENTS + 2;
        assert!(x[closing_at..closing_at + SEGMENTS].iter().all(|&v| v == 0.0));
        let region_at = closing_at + SEGMENTS;
        assert_eq!(x[region_at], 1.0 / 25.0);
        assert_eq!(x[region_at + CELLS - 1], 1.0 / 25.0);
        assert!(x[region_at + 1..region_at + CELLS - 1].iter().all(|&v| v == 23.0 / 25.0));
        // Five of the six sides around cells E4 and E5 (bottom row): E5h closes a zone of 2,
        // while E5v between them would close E4 alone, a second zone of 1: illegal.
        let z = play("A1h B1h A1v A2v E4h F4h F5h E6v E4v");
        let mut x = vec![0.0; Zuniq::NUM_FEATURES];
        z.encode(&mut x);
        let at = |label: &str| Zuniq::parse_action(label).unwrap() as usize;
        assert_eq!(x[legal_at + at("E5h")], 1.0);
        assert_eq!(x[closing_at + at("E5h")], 2.0 / 25.0);
        assert_eq!(x[legal_at + at("E5v")], 0.0);
        assert_eq!(x[closing_at + at("E5v")], 0.0);
    }
}
