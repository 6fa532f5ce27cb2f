//! How far from the end the exact solver proves Zuniq positions: positions after N random
//! moves, each solved with a fresh table and a 3 s limit.
//! `cargo run --release -p cupzero-bots --example zuniq_solve`

use bots::game::{ActionList, Game};
use bots::rng::Rng;
use bots::solver::Solver;
use bots::zuniq::Zuniq;
use std::time::{Duration, Instant};

fn main() {
    let mut rng = Rng::new(5);
    let mut list = ActionList::new();
    println!("random moves | legal segments | result | nodes | time");
    for plies in [36usize, 33, 30, 28, 26, 24] {
        for _ in 0..4 {
            let mut state = Zuniq::new_game(&mut rng);
            for _ in 0..plies {
                if state.is_terminal() {
                    break;
                }
                state.legal_actions(&mut list);
                state.apply(list[rng.below(list.len())]);
            }
            if state.is_terminal() {
                continue;
            }
            state.legal_actions(&mut list);
            let mut solver = Solver::new();
            let start = Instant::now();
            let outcome = solver.solve(&state, u64::MAX, Some(start + Duration::from_secs(3)));
            let result = outcome.map_or("unsolved".to_string(), |o| format!("{o:?}"));
            println!("{plies} | {} | {result} | {} | {:.1} ms", list.len(), solver.nodes(), start.elapsed().as_secs_f64() * 1e3);
        }
    }
}
