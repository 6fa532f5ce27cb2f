//! Analysis: the first move and the STEAL decision by long searches, not by games. After a
//! first chip in column `c` the second player steals it or keeps it and drops a chip of its
//! own; either way the game goes on from "one chip in `c`, its owner's opponent to move, no
//! STEAL left" (`connect4_openings.rs` has the argument), so the stealer's value and the
//! keeper's value add up to a draw's. For each column, from the second player's side:
//! - the shipped net's search (PUCT, both views averaged, as the bot plays) at NET_PLAYOUTS:
//!   what it plays after `c` (and the share of its visits that went to STEAL), and its value
//!   of the position after `c STEAL` (the stealer's value, from -1 to +1), then its value of
//!   the position after `c` for the first player (values are by seat: the second player's
//!   best answer, keeping or stealing, is its negative);
//! - the same for the UCT bot (random playouts) at UCT_PLAYOUTS;
//! - the classic alpha-beta at CLASSIC_NODES a search: the position after `c STEAL` and,
//!   searched one by one with a ninth of the nodes each, the best keeping column (scores in
//!   the evaluation's units, a chip about 100; proven results as ±1), with the depths reached.
//!
//! `-- NET_PLAYOUTS UCT_PLAYOUTS CLASSIC_NODES [COLUMN]`; environment `NET` (default the
//! shipped net). Columns c and 8 - c are mirror images: five columns, or the one named.
//! `COLUMN` = 9: the first move instead, the net's and UCT's searches from the empty board
//! (each column's share of the visits and the first player's value of it).
use bots::bot::{net_search_config, Contest};
use bots::connect4::classic::classic_search;
use bots::connect4::search::PROVEN;
use bots::connect4::{Connect4, COLS, STEAL};
use bots::game::{Action, Game};
use bots::mcts::{Mcts, MctsConfig, SearchLimits};
use bots::net_eval::NetEvaluator;
use bots::nn::Mlp;
use bots::tools::RolloutEvaluator;
use std::sync::Arc;
use std::time::Instant;

/// A search after `c`: the move it plays and STEAL's share of the root's visits; then a search
/// after `c STEAL`: the stealer's value. `search` runs `playouts` from a position.
fn decision_and_value(after: &Connect4, mut search: impl FnMut(&Connect4) -> Mcts<Connect4>) -> String {
    let mcts = search(after);
    let first_player_value = mcts.root_value()[0];
    let children = mcts.root_children();
    let total: u32 = children.iter().map(|c| c.visits).sum();
    let steal_share = children.iter().find(|c| c.action == STEAL).map_or(0, |c| c.visits) as f64 / total.max(1) as f64;
    let played = match mcts.best_action() {
        Some(STEAL) => "STEAL".to_string(),
        Some(col) => format!("keep, {col}"),
        None => "-".to_string(),
    };
    let mut stolen = after.clone();
    stolen.apply(STEAL);
    let value = search(&stolen).root_value()[1];
    format!("{played} ({:.0}% STEAL); {value:+.3}; {first_player_value:+.3}", 100.0 * steal_share)
}

