//! `cupzero view`: judged games as one self-contained HTML page (no network, no external
//! file): the match's games in a table, each game's board at every position (drawn by the
//! game's own `View`), its moves with each answer's time, and, with `--net`, our search's
//! value of every position as a graph with the blunders marked.
//!
//! The page stores each distinct shape of the pictures once and a game as the shapes each
//! move adds and removes, so 200 games take a few hundred kilobytes.

use crate::positions::{label, replay};
use anyhow::{bail, Context, Result};
use bots::encode::Encode;
use bots::game::{Action, Game};
use bots::nn::Mlp;
use bots::rng::Rng;
use bots::referee::RefereeRules;
use bots::training::Training;
use bots::view::View;
use clap::Args;
use rayon::prelude::*;
use selfplay::config::TrainConfig;
use selfplay::judge::GameRecord;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct ViewArgs {
    /// Records files of `judge` (one JSON line a game); several files are one match.
    #[arg(required = true)]
    pub records: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// The game (default: the one the records name, or the one whose rules replay them).
    #[arg(long, value_parser = crate::GameParser)]
    pub game: Option<crate::GameArg>,
    /// Evaluate every position with this net's search (.czw, or a run directory): the value
    /// graph, the search's best move beside the move played, and the blunders.
    #[arg(long)]
    pub net: Option<PathBuf>,
    /// Playouts of each position's search (with --net).
    #[arg(long, default_value_t = 800)]
    pub playouts: u64,
    /// A move that drops the mover's value by more than this (values run from -1 to 1) is
    /// marked as a blunder (with --net; default: the game's, 0.3 for a win or a loss).
    #[arg(long)]
    pub blunder: Option<f32>,
    /// With --net: exact values from this many legal actions down, where the game has an exact
    /// endgame search (default: where self-play hands its games to it, `selfplay.solve_legal`).
    #[arg(long)]
    pub exact_legal: Option<usize>,
    /// With --net: seconds the exact search may take on one position before the search's
    /// value stands instead.
    #[arg(long, default_value_t = 2.0)]
    pub exact_seconds: f64,
}

/// One game as the viewer takes it, from a judge's record or a league's results.
#[derive(Clone, Debug)]
pub struct ViewGame {
    pub number: usize,
    pub seed: u64,
    /// Who sat in seat 0 and seat 1.
    pub seat_names: [String; 2],
    pub actions: Vec<String>,
    /// Points by seat.
    pub scores: [f32; 2],
    pub end: String,
    pub fault: Option<String>,
    /// Each seat's answers in ms, in order (empty when not recorded).
    pub answers_ms: [Vec<f64>; 2],
}

impl ViewGame {
    pub fn from_record(record: &GameRecord, names: [&str; 2]) -> Self {
        let name = |seat: usize| if record.seats[seat] == "A" { names[0].to_string() } else { names[1].to_string() };
        let answers = |seat: usize| {
            let mut times = vec![record.first_answer_ms[seat] as f64];
            times.extend(record.later_answers_us[seat].iter().map(|&us| us as f64 / 1000.0));
            if record.total_answer_ms[seat] == 0 && record.first_answer_ms[seat] == 0 { Vec::new() } else { times }
        };
        ViewGame {
            number: record.game,
            seed: record.seed,
            seat_names: [name(0), name(1)],
            actions: record.actions.clone(),
            scores: record.scores,
            end: record.end.clone(),
            fault: record.fault.as_ref().map(|f| format!("{} (seat {}) {:?}: {}", name(f.seat), f.seat, f.fault.kind, f.fault.detail).replace("Timeout", "timeout").replace("Crash", "crash").replace("Illegal", "illegal").replace("Garbled", "garbled")),
            answers_ms: [answers(0), answers(1)],
        }
    }
}

#[derive(Serialize)]
struct Page {
    game: String,
    title: String,
    heading: String,
    summary: Vec<String>,
    width: f32,
    height: f32,
    shapes: Vec<String>,
    games: Vec<PageGame>,
    evaluated: Option<String>,
}

#[derive(Serialize)]
struct PageGame {
    n: usize,
    seed: u64,
    seats: [String; 2],
    scores: [f32; 2],
    end: String,
    fault: Option<String>,
    think_ms: [f64; 2],
    moves: Vec<String>,
    movers: Vec<u8>,
    /// The answer's time at the first action of each answer.
    times: Vec<Option<f64>>,
    /// Shape ids of the first position, then per move the ids added (`id + 1`) and removed
    /// (`-(id + 1)`).
    start: Vec<u32>,
    diffs: Vec<Vec<i64>>,
    eval: Option<PageEval>,
    error: Option<String>,
}

