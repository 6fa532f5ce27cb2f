//! Helpers shared by the integration tests of every game: the perft-file runner and the
//! random-playout invariant harness. Adding a game means a data file and two one-line tests.
#![allow(dead_code)]

use bots::game::{Action, ActionList, Game};
use bots::tools::perft;
use bots::rng::Rng;
use std::collections::HashSet;

/// One position of a perft file: a name, the actions from the start, and expected counts.
pub struct PerftCase {
    pub id: String,
    pub moves: Vec<String>,
    pub counts: Vec<(u32, u64)>,
}

/// Reads the perft format:
/// ```text
/// # comment
/// id <name>
/// moves <action> <action> ...    (canonical action text, from the start position)
/// perft <depth> <leaf count>
/// ```
pub fn parse_perft_file(text: &str) -> Vec<PerftCase> {
    let mut cases: Vec<PerftCase> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "id" => cases.push(PerftCase { id: rest.trim().to_string(), moves: vec![], counts: vec![] }),
            "moves" => cases.last_mut().expect("moves before id").moves = rest.split_whitespace().map(String::from).collect(),
            "perft" => {
                let mut it = rest.split_whitespace().map(|t| t.parse::<u64>().unwrap_or_else(|_| panic!("line {}: bad number", n + 1)));
                let (d, c) = (it.next().unwrap(), it.next().unwrap());
                cases.last_mut().expect("perft before id").counts.push((d as u32, c));
            }
            _ => panic!("line {}: unknown key {key:?}", n + 1),
        }
    }
    cases
}

/// The position a perft case starts from.
pub fn case_position<G: Game>(case: &PerftCase) -> G {
    let mut state = G::new_game(&mut Rng::new(0));
    let texts: Vec<&str> = case.moves.iter().map(String::as_str).collect();
    bots::tools::apply_texts(&mut state, &texts).unwrap_or_else(|e| panic!("{}: {e}", case.id));
    state
}

/// Checks every count of every case in a perft file against the game's move generator.
pub fn run_perft_file<G: Game>(text: &str, max_nodes: u64) {
    run_perft_file_counting::<G>(text, max_nodes, perft::<G>);
}

/// As [`run_perft_file`], counting leaves with `count` (`tools::perft_ends_as_leaves` where a
/// game that ends early is one leaf).
pub fn run_perft_file_counting<G: Game>(text: &str, max_nodes: u64, count: fn(&G, u32) -> u64) {
    let cases = parse_perft_file(text);
    assert!(!cases.is_empty(), "no perft cases");
    for case in &cases {
        let state: G = case_position(case);
        for &(depth, expected) in &case.counts {
            if expected > max_nodes {
                continue;
            }
            assert_eq!(count(&state, depth), expected, "{} {}: perft({depth})", G::NAME, case.id);
        }
    }
}

/// Random playouts checking what every game must guarantee: legal actions are legal and
/// in range, `is_legal` agrees with the list, games end within `MAX_GAME_LENGTH`, terminal
/// positions have no actions and utilities in [-1, 1], symmetries commute with play, and the
/// incremental hash matches `rehash` (a recomputation from scratch).
pub fn check_invariants<G: Game>(games: usize, seed: u64, rehash: impl Fn(&G) -> u64) {
    let mut rng = Rng::new(seed);
    let mut list = ActionList::new();
    for _ in 0..games {
        let mut state = G::new_game(&mut rng);
        let mut length = 0;
        loop {
            assert_eq!(state.hash(), rehash(&state), "incremental hash drifted");
            state.legal_actions(&mut list);
            if state.is_terminal() {
                assert!(list.is_empty(), "terminal position with legal actions");
                for u in state.utilities() {
                    assert!((-1.0..=1.0).contains(&u), "utility {u} out of range");
                }
                break;
            }
            assert!(!list.is_empty(), "non-terminal position without legal actions");
            let distinct: HashSet<Action> = list.iter().copied().collect();
            assert_eq!(distinct.len(), list.len(), "duplicate legal actions");
            for a in 0..G::NUM_ACTIONS as Action {
                assert_eq!(state.is_legal(a), distinct.contains(&a), "is_legal({a}) disagrees with the list");
            }
            let action = list[rng.below(list.len())];
            assert_eq!(G::parse_action(&G::format_action(action)), Ok(action), "action text round trip");
            let sym = rng.below(G::NUM_SYMMETRIES);
            let mut transformed = state.symmetric(sym);
            assert_eq!(transformed.hash(), rehash(&transformed));
            transformed.apply(G::map_action(sym, action));
            state.apply(action);
            assert_eq!(transformed.hash(), state.symmetric(sym).hash(), "symmetry {sym} does not commute with play");
            length += 1;
            assert!(length <= G::MAX_GAME_LENGTH, "game longer than MAX_GAME_LENGTH");
        }
        assert!(length > 0, "a game must have at least one action");
    }
}
