//! `cupzero analyze`: one position, as an engine's analysis mode shows it: the board in text,
//! then the search's top moves with their visits, prior, value and principal variation.

use anyhow::{bail, Result};
use bots::game::{Action, Game};
use bots::mcts::{ChildInfo, Evaluator, Mcts, MctsConfig, SearchLimits};
use bots::net_eval::NetEvaluator;
use bots::rng::Rng;
use bots::tools::{apply_texts, RolloutEvaluator};
use bots::training::Training;
use bots::view::View;
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// The actions from the start, in the game's notation, separated by spaces.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// The net (.czw, or a run directory) whose search analyses; without it, UCT with random
    /// playouts (the `uct` bot's search).
    #[arg(long)]
    pub net: Option<PathBuf>,
    /// Playouts of the search.
    #[arg(long, default_value_t = 20_000)]
    pub playouts: u64,
    /// How many moves to show.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// The game's setup seed (games with a random start: Black Hole's brown fields); a judge's
    /// records give each game's.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

pub fn run(args: AnalyzeArgs) -> Result<()> {
    if args.playouts == 0 || args.top == 0 {
        bail!("--playouts and --top must be at least 1");
    }
    dispatch!(args.game, G => analyze::<G>(&args))
}

/// One line of the analysis.
struct Line {
    child: ChildInfo,
    pv: Vec<Action>,
}

/// The best line from the root of `mcts` (consumed): the most visited child, again and again,
/// while the tree has been there.
fn principal_variation<G: Game>(mut mcts: Mcts<G>, longest: usize) -> Vec<Action> {
    let mut pv = Vec::new();
    while pv.len() < longest && !mcts.root_state().is_terminal() && mcts.root_visits() > 1 {
        let Some(best) = mcts.best_action() else { break };
        pv.push(best);
        mcts.advance(best);
    }
    pv
}

/// Searches `state`, then each of the top moves again (a fifth of the budget) for its line.
fn lines<G: Game, E: Evaluator<G>>(state: &G, config: &MctsConfig, mut evaluator: impl FnMut() -> E, playouts: u64, top: usize) -> (Mcts<G>, Vec<Line>) {
    let mut mcts = Mcts::new(state.clone(), config.clone());
    mcts.search(&mut evaluator(), &SearchLimits::playouts(playouts));
    let mut children = mcts.root_children();
    children.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.prior.total_cmp(&a.prior)));
    children.truncate(top);
    let lines = children
        .into_iter()
        .map(|child| {
            let mut next = state.clone();
            next.apply(child.action);
            let mut pv = vec![child.action];
            if !next.is_terminal() {
                let mut deeper = Mcts::new(next, config.clone());
                deeper.search(&mut evaluator(), &SearchLimits::playouts((playouts / 5).max(1)));
                pv.extend(principal_variation(deeper, 11));
            }
            Line { child, pv }
        })
        .collect();
    (mcts, lines)
}

fn analyze<G: Training + View>(args: &AnalyzeArgs) -> Result<()> {
    let mut state = G::new_game(&mut Rng::new(args.seed));
    let moves: Vec<&str> = args.moves.split_whitespace().collect();
    apply_texts(&mut state, &moves).map_err(anyhow::Error::msg)?;
    println!("{}", state.text_board());
    if state.is_terminal() {
        return Ok(());
    }
    let start = Instant::now();
    let (mcts, lines, searcher) = match &args.net {
        Some(path) => {
            let file = if path.is_dir() { path.join("weights.czw") } else { path.clone() };
            let net = Arc::new(selfplay::train::load_weights::<G>(&file)?);
            net.check_shape(G::NUM_FEATURES, G::NUM_ACTIONS).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let (mcts, lines) = lines(&state, &bots::bot::net_search_config::<G>(), || NetEvaluator::averaged(Arc::clone(&net), G::AVERAGED_VIEWS), args.playouts, args.top);
            (mcts, lines, format!("the net {}", file.display()))
        }
        None => {
            let mut seed = args.seed;
            let (mcts, lines) = lines(
                &state,
                &MctsConfig::uct(),
                || {
                    seed += 1;
                    RolloutEvaluator::new(seed)
                },
                args.playouts,
                args.top,
            );
            (mcts, lines, "UCT with random playouts".to_string())
        }
    };
    let mover = state.to_move();
    let value = mcts.root_proven().unwrap_or_else(|| mcts.root_value());
    println!(
        "\n{searcher}: {} playouts in {:.2} s; value for the mover (seat {mover}) {:+.3}{}",
        mcts.root_visits(),
        start.elapsed().as_secs_f64(),
        value[mover],
        if mcts.root_proven().is_some() { " (proven)" } else { "" }
    );
    let total: u32 = mcts.root_children().iter().map(|c| c.visits).sum::<u32>().max(1);
    println!("{:<8} {:>8} {:>6} {:>6} {:>7}  line", "move", "visits", "share", "prior", "value");
    for line in lines {
        let c = line.child;
        let value = c.proven.unwrap_or(c.q)[mover];
        let pv: Vec<String> = line.pv.iter().map(|&a| G::format_action(a)).collect();
        println!(
            "{:<8} {:>8} {:>5.1}% {:>6.3} {:>+7.3}{}  {}",
            G::format_action(c.action),
            c.visits,
            100.0 * c.visits as f64 / total as f64,
            c.prior,
            value,
            if c.proven.is_some() { "!" } else { " " },
            pv.join(" ")
        );
    }
    Ok(())
}
