//! `cupzero export`: one std-only `.rs` file with the bot and its weights.

use crate::bundle::{bundle_bots, drop_unused_debug, prune_unused, shorten, BundledEngine, AVX2_ONLY_MARKER, EVERY_ACTION_LISTED_MARKER, TEXT_READER_MARKERS, WEIGHT_READER_MARKERS};
use std::collections::{BTreeMap, BTreeSet};
use crate::clock_args::ClockArgs;
pub use crate::engine::ExportEngine;
use anyhow::{bail, Context, Result};
use crate::book::read_book;
use bots::bot::{profile_of, Platform, Profile};
use bots::cpu::Cpu;
use bots::classic::Classic;
use bots::nn::{Mlp, Storage, StorageKind};
use bots::nn_write::{layout_name, to_bytes_calibrated_by_layer, Describe};
use bots::text::{bytes_to_text, utf16_units, Alphabet};
use bots::tools::{calibration_inputs, CALIBRATION_POSITIONS, CALIBRATION_SEED};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlatformArg {
    Codingame,
    Codecup,
}

impl PlatformArg {
    fn platform(self) -> Platform {
        match self {
            PlatformArg::Codingame => Platform::CodinGame,
            PlatformArg::Codecup => Platform::CodeCup,
        }
    }
}

/// The most the bot's vector kernels may use, whatever the CPU it runs on has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CpuArg {
    /// The best the CPU has, found at run time.
    Any,
    /// AVX2 at most (what CodinGame's judges have).
    Avx2,
    /// AVX at most, no AVX2 (what CodeCup's server has).
    Avx,
    /// SSE2 alone: any x86-64 CPU.
    Baseline,
}

impl CpuArg {
    pub fn cap(self) -> Cpu {
        match self {
            CpuArg::Any | CpuArg::Avx2 => Cpu::Avx2,
            CpuArg::Avx => Cpu::Avx,
            CpuArg::Baseline => Cpu::Baseline,
        }
    }
}

/// What a platform's size limit counts, and so the text the weights are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CountArg {
    /// UTF-16 code units, as CodinGame counts (a character of the Basic Multilingual Plane is
    /// one): the weights as 15 bits a character in BMP letters.
    Characters,
    /// UTF-8 bytes, as CodeCup counts (and the cautious reading of CodinGame's limit): the
    /// weights as printable ASCII, 6.5 bits a character.
    Bytes,
}

/// A platform's limit on a source file: how much, counted how.
#[derive(Clone, Copy, Debug)]
struct SizeRule {
    limit: usize,
    count: CountArg,
}

impl SizeRule {
    /// The profile's own rule, or `count` where asked (a platform that counts bytes counts
    /// nothing else).
    fn of(profile: &Profile, count: Option<CountArg>) -> Result<SizeRule> {
        match (profile.counts_characters, count) {
            (true, count) => Ok(SizeRule { limit: profile.size_limit, count: count.unwrap_or(CountArg::Characters) }),
            (false, None | Some(CountArg::Bytes)) => Ok(SizeRule { limit: profile.size_limit, count: CountArg::Bytes }),
            (false, Some(CountArg::Characters)) => bail!("{} counts a file in bytes, not characters: --count characters is for CodinGame", profile.platform.name()),
        }
    }

    fn measure(self, text: &str) -> usize {
        match self.count {
            CountArg::Characters => utf16_units(text),
            CountArg::Bytes => text.len(),
        }
    }

    fn unit(self) -> &'static str {
        match self.count {
            CountArg::Characters => "characters",
            CountArg::Bytes => "bytes",
        }
    }

    /// Where characters are counted, 15 bits each; where bytes are, ASCII's 6.5 a byte beats
    /// a BMP letter's 15 bits in 3 bytes.
    fn alphabet(self) -> Alphabet {
        match self.count {
            CountArg::Characters => Alphabet::Wide,
            CountArg::Bytes => Alphabet::Ascii,
        }
    }
}

/// The oldest rustc every exported bot compiles with, as any edition (Debian 12's; the
/// platforms' profiles ask for 1.66 at the oldest). `scripts/test` holds every game and engine
/// to it.
pub use bots::BOTS_RUSTC_FLOOR;

