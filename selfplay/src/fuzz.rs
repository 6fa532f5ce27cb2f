//! Fuzzing on stable Rust: a hand-written, seeded mutation loop over every reader that takes
//! input from outside: each game's protocol loop (what an exported bot reads), the judge's
//! readers of the programs' answers, the weight file and its text form, opening books and
//! training configs.
//!
//! Inputs are random bytes, or mutations of valid inputs: real judge transcripts (`judge
//! --transcripts`, kept in each game's folder: `RefereeRules::transcripts`), shipped books and configs, small nets in every
//! storage. Text is mutated line by line (cut, deleted, repeated, swapped, numbers out of
//! range, very long lines, CR endings, stray bytes, no final newline), binaries byte by byte,
//! and half of the mutated weight files get a valid checksum again so that the parser behind
//! the checksum is reached. Every input must end in a clean answer or one error line: a
//! panic, a multi-line error or an input that takes over `HANG` is a failure.

use crate::config::TrainConfig;
use bots::book::{Book, BookAgent};
use bots::referee::RefereeRules;
use bots::game::{ActionList, Game};
use bots::infer::{QuantNet, Workspace};
use bots::nn::{fnv1a64, Dense, Mlp, Storage, VALUE_OUTPUTS};
use bots::nn_write::to_bytes_as;
use bots::text::{bytes_to_text, text_to_bytes, Alphabet};
use bots::rng::Rng;
use bots::time::{Safety, TimeManager};
use bots::tools::RandomAgent;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// An input that takes longer than this is reported as a hang.
pub const HANG: Duration = Duration::from_secs(1);
/// The agent seed of the `cupzero play GAME --engine random --seed 11` players whose
/// transcripts are the protocol seeds: replaying them with the same agent replays the game.
pub const TRANSCRIPT_AGENT_SEED: u64 = 11;

/// One reader under test.
pub trait FuzzTarget {
    fn name(&self) -> String;
    /// Valid inputs to mutate.
    fn seeds(&self) -> Vec<Vec<u8>>;
    /// Whether inputs are text (mutated by lines) or binary (mutated by bytes).
    fn binary(&self) -> bool {
        false
    }
    /// Makes a structure-aware repair after mutation (a weight file's checksum).
    fn repair(&self, _input: &mut Vec<u8>, _rng: &mut Rng) {}
    /// Feeds one input; `Err` names a broken promise other than a panic.
    fn check(&self, input: &[u8]) -> Result<(), String>;
}

/// What a fuzz run found.
#[derive(Clone, Debug, Default)]
pub struct FuzzReport {
    pub inputs: u64,
    pub failures: u64,
    /// The first few failures, each with its input (escaped, clipped).
    pub examples: Vec<String>,
    pub slowest: Duration,
    pub elapsed: Duration,
}

impl FuzzReport {
    pub fn inputs_per_second(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Runs `inputs` inputs through `target`, seeded by `seed`.
pub fn fuzz(target: &dyn FuzzTarget, inputs: u64, seed: u64) -> FuzzReport {
    let seeds = target.seeds();
    assert!(!seeds.is_empty(), "{} has no seeds", target.name());
    let mut rng = Rng::new(seed);
    let mut report = FuzzReport::default();
    let mut input = Vec::new();
    let started = Instant::now();
    for _ in 0..inputs {
        input.clear();
        if rng.below(16) == 0 {
            random_bytes(&mut rng, &mut input);
        } else {
            let base = &seeds[rng.below(seeds.len())];
            if target.binary() {
                mutate_bytes(&mut rng, base, &mut input);
                if rng.below(2) == 0 {
                    target.repair(&mut input, &mut rng);
                }
            } else {
                mutate_text(&mut rng, base, &mut input);
            }
        }
        let start = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| target.check(&input)));
        let took = start.elapsed();
        report.slowest = report.slowest.max(took);
        report.inputs += 1;
        let failure = match outcome {
            Err(panic) => Some(format!("panic: {}", panic_text(&panic))),
            Ok(Err(broken)) => Some(broken),
            Ok(Ok(())) if took > HANG => Some(format!("took {} ms", took.as_millis())),
            Ok(Ok(())) => None,
        };
        if let Some(why) = failure {
            report.failures += 1;
            if report.examples.len() < 5 {
                report.examples.push(format!("{why} on {}", escape(&input)));
            }
        }
    }
    report.elapsed = started.elapsed();
    report
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_else(|| "?".into())
}

