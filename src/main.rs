//! `cupzero`: train, play, judge and export contest bots.

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
mod shorten;
mod train;
mod worker;

use clap::{Parser, Subcommand, ValueEnum};
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
    /// Count positions N actions ahead (move generator check).
    Perft(bench::PerftArgs),
    /// Measure random playouts/s and the UCT bot's search speed.
    Bench(bench::BenchArgs),
}

/// The games cupzero knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameName {
    /// Connect 4, CodinGame 7x9 with STEAL.
    Connect4,
    /// 6561, CodeCup 2016 (cooperative 4x4 sliding game, shared score).
    #[value(name = "6561")]
    G6561,
    /// Black Hole, CodeCup 2018 (36-field triangle, stones 1..15, margin score).
    Blackhole,
    /// Zuniq, CodeCup 2021 (segments, zones of unique size, last mover wins).
    Zuniq,
    /// Quantum tic-tac-toe 4x4, CodeCup 2012 (spooky marks, cycles, collapse, bonus points).
    Qttt,
}

/// The game's id as used in file and directory names.
pub fn game_id(game: GameName) -> &'static str {
    match game {
        GameName::Connect4 => <bots::connect4::Connect4 as bots::game::Game>::NAME,
        GameName::G6561 => <bots::game6561::Game6561 as bots::game::Game>::NAME,
        GameName::Blackhole => <bots::blackhole::BlackHole as bots::game::Game>::NAME,
        GameName::Zuniq => <bots::zuniq::Zuniq as bots::game::Game>::NAME,
        GameName::Qttt => <bots::qttt::Qttt as bots::game::Game>::NAME,
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