/// A part of an exported file in both counts: `N characters (M bytes)`, characters being
/// UTF-16 code units.
fn both_counts(text: &str) -> String {
    format!("{} characters ({} bytes)", utf16_units(text), text.len())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DTypeArg {
    /// The most precise storage that fits the platform's size limit: f16, then 16, 12, 11,
    /// 10, 9, 8-bit integers, range-coded; past 8 bits the first hidden layer (the widest)
    /// goes to 7 bits, then the others to 7, then the first to 6 with the others back at 8,
    /// then the heads to 8 bits and the other hidden layers down to 6. The report names the
    /// storage chosen.
    Auto,
    F32,
    F16,
    I16,
    I12,
    I10,
    I8,
}

impl DTypeArg {
    /// The layouts to try in order, most precise first: one storage per hidden layer
    /// (`hidden_layers` of them), then optionally one per head.
    fn candidates(self, hidden_layers: usize) -> Vec<Vec<Storage>> {
        let uniform = |s: Storage| vec![s; hidden_layers];
        let int = |bits| uniform(Storage::Int { bits });
        match self {
            DTypeArg::Auto => {
                let coded = |bits| Storage::Coded { bits };
                let mut layouts: Vec<Vec<Storage>> = [Storage::F16, coded(16), coded(12), coded(11), coded(10), coded(9), coded(8)].map(uniform).to_vec();
                // Past 8 bits the first layer, which holds most weights, narrows first.
                let first_then = |first: u8, rest: u8, heads: Option<u8>| {
                    let mut layout = vec![coded(first)];
                    layout.extend(std::iter::repeat(coded(rest)).take(hidden_layers.saturating_sub(1)));
                    layout.extend(heads.map(|bits| [coded(bits), coded(bits)]).into_iter().flatten());
                    layout
                };
                for (first, rest, heads) in [(7, 8, None), (7, 7, None), (6, 8, None), (6, 8, Some(8)), (6, 7, Some(8)), (6, 6, Some(8))] {
                    let layout = first_then(first, rest, heads);
                    if !layouts.contains(&layout) {
                        layouts.push(layout);
                    }
                }
                layouts
            }
            DTypeArg::F32 => vec![uniform(Storage::F32)],
            DTypeArg::F16 => vec![uniform(Storage::F16)],
            DTypeArg::I16 => vec![int(16)],
            DTypeArg::I12 => vec![int(12)],
            DTypeArg::I10 => vec![int(10)],
            DTypeArg::I8 => vec![int(8)],
        }
    }
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    #[arg(value_parser = crate::GameParser)]
    pub game: crate::GameArg,
    #[arg(long, value_enum, default_value = "net")]
    pub engine: ExportEngine,
    /// Weights (.czw), or a run directory (its weights.czw), for `--engine net`. Default: the
    /// shipped net, checkpoints/GAME/net.czw.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Default: the game's own (CodinGame for Connect 4 and Ultimate tic-tac-toe, CodeCup for
    /// the others); the other one is refused (a bot speaks its game's protocol). The file is
    /// written for the platform's profile: its oldest compiler, CPU, memory and size limit.
    #[arg(long, value_enum)]
    pub platform: Option<PlatformArg>,
    /// The most the bot's vector kernels may use, whatever its CPU has: `baseline` and `avx`
    /// judge on this machine what a CPU without AVX2 plays. Where the platform's CPUs all have
    /// AVX2 (CodinGame) and the kernels may use it, the kernels for other CPUs stay out of the
    /// file (there the bot would run plain code).
    #[arg(long, value_enum, default_value = "any")]
    pub cpu: CpuArg,
    /// The memory limit the bot keeps its search trees within, in MiB. Default: the profile's
    /// (CodinGame 768, CodeCup 256, or the game's own page's: quantum tic-tac-toe 64).
    #[arg(long, value_parser = clap::value_parser!(u64).range(8..=65536))]
    pub memory_mb: Option<u64>,
    /// The .rs file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// How the weights are stored in the file (integer storage keeps the heads in f16).
    #[arg(long, value_enum, default_value = "auto")]
    pub dtype: DTypeArg,
    /// Range-coded integer weights of these widths instead of `--dtype`: one per hidden layer,
    /// then optionally the policy and value heads (f16 otherwise), each 2 to 16 bits, e.g.
    /// `--bits 5,7` or `--bits 4,6,8,8`.
    #[arg(long, value_delimiter = ',', conflicts_with = "dtype")]
    pub bits: Vec<u8>,
    /// Also write the weights as the file stores them (a `.czw`), to grade or match the net
    /// the bot runs (`grade`, `arena`) against the one it came from.
    #[arg(long)]
    pub stored_weights: Option<PathBuf>,
    /// An opening book (`cupzero book`) the bot plays before searching. Default: the book
    /// the game ships beside its net (checkpoints/GAME/book.txt), if any.
    #[arg(long, conflicts_with = "no_book")]
    pub book: Option<PathBuf>,
    /// Leave the shipped book out.
    #[arg(long)]
    pub no_book: bool,
    /// Cap each search of the net bot at this many playouts, its random playouts seeded: the
    /// same inputs give the same moves (for tests and reproducible checks; a contest bot
    /// searches until its deadline).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub playouts: Option<u64>,
    /// Write the file even past the platform's size limit, which the contest refuses: to judge
    /// a net too big to ship (`--dtype auto` then keeps the most precise storage, f16).
    #[arg(long)]
    pub over_limit: bool,
    /// How the size limit counts the file. Default: as the platform does (CodinGame:
    /// characters, UTF-16 code units, with the weights as 15-bit BMP letters; CodeCup: bytes,
    /// with ASCII weights). `bytes` on CodinGame keeps the cautious reading: 100,000 UTF-8
    /// bytes, ASCII weights (docs/export.md says why characters are the default).
    #[arg(long, value_enum)]
    pub count: Option<CountArg>,
    #[command(flatten)]
    pub clock: ClockArgs,
}

/// The folder of a game's shipped checkpoint: under the working directory when run from a
/// checkout, else under the source tree this binary was built from.
fn shipped_dir(game: crate::GameArg) -> PathBuf {
    let relative = Path::new("checkpoints").join(game.name());
    if relative.is_dir() {
        relative
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
    }
}

pub fn run(args: ExportArgs) -> Result<()> {
    dispatch!(args.game, G => export::<G>(&args, args.game.entry().module, &args.game.entry().type_path()))
}

fn platform_name(p: Platform) -> &'static str {
    p.name()
}

