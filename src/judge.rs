//! `cupzero judge`: external programs (or the built-in bots) through the real protocol.

use anyhow::{bail, Context, Result};
use clap::Args;
use selfplay::judge::process::PlayerCommand;
use selfplay::judge::{self, temp_path, JudgeConfig, Referee};
use selfplay::lock::{LockError, RunLock};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct JudgeArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    /// Player A: a shell command, or a built-in bot: `classic`, `uct`, `random`, or a player of
    /// the game's field (6561: `greedy`, `corner`, `short-beam`).
    #[arg(long, default_value = "uct")]
    pub p0: String,
    /// Player B: as A.
    #[arg(long, default_value = "random")]
    pub p1: String,
    /// Number of games; A and B swap seats every game.
    #[arg(long, default_value_t = 200)]
    pub games: usize,
    /// Games played at the same time (default: half the cores, at least 1). Every game needs a
    /// core for the thinking player and room for the other player and the judge: a busier
    /// machine delays answers and turns close calls into timeouts.
    #[arg(long)]
    pub parallel: Option<usize>,
    /// Multiply every time limit (2.0 = twice as long, for a slower machine).
    #[arg(long, default_value_t = 1.0)]
    pub time_scale: f64,
    /// Seed of the first game (game i uses seed + i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write one JSON line per game here (default: runs/judge-<game>-<time>.jsonl, with -2, -3,
    /// ... after the time for a judge started in the same second as another). A judge writing
    /// the same file already is refused.
    #[arg(long)]
    pub records: Option<PathBuf>,
    /// Write what each seat read and wrote, one file per game and seat, into this directory.
    #[arg(long)]
    pub transcripts: Option<PathBuf>,
    /// Let both programs run all game long. By default a CodeCup game's judge stops each
    /// program while it is not its turn, as CodeCup's does, so neither can think on the
    /// other's time and a clock that books the other's turn shows (Connect 4 never suspends).
    #[arg(long)]
    pub no_suspend: bool,
    /// Stop as soon as a sequential probability ratio test decides between "A is at most
    /// ELO0 stronger" and "at least ELO1" (alpha = beta = 0.05), as fishtest does; `--games`
    /// is then the most it plays. Games 2k and 2k+1 share a seed (one opening, seats swapped)
    /// and count as one pair (pentanomial).
    #[arg(long, value_name = "ELO0,ELO1")]
    pub sprt: Option<String>,
    /// Start every game from this many random actions (games 2k and 2k+1 from the same ones,
    /// seats swapped), where every turn's input is the whole position (Connect 4): programs that
    /// always answer alike otherwise play the same two games over and over.
    #[arg(long, default_value_t = 0)]
    pub opening_plies: usize,
    /// Start every game from these actions, in the game's notation and separated by spaces
    /// ("1 STEAL"), before any random ones (`--opening-plies`): the games of one opening, from
    /// both seats (games 2k and 2k+1 share a seed), e.g. to measure a decision where a seat
    /// loses. Games whose input is the whole position only (Connect 4).
    #[arg(long, default_value = "")]
    pub opening: String,
    /// Games 2k and 2k+1 share a seed (seats swapped): where the seed deals the game (Black
    /// Hole's brown stones), each deal is played from both seats, as `--sprt` and
    /// `--opening-plies` always do.
    #[arg(long)]
    pub paired: bool,
    /// Print a line per finished game.
    #[arg(long)]
    pub verbose: bool,
    /// Play nothing: report the games in these records files as one match (several runs of
    /// one pairing, or a killed judge's `.tmp` file), with the report of a judge that played
    /// them all.
    #[arg(long, value_name = "RECORDS", num_args = 1.., conflicts_with_all = ["sprt", "transcripts", "records"])]
    pub summarize: Vec<PathBuf>,
    /// Also report A's results by the first N plies of each game and A's seat, the most played
    /// lines first: where the match was won and lost.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub by_opening: usize,
}

/// The lines shown a seat by `--by-opening`.
const OPENING_LINES_SHOWN: usize = 12;

/// `--by-opening`'s report of `games`.
fn print_by_opening(games: &[judge::GameRecord], plies: usize) -> Result<()> {
    let lines = judge::results_by_opening(games, plies).map_err(anyhow::Error::msg)?;
    println!("{}", judge::opening_report(&lines, plies, OPENING_LINES_SHOWN));
    Ok(())
}

