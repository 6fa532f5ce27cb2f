//! How far from the end the exact solver proves Zuniq positions: the positions after 26 and
//! 28 moves of 17 games judged between the exported bot and UCT, each solved with a fresh
//! table and a 3 s limit. Prints each position's legal segments, result, nodes and time, then
//! the totals. `cargo run --release -p cupzero-bots --example zuniq_solve [NODES]`: with a
//! node limit per position instead of the 3 s (a fixed amount of work, for timing the solver).
//! `... zuniq_solve generic [NODES]`: the generic solver instead of Zuniq's own.

use bots::game::{ActionList, Game};
use bots::solver::{Solver, WinLossSolver};
use bots::zuniq::exact::ZuniqSolver;
use bots::tools::apply_texts;
use bots::zuniq::Zuniq;
use std::time::{Duration, Instant};

/// The first 28 moves of judged games (`judge zuniq`, seed 5000: every 12th game).
const GAMES: [&str; 17] = [
    "F5h C3h D6v A2h A3h B1v C1v C2v F3h A3v C6v B5h B6v D3h F4h E4h F2h E3h D1v D3v A6v D4h F1h E1h A1h D5v E6v C5v",
    "C4v F4h C6v C5h A3h B4v F3h B3v E6v E4h D6v B1v C1v E5v A4h E1h D1v E1v B6v D5h A6v B3h A2h D3h F2h E4v F5h E3v",
    "C4v A5h A3h F4h F3h A5v C1v D5v C6v C1h F2h C2h D1v C3v B6v B2h A4h E5h A2h E4v B1v B4v F1h E2h A1v D1h E1v B2v",
    "C4v E4v E3v C1v F5h E1h C6v C3v D4h B4v D4v F2h E6v E3h D2h A5h B3v C5h D3v A3h A4v F3h C4h D1v D6v D5v F4h B2v",
    "C4v C6v F2h B2h A1v B5v F3h C1h A3h B4v D6v A2v A2h D3v C1v F1h E1v E6v B1v B5h D1v C5v A4h D5h A1h B4h F5h D2v",
    "C4v A2h A4v A3h D4v E3h C1v B2h C6v C2v F3h C2h B1v C5v D6v B5h F4h B2v A6v E5h F2h A2v A4h C3v B6v D5h A5h C4h",
    "C4v E6v F1h E5h F4h C2h C4h D4h D4v C3h A3v F5h C1h B5v D5h B1v B3v D1v B4v D3v E3v D6v E4v C1v D3h A4h A4v F3h",
    "C4v F4h D6v C4h C1v A1v A3h A4v F3h B5v C6v A5h A2h D4h A1h A3v F2h C2h F5h B1h B1v C5v A4h E5h B6v F1h E6v E1h",
    "C4v B3h C5h D2v E5v A2v B5v A6v B2v B4h E2h B6v E4h F2h D5v D3v C5v D6v E3h F3h C2v C6v B2h F1h A5v B1v E2v D5h",
    "C4v F5h A5h D2v D6v D4h A2v D5h E1h D1v E6v F1h C1v A4h C6v C3v F4h B5h F3h C3h A3h C5h A2h E1v A6v B4h F2h E3v",
    "C4v A3h D4v A3v B6v B4v C2v B4h C1h A2v D5v A2h B5v B3v E4h F4h D2v F3h E2h A5h B2v C3v B2h D3v D5h C6v E3h A4v",
    "C4v C1v B6v D5v A3h B4v F1h D4h F3h B1h C6v D1h A2h A3v B1v C4h F4h D1v E1v E2h A6v C2v D6v C5v F2h A2v A1v B3v",
    "C4v B2h E5v B6v D5v C3v B5v F2h B2v F4h C5v C6v E2h E1h B4h A3h C2v A1h E3h B4v B3h F5h E4h A2h D2v E3v E4v D5h",
    "C4v A3v C1v A1v A3h B3v C6v B5h F3h B2h D6v B1h A1h D4v E6v E3v A4h A2v D1v C4h B1v C1h A6v D2h F5h A4v A5h D3v",
    "C4v F3h D1v E4v A2h B2h A3h A4v E1v D4h C1v A6v C6v A2v B6v C2h F2h E5h F1h C3v A4h D2v B1v D4v A5h E3h D6v E2h",
    "F5h C3v D2h A1v E4v C5v E3v E6v D4h C4v C4h E1v D5h B1v D4v A5h D1h B6v B3v D1v A3v A3h D3v C1h C2h C1v D3h C6v",
    "C4v C6v C1v D2h A4h B6v F3h D5h A3h C1h A2h C3h F2h B2h A6v B4h F4h C2v D6v C4h B1v B1h D1v E4h A1v E4v A1h D5v",
];

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let generic = args.first().is_some_and(|a| a == "generic");
    if generic {
        args.remove(0);
    }
    let node_limit: Option<u64> = args.first().and_then(|n| n.parse().ok());
    let mut list = ActionList::new();
    let (mut solved, mut total_nodes, mut total_time) = (0, 0, Duration::ZERO);
    println!("moves | legal segments | result | nodes | time");
    for plies in [28usize, 26] {
        for game in GAMES {
            let mut state = Zuniq::new();
            let moves: Vec<&str> = game.split(' ').take(plies).collect();
            apply_texts(&mut state, &moves).expect("a judged game");
            state.legal_actions(&mut list);
            let mut solver: Box<dyn WinLossSolver<Zuniq>> = if generic { Box::new(Solver::new()) } else { Box::new(ZuniqSolver::new()) };
            let start = Instant::now();
            let (limit, deadline) = match node_limit {
                Some(n) => (n, None),
                None => (u64::MAX, Some(start + Duration::from_secs(3))),
            };
            let outcome = solver.solve_ordered(&state, &list, limit, deadline).outcome;
            let elapsed = start.elapsed();
            solved += outcome.is_some() as usize;
            total_nodes += solver.nodes();
            total_time += elapsed;
            let result = outcome.map_or("unsolved".to_string(), |o| format!("{o:?}"));
            println!("{plies} | {} | {result} | {} | {:.1} ms", list.len(), solver.nodes(), elapsed.as_secs_f64() * 1e3);
        }
    }
    println!("solved {solved} of {}; {total_nodes} nodes in {:.1} s ({:.0} nodes/s)", 2 * GAMES.len(), total_time.as_secs_f64(), total_nodes as f64 / total_time.as_secs_f64());
}