/// The input as a Rust-escaped string, clipped to 300 bytes.
fn escape(input: &[u8]) -> String {
    let clipped = &input[..input.len().min(300)];
    format!("{:?}{}", String::from_utf8_lossy(clipped), if input.len() > 300 { format!(" ... ({} bytes)", input.len()) } else { String::new() })
}

fn random_bytes(rng: &mut Rng, out: &mut Vec<u8>) {
    let len = rng.below(512);
    // Mostly printable text and newlines, so that line readers get past their first line.
    const TEXT: &[u8] = b"0123456789 -!\nABCDEFGHabcdehvQuitStart\r";
    for _ in 0..len {
        out.push(if rng.below(4) == 0 { rng.below(256) as u8 } else { TEXT[rng.below(TEXT.len())] });
    }
}

/// Numbers that sit at or beyond the edges of what the readers accept.
const ODD_NUMBERS: [&str; 12] = ["-1", "0", "-2", "9", "10", "16", "63", "64", "99", "4294967296", "99999999999999999999", "1e9"];

/// 1 to 4 line-level changes of `base`, sometimes a byte flip and no final newline.
fn mutate_text(rng: &mut Rng, base: &[u8], out: &mut Vec<u8>) {
    let mut lines: Vec<Vec<u8>> = base.split(|&b| b == b'\n').map(|l| l.to_vec()).collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    for _ in 0..1 + rng.below(4) {
        if lines.is_empty() {
            lines.push(Vec::new());
        }
        let at = rng.below(lines.len());
        match rng.below(10) {
            0 => {
                let keep = rng.below(lines[at].len() + 1);
                lines[at].truncate(keep);
            }
            1 => {
                lines.remove(at);
            }
            2 => {
                let copy = lines[at].clone();
                lines.insert(at, copy);
            }
            3 => {
                let other = rng.below(lines.len());
                lines.swap(at, other);
            }
            4 => replace_a_number(rng, &mut lines[at]),
            5 => {
                let unit: &[u8] = [b"A1h".as_slice(), b"9", b"x", b"1 "][rng.below(4)];
                let long: Vec<u8> = unit.iter().copied().cycle().take(1000 + rng.below(70_000)).collect();
                lines.insert(at, long);
            }
            6 => lines[at].push(b'\r'),
            7 => {
                let mut stray = Vec::new();
                random_bytes(rng, &mut stray);
                stray.truncate(1 + rng.below(12));
                lines.insert(at, stray);
            }
            8 => {
                // Cut the input short: the game stops mid-way.
                lines.truncate(at);
            }
            _ => {
                let pos = rng.below(lines[at].len() + 1);
                lines[at].insert(pos, [b' ', b'!', b'-', 0xff, 0][rng.below(5)]);
            }
        }
    }
    for line in &lines {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    if rng.below(8) == 0 {
        out.pop();
    }
    if rng.below(8) == 0 && !out.is_empty() {
        let at = rng.below(out.len());
        out[at] ^= 1 << rng.below(8);
    }
}

fn replace_a_number(rng: &mut Rng, line: &mut Vec<u8>) {
    let digits: Vec<usize> = (0..line.len()).filter(|&i| line[i].is_ascii_digit()).collect();
    let odd = ODD_NUMBERS[rng.below(ODD_NUMBERS.len())].as_bytes();
    if digits.is_empty() {
        line.extend_from_slice(odd);
        return;
    }
    let start = digits[rng.below(digits.len())];
    let end = (start..line.len()).find(|&i| !line[i].is_ascii_digit()).unwrap_or(line.len());
    line.splice(start..end, odd.iter().copied());
}

/// 1 to 4 byte-level changes: flips, cuts, inserted or repeated runs, little-endian fields
/// set to edge values.
fn mutate_bytes(rng: &mut Rng, base: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(base);
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(5) {
            0 if at < out.len() => out[at] ^= 1 << rng.below(8),
            1 => out.truncate(at),
            2 => {
                let run: Vec<u8> = (0..1 + rng.below(16)).map(|_| rng.below(256) as u8).collect();
                out.splice(at..at, run);
            }
            3 if at + 4 <= out.len() => {
                let edge: u32 = [0, 1, 2, 255, 65_535, 1 << 20, u32::MAX][rng.below(7)];
                out[at..at + 4].copy_from_slice(&edge.to_le_bytes());
            }
            _ if !out.is_empty() => {
                let from = rng.below(out.len());
                let len = rng.below(64).min(out.len() - from);
                let run = out[from..from + len].to_vec();
                out.splice(at..at, run);
            }
            _ => {}
        }
    }
}