#[derive(Serialize, Clone)]
struct PageEval {
    /// Each position's value for seat 0 and seat 1.
    values: Vec<[f32; 2]>,
    /// The search's move in each position (none at the end).
    best: Vec<Option<String>>,
    /// Whether each value is exact (the end, or the game's exact endgame search).
    exact: Vec<bool>,
    blunders: Vec<usize>,
}

/// Everything the page needs besides the games.
pub struct PageOptions<'a> {
    pub title: String,
    pub summary: Vec<String>,
    pub net: Option<(&'a Path, Arc<Mlp>, u64)>,
    /// The blunder threshold (`None`: the game's `View::BLUNDER_DROP`).
    pub blunder: Option<f32>,
    /// Exact values from this many legal actions down (`None`: the game's `solve_legal`), each
    /// within this long.
    pub exact_legal: Option<usize>,
    pub exact_time: Duration,
}

/// Whether every game replays under `G`'s rules.
pub fn replays_as<G: Game>(games: &[ViewGame]) -> bool {
    games.iter().all(|g| replay::<G>(g.seed, &g.actions).is_ok())
}

/// Each distinct SVG element once, and each picture as ids into that list.
#[derive(Default)]
struct ShapeDictionary {
    ids: HashMap<String, u32>,
    shapes: Vec<String>,
}

impl ShapeDictionary {
    fn id(&mut self, shape: &str) -> u32 {
        if let Some(&id) = self.ids.get(shape) {
            return id;
        }
        self.shapes.push(shape.to_string());
        self.ids.insert(shape.to_string(), self.shapes.len() as u32 - 1);
        self.shapes.len() as u32 - 1
    }

    /// A game's pictures as ids of a dictionary of its own (built in parallel, game by game).
    fn of_game(pictures: impl Iterator<Item = Vec<String>>) -> (ShapeDictionary, Vec<Vec<u32>>) {
        let mut local = ShapeDictionary::default();
        let ids = pictures.map(|p| p.iter().map(|s| local.id(s)).collect()).collect();
        (local, ids)
    }
}

/// What a move changes: ids added as `id + 1`, removed as `-(id + 1)`, by id.
fn diff(before: &[u32], after: &[u32]) -> Vec<i64> {
    let (mut before, mut after) = (before.to_vec(), after.to_vec());
    before.sort_unstable();
    after.sort_unstable();
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < before.len() || j < after.len() {
        match (before.get(i), after.get(j)) {
            (Some(b), Some(a)) if a == b => {
                i += 1;
                j += 1;
            }
            (Some(&b), Some(&a)) if a < b => {
                out.push(a as i64 + 1);
                j += 1;
            }
            (Some(&b), _) => {
                out.push(-(b as i64 + 1));
                i += 1;
            }
            (None, Some(&a)) => {
                out.push(a as i64 + 1);
                j += 1;
            }
            (None, None) => unreachable!(),
        }
    }
    out
}

/// The page for `games` of game `G`.
pub fn page<G: Training + View + RefereeRules>(games: &[ViewGame], options: &PageOptions) -> String {
    page_and_post_mortem::<G>(games, options).0
}

/// Where a lost game was decided, from the loser's values across the game: the first position
/// from which its value stays below half its final utility (-0.5 for a plain loss; a game
/// scored by margin loses by less) to the end.
#[derive(Clone, Debug, PartialEq)]
pub struct Loss {
    pub game: usize,
    pub loser: String,
    pub loser_seat: usize,
    pub plies: usize,
    /// The position (plies played) from which the loser's value stays lost.
    pub decided: usize,
    /// Whether the move into that position was the loser's own.
    pub by_own_move: bool,
    /// The first position valued exactly (the end at the latest).
    pub first_exact: usize,
    /// The first position the exact search valued as lost (below 0) for the loser.
    pub proven_lost: Option<usize>,
    pub end: String,
}

