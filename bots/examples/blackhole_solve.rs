//! How far from the end Black Hole's margin search settles positions: 10 positions per depth,
//! reached by random play from random brown stones (seeds 0..9), each solved to the end with
//! one table. Prints, per number of moves left, the mean nodes and the slowest solve.
//! `cargo run --release -p cupzero-bots --example blackhole_solve [MOVES_LEFT...]` (default 8 10 11)

use bots::blackhole::endgame::EndgameSolver;
use bots::blackhole::{BlackHole, TURNS};
use bots::tools::after_random_actions;
use std::time::Instant;

fn main() {
    let mut depths: Vec<usize> = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.parse::<usize>() {
            Ok(n) if (1..=TURNS).contains(&n) => depths.push(n),
            _ => {
                eprintln!("error: moves left must be 1..={TURNS}, got {arg:?}");
                std::process::exit(1);
            }
        }
    }
    if depths.is_empty() {
        depths = vec![8, 10, 11];
    }
    let mut solver = EndgameSolver::new();
    for left in depths {
        let (mut nodes, mut slowest) = (0u64, 0f64);
        for seed in 0..10 {
            let game: BlackHole = after_random_actions(seed, TURNS - left);
            let start = Instant::now();
            solver.solve(&game, u64::MAX, None).expect("no budget given");
            slowest = slowest.max(start.elapsed().as_secs_f64());
            nodes += solver.nodes();
        }
        println!("{left} moves left: {} nodes on average, slowest {:.3} s", nodes / 10, slowest);
    }
}