/// The profile the file is written for, the memory limit its trees keep within, and the
/// first lines of its `main`: that limit and the kernels' cap.
struct Target {
    profile: Profile,
    memory_mb: usize,
    cap: Cpu,
    /// The bot's search nodes list every action (`Contest::KEPT_CANDIDATES`).
    lists_every_action: bool,
}

impl Target {
    fn of<G: Classic>(args: &ExportArgs) -> Target {
        let profile = profile_of::<G>();
        let lists_every_action = G::KEPT_CANDIDATES == usize::MAX;
        Target { profile, memory_mb: args.memory_mb.map_or(profile.memory_mb, |mb| mb as usize), cap: args.cpu.cap(), lists_every_action }
    }

    /// Whether the kernels for CPUs without AVX2 stay out of the file.
    fn avx2_only(&self) -> bool {
        self.profile.cpu == Cpu::Avx2 && self.cap == Cpu::Avx2
    }

    /// The markers of what the bundle leaves out for this target.
    fn left_out(&self) -> Vec<&'static str> {
        let mut markers = Vec::new();
        if self.avx2_only() {
            markers.push(AVX2_ONLY_MARKER);
        }
        if self.lists_every_action {
            markers.push(EVERY_ACTION_LISTED_MARKER);
        }
        markers
    }

    /// The memory limit, and the kernels' cap where it is below AVX2 (the default cap).
    fn main_prologue(&self) -> String {
        match self.cap {
            Cpu::Avx2 => format!("    memory::set_limit_mb({});\n", self.memory_mb),
            cap => format!("    memory::set_limit_mb({});\n    cpu::set_cap(cpu::Cpu::{cap:?});\n", self.memory_mb),
        }
    }

    /// The report's line on what the file is written for.
    fn describe(&self) -> String {
        let kernels = if self.avx2_only() {
            "AVX2's kernels alone (plain code on a CPU without AVX2)".to_string()
        } else {
            format!("kernels up to {} (the CPU's best, checked at run time)", self.cap.name())
        };
        format!("written for {}; trees within {} MiB; {kernels}", self.profile.describe(), self.memory_mb)
    }
}