impl Loss {
    /// The phase the game was decided in: the opening (its first quarter), the middle game,
    /// or the exact endgame search's reach.
    pub fn phase(&self) -> &'static str {
        if self.decided >= self.first_exact {
            "exact reach"
        } else if self.decided * 4 < self.plies {
            "opening"
        } else {
            "middle game"
        }
    }

    pub fn line(&self) -> String {
        let proven = self.proven_lost.map_or("never proven lost".to_string(), |k| format!("proven lost at ply {k}"));
        format!(
            "game {}: {} (seat {}) lost in {} plies: decided at ply {} ({}), in the {}; first exact value at ply {}, {proven}; {}",
            self.game,
            self.loser,
            self.loser_seat,
            self.plies,
            self.decided,
            if self.by_own_move { "after its own move" } else { "after the opponent's move" },
            self.phase(),
            self.first_exact,
            self.end
        )
    }
}

/// The loss of a decisive game, read off its evaluation; `None` for a draw.
fn loss_of(game: &ViewGame, movers: &[u8], eval: &PageEval) -> Option<Loss> {
    let loser_seat = match game.scores {
        [a, b] if a < b => 0,
        [a, b] if b < a => 1,
        _ => return None,
    };
    let value = |k: usize| eval.values[k][loser_seat];
    let plies = eval.values.len() - 1;
    let lost = value(plies).min(0.0) / 2.0;
    let mut decided = plies;
    while decided > 0 && value(decided - 1) < lost {
        decided -= 1;
    }
    Some(Loss {
        game: game.number,
        loser: game.seat_names[loser_seat].clone(),
        loser_seat,
        plies,
        decided,
        by_own_move: decided > 0 && movers.get(decided - 1).is_some_and(|&m| m as usize == loser_seat),
        first_exact: eval.exact.iter().position(|&e| e).unwrap_or(plies),
        proven_lost: (0..=plies).find(|&k| eval.exact[k] && value(k) < 0.0),
        end: game.end.clone(),
    })
}

