//! `cupzero book`: an opening book from long searches of the net bot, for `export --book`.

use crate::GameName;
use anyhow::{bail, Context, Result};
use bots::bot::Contest;
use bots::nn::Mlp;
use clap::Args;
use selfplay::book::{build_book, fixed_start, BookSettings};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BookArgs {
    pub game: GameName,
    /// The net the bot searches with (.czw, or a run directory): the one you will export.
    #[arg(long)]
    pub checkpoint: PathBuf,
    /// Positions up to this many actions from the start get a book move.
    #[arg(long, default_value_t = 4)]
    pub plies: usize,
    /// Besides the book move, how many of the net's top moves to follow from each position
    /// (the opponent's likely replies).
    #[arg(long, default_value_t = 3)]
    pub replies: usize,
    /// Playouts of each book search (the bot's whole budget for that move).
    #[arg(long, default_value_t = 50_000)]
    pub playouts: u64,
    /// Threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// The book file to write.
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn run(args: BookArgs) -> Result<()> {
    match args.game {
        GameName::Connect4 => book::<bots::connect4::Connect4>(&args),
        GameName::G6561 => book::<bots::game6561::Game6561>(&args),
        GameName::Blackhole => book::<bots::blackhole::BlackHole>(&args),
        GameName::Zuniq => book::<bots::zuniq::Zuniq>(&args),
        GameName::Qttt => book::<bots::qttt::Qttt>(&args),
    }
}

fn book<G: Contest>(args: &BookArgs) -> Result<()> {
    if !fixed_start::<G>() {
        bail!("{} starts from a random setup, so an opening book would cover one setup of many", G::NAME);
    }
    if args.plies == 0 || args.playouts == 0 {
        bail!("--plies and --playouts must be at least 1");
    }
    let path = if args.checkpoint.is_dir() { args.checkpoint.join("weights.czw") } else { args.checkpoint.clone() };
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let net = Mlp::from_bytes(&bytes, G::NAME).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    net.check_shape(G::NUM_FEATURES, G::NUM_ACTIONS).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads).build()?;
    let settings = BookSettings { plies: args.plies, replies: args.replies, playouts: args.playouts };
    let start = Instant::now();
    let net = Arc::new(net);
    let book = pool.install(|| {
        build_book::<G>(&net, &settings, &mut |ply, positions, size| {
            eprintln!("ply {ply}: {positions} positions searched, book of {size}, {:.0} s", start.elapsed().as_secs_f64());
        })
    });
    let comment = format!(
        "{} plies, {} replies, {} playouts a move, net {} ({} bytes), {:.0} s",
        args.plies,
        args.replies,
        args.playouts,
        path.display(),
        bytes.len(),
        start.elapsed().as_secs_f64()
    );
    bots::tools::write_atomically(&args.output, book.to_text(G::NAME, &comment).as_bytes()).with_context(|| format!("cannot write {}", args.output.display()))?;
    println!("{}: {} positions", args.output.display(), book.len());
    Ok(())
}
