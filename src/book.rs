//! `cupzero book`: an opening book from long searches of the net bot, for `export --book`.

use crate::GameName;
use anyhow::{bail, Context, Result};
use crate::engine::ExportEngine;
use bots::classic::Classic;
use bots::book::Book;
use bots::game::{Action, Game};
use bots::nn::Mlp;
use clap::Args;
use selfplay::book::{build_book, fixed_start, net_bot_move, BookSettings};
use std::path::{Path, PathBuf};
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
    /// Who decides the book moves: the net bot, or the game's classic bot (the net's policy
    /// still names the replies).
    #[arg(long, value_enum, default_value = "net")]
    pub engine: ExportEngine,
    /// Budget of each book search: playouts for the net bot and the classic tree searches,
    /// nodes for Connect 4's classic alpha-beta.
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

fn book<G: Classic>(args: &BookArgs) -> Result<()> {
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
    if args.engine == ExportEngine::Classic && !G::has_classic_bot() {
        bail!("--engine classic needs a game with a classic bot, and {} has none", G::NAME);
    }
    let settings = BookSettings { plies: args.plies, replies: args.replies };
    let start = Instant::now();
    let net = Arc::new(net);
    let by_net = net_bot_move::<G>(&net, args.playouts);
    let budget = args.playouts;
    let by_classic = move |state: &G| G::classic_agent(0, Some(budget)).expect("checked above").choose(state, None);
    let choose: &(dyn Fn(&G) -> Action + Sync) = match args.engine {
        ExportEngine::Net => &by_net,
        ExportEngine::Classic => &by_classic,
    };
    let book = pool.install(|| {
        build_book::<G>(&net, &settings, choose, &mut |ply, positions, size| {
            eprintln!("ply {ply}: {positions} positions searched, book of {size}, {:.0} s", start.elapsed().as_secs_f64());
        })
    });
    let comment = format!(
        "{} plies, {} replies, moves by the {} bot at {} a move, net {} ({} bytes), {:.0} s",
        args.plies,
        args.replies,
        if args.engine == ExportEngine::Net { "net" } else { "classic" },
        args.playouts,
        path.display(),
        bytes.len(),
        start.elapsed().as_secs_f64()
    );
    bots::tools::write_atomically(&args.output, book.to_text(G::NAME, &comment).as_bytes()).with_context(|| format!("cannot write {}", args.output.display()))?;
    println!("{}: {} positions", args.output.display(), book.len());
    Ok(())
}

/// Reads a book file for `G`, naming the file in any error.
pub fn read_book<G: Game>(path: &Path) -> Result<Book> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Book::parse(&text, G::NAME).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}