fn export<G: Classic>(args: &ExportArgs, module: &str, type_path: &str) -> Result<()> {
    args.clock.safety()?;
    let target = Target::of::<G>(args);
    let rule = SizeRule::of(&target.profile, args.count)?;
    if let Some(platform) = args.platform.map(PlatformArg::platform) {
        if platform != G::PLATFORM {
            bail!("{} is played on {}, not {}", G::NAME, platform_name(G::PLATFORM), platform_name(platform));
        }
    }
    let shipped = shipped_dir(args.game);
    let checkpoint = match (args.engine, &args.checkpoint) {
        (ExportEngine::Classic, None) => return export_classic::<G>(args, module, type_path),
        (ExportEngine::Classic, Some(_)) => bail!("--checkpoint goes with --engine net: the classic bot has no weights"),
        (ExportEngine::Net, None) => shipped.join("net.czw"),
        (ExportEngine::Net, Some(path)) => path.clone(),
    };
    let path = if checkpoint.is_dir() { checkpoint.join("weights.czw") } else { checkpoint };
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let net = Mlp::from_bytes(&bytes, G::NAME).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    net.check_shape(G::NUM_FEATURES, G::NUM_ACTIONS).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let shipped_book = shipped.join("book.txt");
    let book_path = match &args.book {
        Some(path) => Some(path.clone()),
        None if !args.no_book && shipped_book.is_file() => Some(shipped_book),
        None => None,
    };
    let book = book_path.as_deref().map(read_book::<G>).transpose()?;
    let main_text = match &book {
        None => format!(
            "fn main() {{\n{}    std::process::exit(bot::exported_main::<{type_path}>(WEIGHTS, time::Safety::new({:?}, {}), {:?}, {:?}));\n}}\n",
            target.main_prologue(),
            args.clock.margin_frac,
            args.clock.margin_ms,
            args.clock.time_scale,
            args.playouts
        ),
        Some(_) => format!(
            "fn main() {{\n{}    std::process::exit(book::exported_main_with_book::<{type_path}>(WEIGHTS, BOOK, time::Safety::new({:?}, {}), {:?}, {:?}));\n}}\n",
            target.main_prologue(),
            args.clock.margin_frac,
            args.clock.margin_ms,
            args.clock.time_scale,
            args.playouts
        ),
    };
    // The book, like the weights, is a constant after the code: each measured on its own.
    let book_text = book.as_ref().map_or(String::new(), |b| format!("const BOOK: &str = \"{}\";\n", bytes_to_text(&b.to_packed::<G>(), rule.alphabet(), 1000)));
    // The bot carries the readers of the storages its weights use: one bundle for each set of
    // them among the layouts tried.
    let completion = format!("const WEIGHTS:&str=\"\";{}", if book.is_some() { "const BOOK:&str=\"\";" } else { "" });
    let mut bundles: BTreeMap<BTreeSet<StorageKind>, String> = BTreeMap::new();
    let widths: Vec<String> = std::iter::once(net.num_features()).chain(net.hidden_widths()).map(|w| w.to_string()).collect();
    let (limit, unit) = (rule.limit, rule.unit());
    let accepted = if args.over_limit { usize::MAX } else { limit };
    let mut smallest = None;
    // Integer weights are rounded to fit typical inputs of this game (see to_bytes_calibrated_by_layer).
    let calibration = calibration_inputs::<G>(CALIBRATION_POSITIONS, CALIBRATION_SEED);
    let hidden_layers = net.hidden_widths().len();
    let layouts = if args.bits.is_empty() {
        args.dtype.candidates(hidden_layers)
    } else {
        vec![bots::nn_write::coded_layout(&args.bits, hidden_layers).map_err(|why| anyhow::anyhow!("--bits {why}"))?]
    };
    for layout in layouts {
        let packed = to_bytes_calibrated_by_layer(&net, &layout, &calibration).map_err(|e| anyhow::anyhow!("cannot export {}: {e}", path.display()))?;
        let kinds: BTreeSet<StorageKind> = Mlp::storages(&packed, G::NAME).map_err(|e| anyhow::anyhow!("cannot export {}: {e}", path.display()))?.into_iter().map(Storage::kind).collect();
        if !bundles.contains_key(&kinds) {
            let mut left_out = target.left_out();
            left_out.extend(TEXT_READER_MARKERS.iter().filter(|&&(alphabet, _)| alphabet != rule.alphabet()).map(|&(_, marker)| marker));
            left_out.extend(WEIGHT_READER_MARKERS.iter().filter(|(kind, _)| !kinds.contains(kind)).map(|&(_, marker)| marker));
            let code = bundle_bots(module, &main_text, BundledEngine::Net, &left_out).and_then(|c| shorten(&c)).map_err(|e| anyhow::anyhow!("bundling failed: {e}"))?;
            let code = prune_unused(&code, &completion);
            bundles.insert(kinds.clone(), drop_unused_debug(&code, &completion));
        }
        let code = &bundles[&kinds];
        let header = format!(
            "// {} bot for {}, generated by cupzero {} from {}.\n// Net {} -> {} actions + 2 values, {} parameters, hidden layers stored as {}.\n// Build: rustc --edition 2021 -O {} (rustc {} or newer, any edition)\n#![allow(unused, nonstandard_style)]\n",
            G::NAME,
            platform_name(G::PLATFORM),
            env!("CARGO_PKG_VERSION"),
            path.file_name().map_or("?".into(), |n| n.to_string_lossy()),
            widths.join("-"),
            net.num_actions(),
            net.num_parameters(),
            layout_name(&layout, hidden_layers),
            args.output.file_name().map_or("bot.rs".into(), |n| n.to_string_lossy()),
            BOTS_RUSTC_FLOOR,
        );
        let weights = format!("const WEIGHTS: &str = \"{}\";\n", bytes_to_text(&packed, rule.alphabet(), 1000));
        let text = format!("{header}{code}{book_text}{weights}");
        let size = rule.measure(&text);
        if size <= accepted {
            // Written before the report: a reader that stops reading takes nothing from the file.
            if let Some(stored) = &args.stored_weights {
                write_file(stored, &packed)?;
            }
            write_file(&args.output, text.as_bytes())?;
            println!(
                "{}: {} ({} {limit} {unit} on {}): code {}, {}weights {} ({} bytes stored, {} parameters, hidden layers as {}, {} bits a character)",
                args.output.display(),
                both_counts(&text),
                if size > limit { "OVER the contest's limit of" } else { "limit" },
                platform_name(G::PLATFORM),
                both_counts(&format!("{header}{code}")),
                book.as_ref().map_or(String::new(), |b| format!("a book of {} positions {}, ", b.len(), both_counts(&book_text))),
                both_counts(&weights),
                packed.len(),
                net.num_parameters(),
                layout_name(&layout, hidden_layers),
                rule.alphabet().bits_per_character(),
            );
            println!("{}: {}", args.output.display(), target.describe());
            return Ok(());
        }
        smallest = Some((text, layout));
    }
    let (text, layout) = smallest.expect("at least one candidate");
    // Only auto's narrowest layout leaves nothing to try but a smaller net.
    let advice = if !args.bits.is_empty() {
        "try fewer --bits"
    } else if DTypeArg::Auto.candidates(hidden_layers).last() == Some(&layout) {
        "train a smaller net (net.hidden in the training config)"
    } else {
        "try --dtype auto or a narrower integer storage"
    };
    bail!(
        "{} with {} weights is over the {} limit of {limit} {unit}; {advice}; nothing written",
        both_counts(&text),
        layout_name(&layout, hidden_layers),
        platform_name(G::PLATFORM)
    )
}