/// The lines a seat read (`> `) in a judge transcript.
pub fn transcript_input(transcript: &str) -> Vec<u8> {
    transcript.lines().filter_map(|l| l.strip_prefix("> ")).flat_map(|l| l.bytes().chain(std::iter::once(b'\n'))).collect()
}

/// One error line: a message, no line break inside.
fn one_line(message: &str) -> Result<(), String> {
    if message.contains('\n') || message.trim().is_empty() {
        return Err(format!("the error is not one line: {message:?}"));
    }
    Ok(())
}

/// A game's protocol loop as an exported bot runs it, with a random agent.
pub struct ProtocolTarget<G>(std::marker::PhantomData<G>);

impl<G: RefereeRules> ProtocolTarget<G> {
    pub fn new() -> Self {
        ProtocolTarget(std::marker::PhantomData)
    }

    /// Plays `input` through the protocol; the error's text, if any, and what was written.
    pub fn play(input: &[u8]) -> (Result<(), String>, Vec<u8>) {
        let mut out = Vec::new();
        let mut time = TimeManager::new(G::clock(1.0), Safety::new(0.1, 10));
        let mut agent = RandomAgent::new(TRANSCRIPT_AGENT_SEED);
        let result = G::run_protocol(input, &mut out, &mut agent, &mut time, &mut std::io::sink());
        (result.map_err(|e| e.to_string()), out)
    }
}

impl<G: RefereeRules> FuzzTarget for ProtocolTarget<G> {
    fn name(&self) -> String {
        format!("protocol-{}", G::NAME)
    }
    fn seeds(&self) -> Vec<Vec<u8>> {
        G::transcripts().iter().map(|t| transcript_input(t)).collect()
    }
    fn check(&self, input: &[u8]) -> Result<(), String> {
        match Self::play(input).0 {
            Ok(()) => Ok(()),
            Err(message) => one_line(&message),
        }
    }
}

/// The judge's reader of one answer line, in a position given by the input's first byte
/// (that many random plies from the start, seeded by it).
pub struct RefereeTarget<G>(std::marker::PhantomData<G>);

impl<G: RefereeRules> RefereeTarget<G> {
    pub fn new() -> Self {
        RefereeTarget(std::marker::PhantomData)
    }

    fn position(key: u8) -> G {
        let mut rng = Rng::new(key as u64);
        let mut state = G::new_game(&mut rng);
        let mut list = ActionList::new();
        for _ in 0..key % 40 {
            if state.is_terminal() {
                break;
            }
            state.legal_actions(&mut list);
            state.apply(list[rng.below(list.len())]);
        }
        state
    }
}

impl<G: RefereeRules> FuzzTarget for RefereeTarget<G> {
    fn name(&self) -> String {
        format!("referee-{}", G::NAME)
    }
    /// A legal move's text in each of 64 positions.
    fn seeds(&self) -> Vec<Vec<u8>> {
        let mut list = ActionList::new();
        (0..64u8)
            .filter_map(|key| {
                let state = Self::position(key);
                if state.is_terminal() {
                    return None;
                }
                state.legal_actions(&mut list);
                let mut seed = vec![key];
                seed.extend_from_slice(state.answer(list[key as usize % list.len()]).as_bytes());
                Some(seed)
            })
            .collect()
    }
    fn check(&self, input: &[u8]) -> Result<(), String> {
        let Some((&key, line)) = input.split_first() else { return Ok(()) };
        let state = Self::position(key);
        if state.is_terminal() {
            return Ok(());
        }
        // The judge reads lossy lines without their newline.
        let line = String::from_utf8_lossy(line);
        let line = line.split('\n').next().unwrap_or("");
        match state.parse_answer(line).map(|answer| answer.actions).map_err(|m| m.detail().to_string()) {
            Ok(actions) => {
                let mut s = state.clone();
                for a in actions {
                    if s.is_terminal() || !s.is_legal(a) {
                        return Err(format!("accepted an illegal action {a} from {line:?}"));
                    }
                    s.apply(a);
                }
                Ok(())
            }
            Err(message) => one_line(&message),
        }
    }
}

