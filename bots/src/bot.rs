//! The bot program: a game's protocol loop around an agent, on stdin/stdout with the
//! contest's clock. `cupzero play` and every exported single-file bot run this same code.

use crate::agent::{Agent, SearchAgent};
use crate::cpu::Cpu;
use crate::encode::Encode;
use crate::mcts::{MctsConfig, Selection};
use crate::net_eval::NetEvaluator;
use crate::nn::Mlp;
use crate::protocol::ProtocolError;
use crate::rng::Rng;
use crate::text::text_to_bytes;
use crate::time::{Clock, Safety, TimeManager};
use std::io::{self, BufRead, Write};
use std::sync::Arc;

/// Where a game is played, which fixes its protocol and clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    CodinGame,
    CodeCup,
}

/// What a platform compiles and runs a submission with: the exporter writes for it, and every
/// exported bot is tested against it (docs/export.md gives the evidence for each figure). The
/// exporter's alone: no bot carries it.
#[cfg(not(bundle))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    pub platform: Platform,
    /// The oldest rustc a submission must compile with.
    pub oldest_rustc: &'static str,
    /// The edition the platform compiles as; `None`: unknown, so any from 2015 on.
    pub edition: Option<&'static str>,
    /// The best vector instructions its CPUs are known to have.
    pub cpu: Cpu,
    /// Its memory limit in MiB (a game's own page may say less: [`Contest::MEMORY_MB`]).
    pub memory_mb: usize,
    /// Its limit on the source file, in UTF-16 code units (`characters`) or in bytes.
    pub size_limit: usize,
    pub counts_characters: bool,
}

#[cfg(not(bundle))]
impl Platform {
    pub fn name(self) -> &'static str {
        match self {
            Platform::CodinGame => "CodinGame",
            Platform::CodeCup => "CodeCup",
        }
    }

    pub fn profile(self) -> Profile {
        match self {
            // rustc 1.90, edition 2021, 768 MB, 100,000 characters (its languages page); AVX2
            // judges (a Haswell measured in 2023).
            Platform::CodinGame => Profile { platform: self, oldest_rustc: "1.90", edition: Some("2021"), cpu: Cpu::Avx2, memory_mb: 768, size_limit: 100_000, counts_characters: true },
            // Unpublished compiler, pinned at 1.66 and 1.75 by recent winners; an unknown
            // edition; a Sandy Bridge Xeon (AVX, no AVX2); an unpublished memory limit (the
            // winners' tables stayed near 256 MiB); 1,474,560 bytes of source.
            Platform::CodeCup => Profile { platform: self, oldest_rustc: "1.66", edition: None, cpu: Cpu::Avx, memory_mb: 256, size_limit: 1_474_560, counts_characters: false },
        }
    }
}

#[cfg(not(bundle))]
impl Profile {
    /// One line for reports: `CodeCup (rustc 1.66 on, any edition, AVX without AVX2, 256 MiB)`.
    pub fn describe(&self) -> String {
        let cpu = match self.cpu {
            Cpu::Avx2 => "AVX2",
            Cpu::Avx => "AVX without AVX2",
            Cpu::Baseline => "SSE2 alone",
        };
        let edition = self.edition.map_or("any edition".to_string(), |e| format!("edition {e}"));
        format!("{} (rustc {} on, {edition}, {cpu}, {} MiB)", self.platform.name(), self.oldest_rustc, self.memory_mb)
    }
}

/// The profile a game's bot is written for: its platform's, with the game's own memory limit
/// where that is lower.
#[cfg(not(bundle))]
pub fn profile_of<G: Contest>() -> Profile {
    let mut profile = G::PLATFORM.profile();
    if let Some(mb) = G::MEMORY_MB {
        profile.memory_mb = profile.memory_mb.min(mb);
    }
    profile
}