/// The classic bot alone: no weights, no calibration.
fn export_classic<G: Classic>(args: &ExportArgs, module: &str, type_path: &str) -> Result<()> {
    if !G::has_classic_bot() {
        bail!("{} has no classic bot; nothing written", G::NAME);
    }
    // A classic bot's searches list every action.
    let target = Target { lists_every_action: true, ..Target::of::<G>(args) };
    let rule = SizeRule::of(&target.profile, args.count)?;
    let main_text = format!(
        "fn main() {{\n{}    std::process::exit(classic::exported_classic_main::<{type_path}>(time::Safety::new({:?}, {}), {:?}));\n}}\n",
        target.main_prologue(),
        args.clock.margin_frac,
        args.clock.margin_ms,
        args.clock.time_scale
    );
    let code = bundle_bots(module, &main_text, BundledEngine::Classic, &target.left_out()).and_then(|c| shorten(&c)).map_err(|e| anyhow::anyhow!("bundling failed: {e}"))?;
    let code = drop_unused_debug(&prune_unused(&code, ""), "");
    let header = format!(
        "// {} classic bot (no net) for {}, generated by cupzero {}.\n// Build: rustc --edition 2021 -O {} (rustc {} or newer, any edition)\n#![allow(unused, nonstandard_style)]\n",
        G::NAME,
        platform_name(G::PLATFORM),
        env!("CARGO_PKG_VERSION"),
        args.output.file_name().map_or("bot.rs".into(), |n| n.to_string_lossy()),
        BOTS_RUSTC_FLOOR,
    );
    let text = format!("{header}{code}");
    if rule.measure(&text) > rule.limit {
        bail!("{} is over the {} limit of {} {}; nothing written", both_counts(&text), platform_name(G::PLATFORM), rule.limit, rule.unit());
    }
    write_file(&args.output, text.as_bytes())?;
    println!("{}: {} (limit {} {} on {}), classic bot, no weights", args.output.display(), both_counts(&text), rule.limit, rule.unit(), platform_name(G::PLATFORM));
    println!("{}: {}", args.output.display(), target.describe());
    Ok(())
}

fn write_file(path: &Path, contents: &[u8]) -> Result<()> {
    selfplay::files::write_atomically(path, contents).with_context(|| format!("cannot write {}", path.display()))
}
