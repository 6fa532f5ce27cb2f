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
use selfplay::league::{fit_ratings, next_games, ratings_svg, report, sprt_report, undecided, LeagueGame, PlayerKind, Pool, Results};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct LeagueArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// The pool file (TOML): `games_per_pairing`, then `[[player]]` tables with `name` and one
    /// of `builtin` ("classic", "uct", "random", with an optional `playouts` budget), `net`
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
        (PlayerKind::Builtin { engine, .. }, Some(budget)) => Some((crate::arena::player::<G>(engine, None)?, budget)),
        (PlayerKind::Net { path, .. }, Some(budget)) => {
            let path = pool_dir.join(path);
            let spec = crate::arena::player::<G>(&path.to_string_lossy(), None).map_err(|e| anyhow::anyhow!("player {name:?}: {e:#}"))?;
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
            let program = command.split_whitespace().next().unwrap_or("");
            let found = if program.contains('/') {
                Path::new(program).is_file()
            } else {
                std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
            };
            if !found {
                bail!("player {name:?}: program {program:?} not found");
            }
            Ok(PlayerCommand { label: name.to_string(), ..PlayerCommand::shell(command) })
        }
    }
}

pub fn run(args: LeagueArgs) -> Result<()> {
    dispatch!(args.game, G => run_game::<G>(args))
}

fn run_game<G: Classic>(args: LeagueArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.pool).map_err(|e| anyhow::anyhow!("{}: {e}", args.pool.display()))?;
    let pool = Pool::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", args.pool.display()))?;
    if !(args.time_scale > 0.0 && args.time_scale.is_finite()) {
        bail!("--time-scale must be a positive number, got {}", args.time_scale);
    }
    if args.games == Some(0) || args.parallel == Some(0) {
        bail!("--games and --parallel must be at least 1");
    }
    let games = args.games.unwrap_or(pool.games_per_pairing);
    let parallel = args.parallel.unwrap_or_else(default_parallel);
    let pairings = pool.pairings(args.gauntlet.as_deref()).map_err(anyhow::Error::msg)?;
    // Every program is checked before anything is written.
    let pool_dir = args.pool.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut players = BTreeMap::new();
    for p in pool.active() {
        players.insert(p.name.clone(), pool_player::<G>(&p.kind().map_err(anyhow::Error::msg)?, &p.name, args.game, args.time_scale, &pool_dir)?);
    }
    let results_path = args.results.clone().unwrap_or_else(|| args.pool.with_extension("results.jsonl"));
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
                return Ok(LeagueGame { a: a.into(), b: b.into(), game, seed, points: played.points, end, fault: None });
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
                game_offset: game,
            };
            let mut played = None;
            run_judge(referee, &config, &mut |record, _| played = Some(record.clone())).map_err(|e| e.to_string())?;
            let record = played.ok_or_else(|| "the judge returned no game".to_string())?;
            let fault = record.fault.as_ref().map(|f| format!("{} {:?}: {}", if f.player == "A" { a } else { b }, f.fault.kind, f.fault.detail));
            Ok(LeagueGame { a: a.into(), b: b.into(), game: record.game, seed: record.seed, points: record.points, end: record.end, fault })
        };
        while let Some(batch) = next_games(&results, &undecided(&results, &pairings, args.sprt.as_ref()), games) {
            let mut failure = None;
            selfplay::parallel::run_games(
                batch.len(),
                parallel,
                |i| (i, play(&batch[i].0, &batch[i].1, batch[i].2)),
                |(i, outcome)| {
                    let (a, b, _) = &batch[i];
                    let appended = outcome.and_then(|played| {
                        eprintln!("{a} vs {b}, game {}: {} - {}{}", played.game, played.points[0], played.points[1], played.fault.as_ref().map_or(String::new(), |f| format!(" ({f})")));
                        results.append(played)
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
    let ratings = fit_ratings(&results.games);
    print!("{}", report(&ratings, &results.games, &retired));
    if let Some(test) = &args.sprt {
        print!("{}", sprt_report(&results.games, &pairings, test));
    }
    let svg_path = results_path.with_extension("svg");
    bots::tools::write_atomically(&svg_path, ratings_svg(&ratings).as_bytes()).map_err(|e| anyhow::anyhow!("{}: {e}", svg_path.display()))?;
    println!("results: {}\nchart: {}", results_path.display(), svg_path.display());
    Ok(())
}
