//! `cupzero league`: a pool of players, games between them through the contest's referee on
//! its clock (or in-process when both play at a budget), ratings over every game, a sequential
//! test per pairing (selfplay::league).

use crate::judge::{default_parallel, play_command, referee};
use anyhow::{bail, Result};
use bots::classic::Classic;
use clap::Args;
use selfplay::arena::{play_seeded, MoveLimit, PlayerSpec, RandomOpening, Sprt};
use selfplay::judge::process::PlayerCommand;
use selfplay::judge::{run_judge, JudgeConfig};
use crate::view::{page, PageOptions, ViewGame};
use bots::training::Training;
use bots::view::View;
use selfplay::league::{cooperative_report, cooperative_standings, fit_ratings, next_games, ratings_svg, report, shared_matrix, sprt_report, undecided, LeagueGame, PlayerKind, Pool, Rating, Results, Standing};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct LeagueArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// The pool file (TOML): `games_per_pairing`, then `[[player]]` tables with `name` and one
    /// of `builtin` ("classic", "uct", "random" or a player of the game's field, with an
    /// optional `playouts` budget), `net`
    /// (a .czw file) or `command` (a program); `retired = true` stops a player's games.
    #[arg(long)]
    pub pool: PathBuf,
    /// The results file (default: the pool file's name with `.results.jsonl`); running again
    /// resumes it.
    #[arg(long)]
    pub results: Option<PathBuf>,
    /// Play only this player against the others (a gauntlet) instead of a round robin.
    #[arg(long)]
    pub gauntlet: Option<String>,
    /// Stop each pairing as soon as a sequential test decides between "the first player is at
    /// most ELO0 stronger" and "at least ELO1" (alpha = beta = 0.05, pentanomial over the
    /// pairing's seed-paired games); `--games` is then the most a pairing plays. With
    /// `--gauntlet NEW`, the first player of every pairing is NEW.
    #[arg(long, value_parser = Sprt::parse)]
    pub sprt: Option<Sprt>,
    /// Games per pairing (default: the pool's `games_per_pairing`).
    #[arg(long)]
    pub games: Option<usize>,
    /// Games at once (default: one per two cores, so both programs of a game have a core).
    #[arg(long)]
    pub parallel: Option<usize>,
    /// Multiply every time limit.
    #[arg(long, default_value_t = 1.0)]
    pub time_scale: f64,
    /// Seed of pair 0 of every pairing (pair k uses seed + k: the same openings in every pairing).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the ratings of the games so far and play none.
    #[arg(long)]
    pub report_only: bool,
}

/// How a player of the pool plays: always as a program through the referee (a budget player
/// runs as `cupzero play ... --playouts N`), and in-process when it has a budget.
struct Player {
    program: PlayerCommand,
    in_process: Option<(PlayerSpec, u64)>,
}

fn pool_player<G: Classic>(kind: &PlayerKind, name: &str, game: crate::GameArg, time_scale: f64, pool_dir: &Path) -> Result<Player> {
    let program = player_program(kind, name, game, time_scale, pool_dir)?;
    let in_process = match (kind, kind.budget()) {
        (_, None) => None,
        (PlayerKind::Builtin { engine, .. }, Some(budget)) => Some((crate::arena::player::<G>(engine, None, None)?, budget)),
        (PlayerKind::Net { path, .. }, Some(budget)) => {
            let path = pool_dir.join(path);
            let spec = crate::arena::player::<G>(&path.to_string_lossy(), None, None).map_err(|e| anyhow::anyhow!("player {name:?}: {e:#}"))?;
            Some((spec, budget))
        }
        (PlayerKind::Command(_), Some(_)) => unreachable!("the pool refuses a budget for a program"),
    };
    Ok(Player { program, in_process })
}

/// The program that plays `name` from the pool, checked to exist.
fn player_program(kind: &PlayerKind, name: &str, game: crate::GameArg, time_scale: f64, pool_dir: &Path) -> Result<PlayerCommand> {
    match kind {
        PlayerKind::Builtin { engine, playouts } => {
            let budget = playouts.map(|p| p.to_string());
            let mut args = vec!["--engine", engine.as_str()];
            if let Some(b) = &budget {
                args.extend(["--playouts", b.as_str()]);
            }
            play_command(name, game, time_scale, &args)
        }
        PlayerKind::Net { path, playouts } => {
            let path = pool_dir.join(path);
            if !path.is_file() {
                bail!("player {name:?}: no net at {}", path.display());
            }
            let path = path.to_string_lossy();
            let budget = playouts.map(|p| p.to_string());
            let mut args = vec!["--engine", "net", "--weights", &path];
            if let Some(b) = &budget {
                args.extend(["--playouts", b.as_str()]);
            }
            play_command(name, game, time_scale, &args)
        }
        PlayerKind::Command(command) => {
            let player = PlayerCommand::checked_shell(command).map_err(|why| anyhow::anyhow!("player {name:?}: {why}"))?;
            Ok(PlayerCommand { label: name.to_string(), ..player })
        }
    }
}