/// The net's and UCT's searches from the empty board: each column's visits and value.
fn first_move(net: &Arc<Mlp>, net_playouts: u64, uct_playouts: u64) {
    let start = Connect4::new();
    let mut net_tree = Mcts::new(start.clone(), MctsConfig { max_nodes: 8_000_000, ..net_search_config::<Connect4>() });
    net_tree.search(&mut NetEvaluator::averaged(Arc::clone(net), Connect4::AVERAGED_VIEWS), &SearchLimits::playouts(net_playouts));
    let mut uct_tree = Mcts::new(start, MctsConfig { max_nodes: 8_000_000, ..MctsConfig::uct() });
    uct_tree.search(&mut RolloutEvaluator::new(1), &SearchLimits::playouts(uct_playouts));
    println!("| first column | net: visits, value | UCT: visits, value |");
    println!("|---|---|---|");
    let (net_children, uct_children) = (net_tree.root_children(), uct_tree.root_children());
    let share = |children: &[bots::mcts::ChildInfo], i: usize| 100.0 * children[i].visits as f64 / children.iter().map(|c| c.visits as f64).sum::<f64>();
    for i in 0..COLS {
        println!(
            "| {} | {:.1}%, {:+.3} | {:.1}%, {:+.3} |",
            net_children[i].action,
            share(&net_children, i),
            net_children[i].q[0],
            share(&uct_children, i),
            uct_children[i].q[0]
        );
    }
    println!("the net plays {:?}, UCT {:?}", net_tree.best_action(), uct_tree.best_action());
}

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().expect("numbers")).collect();
    let path = std::env::var("NET").unwrap_or("checkpoints/connect4/net.czw".into());
    let net = Arc::new(Mlp::from_bytes(&std::fs::read(&path).unwrap(), "connect4").unwrap());
    let (net_playouts, uct_playouts, classic_nodes, columns) = match args[..] {
        [n, u, c] => (n, u, c, 0..=COLS / 2),
        [n, u, _, 9] => {
            first_move(&net, n, u);
            return;
        }
        [n, u, c, column] if (column as usize) < COLS => (n, u, c, column as usize..=column as usize),
        _ => {
            eprintln!("usage: connect4_opening_search NET_PLAYOUTS UCT_PLAYOUTS CLASSIC_NODES [COLUMN]");
            std::process::exit(2);
        }
    };
    println!("| column | net: plays (STEAL's visits); stealer's value; first player's value | UCT: the same | alpha-beta: STEAL, best keep (column), depths | seconds |");
    println!("|---|---|---|---|---|");
    for c in columns {
        let start = Instant::now();
        let mut after = Connect4::new();
        after.apply(c as Action);

        let net_line = decision_and_value(&after, |state| {
            let mut mcts = Mcts::new(state.clone(), MctsConfig { max_nodes: 8_000_000, ..net_search_config::<Connect4>() });
            mcts.search(&mut NetEvaluator::averaged(Arc::clone(&net), Connect4::AVERAGED_VIEWS), &SearchLimits::playouts(net_playouts));
            mcts
        });
        let uct_line = decision_and_value(&after, |state| {
            let mut mcts = Mcts::new(state.clone(), MctsConfig { max_nodes: 8_000_000, ..MctsConfig::uct() });
            mcts.search(&mut RolloutEvaluator::new(c as u64), &SearchLimits::playouts(uct_playouts));
            mcts
        });

        // Alpha-beta: STEAL, then the best column with STEAL left out of the search.
        let mut stolen = after.clone();
        stolen.apply(STEAL);
        let mut search = classic_search(Some(classic_nodes));
        search.best_action(&stolen, None);
        let report = search.last_search();
        let (steal_score, steal_depth) = (-report.score, report.depth);
        let mut best_keep: Option<(i32, Action, u32)> = None;
        for col in 0..COLS as Action {
            let mut kept = after.clone();
            kept.apply(col);
            let mut search = classic_search(Some(classic_nodes / COLS as u64));
            search.best_action(&kept, None);
            let report = search.last_search();
            let score = -report.score;
            if best_keep.is_none_or(|(s, _, _)| score > s) {
                best_keep = Some((score, col, report.depth));
            }
        }
        let (keep_score, keep_col, keep_depth) = best_keep.unwrap();
        let shown = |s: i32| if s.abs() >= PROVEN { format!("{}", s.signum()) } else { format!("{s:+}") };
        println!(
            "| {c} | {net_line} | {uct_line} | {}, {} ({keep_col}), {steal_depth}/{keep_depth} | {:.0} |",
            shown(steal_score),
            shown(keep_score),
            start.elapsed().as_secs_f64()
        );
    }
}
