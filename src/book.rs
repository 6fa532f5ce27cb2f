//! `cupzero book`: an opening book from long searches of the net bot, for `export --book`.

use anyhow::{bail, Context, Result};
use crate::engine::ExportEngine;
use bots::classic::Classic;
use bots::book::Book;
use bots::game::{Action, Game};
use bots::nn::Mlp;
use clap::Args;
use selfplay::book::{build_book, build_book_by_reach, fixed_start, net_bot_move, BookSettings, ReachSettings};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BookArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
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
    /// Instead of every position within --plies along --replies: this many searches, spent
    /// on the positions each seat most likely meets (its own moves from the book, the
    /// opponent's weighed by the net's policy), most likely first, --plies deep at most.
    #[arg(long)]
    pub positions: Option<usize>,
    /// With --positions: in the first this many plies every distinct opponent move counts as
    /// equally likely (an unknown opponent's opening is not the net's).
    #[arg(long, default_value_t = 1, requires = "positions")]
    pub uniform_plies: usize,
    /// Take the moves of positions this book (built with the same net, engine and budget)
    /// already holds instead of searching them again: a smaller or larger book from the same
    /// settings in little time.
    #[arg(long)]
    pub reuse: Option<PathBuf>,
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
    dispatch!(args.game, G => book::<G>(&args))
}

fn book<G: Classic>(args: &BookArgs) -> Result<()> {
    if !fixed_start::<G>() {
        bail!("{} starts from a random setup, so an opening book would cover one setup of many", G::NAME);
    }
    if args.plies == 0 || args.playouts == 0 || args.positions == Some(0) {
        bail!("--plies, --playouts and --positions must be at least 1");
    }
    let path = if args.checkpoint.is_dir() { args.checkpoint.join("weights.czw") } else { args.checkpoint.clone() };
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let net = Mlp::from_bytes(&bytes, G::NAME).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    net.check_shape(G::NUM_FEATURES, G::NUM_ACTIONS).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads).build()?;
    if args.engine == ExportEngine::Classic && !G::has_classic_bot() {
        bail!("--engine classic needs a game with a classic bot, and {} has none", G::NAME);
    }
    let start = Instant::now();
    let net = Arc::new(net);
    let by_net = net_bot_move::<G>(&net, args.playouts);
    let budget = args.playouts;
    let by_classic = move |state: &G| G::classic_agent(0, Some(budget)).expect("checked above").choose(state, None);
    let decide: &(dyn Fn(&G) -> Action + Sync) = match args.engine {
        ExportEngine::Net => &by_net,
        ExportEngine::Classic => &by_classic,
    };
    let reused = args.reuse.as_deref().map(read_book::<G>).transpose()?;
    let reuse_or_decide = |state: &G| reused.as_ref().and_then(|book| book.lookup(state)).unwrap_or_else(|| decide(state));
    let choose: &(dyn Fn(&G) -> Action + Sync) = &reuse_or_decide;
    let (book, shape) = match args.positions {
        Some(positions) => {
            let settings = ReachSettings { positions, plies: args.plies, uniform_plies: args.uniform_plies };
            let book = pool.install(|| {
                build_book_by_reach::<G>(&net, &settings, choose, &|seat, searched, chance| {
                    eprintln!("seat {seat}: {searched} positions searched, the last reached with chance {chance:.4}, {:.0} s", start.elapsed().as_secs_f64());
                })
            });
            (book, format!("{positions} most likely positions within {} plies (opponent moves uniform for {} plies)", args.plies, args.uniform_plies))
        }
        None => {
            let settings = BookSettings { plies: args.plies, replies: args.replies };
            let book = pool.install(|| {
                build_book::<G>(&net, &settings, choose, &mut |ply, positions, size| {
                    eprintln!("ply {ply}: {positions} positions searched, book of {size}, {:.0} s", start.elapsed().as_secs_f64());
                })
            });
            (book, format!("{} plies, {} replies", args.plies, args.replies))
        }
    };
    let comment = format!(
        "{shape}, moves by the {} bot at {} a move, net {} ({} bytes), {:.0} s",
        if args.engine == ExportEngine::Net { "net" } else { "classic" },
        args.playouts,
        path.display(),
        bytes.len(),
        start.elapsed().as_secs_f64()
    );
    selfplay::files::write_atomically(&args.output, book.to_text(G::NAME, &comment).as_bytes()).with_context(|| format!("cannot write {}", args.output.display()))?;
    println!("{}: {} positions", args.output.display(), book.len());
    Ok(())
}

/// Reads a book file for `G`, naming the file in any error.
pub fn read_book<G: Game>(path: &Path) -> Result<Book> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Book::parse(&text, G::NAME).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}
