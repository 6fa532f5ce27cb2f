//! Connect 4 rules against data: perft counts (cross-checked with a naive, independent
//! implementation of the referee's rules) and random-playout invariants.

mod common;

use bots::connect4::{Connect4, STEAL};
use bots::game::{Action, ActionList, Game};
use bots::rng::Rng;

const PERFT: &str = include_str!("data/connect4.perft");

#[test]
fn perft_counts_match_the_data_file() {
    common::run_perft_file::<Connect4>(PERFT, 50_000_000);
}

#[test]
fn random_playouts_keep_the_invariants() {
    common::check_invariants::<Connect4>(3_000, 1, |s| s.hash_from_scratch());
}

/// The referee's rules written the slow, obvious way: a 7x9 grid, row 0 at the top, a win
/// found by walking four cells from every cell in every direction.
#[derive(Clone)]
struct Naive {
    grid: [[u8; 9]; 7], // 0 empty, 1 player 0, 2 player 1
    turn: usize,
    over: bool,
}

impl Naive {
    fn new() -> Self {
        Naive { grid: [[0; 9]; 7], turn: 0, over: false }
    }
    fn actions(&self) -> Vec<Action> {
        if self.over {
            return vec![];
        }
        let mut v: Vec<Action> = (0..9).filter(|&c| self.grid[0][c] == 0).map(|c| c as Action).collect();
        if self.turn == 1 {
            v.push(STEAL);
        }
        v
    }
    fn play(&mut self, a: Action) {
        let me = (self.turn % 2) as u8 + 1;
        if a == STEAL {
            for row in self.grid.iter_mut() {
                for cell in row.iter_mut() {
                    if *cell == 1 {
                        *cell = 2;
                    }
                }
            }
        } else {
            let row = (0..7).rev().find(|&r| self.grid[r][a as usize] == 0).unwrap();
            self.grid[row][a as usize] = me;
            let full = self.grid[0].iter().all(|&c| c != 0);
            self.over = self.four(me) || full;
        }
        self.turn += 1;
    }
    fn four(&self, who: u8) -> bool {
        for r in 0..7i32 {
            for c in 0..9i32 {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    if (0..4).all(|k| {
                        let (rr, cc) = (r + dr * k, c + dc * k);
                        (0..7).contains(&rr) && (0..9).contains(&cc) && self.grid[rr as usize][cc as usize] == who
                    }) {
                        return true;
                    }
                }
            }
        }
        false
    }
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.actions()
            .into_iter()
            .map(|a| {
                let mut n = self.clone();
                n.play(a);
                n.perft(depth - 1)
            })
            .sum()
    }
}

fn naive_at(moves: &[String]) -> Naive {
    let mut n = Naive::new();
    for m in moves {
        n.play(Connect4::parse_action(m).unwrap());
    }
    n
}

#[test]
fn perft_data_agrees_with_the_naive_rules() {
    for case in common::parse_perft_file(PERFT) {
        let naive = naive_at(&case.moves);
        for &(depth, expected) in &case.counts {
            if expected <= 2_000_000 {
                assert_eq!(naive.perft(depth), expected, "{} perft({depth})", case.id);
            }
        }
    }
}

#[test]
fn bitboards_and_naive_rules_agree_along_random_games() {
    let mut rng = Rng::new(99);
    let mut list = ActionList::new();
    for _ in 0..2_000 {
        let mut fast = Connect4::new();
        let mut slow = Naive::new();
        loop {
            fast.legal_actions(&mut list);
            assert_eq!(list.as_slice(), slow.actions().as_slice());
            assert_eq!(fast.is_terminal(), slow.over);
            if fast.is_terminal() {
                break;
            }
            let a = list[rng.below(list.len())];
            fast.apply(a);
            slow.play(a);
            let rows = fast.rows();
            for (r, row) in rows.iter().enumerate() {
                let expect: String = slow.grid[r].iter().map(|&c| ['.', '0', '1'][c as usize]).collect();
                assert_eq!(row, &expect);
            }
        }
    }
}
