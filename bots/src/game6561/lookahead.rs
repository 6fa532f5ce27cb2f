//! A classic lookahead for 6561: beam search over both partners' moves (all of them maximise
//! the shared score) with a hand-made board evaluation: the units one colour holds, free
//! squares, mergeable neighbours, the sum. Placements are searched as our own choices: a
//! partner running this bot plays them as planned, and any other partner's placement is
//! simply searched again from the new board. With a value net (`BeamAgent::with_net`), the
//! hand-made evaluation still prunes every step and the net's expected final score decides
//! among the last step's best lines.

use super::{colour_of, exponent_of, piece, slide_cells, Game6561, Piece, Step, MAX_MOVES, RHYTHM, SIZE, SLIDE_UP, SQUARES};
use crate::agent::Agent;
use crate::encode::Encode;
use crate::game::{Action, ActionList, Game};
use crate::infer::{QuantNet, Workspace};
use crate::nn::Mlp;
use std::sync::Arc;
use std::time::Instant;

/// Weights of the board evaluation; `Weights::TUNED` is what the bot plays with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// Penalty per missing free square below `room`, squared: a crowded board dies.
    pub crowding: f32,
    pub room: f32,
    /// Per pair of neighbours in a line (gaps skipped) that the next slide along it could
    /// merge: same colour and value; times the pair's value (below 1: a merge made is worth
    /// more than one in waiting).
    pub merge: f32,
    /// Per pair of neighbours that would annihilate (same value, other colour), times the
    /// pair's value: small pairs are a cheap way to clear squares, big ones a loss.
    pub clash: f32,
    /// Per unit of board sum.
    pub sum: f32,
    /// Per unit piece held by the colour holding most (a piece of value 3^e holds 2^e units):
    /// one colour's units kept together grow into the few big pieces that make the score,
    /// while the other colours mostly serve to annihilate each other.
    pub mass: f32,
    /// The share of `mass` for a unit of the colour holding the second most, and the fewest.
    pub second: f32,
    pub third: f32,
    /// Per unit of best sum reached so far (the score).
    pub best: f32,
    /// Penalty per piece missing below three, squared: a board emptied by annihilation ends
    /// the game at the next slide, which a partner that is not this bot may well bring about.
    pub bare: f32,
    /// Per pair of neighbours that would annihilate, times the units they would take with
    /// them, each at its colour's worth (`mass`, `second`, `third`): the risk that a slide
    /// nobody planned (a partner's) costs the leading colour units.
    pub risk: f32,
}

impl Weights {
    /// Tuned on self-partnered games (docs/lab/6561.md, The classic lookahead).
    pub const TUNED: Weights = Weights { crowding: 20.0, room: 6.0, merge: 0.5, clash: 0.5, sum: 1.0, mass: 100.0, second: 0.3, third: 0.08, best: 0.2, bare: 50.0, risk: 0.0 };
}

type Cells = [Piece; SQUARES];

fn value_of(p: Piece) -> f32 {
    super::value_of(p) as f32
}

/// The merge, clash and risk terms of one line's four squares; `worth` is a unit's worth by
/// colour.
fn line_score(w: &Weights, worth: &[f32; 3], line: [Piece; SIZE]) -> f32 {
    let mut score = 0.0;
    let mut previous: Piece = 0;
    for p in line {
        if p == 0 {
            continue;
        }
        if previous != 0 && exponent_of(previous) == exponent_of(p) {
            if colour_of(previous) == colour_of(p) {
                score += w.merge * value_of(p);
            } else {
                let units = (1u32 << exponent_of(p)) as f32;
                score -= w.clash * value_of(p) + w.risk * units * (worth[colour_of(p) as usize] + worth[colour_of(previous) as usize]);
            }
        }
        previous = p;
    }
    score
}

/// The board's evaluation, without the score reached so far.
pub fn evaluate_cells(w: &Weights, cells: &Cells) -> f32 {
    evaluate_with_sum(w, cells).0
}

