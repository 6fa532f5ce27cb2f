//! `cupzero`: train, play, judge and export contest bots.

/// Runs `$body` with `$G` the type of game `$game` (a [`GameArg`]): every command reaches its
/// game's code through the registry (`bots::GAMES`).
macro_rules! dispatch {
    ($game:expr, $G:ident => $body:expr) => {
        bots::with_game!($game.name(), $G => $body).expect("a game of the registry")
    };
}

mod analyze;
mod arena;
mod bench;
mod book;
mod bundle;
mod clock_args;
mod compare;
mod engine;
mod expert;
mod export;
mod fuzz;
mod judge;
mod league;
mod play;
mod positions;
mod shorten;
mod train;
mod view;
mod worker;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "cupzero", version, about = "AlphaZero-style self-play trainer and single-file bot factory for contest games")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play one game on the contest protocol (stdin/stdout), as a submission would.
    Play(play::PlayArgs),
    /// Play two programs against each other as the contest referee does, over many games.
    Judge(judge::JudgeArgs),
    /// Rate a pool of players (built-in bots, nets, programs) over games through the referee.
    League(league::LeagueArgs),
    /// Train a policy/value net by self-play (resumes an existing run directory).
    Train(train::TrainArgs),
    /// Play self-play games for a run whose trainer is elsewhere (`train --redis`).
    Worker(worker::WorkerArgs),
    /// Print the default training configuration (TOML) with every key.
    TrainConfig(train::TrainConfigArgs),
    /// Play checkpoints and baselines against each other in-process.
    Arena(arena::ArenaArgs),
    /// Compare two matches played on the same seeds, game by game (paired difference, 95% CI).
    Compare(compare::CompareArgs),
    /// Expert iteration for 6561: beam-search games train a value net that judges the next
    /// round's beam.
    Expert(expert::ExpertArgs),
    /// Build an opening book from long searches of the net bot (for `export --book`).
    Book(book::BookArgs),
    /// Write a single-file, std-only bot with embedded weights for a contest platform.
    Export(export::ExportArgs),
    /// Feed every input reader (protocols, the judge, weights, books, configs) mutated input.
    Fuzz(fuzz::FuzzArgs),
    /// Judged games as one HTML page: every game's board move by move, answer times, and with
    /// --net our search's value of every position and the blunders.
    View(view::ViewArgs),
    /// Sample positions from judged games and label each with a deep search of a net (exact
    /// where the endgame search reaches): a set that grades nets in seconds.
    Positions(positions::PositionsArgs),
    /// Grade nets on a labelled position set: value error and top-move agreement.
    Grade(positions::GradeArgs),
    /// One position: the board in text and the search's top moves with their lines.
    Analyze(analyze::AnalyzeArgs),
    /// Count positions N actions ahead (move generator check).
    Perft(bench::PerftArgs),
    /// Measure random playouts/s and the UCT bot's search speed.
    Bench(bench::BenchArgs),
}

/// A game of the registry, as the command line names it (`connect4`, `6561`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameArg(&'static bots::registry::GameEntry);

impl GameArg {
    /// The game's name on the command line and in file and directory names.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    pub fn entry(self) -> &'static bots::registry::GameEntry {
        self.0
    }
}

/// Reads a game's name; `--help` lists every game of the registry with its title.
#[derive(Clone, Copy, Debug)]
pub struct GameParser;

impl clap::builder::TypedValueParser for GameParser {
    type Value = GameArg;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &std::ffi::OsStr) -> Result<GameArg, clap::Error> {
        let text = value.to_string_lossy();
        match bots::registry::find_game(&text) {
            Some(entry) => Ok(GameArg(entry)),
            None => {
                let mut err = clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd);
                err.insert(clap::error::ContextKind::InvalidArg, clap::error::ContextValue::String(arg.map_or("GAME".into(), |a| a.to_string())));
                err.insert(clap::error::ContextKind::InvalidValue, clap::error::ContextValue::String(text.into_owned()));
                err.insert(clap::error::ContextKind::ValidValue, clap::error::ContextValue::Strings(bots::GAMES.iter().map(|g| g.name.to_string()).collect()));
                Err(err)
            }
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(bots::GAMES.iter().map(|g| clap::builder::PossibleValue::new(g.name).help(g.title))))
    }
}

fn main() -> ExitCode {
    // A bug must still end in one readable line, not a backtrace on the judge's stderr.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("cupzero: internal error: {msg}{place}");
    }));
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Play(args) => play::run(args),
        Command::Judge(args) => judge::run(args),
        Command::League(args) => league::run(args),
        Command::Train(args) => train::run(args),
        Command::Worker(args) => worker::run(args),
        Command::TrainConfig(args) => train::print_default_config(args),
        Command::Arena(args) => arena::run(args),
        Command::Export(args) => export::run(args),
        Command::Book(args) => book::run(args),
        Command::Expert(args) => expert::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Fuzz(args) => fuzz::run(args),
        Command::View(args) => view::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Positions(args) => positions::run_positions(args),
        Command::Grade(args) => positions::run_grade(args),
        Command::Perft(args) => bench::perft(args),
        Command::Bench(args) => bench::bench(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cupzero: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