/// A game with a contest protocol.
pub trait Contest: Encode {
    const PLATFORM: Platform;
    /// The memory limit of the game's own contest page in MiB, where it gives one below its
    /// platform's ([`Profile::memory_mb`]): the exporter's to read, no bot's.
    #[cfg(not(bundle))]
    const MEMORY_MB: Option<usize> = None;
    /// The net bot's PUCT exploration constant. Lower values trust the net's policy more;
    /// chosen per game by judged matches (docs/lab/blackhole.md and docs/lab/qttt.md, The PUCT
    /// constant, 1.5 to 0.5; docs/lab/connect4.md, The PUCT constant stays 1.5).
    const PUCT_C: f32 = 1.5;
    /// [`MctsConfig::kept_candidates`] of the net bot's search: games whose trees fill their
    /// memory share long before the clock runs out list fewer actions a node. (A bundle for a
    /// game that keeps the default leaves the lines so marked out: src/bundle.rs.)
    #[cfg(not(every_action_listed))]
    const KEPT_CANDIDATES: usize = usize::MAX;
    /// How many of the game's symmetric views the net bot averages at each evaluation
    /// ([`NetEvaluator::averaged`]); 1 evaluates the position as it stands.
    const AVERAGED_VIEWS: usize = 1;
    /// The net bot: PUCT search on `net` with `config` (Zuniq mixes random playouts into the
    /// value and puts an exact endgame solver in front). `playouts` caps each search.
    fn bot_agent(net: Arc<Mlp>, config: MctsConfig, playouts: Option<u64>) -> Box<dyn Agent<Self>> {
        Box::new(SearchAgent::new(Self::new_game(&mut Rng::new(0)), config, NetEvaluator::averaged(net, Self::AVERAGED_VIEWS), playouts))
    }
    /// The agent a submission plays with: the net bot on the contest clock, unless a game
    /// has something stronger (6561).
    fn submission_agent(net: Arc<Mlp>) -> Box<dyn Agent<Self>> {
        Self::bot_agent(net, net_search_config::<Self>(), None)
    }
    /// The contest's clock, every limit multiplied by `time_scale`.
    fn clock(time_scale: f64) -> Clock;
    /// Plays one game on the protocol until the input ends or the judge says it is over.
    fn run_protocol<R: BufRead, W: Write>(
        input: R,
        output: W,
        agent: &mut dyn Agent<Self>,
        time: &mut TimeManager,
        log: &mut dyn Write,
    ) -> Result<(), ProtocolError>;
}

/// Search settings of the net-guided bot.
pub fn net_search_config<G: Contest>() -> MctsConfig {
    let config = MctsConfig { selection: Selection::Puct { c: G::PUCT_C, fpu_reduction: 0.2 }, max_nodes: 2_000_000, ..MctsConfig::puct() };
    #[cfg(not(every_action_listed))]
    let config = MctsConfig { kept_candidates: G::KEPT_CANDIDATES, ..config };
    config
}

/// The net-guided search agent for `G`: the submission's, or with `playouts` the net bot's
/// search capped at that many playouts a move (repeatable: its random playouts are seeded).
pub fn net_agent<G: Contest>(net: Mlp, playouts: Option<u64>) -> Result<Box<dyn Agent<G>>, String> {
    net.check_shape(G::NUM_FEATURES, G::NUM_ACTIONS).map_err(|e| e.to_string())?;
    Ok(match playouts {
        Some(n) => G::bot_agent(Arc::new(net), net_search_config::<G>(), Some(n)),
        None => G::submission_agent(Arc::new(net)),
    })
}

/// Runs `agent` on stdin/stdout. Logs go to stderr unless `quiet`.
pub fn run_bot<G: Contest>(agent: &mut dyn Agent<G>, safety: Safety, time_scale: f64, quiet: bool) -> Result<(), ProtocolError> {
    let mut time = TimeManager::new(G::clock(time_scale), safety);
    let stdin = io::stdin();
    let mut log: Box<dyn Write> = if quiet { Box::new(io::sink()) } else { Box::new(io::stderr()) };
    G::run_protocol(stdin.lock(), io::stdout().lock(), agent, &mut time, &mut log)
}

/// `main` of an exported bot: weights from the embedded text, then the protocol loop.
/// Returns the process exit code; any failure is one line on stderr.
pub fn exported_main<G: Contest>(weights_text: &str, safety: Safety, time_scale: f64, playouts: Option<u64>) -> i32 {
    let result = text_to_bytes(weights_text)
        .and_then(|bytes| Mlp::from_bytes(&bytes, G::NAME))
        .map_err(|e| e.to_string())
        .and_then(|net| net_agent::<G>(net, playouts))
        .and_then(|mut agent| run_bot::<G>(&mut *agent, safety, time_scale, false).map_err(|e| e.to_string()));
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