pub fn run(args: LeagueArgs) -> Result<()> {
    dispatch!(args.game, G => run_game::<G>(args))
}

fn run_game<G: Training + View + bots::referee::RefereeRules>(args: LeagueArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.pool).map_err(|e| anyhow::anyhow!("{}: {e}", args.pool.display()))?;
    let builtins = crate::arena::builtin_names::<G>();
    let pool = Pool::parse(&text, &builtins).map_err(|e| anyhow::anyhow!("{}: {e}", args.pool.display()))?;
    if !(args.time_scale > 0.0 && args.time_scale.is_finite()) {
        bail!("--time-scale must be a positive number, got {}", args.time_scale);
    }
    if args.games == Some(0) || args.parallel == Some(0) {
        bail!("--games and --parallel must be at least 1");
    }
    let games = args.games.unwrap_or(pool.games_per_pairing);
    let parallel = args.parallel.unwrap_or_else(default_parallel);
    if G::COOPERATIVE && args.sprt.is_some() {
        bail!("--sprt tests who wins; in a cooperative game both players share the score (the report gives each player's mean shared score instead)");
    }
    let pairings = pool.pairings(args.gauntlet.as_deref(), G::COOPERATIVE).map_err(anyhow::Error::msg)?;
    // Every program is checked before anything is written.
    let pool_dir = args.pool.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut players = BTreeMap::new();
    for p in pool.active() {
        players.insert(p.name.clone(), pool_player::<G>(&p.kind(&builtins).map_err(anyhow::Error::msg)?, &p.name, args.game, args.time_scale, &pool_dir)?);
    }
    let results_path = args.results.clone().unwrap_or_else(|| args.pool.with_extension("results.jsonl"));
    // One league writes these results (and the pages made of them) at a time; held to the end.
    let _lock = selfplay::lock::RunLock::file(&results_path)?;
    let (mut results, warning) = Results::open(&results_path).map_err(anyhow::Error::msg)?;
    if let Some(w) = warning {
        eprintln!("cupzero: warning: {w}");
    }
    let retired: BTreeSet<String> = pool.players.iter().filter(|p| p.retired).map(|p| p.name.clone()).collect();
    if !args.report_only {
        let referee = referee(args.game);
        // Game `game` of pairing (a, b): pair game / 2 on seed + game / 2, a in seat game % 2.
        let play = |a: &str, b: &str, game: usize| -> Result<LeagueGame, String> {
            let seed = args.seed.wrapping_add(game as u64 / 2);
            if let (Some((spec_a, budget_a)), Some((spec_b, budget_b))) = (&players[a].in_process, &players[b].in_process) {
                // Both at a budget: in-process, the same seed and opening for both games of a pair.
                let opening = RandomOpening { plies: pool.opening_plies, seed: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) };
                let played = play_seeded::<G>(&[spec_a.clone(), spec_b.clone()], &[MoveLimit::Playouts(*budget_a), MoveLimit::Playouts(*budget_b)], seed, game % 2, opening, game);
                let end = format!("in-process, {} and {} playouts a move", budget_a, budget_b);
                return Ok(LeagueGame { a: a.into(), b: b.into(), game, seed, points: played.points, end, fault: None, actions: played.actions });
            }
            let config = JudgeConfig {
                players: [players[a].program.clone(), players[b].program.clone()],
                games: 1,
                parallel: 1,
                time_scale: args.time_scale,
                seed: args.seed,
                records: None,
                transcripts: None,
                suspend: true,
                sprt: None,
                paired_seeds: true,
                opening: Vec::new(),
                opening_plies: 0,
                game_offset: game,
            };
            let mut played = None;
            run_judge(referee, &config, &mut |record, _| played = Some(record.clone())).map_err(|e| e.to_string())?;
            let record = played.ok_or_else(|| "the judge returned no game".to_string())?;
            let fault = record.fault.as_ref().map(|f| format!("{} {:?}: {}", if f.player == "A" { a } else { b }, f.fault.kind, f.fault.detail));
            Ok(LeagueGame { a: a.into(), b: b.into(), game: record.game, seed: record.seed, points: record.points, end: record.end, fault, actions: record.actions })
        };
        // Progress: the games this run plays out of those it may play (a decided pairing
        // stops early), each pairing's score with its interval, an ETA.
        let started = std::time::Instant::now();
        let planned = pairings.len() * games;
        let already = results.games.len();
        while let Some(batch) = next_games(&results, &undecided(&results, &pairings, args.sprt.as_ref()), games) {
            let mut failure = None;
            selfplay::parallel::run_games(
                batch.len(),
                parallel,
                |i| (i, play(&batch[i].0, &batch[i].1, batch[i].2)),
                |(i, outcome)| {
                    let (a, b, _) = &batch[i];
                    let appended = outcome.and_then(|played| {
                        let fault = played.fault.as_ref().map_or(String::new(), |f| format!(" ({f})"));
                        let line = format!("{a} vs {b}, game {}: {} - {}{fault}", played.game, played.points[0], played.points[1]);
                        results.append(played)?;
                        let mut stats = selfplay::stats::MatchStats::default();
                        for g in results.games.iter().filter(|g| (&g.a, &g.b) == (a, b)) {
                            stats.add(g.score());
                        }
                        let done = results.games.len() - already;
                        let (lo, hi) = stats.score_interval();
                        eprintln!(
                            "{line}; {a} {:.1}% ({:.1}..{:.1}%) over {}; {}/{} games {}",
                            100.0 * stats.score(),
                            100.0 * lo,
                            100.0 * hi,
                            stats.games(),
                            done,
                            planned.saturating_sub(already).max(done),
                            selfplay::stats::eta(started.elapsed(), done, planned.saturating_sub(already))
                        );
                        Ok(())
                    });
                    if let Err(e) = appended {
                        failure.get_or_insert(e);
                    }
                    failure.is_some()
                },
            );
            if let Some(e) = failure {
                bail!(e);
            }
        }
    }
    if G::COOPERATIVE {
        let standings = cooperative_standings(&results.games);
        print!("{}", cooperative_report(&standings, &results.games, &retired));
        println!("results: {}", results_path.display());
        let page = write_pages::<G>(&args.pool, Table::Shared(&standings), &results.games)?;
        println!("page: {}", page.display());
        return Ok(());
    }
    let ratings = fit_ratings(&results.games);
    print!("{}", report(&ratings, &results.games, &retired));
    if let Some(test) = &args.sprt {
        print!("{}", sprt_report(&results.games, &pairings, test));
    }
    let svg_path = results_path.with_extension("svg");
    selfplay::files::write_atomically(&svg_path, ratings_svg(&ratings).as_bytes()).map_err(|e| anyhow::anyhow!("{}: {e}", svg_path.display()))?;
    println!("results: {}\nchart: {}", results_path.display(), svg_path.display());
    let page = write_pages::<G>(&args.pool, Table::Ratings(&ratings), &results.games)?;
    println!("page: {}", page.display());
    Ok(())
}