/// The board's evaluation and its sum (which the evaluation needs anyway).
fn evaluate_with_sum(w: &Weights, cells: &Cells) -> (f32, f32) {
    let (mut units, mut sum, mut free) = ([0u32; 3], 0.0, 0.0);
    for &p in cells {
        if p == 0 {
            free += 1.0;
        } else {
            units[colour_of(p) as usize] += 1 << exponent_of(p);
            sum += value_of(p);
        }
    }
    // A unit's worth by colour: the colour holding most units first (ties: lower colour).
    let mut order = [0usize, 1, 2];
    order.sort_by_key(|&c| std::cmp::Reverse(units[c]));
    let mut worth = [0.0f32; 3];
    for (rank, share) in [1.0, w.second, w.third].into_iter().enumerate() {
        worth[order[rank]] = w.mass * share;
    }
    let mut score = 0.0;
    for l in 0..SIZE {
        score += line_score(w, &worth, std::array::from_fn(|k| cells[l * SIZE + k]));
        score += line_score(w, &worth, std::array::from_fn(|k| cells[k * SIZE + l]));
    }
    let mass = units[order[0]] as f32 + w.second * units[order[1]] as f32 + w.third * units[order[2]] as f32;
    let missing = (w.room - free).max(0.0);
    let bare = (free - (SQUARES as f32 - 3.0)).max(0.0);
    (score + w.sum * sum + w.mass * mass - w.crowding * missing * missing - w.bare * bare * bare, sum)
}

/// Scores a value net learns, as values in [-1, 1]: `score / VALUE_SCALE - 1` (a shared
/// score of 3,000 is 0.5).
pub const VALUE_SCALE: f32 = 2000.0;

/// The value target of a game that ended with `score`.
pub fn score_to_value(score: f32) -> f32 {
    (score / VALUE_SCALE - 1.0).clamp(-0.999, 0.999)
}

/// A value net (on `Game6561`'s features) that judges the beam's lines: the shared score it
/// expects at the end of the game.
pub struct ScoreNet {
    net: Arc<QuantNet>,
    features: Vec<f32>,
    work: Workspace,
}

impl ScoreNet {
    pub fn new(net: Arc<Mlp>) -> Self {
        ScoreNet { net: Arc::new(QuantNet::new(&net)), features: vec![0.0; Game6561::NUM_FEATURES], work: Workspace::default() }
    }

    /// The final score the net expects from `cells` with `moves` played and `best` reached.
    pub fn expected_score(&mut self, cells: &Cells, moves: usize, best: f32) -> f32 {
        let position = Game6561::from_cells(*cells, moves, best as u64);
        self.features.fill(0.0);
        position.encode(&mut self.features);
        let value = self.net.value(&mut self.work, 0, &self.features)[0];
        ((value + 1.0) * VALUE_SCALE).max(best)
    }
}

fn key(cells: &Cells) -> u128 {
    u128::from_le_bytes(*cells)
}

/// One line of play in the beam: the board it reached and the first two actions it took.
#[derive(Clone, Copy)]
struct BeamNode {
    cells: Cells,
    best: f32,
    first: Action,
    /// The reply the line expects to the first action (0 before it has one).
    second: Action,
    score: f32,
}

/// Beam search over the moves of both partners with the hand-made evaluation: every step
/// keeps the `width` best-evaluated lines of play (one per board), `horizon` moves deep, and
/// the bot plays the first action of the best line. With a value net, the net judges the
/// lines of the last step (of every step with `net_every_step`) among the best `net_share` x
/// width by the hand-made evaluation: the cheap evaluation prunes, the net decides. Under a
/// deadline a narrow search gives a safe answer, then one search gets the width that the
/// time left should allow.
pub struct BeamAgent {
    pub weights: Weights,
    /// The value net that judges the lines of the last step, if any.
    pub net: Option<ScoreNet>,
    /// The net judges the lines of every step, not only the last.
    pub net_every_step: bool,
    /// The net judges the best `net_share` x width lines by the hand-made evaluation.
    pub net_share: usize,
    /// 0: a line's score is the net's expected final score alone; above 0, the hand-made
    /// score plus this times the net's.
    pub net_weight: f32,
    /// The net judges only lines that reach this move (a net that learned the endgame only).
    pub net_from_move: usize,
    pub horizon: usize,
    /// The width without a deadline; with one, the first width tried.
    pub width: usize,
    /// The widest beam tried under a deadline.
    pub max_width: usize,
    /// Lines that reach the same board count once (the best-scored one stays).
    pub dedup: bool,
    /// Under a deadline: one search at a predicted width instead of doubling widths.
    pub predict: bool,
    /// Seconds a line of width took on the recent wide searches (0 before the first).
    seconds_per_line: f64,
    /// Open-addressing table for `remove_duplicates`: index + 1 into the candidates, 0 empty.
    seen: Vec<u32>,
    nodes: u64,
    last_width: usize,
    last_value: f32,
    /// The reply to our action that the last search's best line expects.
    pub last_reply: Option<Action>,
}