/// `runs/judge-GAME-SECONDS.jsonl`, locked for this judge: a judge started in the same second
/// as another, or one whose records are there already, takes `-2`, `-3`, ... after the seconds.
fn default_records(game: &str) -> Result<(PathBuf, RunLock)> {
    std::fs::create_dir_all("runs").context("cannot create runs/")?;
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    for n in 1u32.. {
        let suffix = if n == 1 { String::new() } else { format!("-{n}") };
        let path = PathBuf::from(format!("runs/judge-{game}-{stamp}{suffix}.jsonl"));
        if path.exists() || temp_path(&path).exists() {
            continue;
        }
        match RunLock::file(&path) {
            // Looked at again under the lock: a judge may have finished there meanwhile.
            Ok(lock) if !path.exists() && !temp_path(&path).exists() => return Ok((path, lock)),
            Ok(_) | Err(LockError::Held { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    unreachable!("some suffix is free")
}

/// A built-in bot runs as this very executable, so it goes through the protocol like any program.
fn player_command(spec: &str, game: crate::GameArg, time_scale: f64) -> Result<PlayerCommand> {
    let spec = spec.trim();
    if spec.is_empty() {
        bail!("a player command is empty");
    }
    if dispatch!(game, G => crate::arena::builtin_names::<G>().contains(&spec)) {
        return play_command(spec, game, time_scale, &["--engine", spec]);
    }
    PlayerCommand::checked_shell(spec).map_err(anyhow::Error::msg)
}

/// `cupzero play GAME ARGS --quiet --time-scale T` under `label`: a built-in bot or a net as a
/// program.
pub fn play_command(label: &str, game: crate::GameArg, time_scale: f64, args: &[&str]) -> Result<PlayerCommand> {
    let exe = std::env::current_exe().context("cannot find the cupzero executable for a built-in player")?;
    let mut all: Vec<String> = vec!["play".into(), game.name().into()];
    all.extend(args.iter().map(|a| a.to_string()));
    all.extend(["--quiet".into(), "--time-scale".into(), time_scale.to_string()]);
    Ok(PlayerCommand { label: label.to_string(), program: exe.to_string_lossy().into_owned(), args: all })
}

/// Games at once by default: one per two cores, so both programs of a game have a core.
pub fn default_parallel() -> usize {
    (std::thread::available_parallelism().map_or(1, |n| n.get()) / 2).max(1)
}

/// The contest's referee of a game.
pub fn referee(game: crate::GameArg) -> &'static dyn Referee {
    dispatch!(game, G => judge::referee::referee_of::<G>())
}

pub fn run(args: JudgeArgs) -> Result<()> {
    if !args.summarize.is_empty() {
        let (games, warnings) = judge::read_records(&args.summarize).map_err(anyhow::Error::msg)?;
        let summary = judge::summarize(&games).map_err(anyhow::Error::msg)?;
        for warning in warnings {
            eprintln!("warning: {warning}");
        }
        let files: Vec<String> = args.summarize.iter().map(|p| p.display().to_string()).collect();
        println!("{}", summary.report(["A of the records", "B of the records"]));
        println!("records: {}", files.join(" "));
        if args.by_opening > 0 {
            print_by_opening(&games, args.by_opening)?;
        }
        return Ok(());
    }
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if !(args.time_scale > 0.0 && args.time_scale.is_finite()) {
        bail!("--time-scale must be a positive number, got {}", args.time_scale);
    }
    let parallel = args.parallel.unwrap_or_else(default_parallel);
    if parallel == 0 {
        bail!("--parallel must be at least 1");
    }
    let referee = referee(args.game);
    let opening_texts: Vec<String> = args.opening.split_whitespace().map(String::from).collect();
    if (args.opening_plies > 0 || !opening_texts.is_empty()) && !referee.any_start() {
        let flag = if args.opening_plies > 0 { "--opening-plies" } else { "--opening" };
        bail!("{flag}: {}'s programs are told moves, not the position, so a game cannot start from an opening", args.game.name());
    }
    let opening = referee.parse_opening(&opening_texts).map_err(|e| anyhow::anyhow!("--opening: {e}"))?;
    let players = [player_command(&args.p0, args.game, args.time_scale)?, player_command(&args.p1, args.game, args.time_scale)?];
    // Held to the end: another judge writing the same records or transcripts is refused.
    let (records, _records_lock) = match args.records {
        Some(path) => {
            let lock = RunLock::file(&path)?;
            (path, lock)
        }
        None => default_records(args.game.name())?,
    };
    let _transcripts_lock = args.transcripts.as_deref().map(RunLock::folder).transpose()?;
    let config = JudgeConfig {
        players,
        games: args.games,
        parallel,
        time_scale: args.time_scale,
        seed: args.seed,
        records: Some(records.clone()),
        transcripts: args.transcripts,
        suspend: !args.no_suspend,
        game_offset: 0,
        paired_seeds: args.paired || args.sprt.is_some() || args.opening_plies > 0 || !opening_texts.is_empty(),
        opening,
        opening_plies: args.opening_plies,
        sprt: args.sprt.as_deref().map(selfplay::sprt::Sprt::parse).transpose().map_err(anyhow::Error::msg)?,
    };
    let verbose = args.verbose;
    let total = config.games;
    let started = std::time::Instant::now();
    let mut progress = |record: &judge::GameRecord, summary: &judge::JudgeSummary| {
        if verbose {
            let fault = record.fault.as_ref().map(|f| format!(" ({} {:?}: {})", f.player, f.fault.kind, f.fault.detail)).unwrap_or_default();
            eprintln!(
                "game {:>4}: seats {}/{}, points A {} B {}, {}{fault}",
                record.game, record.seats[0], record.seats[1], record.points[0], record.points[1], record.end
            );
        } else {
            eprint!("\r{}   ", selfplay::stats::match_progress(&summary.stats, total, started.elapsed()));
            let _ = std::io::stderr().flush();
        }
    };
    let judge::Judged { summary, records_error } = judge::run_judge(referee, &config, &mut progress)?;
    if !verbose {
        eprintln!();
    }
    println!("{}", summary.report([&config.players[0].label, &config.players[1].label]));
    // The match stands without its records: its report first, then what went wrong.
    if let Some(e) = records_error {
        return Err(e.into());
    }
    println!("records: {}", records.display());
    if args.by_opening > 0 {
        // The match's summary keeps no moves: its records file has them.
        let (games, _) = judge::read_records(std::slice::from_ref(&records)).map_err(anyhow::Error::msg)?;
        print_by_opening(&games, args.by_opening)?;
    }
    Ok(())
}