/// A name as a file name takes it.
fn file_part(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// What a league's page leads with: ratings (a game with a winner), or mean shared scores (a
/// cooperative game).
enum Table<'a> {
    Ratings(&'a [Rating]),
    Shared(&'a [Standing]),
}

/// `POOL.html` beside the pool file: the ratings with their intervals (or a cooperative game's
/// mean shared scores), the score matrix, and for each pairing a link to its games in the
/// viewer (`POOL.A-vs-B.html`, one page each).
fn write_pages<G: Training + View + bots::referee::RefereeRules>(pool: &Path, table: Table, games: &[LeagueGame]) -> Result<PathBuf> {
    let stem = pool.file_stem().map_or("pool".to_string(), |s| s.to_string_lossy().into_owned());
    let dir = pool.parent().unwrap_or(Path::new("."));
    let mut by_pairing: BTreeMap<(&str, &str), Vec<&LeagueGame>> = BTreeMap::new();
    for g in games {
        by_pairing.entry((g.a.as_str(), g.b.as_str())).or_default().push(g);
    }
    let mut links: BTreeMap<(String, String), String> = BTreeMap::new();
    for ((a, b), list) in &by_pairing {
        let viewable: Vec<ViewGame> = list
            .iter()
            .filter(|g| !g.actions.is_empty())
            .map(|g| {
                let (first, second) = if g.game % 2 == 0 { (a, b) } else { (b, a) };
                let scores = if g.game % 2 == 0 { g.points } else { [g.points[1], g.points[0]] };
                ViewGame { number: g.game, seed: g.seed, seat_names: [first.to_string(), second.to_string()], actions: g.actions.clone(), scores, end: g.end.clone(), fault: g.fault.clone(), answers_ms: [Vec::new(), Vec::new()] }
            })
            .collect();
        if viewable.is_empty() {
            continue;
        }
        let name = format!("{stem}.{}-vs-{}.html", file_part(a), file_part(b));
        let summary = match table {
            Table::Ratings(_) => {
                let score = list.iter().map(|g| g.score()).sum::<f64>() / list.len() as f64;
                vec![format!("{} games of the league {stem}: {a} scores {:.1}% against {b}", list.len(), 100.0 * score)]
            }
            Table::Shared(_) => {
                let mean = list.iter().map(|g| g.points[0].max(g.points[1]) as f64).sum::<f64>() / list.len() as f64;
                vec![format!("{} games of the league {stem}: {a} with {b}, mean shared score {mean:.1}", list.len())]
            }
        };
        let options = PageOptions { title: format!("{}: {a} with {b}", G::NAME), summary, net: None, blunder: None, exact_legal: None, exact_time: std::time::Duration::from_secs(2) };
        let html = page::<G>(&viewable, &options);
        let path = dir.join(&name);
        selfplay::files::write_atomically(&path, html.as_bytes()).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        links.insert((a.to_string(), b.to_string()), name);
    }
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}: league {1}</title><style>body{{font-family:sans-serif;margin:16px;color:#222}}table{{border-collapse:collapse;margin:12px 0}}td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}th{{background:#eee}}td.name{{text-align:left}}a{{color:#2c6fbb}}</style></head><body>\n<h1>{0}: league {1}</h1>\n",
        G::NAME,
        escape(&stem),
    );
    // The matrix's cells: the row player's score against (or with) the column player.
    let (order, cells): (Vec<String>, BTreeMap<(String, String), String>) = match table {
        Table::Ratings(ratings) => {
            html.push_str(&format!("<p>{} games; Elo by maximum likelihood over every game (draws as half a win), with 95% intervals.</p>\n", games.len()));
            html.push_str("<table id=\"ratings\"><tr><th>rank</th><th>player</th><th>Elo</th><th>95% interval</th><th>games</th><th>score</th></tr>\n");
            for (k, r) in ratings.iter().enumerate() {
                html.push_str(&format!("<tr><td>{}</td><td class=\"name\">{}</td><td>{:+.0}</td><td>&plusmn;{:.0}</td><td>{}</td><td>{:.1}%</td></tr>\n", k + 1, escape(&r.name), r.elo, r.interval, r.games, 100.0 * r.score));
            }
            html.push_str("</table>\n");
            html.push_str(&ratings_svg(ratings));
            html.push_str("\n<h2>Scores</h2><p>The row player's score against the column player, and the games; a link opens that pairing's games.</p>");
            let mut cell: BTreeMap<(String, String), (f64, usize)> = BTreeMap::new();
            for g in games {
                for (me, other, score) in [(&g.a, &g.b, g.score()), (&g.b, &g.a, 1.0 - g.score())] {
                    let entry = cell.entry((me.clone(), other.clone())).or_default();
                    entry.0 += score;
                    entry.1 += 1;
                }
            }
            (ratings.iter().map(|r| r.name.clone()).collect(), cell.into_iter().map(|(k, (score, n))| (k, format!("{:.0}% / {n}", 100.0 * score / n as f64))).collect())
        }
        Table::Shared(standings) => {
            html.push_str(&format!("<p>{} games of a cooperative game: both players share the score, and a program ranks by the mean shared score it makes with the others (with a 95% interval); beside it, what it makes partnered with itself.</p>\n", games.len()));
            html.push_str("<table id=\"standings\"><tr><th>rank</th><th>player</th><th>mean shared score</th><th>95% interval</th><th>games</th><th>with itself</th></tr>\n");
            for (k, s) in standings.iter().enumerate() {
                let itself = if s.self_games > 0 { format!("{:.1} / {}", s.self_mean, s.self_games) } else { "-".to_string() };
                html.push_str(&format!("<tr><td>{}</td><td class=\"name\">{}</td><td>{:.1}</td><td>&plusmn;{:.1}</td><td>{}</td><td>{itself}</td></tr>\n", k + 1, escape(&s.name), s.mean, s.interval, s.games));
            }
            html.push_str("</table>\n<h2>Shared scores</h2><p>The mean shared score of the row player with the column player (the diagonal: partnered with itself), and the games; a link opens that pairing's games.</p>");
            (standings.iter().map(|s| s.name.clone()).collect(), shared_matrix(games).into_iter().map(|(k, (mean, n))| (k, format!("{mean:.0} / {n}"))).collect())
        }
    };
    html.push_str("<table id=\"matrix\"><tr><th></th>");
    for name in &order {
        html.push_str(&format!("<th>{}</th>", escape(name)));
    }
    html.push_str("</tr>\n");
    for me in &order {
        html.push_str(&format!("<tr><th class=\"name\">{}</th>", escape(me)));
        for other in &order {
            let key = (me.clone(), other.clone());
            let link = links.get(&key).or_else(|| links.get(&(other.clone(), me.clone())));
            match (cells.get(&key), link) {
                (Some(text), Some(file)) => html.push_str(&format!("<td><a href=\"{}\">{text}</a></td>", escape(file))),
                (Some(text), None) => html.push_str(&format!("<td>{text}</td>")),
                (None, _) => html.push_str("<td>-</td>"),
            }
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</table>\n</body></html>\n");
    let path = pool.with_extension("html");
    selfplay::files::write_atomically(&path, html.as_bytes()).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(path)
}