/// The weight reader on binary files and on the text an exported bot embeds, then a forward
/// pass through whatever it accepts.
pub struct WeightsTarget {
    text: bool,
}

impl WeightsTarget {
    pub fn binary() -> Self {
        WeightsTarget { text: false }
    }
    pub fn text() -> Self {
        WeightsTarget { text: true }
    }

    /// A small net (7 inputs, 5 and 3 hidden units, 4 actions) in every storage.
    fn small_nets() -> Vec<Vec<u8>> {
        let mut rng = Rng::new(5);
        let mut layer = |inputs, outputs| {
            let mut d = Dense::zeros(inputs, outputs);
            d.weights.iter_mut().chain(d.bias.iter_mut()).for_each(|w| *w = rng.below(2001) as f32 / 1000.0 - 1.0);
            d
        };
        let net = Mlp { game: "fuzz".into(), hidden: vec![layer(7, 5), layer(5, 3)], policy: layer(3, 4), value: layer(3, VALUE_OUTPUTS) };
        let storages = [Storage::F32, Storage::F16, Storage::Int { bits: 8 }, Storage::Int { bits: 13 }, Storage::Coded { bits: 10 }, Storage::Coded { bits: 16 }];
        storages.iter().map(|&s| to_bytes_as(&net, s).expect("small net stores")).collect()
    }

    fn read(bytes: &[u8]) -> Result<(), String> {
        match Mlp::from_bytes(bytes, "fuzz") {
            Ok(net) => {
                let mut policy = vec![0.0; net.num_actions()];
                let value = QuantNet::new(&net).all_logits(&mut Workspace::default(), 0, &vec![1.0; net.num_features()], &mut policy);
                if value.iter().any(|v| v.is_nan()) {
                    return Err("a NaN value from an accepted net".into());
                }
                Ok(())
            }
            Err(e) => one_line(&e.to_string()),
        }
    }
}

impl FuzzTarget for WeightsTarget {
    fn name(&self) -> String {
        if self.text { "weights-text".into() } else { "weights".into() }
    }
    fn seeds(&self) -> Vec<Vec<u8>> {
        let nets = Self::small_nets();
        if self.text {
            // Both alphabets: what CodeCup and CodinGame bots carry.
            nets.iter().flat_map(|n| [Alphabet::Ascii, Alphabet::Wide].map(|a| bytes_to_text(n, a, 60).into_bytes())).collect()
        } else {
            nets
        }
    }
    fn binary(&self) -> bool {
        !self.text
    }
    /// A valid checksum again, so that the reader goes on past it.
    fn repair(&self, input: &mut Vec<u8>, _rng: &mut Rng) {
        if input.len() >= 12 {
            let body = input.len() - 8;
            let sum = fnv1a64(&input[..body]);
            input[body..].copy_from_slice(&sum.to_le_bytes());
        }
    }
    fn check(&self, input: &[u8]) -> Result<(), String> {
        if !self.text {
            return Self::read(input);
        }
        match text_to_bytes(&String::from_utf8_lossy(input)) {
            Ok(bytes) => Self::read(&bytes),
            Err(e) => one_line(&e.to_string()),
        }
    }
}

/// The game whose shipped opening book seeds [`BookTarget`] (the reader is the same for all).
type BookGame = bots::zuniq::Zuniq; // BookTarget's example: the game that ships a book

/// The opening book reader, then the book played through a random game.
pub struct BookTarget;

impl FuzzTarget for BookTarget {
    fn name(&self) -> String {
        "book".into()
    }
    fn seeds(&self) -> Vec<Vec<u8>> {
        let shipped = include_str!("../../checkpoints/zuniq/opening-book.txt");
        let head: String = shipped.lines().take(24).map(|l| format!("{l}\n")).collect();
        let packed = Book::parse(&head, BookGame::NAME).expect("the shipped book reads").to_packed::<BookGame>();
        vec![head.into_bytes(), bytes_to_text(&packed, Alphabet::Wide, 0).into_bytes(), bytes_to_text(&packed, Alphabet::Ascii, 0).into_bytes()]
    }
    fn check(&self, input: &[u8]) -> Result<(), String> {
        // An exported bot's reader (the packed form as text) where the input reads as such a
        // text, the book file's reader otherwise.
        let text = String::from_utf8_lossy(input);
        let read = match text_to_bytes(&text) {
            Ok(bytes) => Book::from_packed::<BookGame>(&bytes),
            Err(_) => Book::parse(&text, BookGame::NAME),
        };
        let book = match read {
            Ok(book) => book,
            Err(message) => return one_line(&message),
        };
        let mut agent = BookAgent::new(book, Box::new(RandomAgent::new(1)));
        let mut state = BookGame::new_game(&mut Rng::new(0));
        while !state.is_terminal() {
            let a = bots::agent::Agent::choose(&mut agent, &state, None);
            if !state.is_legal(a) {
                return Err(format!("the book played an illegal action {a}"));
            }
            bots::agent::Agent::observe(&mut agent, a);
            state.apply(a);
        }
        Ok(())
    }
}