/// The share of a move's remaining time that the predicted width aims to fill (a move's cost
/// varies with the free squares; what is left goes to later moves).
const PREDICTED_SHARE: f64 = 0.8;

impl BeamAgent {
    pub fn new(weights: Weights, width: usize, horizon: usize) -> Self {
        BeamAgent { weights, net: None, net_every_step: false, net_share: 2, net_weight: 0.0, net_from_move: 0, horizon, width, max_width: 1 << 15, dedup: true, predict: true, seconds_per_line: 0.0, seen: Vec::new(), nodes: 0, last_width: 0, last_value: 0.0, last_reply: None }
    }

    /// The beam whose last step the value net `net` judges.
    pub fn with_net(net: Arc<Mlp>, width: usize, horizon: usize) -> Self {
        BeamAgent { net: Some(ScoreNet::new(net)), ..Self::new(Weights::TUNED, width, horizon) }
    }

    /// The first action of the best line found by a beam `width` wide, or `None` when the
    /// deadline came first. Lines that reach move 1000 are ranked by their score alone.
    pub fn search(&mut self, state: &Game6561, width: usize, deadline: Option<Instant>) -> Option<Action> {
        let mut beam = vec![BeamNode { cells: *state.cells(), best: state.score() as f32, first: 0, second: 0, score: 0.0 }];
        let mut next: Vec<BeamNode> = Vec::with_capacity(width * 16);
        let mut moves = state.moves();
        let mut depth = 0;
        while depth < self.horizon && moves < MAX_MOVES {
            if deadline.map_or(false, |d| Instant::now() >= d) {
                return None;
            }
            next.clear();
            let last = moves + 1 == MAX_MOVES;
            for (n, node) in beam.iter().enumerate() {
                if n % 64 == 63 && deadline.map_or(false, |d| Instant::now() >= d) {
                    return None;
                }
                let mut push = |cells: Cells, action: Action| {
                    let first = if depth == 0 { action } else { node.first };
                    let second = if depth == 1 { action } else { node.second };
                    let (evaluation, sum) = evaluate_with_sum(&self.weights, &cells);
                    let best = node.best.max(sum);
                    let score = if last { best } else { self.weights.best * best + evaluation };
                    next.push(BeamNode { cells, best, first, second, score });
                };
                match RHYTHM[moves % 10] {
                    Step::Place(colour) => {
                        for sq in 0..SQUARES {
                            if node.cells[sq] == 0 {
                                let mut child = node.cells;
                                child[sq] = piece(colour, 0);
                                push(child, sq as Action);
                            }
                        }
                    }
                    Step::Slide => {
                        for direction in SLIDE_UP..SLIDE_UP + 4 {
                            let child = slide_cells(&node.cells, direction);
                            if child != node.cells {
                                push(child, direction);
                            }
                        }
                    }
                }
            }
            // Every line is stuck: the best of the previous step stands.
            if next.is_empty() {
                break;
            }
            self.nodes += next.len() as u64;
            if self.dedup {
                // Only the best candidates are compared: those far down cannot be kept anyway.
                if next.len() > 2 * width {
                    next.select_nth_unstable_by(2 * width - 1, |a, b| b.score.total_cmp(&a.score));
                    next.truncate(2 * width);
                }
                self.remove_duplicates(&mut next);
            }
            let net_step = !last && moves + 1 >= self.net_from_move && (self.net_every_step || depth + 1 == self.horizon);
            if let Some(net) = self.net.as_mut().filter(|_| net_step) {
                let share = self.net_share * width;
                if next.len() > share {
                    next.select_nth_unstable_by(share - 1, |a, b| b.score.total_cmp(&a.score));
                    next.truncate(share);
                }
                for node in next.iter_mut() {
                    let expected = net.expected_score(&node.cells, moves + 1, node.best);
                    node.score = if self.net_weight > 0.0 { node.score + self.net_weight * expected } else { expected };
                }
            }
            if next.len() > width {
                next.select_nth_unstable_by(width - 1, |a, b| b.score.total_cmp(&a.score));
                next.truncate(width);
            }
            std::mem::swap(&mut beam, &mut next);
            moves += 1;
            depth += 1;
        }
        let top = beam.iter().max_by(|a, b| a.score.total_cmp(&b.score))?;
        self.last_value = top.score;
        self.last_width = width;
        self.last_reply = (depth > 1).then_some(top.second);
        (depth > 0).then_some(top.first)
    }

