//! The classic Connect 4 bot: the alpha-beta of [`super::search`] with an evaluation that
//! counts live threats and open windows and plays out the zugzwang fight over the threats on
//! the board. The threat and parity reasoning follows Victor Allis's analysis of
//! Connect 4 (zugzwang, odd and even threats), redone here for CodinGame's 7 x 9 board and
//! its STEAL (see [`zugzwang`]).

use super::search::{AlphaBeta, Leaf, Position};
use super::{live_threats, own_rows, threat_cells, zugzwang, Connect4, BOARD_MASK, CELLS, COL_BITS};
use crate::agent::Agent;
use crate::classic::{Classic, Teacher};

/// The evaluation's weights (from the mover's side; a chip is about 100).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// For the side [`zugzwang`] says wins the fight over the board's threats, once at most
    /// `zugzwang_empties` cells are empty (earlier, the free cells still make new threats: on
    /// open positions 10 cells from the end it names the exact winner 3 times in 4, and
    /// from the start position it cost games against the net, docs/lab/connect4.md,
    /// The classic bot).
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

/// Chosen by matches against the shipped net from the start position (docs/lab/connect4.md,
/// The classic bot): weighting threats by row parity, or the zugzwang fight
/// before the endgame, lost more games there than it won.
pub const WEIGHTS: Weights = Weights { zugzwang: 100, zugzwang_empties: 20, good_threat: 100, bad_threat: 100, two_in_window: 6, one_in_window: 2 };

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
    let live = live_threats([threat_cells(mine, pos.mask), threat_cells(theirs, pos.mask)]);
    for side in 0..2 {
        let own = own_rows((side == 0) == mover_odd);
        let value = (live[side] & own).count_ones() as i32 * w.good_threat + (live[side] & !own).count_ones() as i32 * w.bad_threat;
        score += if side == 0 { value } else { -value };
    }
    let (my_ones, my_twos) = window_counts(mine, theirs);
    let (their_ones, their_twos) = window_counts(theirs, mine);
    score += (my_twos as i32 - their_twos as i32) * w.two_in_window + (my_ones as i32 - their_ones as i32) * w.one_in_window;
    score
}

/// The hand-made evaluation as the search's leaf.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandMade(pub Weights);

impl Leaf for HandMade {
    fn score(&mut self, pos: &Position, _turn: usize) -> i32 {
        evaluate(pos, &self.0)
    }
}

/// The classic bot: the alpha-beta with the hand-made evaluation, `budget` nodes a decision.
pub fn classic_search(budget: Option<u64>) -> AlphaBeta<HandMade> {
    AlphaBeta::new(HandMade(WEIGHTS), budget)
}

/// Alpha-beta keeps no visit counts: as a teacher its chosen move is the whole target.
impl Teacher<Connect4> for AlphaBeta<HandMade> {}

impl Classic for Connect4 {
    fn classic_agent(_seed: u64, budget: Option<u64>) -> Option<Box<dyn Agent<Self>>> {
        Some(Box::new(classic_search(budget)))
    }
    fn classic_teacher(_seed: u64, budget: Option<u64>) -> Option<Box<dyn Teacher<Self>>> {
        Some(Box::new(classic_search(budget)))
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect4::search::{column_of, ExactPlay, EXACT_EMPTIES, PROVEN};
    use crate::connect4::tests::ODD_THREAT;
    use crate::connect4::COLS;
    use crate::game::{Action, Game};
    use std::time::Instant;
    use crate::connect4::ROWS;
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
        let mut search = classic_search(None);
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

    /// Self-play's exact endgames: from at most `EXACT_EMPTIES` empty cells the search names
    /// a move that keeps the position's exact value (draws included); larger positions are
    /// left to the net's search.
    #[test]
    fn exact_play_keeps_the_exact_value() {
        let mut checked = [0; 3];
        let mut exact = classic_search(None);
        for seed in 0..2000 {
            if checked.iter().all(|&n| n >= 2) {
                break;
            }
            let Some(game) = open_position(seed, EXACT_EMPTIES - 4 - (seed as usize % 4)) else { continue };
            let value = exact_result(&game);
            if checked[(value + 1) as usize] >= 2 {
                continue;
            }
            let action = exact.exact_action(&game, u64::MAX, None).expect("solved");
            let mut after = game.clone();
            after.apply(action);
            let after_value = match after.winner() {
                Some(w) if w == game.to_move() => 1,
                Some(_) => -1,
                None if after.is_terminal() => 0,
                None => -exact_result(&after),
            };
            assert_eq!(after_value, value, "seed {seed}: {:?} then {action}", game.rows());
            checked[(value + 1) as usize] += 1;
        }
        assert!(checked.iter().all(|&n| n >= 2), "losses, draws and wins all checked: {checked:?}");
        let early = (0..).find_map(|seed| open_position(seed, EXACT_EMPTIES + 1)).unwrap();
        assert_eq!(exact.exact_action(&early, u64::MAX, None), None, "too early to try");
        let needs_many_nodes = |game: &Connect4| {
            let mut search = classic_search(None);
            search.best_action(game, None);
            search.last_search().nodes > 10_000
        };
        let hard = (0..).filter_map(|seed| open_position(seed, EXACT_EMPTIES)).find(needs_many_nodes).unwrap();
        assert_eq!(classic_search(None).exact_action(&hard, 1_000, None), None, "out of budget");
    }

    #[test]
    fn takes_a_win_and_blocks_a_loss() {
        let mut game = Connect4::new();
        for col in [0, 8, 0, 8, 0] {
            game.apply(col);
        }
        // Player 1 must block column 0 (player 0 has three there); nothing else saves it.
        let mut search = classic_search(Some(100_000));
        assert_eq!(search.best_action(&game, None), 0);
        game.apply(1);
        // Player 0 wins at once.
        assert_eq!(search.best_action(&game, None), 0);
        assert!(search.last_search().score >= PROVEN);
    }

    fn position(rows: [&str; ROWS], turn: usize) -> Connect4 {
        Connect4::from_rows(&rows, turn).unwrap()
    }


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
        let mut search = classic_search(None);
        let start = Instant::now();
        let action = search.best_action(&game, Some(start + std::time::Duration::from_millis(50)));
        assert!(start.elapsed().as_millis() < 150);
        assert!(game.is_legal(action));
        assert!(search.last_search().depth >= 4);
    }
}