/// The training-config reader over the shipped configs.
pub struct ConfigTarget;

impl FuzzTarget for ConfigTarget {
    fn name(&self) -> String {
        "config".into()
    }
    fn seeds(&self) -> Vec<Vec<u8>> {
        [
            include_str!("../../checkpoints/blackhole/recipe.toml"),
            include_str!("../../checkpoints/blackhole/train.toml"),
            include_str!("../../checkpoints/zuniq/train.toml"),
            include_str!("../../checkpoints/6561/train.toml"),
            include_str!("../../checkpoints/qttt/train.toml"),
        ]
        .iter()
        .map(|t| t.as_bytes().to_vec())
        .collect()
    }
    fn check(&self, input: &[u8]) -> Result<(), String> {
        let text = String::from_utf8_lossy(input);
        match TrainConfig::from_toml(&text, &TrainConfig::default()) {
            Ok(config) => config.validate(),
            Err(message) => one_line(&message),
        }
    }
}

/// Every target by name: each game's protocol reader (from the judge transcripts it keeps) and
/// the judge's reader of its answers, then the shared readers.
pub fn targets() -> Vec<Box<dyn FuzzTarget>> {
    let mut all: Vec<Box<dyn FuzzTarget>> = Vec::new();
    for game in bots::GAMES {
        bots::with_game!(game.name, G => {
            if !G::transcripts().is_empty() {
                all.push(Box::new(ProtocolTarget::<G>::new()));
            }
            all.push(Box::new(RefereeTarget::<G>::new()));
        })
        .expect("a registered game");
    }
    all.extend([Box::new(WeightsTarget::binary()) as Box<dyn FuzzTarget>, Box::new(WeightsTarget::text()), Box::new(BookTarget), Box::new(ConfigTarget)]);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The transcripts replay: the random agent with the transcripts' seed plays the game the
    /// judge recorded, to its end, without an error.
    #[test]
    fn the_protocol_seeds_replay_whole_games() {
        fn replay<G: RefereeRules>() {
            for transcript in G::transcripts() {
                let (result, out) = ProtocolTarget::<G>::play(&transcript_input(transcript));
                assert_eq!(result, Ok(()), "{}", G::NAME);
                let answers: Vec<&str> = transcript.lines().filter_map(|l| l.strip_prefix("< ")).collect();
                let written = String::from_utf8(out).unwrap();
                assert_eq!(written.lines().collect::<Vec<_>>(), answers, "{}: the recorded answers", G::NAME);
            }
        }
        for game in bots::GAMES {
            bots::with_game!(game.name, G => replay::<G>()).expect("a registered game");
        }
    }

    /// The test-sized run: 100,000 inputs a target, fixed seed, no failure.
    #[test]
    fn every_reader_survives_100k_mutated_inputs() {
        for target in targets() {
            let report = fuzz(&*target, 100_000, 2026);
            assert_eq!(report.failures, 0, "{}: {:#?}", target.name(), report.examples);
        }
    }

    /// The harness itself finds a planted bug.
    #[test]
    fn a_reader_that_panics_on_a_long_line_is_caught() {
        struct Fragile;
        impl FuzzTarget for Fragile {
            fn name(&self) -> String {
                "fragile".into()
            }
            fn seeds(&self) -> Vec<Vec<u8>> {
                vec![b"Start\nA1h\nQuit\n".to_vec()]
            }
            fn check(&self, input: &[u8]) -> Result<(), String> {
                assert!(input.split(|&b| b == b'\n').all(|l| l.len() < 1000), "long line");
                Ok(())
            }
        }
        let report = fuzz(&Fragile, 2_000, 1);
        assert!(report.failures > 0 && report.examples[0].starts_with("panic: long line"), "{report:?}");
    }
}