/// The page, and with `--net` where each lost game was decided.
pub fn page_and_post_mortem<G: Training + View + RefereeRules>(games: &[ViewGame], options: &PageOptions) -> (String, Vec<Loss>) {
    let mut dictionary = ShapeDictionary::default();
    let start = G::new_game(&mut Rng::new(games.first().map_or(0, |g| g.seed))).picture();
    // Pictures and evaluations in parallel; the dictionary after, in game order.
    let built: Vec<(Result<((ShapeDictionary, Vec<Vec<u32>>), Vec<String>, Vec<u8>), String>, Option<PageEval>)> = games
        .par_iter()
        .map(|g| match replay::<G>(g.seed, &g.actions) {
            Err(e) => (Err(e), None),
            Ok((positions, played)) => {
                // Each position with the move that led to it marked.
                let last = std::iter::once(None).chain(played.iter().map(|&a| Some(a)));
                let pictures = ShapeDictionary::of_game(positions.iter().zip(last).map(|(s, a)| s.picture_after(a).shapes.iter().map(|sh| sh.svg()).collect()));
                let movers: Vec<u8> = positions[..played.len()].iter().map(|s| s.to_move() as u8).collect();
                let eval = options.net.as_ref().map(|(_, net, playouts)| {
                    let solve_legal = options.exact_legal.unwrap_or_else(|| TrainConfig::for_game::<G>().selfplay.solve_legal);
                    let mut exact = if solve_legal > 0 { G::exact_player() } else { None };
                    let evaluated: Vec<([f32; 2], Option<Action>, bool)> = positions.iter().map(|s| label(s, net, *playouts, &mut exact, solve_legal, options.exact_time)).collect();
                    let values: Vec<[f32; 2]> = evaluated.iter().map(|e| e.0).collect();
                    let blunders = (0..played.len()).filter(|&k| values[k][movers[k] as usize] - values[k + 1][movers[k] as usize] > options.blunder.unwrap_or(G::BLUNDER_DROP)).collect();
                    PageEval { values, best: positions.iter().zip(&evaluated).map(|(s, e)| e.1.map(|a| s.answer(a))).collect(), exact: evaluated.iter().map(|e| e.2).collect(), blunders }
                });
                // The moves as the contest writes them (`4 4`, not the notation's `44`), each as its mover writes it.
                let answers = positions.iter().zip(&played).map(|(s, &a)| s.answer(a)).collect();
                (Ok((pictures, answers, movers)), eval)
            }
        })
        .collect();
    let mut page_games = Vec::with_capacity(games.len());
    let mut losses = Vec::new();
    for (g, (built, eval)) in games.iter().zip(built) {
        if let (Ok((_, _, movers)), Some(eval)) = (&built, &eval) {
            losses.extend(loss_of(g, movers, eval));
        }
        let mut pg = PageGame {
            n: g.number,
            seed: g.seed,
            seats: g.seat_names.clone(),
            scores: g.scores,
            end: g.end.clone(),
            fault: g.fault.clone(),
            think_ms: [g.answers_ms[0].iter().sum(), g.answers_ms[1].iter().sum()],
            moves: match &built {
                Ok((_, answers, _)) => answers.clone(),
                Err(_) => g.actions.clone(),
            },
            movers: Vec::new(),
            times: Vec::new(),
            start: Vec::new(),
            diffs: Vec::new(),
            eval,
            error: None,
        };
        match built {
            Err(e) => pg.error = Some(format!("the moves do not replay under the rules of {}: {e}", G::NAME)),
            Ok(((local, local_ids), _, movers)) => {
                let global: Vec<u32> = local.shapes.iter().map(|s| dictionary.id(s)).collect();
                let ids: Vec<Vec<u32>> = local_ids.iter().map(|p| p.iter().map(|&id| global[id as usize]).collect()).collect();
                pg.start = ids[0].clone();
                pg.diffs = ids.windows(2).map(|w| diff(&w[0], &w[1])).collect();
                // An answer is a run of actions by one seat; its time goes to its first action.
                let mut answer = [0usize; 2];
                pg.times = (0..movers.len())
                    .map(|k| {
                        let seat = movers[k] as usize;
                        if k > 0 && movers[k - 1] as usize == seat {
                            return None;
                        }
                        answer[seat] += 1;
                        g.answers_ms[seat].get(answer[seat] - 1).copied()
                    })
                    .collect();
                pg.movers = movers;
            }
        }
        page_games.push(pg);
    }
    let page = Page {
        game: G::NAME.to_string(),
        title: options.title.clone(),
        heading: bots::registry::find_game(G::NAME).map_or(G::NAME.to_string(), |e| e.title.to_string()),
        summary: options.summary.clone(),
        width: start.width,
        height: start.height,
        shapes: dictionary.shapes,
        games: page_games,
        evaluated: options.net.as_ref().map(|(path, _, playouts)| format!("{} at {playouts} playouts a position", path.display())),
    };
    // `</` would end the script element the data sits in.
    let data = serde_json::to_string(&page).expect("the page serialises").replace("</", "<\\/");
    (TEMPLATE.replace("__TITLE__", &html_escape(&options.title)).replace("__DATA__", &data), losses)
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

const TEMPLATE: &str = include_str!("view.html");

/// Reads judge records (`selfplay::judge::read_records`), its warnings on stderr.
pub fn read_records(paths: &[PathBuf]) -> Result<Vec<GameRecord>> {
    let (records, warnings) = selfplay::judge::read_records(paths).map_err(anyhow::Error::msg)?;
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    Ok(records)
}

/// The game whose rules replay every game: the one named, else the one the records name, else
/// the only registered game that replays them all.
pub fn game_of(named: Option<crate::GameArg>, recorded: Option<&str>, games: &[ViewGame]) -> Result<&'static bots::registry::GameEntry> {
    if let Some(game) = named {
        return Ok(game.entry());
    }
    if let Some(name) = recorded {
        return bots::registry::find_game(name).ok_or_else(|| anyhow::anyhow!("the records are of {name}, a game this cupzero does not know"));
    }
    let fits: Vec<&'static bots::registry::GameEntry> = bots::GAMES.iter().filter(|g| bots::with_game!(g.name, G => replays_as::<G>(games)) == Some(true)).collect();
    match fits.as_slice() {
        [one] => Ok(one),
        [] => bail!("no game's rules replay these records; name the game with --game"),
        _ => bail!("the records replay as {}; name the game with --game", fits.iter().map(|g| g.name).collect::<Vec<_>>().join(" and ")),
    }
}