    /// Lines that reached the same board: only the best-scored one stays (a slide and the
    /// opposite slide, or slides in another order, often meet).
    fn remove_duplicates(&mut self, next: &mut Vec<BeamNode>) {
        let size = (2 * next.len()).next_power_of_two();
        self.seen.clear();
        self.seen.resize(size, 0);
        let mask = size - 1;
        let mut kept = 0;
        for i in 0..next.len() {
            let node = next[i];
            let k = key(&node.cells);
            let mut slot = ((k as u64 ^ (k >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask;
            loop {
                match self.seen[slot] {
                    0 => {
                        self.seen[slot] = kept as u32 + 1;
                        next[kept] = node;
                        kept += 1;
                        break;
                    }
                    j if next[j as usize - 1].cells == node.cells => {
                        let j = j as usize - 1;
                        if node.score > next[j].score {
                            next[j] = node;
                        }
                        break;
                    }
                    _ => slot = (slot + 1) & mask,
                }
            }
        }
        next.truncate(kept);
    }

    /// A narrow search for a safe answer, then one search as wide as the time left should
    /// allow, from the time a line of width took on the last wide search (searching every
    /// width in turn, doubling, spends about half the time on the narrower ones).
    fn choose_predicted(&mut self, state: &Game6561, deadline: Instant, fallback: Action) -> Action {
        let start = Instant::now();
        let mut choice = match self.search(state, self.width, Some(deadline)) {
            Some(v) => v,
            None => {
                return fallback;
            }
        };
        let now = Instant::now();
        let per_line = if self.seconds_per_line > 0.0 { self.seconds_per_line } else { (now - start).as_secs_f64() / self.width as f64 };
        let left = deadline.saturating_duration_since(now).as_secs_f64();
        let width = ((left * PREDICTED_SHARE / per_line) as usize).min(self.max_width);
        if width < 2 * self.width {
            return choice;
        }
        let wide = Instant::now();
        match self.search(state, width, Some(deadline)) {
            Some(action) => {
                choice = action;
                let measured = wide.elapsed().as_secs_f64() / width as f64;
                self.seconds_per_line = if self.seconds_per_line > 0.0 { 0.7 * self.seconds_per_line + 0.3 * measured } else { measured };
            }
            // Too wide: the next move's estimate must come out narrower.
            None => self.seconds_per_line = per_line * 1.5,
        }
        choice
    }
}

impl Agent<Game6561> for BeamAgent {
    fn choose(&mut self, state: &Game6561, deadline: Option<Instant>) -> Action {
        self.nodes = 0;
        let mut list = ActionList::new();
        state.legal_actions(&mut list);
        let mut choice = list[0];
        let deadline = match deadline {
            Some(v) => v,
            None => {
                return self.search(state, self.width, None).unwrap_or(choice);
            }
        };
        if self.predict {
            return self.choose_predicted(state, deadline, choice);
        }
        let mut width = self.width;
        let mut start = Instant::now();
        while let Some(action) = self.search(state, width, Some(deadline)) {
            choice = action;
            // Twice the width takes about twice as long: start it only if it should fit.
            let now = Instant::now();
            if width >= self.max_width || now + (now - start).mul_f64(2.2) >= deadline {
                break;
            }
            width *= 2;
            start = now;
        }
        choice
    }

    fn last_report(&self) -> String {
        format!("beam width {}, {} boards evaluated, value {:.0}", self.last_width, self.nodes, self.last_value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game6561::{BLUE, GRAY, RED, SLIDE_DOWN, SLIDE_LEFT, SLIDE_RIGHT};
    use crate::tools::apply_texts;
    use std::time::Duration;

    fn board(pieces: &[(usize, u8, u8)]) -> Cells {
        let mut cells = [0; SQUARES];
        for &(sq, colour, exponent) in pieces {
            cells[sq] = piece(colour, exponent);
        }
        cells
    }

    /// Plays a whole self-partnered game from the empty board.
    fn self_partnered(width: usize, horizon: usize) -> Game6561 {
        let mut agent = BeamAgent::new(Weights::TUNED, width, horizon);
        let mut g = Game6561::new();
        while !g.is_terminal() {
            let action = agent.choose(&g, None);
            assert!(g.is_legal(action), "illegal {action} at move {}", g.moves() + 1);
            g.apply(action);
        }
        g
    }

    /// The widest beam of up to 8 moves from `g` with `ms` milliseconds each (every action
    /// legal), stopping at the first wide one. A wide search that overruns its move (a busy
    /// test machine) falls back to the narrow answer and raises the time estimate for the
    /// next move, so one move alone could stay narrow.
    fn widest_search(agent: &mut BeamAgent, g: &Game6561, ms: u64) -> usize {
        let mut widest = 0;
        for _ in 0..8 {
            let action = agent.choose(g, Some(Instant::now() + Duration::from_millis(ms)));
            assert!(g.is_legal(action));
            widest = widest.max(agent.last_width);
            if widest > 4 * agent.width {
                break;
            }
        }
        widest
    }

    #[test]
    fn the_evaluation_keeps_the_leading_colours_units() {
        let w = Weights::TUNED;
        // A unit of the leading colour (blue, 8 units in a 27) counts more than another's.
        let blue = board(&[(0, BLUE, 3), (15, BLUE, 0)]);
        let red = board(&[(0, BLUE, 3), (15, RED, 0)]);
        assert!((evaluate_cells(&w, &blue) - evaluate_cells(&w, &red) - w.mass * (1.0 - w.second)).abs() < 1e-3);
        // Two blue 1s that can merge are worth more than a cleaner board without them.
        let kept = board(&[(0, BLUE, 0), (1, BLUE, 0), (15, BLUE, 4)]);
        let annihilated = board(&[(15, BLUE, 4)]);
        assert!(evaluate_cells(&w, &kept) > evaluate_cells(&w, &annihilated));
    }

    #[test]
    fn a_placement_goes_where_the_next_slides_merge_it() {
        // Move 6 places blue: a blue 1 in the top-left corner, a blue 9 in the top-right one.
        // Over the cycle (blue, red, gray, two slides) every blue unit is kept: the new blue
        // 1 merges with the old one, and red and gray go to each other.
        let mut g = Game6561::from_cells(board(&[(0, BLUE, 0), (3, BLUE, 2)]), 5, 0);
        assert_eq!(g.step(), Step::Place(BLUE));
        let mut agent = BeamAgent::new(Weights::TUNED, 64, 10);
        for _ in 0..5 {
            let action = agent.choose(&g, None);
            g.apply(action);
        }
        let mut blue: Vec<u8> = g.cells().iter().filter(|&&p| p != 0 && colour_of(p) == BLUE).map(|&p| exponent_of(p)).collect();
        blue.sort_unstable();
        assert_eq!(blue, [1, 2], "a blue 3 and the blue 9: {:?}", g.rows());
    }

    #[test]
    fn the_last_moves_maximise_the_score() {
        // Move 999 (A's slide) then 1000 (B's slide). Row 1 holds blue 27, blue 27: sliding
        // left or right merges them (sum +27); up and down change other lines only.
        let cells = board(&[(0, BLUE, 3), (1, BLUE, 3), (4, RED, 0), (10, GRAY, 1)]);
        let g = Game6561::from_cells(cells, MAX_MOVES - 2, 0);
        assert_eq!(g.step(), Step::Slide);
        let mut agent = BeamAgent::new(Weights::TUNED, 64, 20);
        let mut end = g.clone();
        while !end.is_terminal() {
            let action = agent.choose(&end, None);
            end.apply(action);
        }
        assert_eq!(end.moves(), MAX_MOVES);
        // Best possible: the 27s merge into 81 (sum 81 + 1 + 3 = 85).
        assert_eq!(end.score(), 85, "{:?}", end.rows());
        let first = agent.choose(&g, None);
        assert!([SLIDE_LEFT, SLIDE_RIGHT, SLIDE_DOWN, SLIDE_UP].contains(&first));
    }

    /// A net whose value is `tanh(weight * board sum / 3000)`: one hidden unit, 100 times the
    /// board sum feature (it is never negative), read by the value head at `weight / 100`.
    fn sum_net(weight: f32) -> Arc<Mlp> {
        use crate::nn::Dense;
        let mut hidden = Dense::zeros(Game6561::NUM_FEATURES, 1);
        // The board sum is the last feature but one (the score so far is the last).
        hidden.weights[Game6561::NUM_FEATURES - 2] = 100.0;
        let mut value = Dense::zeros(1, 2);
        value.weights[0] = weight / 100.0;
        Arc::new(Mlp { game: "6561".into(), hidden: vec![hidden], policy: Dense::zeros(1, 20), value })
    }

    #[test]
    fn the_value_net_decides_between_the_last_steps_lines() {
        // Move 4 is a slide. Left merges the blue 1s of row 1 (sum 4); up annihilates the blue
        // 1 and red 1 of column 1 (sum 1); right and down do the same as left and up.
        let cells = board(&[(0, BLUE, 0), (1, BLUE, 0), (4, RED, 0)]);
        let g = Game6561::from_cells(cells, 3, 0);
        let mut net = ScoreNet::new(sum_net(1.0));
        let expected = ((4.0f32 / 3000.0).tanh() + 1.0) * VALUE_SCALE;
        // The net runs in integers: within a twentieth of a point.
        assert!((net.expected_score(&slide_cells(&cells, SLIDE_LEFT), 4, 3.0) - expected).abs() < 0.05);
        // The score reached is a floor: the game's score never falls below it.
        assert_eq!(net.expected_score(&slide_cells(&cells, SLIDE_LEFT), 4, 5000.0), 5000.0);
        let merged = |a: Action| [SLIDE_LEFT, SLIDE_RIGHT].contains(&a);
        let mut likes_sum = BeamAgent::with_net(sum_net(1.0), 8, 1);
        assert!(merged(likes_sum.choose(&g, None)));
        let mut hates_sum = BeamAgent::with_net(sum_net(-1.0), 8, 1);
        assert!(!merged(hates_sum.choose(&g, None)));
        // The hand-made evaluation merges.
        assert!(merged(BeamAgent::new(Weights::TUNED, 8, 1).choose(&g, None)));
    }

    #[test]
    fn lines_that_meet_on_one_board_count_once() {
        let mut agent = BeamAgent::new(Weights::TUNED, 64, 10);
        let (a, b) = (board(&[(0, BLUE, 1)]), board(&[(5, RED, 0)]));
        let line = |cells, first: Action, score| BeamNode { cells, best: 0.0, first, second: 0, score };
        let mut next = vec![line(a, 1, 5.0), line(b, 2, 1.0), line(a, 3, 7.0), line(a, 4, 6.0)];
        agent.remove_duplicates(&mut next);
        let mut kept: Vec<(Action, f32)> = next.iter().map(|n| (n.first, n.score)).collect();
        kept.sort_by_key(|k| k.0);
        assert_eq!(kept, [(2, 1.0), (3, 7.0)]);
    }

    #[test]
    fn the_wide_search_fills_the_time_it_predicts() {
        let mut g = Game6561::new();
        apply_texts(&mut g, &["11", "12", "13"]).unwrap();
        let mut agent = BeamAgent::new(Weights::TUNED, 64, 20);
        // The width comes from the measured time per line: far beyond the doubling steps
        // from 64 that the narrow search alone could justify.
        let widest = widest_search(&mut agent, &g, 100);
        assert!(widest > 4 * 64, "{widest}: {}", agent.last_report());
        assert!(agent.seconds_per_line > 0.0);
    }

    #[test]
    fn a_passed_deadline_still_gives_a_legal_action() {
        let mut g = Game6561::new();
        apply_texts(&mut g, &["11", "12", "13"]).unwrap();
        let mut agent = BeamAgent::new(Weights::TUNED, 64, 20);
        let past = Instant::now() - Duration::from_millis(5);
        let action = agent.choose(&g, Some(past));
        assert!(g.is_legal(action));
        // With time, the width grows beyond the first one.
        let widest = widest_search(&mut agent, &g, 200);
        assert!(widest > 64, "{widest}: {}", agent.last_report());
    }

    /// The search's strength on a budget small enough for a test: a self-partnered game with
    /// a narrow beam scores far above what the net bot reached on the full clock (431.6 over
    /// 20 judged games) and grows a piece of at least 729.
    #[test]
    fn a_narrow_beam_scores_well_self_partnered() {
        let g = self_partnered(16, 10);
        assert_eq!(g.moves(), MAX_MOVES, "{:?}", g.rows());
        assert!(g.score() >= 1500, "score {}: {:?}", g.score(), g.rows());
        assert!(g.largest_piece() >= 729);
    }
}