pub fn run(args: ViewArgs) -> Result<()> {
    if args.playouts == 0 {
        bail!("--playouts must be at least 1");
    }
    if !(args.exact_seconds > 0.0 && args.exact_seconds < 3600.0) {
        bail!("--exact-seconds must lie in (0, 3600), got {}", args.exact_seconds);
    }
    if let Some(blunder) = args.blunder.filter(|b| !(*b > 0.0 && *b <= 2.0)) {
        bail!("--blunder must lie in (0, 2], got {blunder}");
    }
    let records = read_records(&args.records)?;
    let names = short_names(records.iter().find_map(|r| r.players.clone()).unwrap_or_else(|| ["A".to_string(), "B".to_string()]));
    let games: Vec<ViewGame> = records.iter().map(|r| ViewGame::from_record(r, [&names[0], &names[1]])).collect();
    let recorded = records.iter().find_map(|r| r.game_name.clone());
    let entry = game_of(args.game, recorded.as_deref(), &games)?;
    let start = std::time::Instant::now();
    let (wins, draws, losses) = records.iter().fold((0, 0, 0), |(w, d, l), r| match r.a_score() {
        s if s > 0.75 => (w + 1, d, l),
        s if s < 0.25 => (w, d, l + 1),
        _ => (w, d + 1, l),
    });
    let mean = |k: usize| records.iter().map(|r| r.points[k] as f64).sum::<f64>() / records.len() as f64;
    let files: Vec<String> = args.records.iter().map(|p| p.display().to_string()).collect();
    let summary = vec![
        format!("{} games: {} against {}: {wins}-{draws}-{losses} (W-D-L), mean points {:.2} to {:.2}", records.len(), names[0], names[1], mean(0), mean(1)),
        format!("records: {}", files.join(" ")),
    ];
    let html = bots::with_game!(entry.name, G => {
        let net = match &args.net {
            Some(path) => {
                let file = if path.is_dir() { path.join("weights.czw") } else { path.clone() };
                let net = selfplay::train::load_weights::<G>(&file)?;
                net.check_shape(G::NUM_FEATURES, G::NUM_ACTIONS).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
                Some((path.as_path(), Arc::new(net), args.playouts))
            }
            None => None,
        };
        let title = format!("{}: {} against {}", entry.name, names[0], names[1]);
        let options = PageOptions { title, summary, net, blunder: args.blunder, exact_legal: args.exact_legal, exact_time: Duration::from_secs_f64(args.exact_seconds) };
        anyhow::Ok(page_and_post_mortem::<G>(&games, &options))
    })
    .expect("a registered game")?;
    let (html, losses) = html;
    selfplay::files::write_atomically(&args.output, html.as_bytes()).with_context(|| format!("cannot write {}", args.output.display()))?;
    println!("{}: {} games of {}, {} bytes, {:.2} s", args.output.display(), games.len(), entry.name, html.len(), start.elapsed().as_secs_f64());
    print_post_mortem(&losses);
    Ok(())
}

/// The players as a table has room for them: each program's file name (`../bots/bh --x` is
/// `bh`), unless that makes the two alike.
fn short_names(names: [String; 2]) -> [String; 2] {
    let short = |name: &String| {
        let program = name.split_whitespace().next().unwrap_or(name);
        Path::new(program).file_name().map_or(name.clone(), |f| f.to_string_lossy().into_owned())
    };
    let shorter = [short(&names[0]), short(&names[1])];
    if shorter[0] == shorter[1] {
        names
    } else {
        shorter
    }
}

/// With `--net`: one line a lost game, then each loser's losses by phase.
fn print_post_mortem(losses: &[Loss]) {
    for loss in losses {
        println!("{}", loss.line());
    }
    let mut losers: Vec<&str> = losses.iter().map(|l| l.loser.as_str()).collect();
    losers.sort();
    losers.dedup();
    for loser in losers {
        let of: Vec<&Loss> = losses.iter().filter(|l| l.loser == loser).collect();
        let count = |phase: &str| of.iter().filter(|l| l.phase() == phase).count();
        let own = of.iter().filter(|l| l.by_own_move).count();
        println!(
            "{loser} lost {}: decided in the opening {}, the middle game {}, the exact reach {}; by its own move {own}",
            of.len(),
            count("opening"),
            count("middle game"),
            count("exact reach")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_adds_and_removes_with_multiplicity() {
        assert_eq!(diff(&[1, 2, 2, 3], &[2, 3, 3, 4]), vec![-2, -3, 4, 5]);
        assert!(diff(&[5, 6], &[6, 5]).is_empty());
    }

    fn game(actions: &[&str], seed: u64) -> ViewGame {
        ViewGame {
            number: 0,
            seed,
            seat_names: ["A".into(), "B".into()],
            actions: actions.iter().map(|s| s.to_string()).collect(),
            scores: [1.0, 0.0],
            end: "test".into(),
            fault: None,
            answers_ms: [vec![900.0, 80.0], vec![850.0]],
        }
    }

    #[test]
    fn the_page_holds_the_data_and_no_outside_reference() {
        let games = vec![game(&["4", "3", "4"], 1), game(&["0"], 2)];
        let options = PageOptions { title: "t <x>".into(), summary: vec!["s".into()], net: None, blunder: None, exact_legal: None, exact_time: Duration::from_secs(1) };
        let html = page::<bots::connect4::Connect4>(&games, &options);
        assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<title>t &lt;x&gt;</title>"));
        for outside in ["http://", "https://", "src=\"", "href=\"http", "@import"] {
            let without_svg_ns = html.replace("http://www.w3.org/2000/svg", "");
            assert!(!without_svg_ns.contains(outside), "{outside}");
        }
        let data = html.split("<script id=\"data\" type=\"application/json\">").nth(1).unwrap().split("</script>").next().unwrap();
        let value: serde_json::Value = serde_json::from_str(&data.replace("<\\/", "</")).unwrap();
        assert_eq!(value["games"].as_array().unwrap().len(), 2);
        let first = &value["games"][0];
        assert_eq!(first["moves"].as_array().unwrap().len(), 3);
        assert_eq!(first["diffs"].as_array().unwrap().len(), 3, "one change list a move");
        assert_eq!(first["times"], serde_json::json!([900.0, 850.0, 80.0]), "answers in turn");
        assert!(value["shapes"].as_array().unwrap().iter().all(|s| s.as_str().unwrap().starts_with('<')));
    }

    #[test]
    fn a_loss_is_decided_where_the_losers_value_stays_lost() {
        let mut lost = game(&["a", "b", "c", "d", "e"], 1);
        lost.scores = [0.0, 1.0];
        let values = [0.1, -0.2, -0.6, 0.0, -0.7, -1.0].map(|v| [v, -v]).to_vec();
        let exact = vec![false, false, false, false, true, true];
        let eval = PageEval { values, best: vec![None; 6], exact, blunders: Vec::new() };
        let loss = loss_of(&lost, &[0, 1, 0, 1, 0], &eval).unwrap();
        assert_eq!((loss.loser_seat, loss.decided, loss.by_own_move, loss.first_exact, loss.proven_lost), (0, 4, false, 4, Some(4)));
        assert_eq!(loss.phase(), "exact reach");
        let earlier = PageEval { exact: vec![false, false, false, false, false, true], ..eval.clone() };
        assert_eq!(loss_of(&lost, &[0, 1, 0, 1, 0], &earlier).unwrap().phase(), "middle game");
        let by_margin = PageEval { values: [0.2, 0.05, -0.06, -0.05, -0.05, -0.08].map(|v| [v, -v]).to_vec(), ..eval.clone() };
        let narrow = loss_of(&lost, &[0, 1, 0, 1, 0], &by_margin).unwrap();
        assert_eq!((narrow.decided, narrow.by_own_move, narrow.proven_lost), (2, false, Some(4)), "a loss by a small margin is decided where it stays below half of it");
        lost.scores = [0.5, 0.5];
        assert_eq!(loss_of(&lost, &[0, 1, 0, 1, 0], &eval), None, "a draw has no loser");
    }

    #[test]
    fn players_are_named_by_their_programs_unless_that_confuses_them() {
        let names = |a: &str, b: &str| short_names([a.to_string(), b.to_string()]);
        assert_eq!(names("runs/bh/bh", "../shared/sparring/blackhole/elkasimi-2018"), ["bh", "elkasimi-2018"]);
        assert_eq!(names("uct", "classic"), ["uct", "classic"]);
        assert_eq!(names("a/bot --x 1", "b/bot"), ["a/bot --x 1", "b/bot"]);
    }

    #[test]
    fn records_of_one_game_are_told_apart_by_replaying_them() {
        let games = vec![game(&["4", "STEAL", "3"], 1)];
        assert_eq!(game_of(None, None, &games).unwrap().name, "connect4");
        let zuniq = vec![game(&["D1h", "E1h"], 1)];
        assert_eq!(game_of(None, None, &zuniq).unwrap().name, "zuniq");
        let bad = vec![game(&["??"], 1)];
        assert!(game_of(None, None, &bad).unwrap_err().to_string().contains("--game"));
    }
}
