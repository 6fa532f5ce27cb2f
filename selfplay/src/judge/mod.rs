//! The judge: plays external programs against each other through a game's real protocol, as
//! the contest's referee would (exact inputs, time limits, faults scored as losses), over many
//! games in parallel with seats swapped, and reports W/D/L, points and Elo.

pub mod process;
pub mod referee;

use crate::sprt::{Decision, PairedScores, Sprt};
use bots::game::Action;
use crate::stats::MatchStats;
use process::{Fault, FaultKind, PlayerCommand, PlayerProcess};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One game's rules and protocol, referee side.
pub trait Referee: Sync {
    /// Plays one game; `players[s]` sits in seat `s` (seat 0 moves first). `seed` fixes any
    /// random setup and the `opening` random actions the game starts with (where the game's
    /// referee allows it, `RefereeRules::ANY_START`), `time_scale` multiplies every time limit.
    /// `fixed` are actions played before the random ones (from [`Referee::parse_opening`]).
    fn play(&self, players: &mut [PlayerProcess; 2], seed: u64, fixed: &[Action], opening: usize, time_scale: f64) -> RefereeResult;

    /// Actions in the game's notation as the actions of an opening, or why they cannot open a
    /// game (one unreadable or illegal, or the game over after them).
    fn parse_opening(&self, texts: &[String]) -> Result<Vec<Action>, String>;

    /// Whether a game may start from a random opening (see `play`).
    fn any_start(&self) -> bool;

    /// Whether the contest's judge suspends a program while it is not its turn (CodeCup's
    /// does; CodinGame's times each turn from its input and needs no suspension).
    fn suspends_programs(&self) -> bool;

    /// The game's name (`Game::NAME`), for the records.
    fn game(&self) -> &'static str;
}

/// What the referee reports about a finished game, by seat.
#[derive(Clone, Debug)]
pub struct RefereeResult {
    pub actions: Vec<String>,
    pub scores: [f32; 2],
    /// How the game ended, in words.
    pub end: String,
    /// The seat that lost by a fault, and why.
    pub fault: Option<(usize, Fault)>,
}

#[derive(Clone, Debug)]
pub struct JudgeConfig {
    /// Player A then player B; they swap seats every game.
    pub players: [PlayerCommand; 2],
    pub games: usize,
    pub parallel: usize,
    pub time_scale: f64,
    pub seed: u64,
    /// JSONL file with one record per game.
    pub records: Option<PathBuf>,
    /// Directory for one transcript per game and seat.
    pub transcripts: Option<PathBuf>,
    /// Stop each program while it is not its turn, where the referee's contest does (see
    /// `Referee::suspends_programs`); `false` lets both run all game long.
    pub suspend: bool,
    /// Stop as soon as the sequential test decides (with `paired_seeds`).
    pub sprt: Option<Sprt>,
    /// Games `2k` and `2k + 1` share a seed: the same opening, seats swapped.
    pub paired_seeds: bool,
    /// Actions every game starts with (where the referee allows it, `Referee::any_start`),
    /// before the random ones: the games of one opening, e.g. where a seat loses.
    pub opening: Vec<Action>,
    /// Random actions each game starts with, drawn from its seed (0: the game's own start).
    pub opening_plies: usize,
    /// The number of the first game: game `g` uses seat `g % 2` for A and, with paired seeds,
    /// seed `seed + g / 2` (a league resumes a pairing in the middle this way).
    pub game_offset: usize,
}

/// Where a sequential test stands.
#[derive(Clone, Debug, Serialize)]
pub struct SprtStatus {
    pub test: Sprt,
    pub llr: f64,
    /// Complete pairs when it decided (or so far).
    pub pairs: usize,
    pub decision: Option<Decision>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SeatFault {
    /// `A` or `B`.
    pub player: String,
    pub seat: usize,
    #[serde(flatten)]
    pub fault: Fault,
}

/// One line of the records file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's name (records before it was kept have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_name: Option<String>,
    /// The labels of player A and B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<[String; 2]>,
    pub game: usize,
    pub seed: u64,
    /// Who sat in seat 0 and seat 1: `A` or `B`.
    pub seats: [String; 2],
    pub actions: Vec<String>,
    /// Points by seat.
    pub scores: [f32; 2],
    /// Points of A and B.
    pub points: [f32; 2],
    pub end: String,
    pub fault: Option<SeatFault>,
    /// Per seat: first answer, slowest later answer, and all answers together, in ms.
    pub first_answer_ms: [u64; 2],
    pub slowest_later_ms: [u64; 2],
    pub total_answer_ms: [u64; 2],
    /// Per seat, every answer after the first, in microseconds.
    pub later_answers_us: [Vec<u32>; 2],
    /// Per seat, the program's peak resident memory at its last answer, in KiB (0: unknown;
    /// records of judges before it have none).
    #[serde(default)]
    pub peak_memory_kib: [u64; 2],
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct JudgeSummary {
    pub games: usize,
    /// Player A's results (B's are the mirror image).
    pub stats: MatchStats,
    /// A's results when A sat in seat 0, and in seat 1.
    pub by_seat: [MatchStats; 2],
    pub total_points: [f64; 2],
    /// Faults of A and B: timeouts, crashes, illegal moves, garbled output.
    pub faults: [[u32; 4]; 2],
    /// Of A and B over all games: slowest first answer, slowest later answer, most time used
    /// in one game (ms).
    pub slowest_first_ms: [u64; 2],
    pub slowest_later_ms: [u64; 2],
    pub most_game_time_ms: [u64; 2],
    /// Of A and B: all answers of all games together (ms), for the mean thinking time a game.
    pub all_games_time_ms: [u64; 2],
    /// Of A and B: the highest peak resident memory of any game, in KiB (0: unknown).
    pub peak_memory_kib: [u64; 2],
    /// Of A and B: every answer after a game's first (µs), for percentiles.
    #[serde(skip)]
    pub later_answers_us: [Vec<u32>; 2],
    /// Points of A and B in every game, in completion order.
    pub points: Vec<[f32; 2]>,
    /// A's points in the games A played in seat 0, and in seat 1.
    pub points_by_seat: [Vec<f32>; 2],
    pub sprt: Option<SprtStatus>,
}

/// The first player's score from both players' points: 1 for more, 1/2 for as many, 0 for fewer.
pub fn score_from_points([a, b]: [f32; 2]) -> f64 {
    if a > b { 1.0 } else if a < b { 0.0 } else { 0.5 }
}

impl GameRecord {
    /// A's score.
    pub fn a_score(&self) -> f64 {
        score_from_points(self.points)
    }
}

/// Mean, median, min and max of a list of scores.
pub fn score_spread(values: &[f32]) -> (f64, f64, f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0, 0.0, 0.0);
    }
    let mut v: Vec<f64> = values.iter().map(|&x| x as f64).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
    (v.iter().sum::<f64>() / n as f64, median, v[0], v[n - 1])
}

/// The mean and the half-width of its normal-approximation 95% interval.
pub fn mean_with_half_interval(values: &[f64]) -> (f64, f64) {
    let n = values.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return (mean, f64::INFINITY);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    (mean, 1.96 * (var / n as f64).sqrt())
}

impl JudgeSummary {
    /// Whether every game so far gave both players the same points (a cooperative game).
    pub fn shared_scores(&self) -> bool {
        !self.points.is_empty() && self.points.iter().all(|p| p[0] == p[1])
    }

    fn add(&mut self, record: &GameRecord, a_seat: usize) {
        self.games += 1;
        let [a, b] = record.points;
        let score = record.a_score();
        self.stats.add(score);
        self.by_seat[a_seat].add(score);
        self.total_points[0] += a as f64;
        self.total_points[1] += b as f64;
        self.points.push([a, b]);
        self.points_by_seat[a_seat].push(a);
        if let Some(f) = &record.fault {
            let who = if f.player == "A" { 0 } else { 1 };
            let kind = match f.fault.kind {
                FaultKind::Timeout => 0,
                FaultKind::Crash => 1,
                FaultKind::Illegal => 2,
                FaultKind::Garbled => 3,
            };
            self.faults[who][kind] += 1;
        }
        for seat in 0..2 {
            let who = if seat == a_seat { 0 } else { 1 };
            self.slowest_first_ms[who] = self.slowest_first_ms[who].max(record.first_answer_ms[seat]);
            self.slowest_later_ms[who] = self.slowest_later_ms[who].max(record.slowest_later_ms[seat]);
            self.most_game_time_ms[who] = self.most_game_time_ms[who].max(record.total_answer_ms[seat]);
            self.all_games_time_ms[who] += record.total_answer_ms[seat];
            self.peak_memory_kib[who] = self.peak_memory_kib[who].max(record.peak_memory_kib[seat]);
            self.later_answers_us[who].extend_from_slice(&record.later_answers_us[seat]);
        }
    }

    pub fn mean_points(&self) -> [f64; 2] {
        let n = self.games.max(1) as f64;
        [self.total_points[0] / n, self.total_points[1] / n]
    }

    /// The `q`-quantile (0..=1) of a player's answers after the first, in ms.
    pub fn later_answer_quantile_ms(&self, player: usize, q: f64) -> f64 {
        let mut sorted = self.later_answers_us[player].clone();
        if sorted.is_empty() {
            return 0.0;
        }
        sorted.sort_unstable();
        let at = ((sorted.len() - 1) as f64 * q).round() as usize;
        sorted[at] as f64 / 1000.0
    }

    pub fn fault_count(&self, player: usize) -> u32 {
        self.faults[player].iter().sum()
    }

    /// The human-readable report.
    pub fn report(&self, labels: [&str; 2]) -> String {
        let faults = |p: usize| {
            let f = self.faults[p];
            format!("{} timeouts, {} crashes, {} illegal, {} garbled", f[0], f[1], f[2], f[3])
        };
        let mean = self.mean_points();
        let result_line = if self.shared_scores() {
            let shared: Vec<f32> = self.points.iter().map(|p| p[0]).collect();
            let (m, med, lo, hi) = score_spread(&shared);
            let (_, half) = mean_with_half_interval(&shared.iter().map(|&v| v as f64).collect::<Vec<_>>());
            format!("shared score (cooperative): mean {m:.1} (95% CI {:.1}..{:.1}), median {med:.1}, min {lo}, max {hi}", m - half, m + half)
        } else {
            format!("A: {}", self.stats.describe())
        };
        let margin = if self.shared_scores() {
            String::new()
        } else {
            let (m, half) = mean_with_half_interval(&self.points.iter().map(|p| (p[0] - p[1]) as f64).collect::<Vec<_>>());
            format!(", margin A-B {m:+.2} (95% CI {:+.2}..{:+.2})", m - half, m + half)
        };
        // Who won means nothing where the score is shared: a seat's line is its mean shared score.
        let seat_line = |seat: usize| {
            if self.shared_scores() {
                let (m, med, lo, hi) = score_spread(&self.points_by_seat[seat]);
                format!("mean shared score {m:.1}, median {med:.1}, min {lo}, max {hi} over {} games", self.points_by_seat[seat].len())
            } else {
                self.by_seat[seat].describe()
            }
        };
        format!(
            "games: {}\nA = {}\nB = {}\n{}\nA as seat 0: {}\nA as seat 1: {}\nmean points: A {:.2}, B {:.2}{margin}\nfaults: A {}; B {}\nslowest first answer: A {} ms, B {} ms\nslowest later answer: A {} ms, B {} ms\nlater answers, 99th percentile: A {:.1} ms, B {:.1} ms\nthinking a game: A {} ms, B {} ms on average; A {} ms, B {} ms at most",
            self.games,
            labels[0],
            labels[1],
            result_line,
            seat_line(0),
            seat_line(1),
            mean[0],
            mean[1],
            faults(0),
            faults(1),
            self.slowest_first_ms[0],
            self.slowest_first_ms[1],
            self.slowest_later_ms[0],
            self.slowest_later_ms[1],
            self.later_answer_quantile_ms(0, 0.99),
            self.later_answer_quantile_ms(1, 0.99),
            self.all_games_time_ms[0] / self.games.max(1) as u64,
            self.all_games_time_ms[1] / self.games.max(1) as u64,
            self.most_game_time_ms[0],
            self.most_game_time_ms[1],
        ) + &if self.peak_memory_kib == [0, 0] {
            String::new()
        } else {
            let mb = |kib: u64| if kib == 0 { "?".to_string() } else { format!("{:.1} MB", kib as f64 / 1024.0) };
            format!("\npeak memory (resident, the most of any game): A {}, B {}", mb(self.peak_memory_kib[0]), mb(self.peak_memory_kib[1]))
        } + &self.sprt.as_ref().map_or(String::new(), |t| format!("\n{}", t.test.status_line("", "A", t.pairs, t.llr, t.decision)))
    }
}

/// Where a judge writes its records as it plays (`FILE.tmp`, renamed to `FILE` at the end, left
/// there by a judge stopped early); the judge's lock on `FILE` keeps it one judge's.
pub use bots::tools::temp_path;
use crate::files::write_atomically;

/// Reads judge records files, every line a game (blank lines skipped). A last line cut short (a
/// judge killed while writing) is left out with a warning; any other line that is not a record
/// is an error naming the file and line.
pub fn read_records(paths: &[PathBuf]) -> Result<(Vec<GameRecord>, Vec<String>), String> {
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let lines: Vec<&str> = text.split_terminator('\n').collect();
        for (i, line) in lines.iter().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            match serde_json::from_str(line) {
                Ok(record) => records.push(record),
                Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => {
                    warnings.push(format!("{}: left out its last line, which was cut short", path.display()));
                }
                Err(e) => return Err(format!("{} line {}: not a game record: {e}", path.display(), i + 1)),
            }
        }
    }
    if records.is_empty() {
        return Err("the records files hold no game".to_string());
    }
    Ok((records, warnings))
}

/// The seat player A sat in.
pub fn a_seat_of(record: &GameRecord) -> Result<usize, String> {
    record.seats.iter().position(|s| s == "A").ok_or_else(|| format!("game {} (seed {}): no seat holds player A", record.game, record.seed))
}

/// The summary of finished games, as if one judge had played them all: several matches of one
/// pairing (on other seeds or machines, [`read_records`] of their files) report as one.
pub fn summarize(records: &[GameRecord]) -> Result<JudgeSummary, String> {
    let mut summary = JudgeSummary::default();
    for record in records {
        summary.add(record, a_seat_of(record)?);
    }
    Ok(summary)
}

/// A's results over the games that began with one line of play, A in one seat.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningLine {
    pub a_seat: usize,
    /// The first actions, in the game's notation, space-separated (the whole game where it was
    /// shorter).
    pub line: String,
    pub stats: MatchStats,
}

/// A's results by the first `plies` actions of each game and A's seat: where a match is won and
/// lost. Each seat's lines come most played first, then by A's score, lowest first (the lines
/// to look at), then by the line.
pub fn results_by_opening(records: &[GameRecord], plies: usize) -> Result<Vec<OpeningLine>, String> {
    let mut by_line: std::collections::HashMap<(usize, String), MatchStats> = std::collections::HashMap::new();
    for record in records {
        let line = record.actions.iter().take(plies).map(String::as_str).collect::<Vec<_>>().join(" ");
        by_line.entry((a_seat_of(record)?, line)).or_default().add(record.a_score());
    }
    let mut lines: Vec<OpeningLine> = by_line.into_iter().map(|((a_seat, line), stats)| OpeningLine { a_seat, line, stats }).collect();
    lines.sort_by(|x, y| {
        (x.a_seat, std::cmp::Reverse(x.stats.games()))
            .cmp(&(y.a_seat, std::cmp::Reverse(y.stats.games())))
            .then(x.stats.score().total_cmp(&y.stats.score()))
            .then_with(|| x.line.cmp(&y.line))
    });
    Ok(lines)
}

/// [`results_by_opening`] as text: at most `shown` lines a seat, then what the others add up to.
pub fn opening_report(lines: &[OpeningLine], plies: usize, shown: usize) -> String {
    let mut text = format!("A by the first {plies} plies (W-D-L for A, most played first):");
    for seat in 0..2 {
        let of_seat: Vec<&OpeningLine> = lines.iter().filter(|l| l.a_seat == seat).collect();
        if of_seat.is_empty() {
            continue;
        }
        let width = of_seat.iter().take(shown).map(|l| l.line.len()).max().unwrap_or(0).max(7);
        text += &format!("\nA as seat {seat}, {} lines:", of_seat.len());
        for l in of_seat.iter().take(shown) {
            let s = l.stats;
            let line = if l.line.is_empty() { "(start)" } else { &l.line };
            text += &format!("\n  {line:<width$}  {:>4} games  {}-{}-{}  {:5.1}%", s.games(), s.wins, s.draws, s.losses, 100.0 * s.score());
        }
        let rest = &of_seat[shown.min(of_seat.len())..];
        if !rest.is_empty() {
            let mut total = MatchStats::default();
            for l in rest {
                total.wins += l.stats.wins;
                total.draws += l.stats.draws;
                total.losses += l.stats.losses;
            }
            text += &format!("\n  the other {}: {} games, {}-{}-{}, {:.1}%", rest.len(), total.games(), total.wins, total.draws, total.losses, 100.0 * total.score());
        }
    }
    text
}

#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error("{0}")]
    Spawn(String),
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// A played match: its summary, and why its records could not be written, if they could not
/// (the match is played out all the same, and its report stands).
#[derive(Debug)]
pub struct Judged {
    pub summary: JudgeSummary,
    pub records_error: Option<JudgeError>,
}

/// Plays the match. `on_game` sees every finished game (in completion order) and the running
/// summary, for progress display. Records that cannot be opened stop it before any game; a
/// write that fails later stops the records, not the match.
pub fn run_judge(
    referee: &dyn Referee,
    config: &JudgeConfig,
    on_game: &mut dyn FnMut(&GameRecord, &JudgeSummary),
) -> Result<Judged, JudgeError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| JudgeError::Io { path, source }
    };
    if let Some(dir) = &config.transcripts {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    }
    let mut records_file = match &config.records {
        Some(path) => Some(std::io::BufWriter::new(std::fs::File::create(temp_path(path)).map_err(io_err(path))?)),
        None => None,
    };
    let mut summary = JudgeSummary::default();
    let mut failure = None;
    let mut records_error = None;
    let mut paired = PairedScores::default();
    summary.sprt = config.sprt.map(|test| SprtStatus { test, llr: 0.0, pairs: 0, decision: None });
    crate::parallel::run_games(
        config.games,
        config.parallel,
        |game| play_one(referee, config, config.game_offset + game),
        |result| {
            match result {
                Ok((record, a_seat)) => {
                    summary.add(&record, a_seat);
                    if let Some(status) = summary.sprt.as_mut().filter(|t| t.decision.is_none()) {
                        paired.add(record.game, record.a_score());
                        status.llr = status.test.llr(&paired.pairs);
                        status.pairs = paired.pairs.len();
                        status.decision = status.test.decide(&paired.pairs);
                    }
                    if let (Some(file), Some(path)) = (&mut records_file, &config.records) {
                        let line = serde_json::to_string(&record).expect("records serialise");
                        // Flushed game by game: a judge that is killed leaves whole games in
                        // its temporary file, which `read_records` still reads.
                        if let Err(e) = writeln!(file, "{line}").and_then(|_| file.flush()) {
                            records_error = Some(records_failure(path, e));
                            records_file = None;
                        }
                    }
                    on_game(&record, &summary);
                }
                Err(e) => {
                    failure.get_or_insert(e);
                }
            }
            failure.is_some() || summary.sprt.as_ref().is_some_and(|t| t.decision.is_some())
        },
    );
    if let Some(e) = failure {
        return Err(e);
    }
    if let (Some(file), Some(path)) = (records_file, &config.records) {
        let closed = file.into_inner().map_err(|e| e.into_error()).and_then(|file| file.sync_all()).and_then(|_| std::fs::rename(temp_path(path), path));
        if let Err(e) = closed {
            records_error = Some(records_failure(path, e));
        }
    }
    Ok(Judged { summary, records_error })
}

/// A records write that failed, naming the temporary file where the games written before it
/// stay, if it is still there.
fn records_failure(path: &Path, e: std::io::Error) -> JudgeError {
    let kept = temp_path(path);
    let source = match kept.exists() {
        true => std::io::Error::new(e.kind(), format!("{e} (the games written before stay in {})", kept.display())),
        false => e,
    };
    JudgeError::Io { path: path.to_path_buf(), source }
}

fn play_one(referee: &dyn Referee, config: &JudgeConfig, game: usize) -> Result<(GameRecord, usize), JudgeError> {
    // A sits in seat 0 in even games and seat 1 in odd games.
    let a_seat = game % 2;
    let seat_of = |seat: usize| if seat == a_seat { 0 } else { 1 };
    let record_transcript = config.transcripts.is_some();
    let suspend = config.suspend && referee.suspends_programs();
    let spawn = |seat: usize| PlayerProcess::spawn(&config.players[seat_of(seat)], record_transcript, suspend).map_err(JudgeError::Spawn);
    let mut players = [spawn(0)?, spawn(1)?];
    let seed = config.seed.wrapping_add(if config.paired_seeds { game as u64 / 2 } else { game as u64 });
    let result = referee.play(&mut players, seed, &config.opening, config.opening_plies, config.time_scale);
    let names = |seat: usize| if seat_of(seat) == 0 { "A".to_string() } else { "B".to_string() };
    let record = GameRecord {
        game_name: Some(referee.game().to_string()),
        players: Some([config.players[0].label.clone(), config.players[1].label.clone()]),
        game,
        seed,
        seats: [names(0), names(1)],
        actions: result.actions,
        scores: result.scores,
        points: [result.scores[a_seat], result.scores[1 - a_seat]],
        end: result.end,
        fault: result.fault.map(|(seat, fault)| SeatFault { player: names(seat), seat, fault }),
        first_answer_ms: players.each_ref().map(|p| p.timing.first.as_millis() as u64),
        slowest_later_ms: players.each_ref().map(|p| p.timing.slowest_later.as_millis() as u64),
        total_answer_ms: players.each_ref().map(|p| p.timing.total.as_millis() as u64),
        later_answers_us: players.each_ref().map(|p| p.timing.later_us.clone()),
        peak_memory_kib: players.each_ref().map(|p| p.timing.peak_kib),
    };
    if let Some(dir) = &config.transcripts {
        for (seat, player) in players.iter_mut().enumerate() {
            let path = dir.join(format!("game{game:04}-seat{seat}.txt"));
            let mut text = player.take_transcript().join("\n");
            text.push('\n');
            write_atomically(&path, text.as_bytes()).map_err(|source| JudgeError::Io { path, source })?;
        }
    }
    Ok((record, a_seat))
}

/// Scales a limit given in milliseconds.
pub fn scaled(ms: u64, time_scale: f64) -> Duration {
    Duration::from_secs_f64(ms as f64 / 1000.0 * time_scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(game: usize, a_seat: usize, points: [f32; 2], fault: Option<FaultKind>) -> GameRecord {
        let mut seats = ["A".to_string(), "B".to_string()];
        if a_seat == 1 {
            seats.swap(0, 1);
        }
        let fault = fault.map(|kind| SeatFault { player: "B".into(), seat: 1 - a_seat, fault: process::Fault { kind, detail: "late".into() } });
        GameRecord {
            game_name: None,
            players: None,
            game,
            seed: game as u64,
            seats,
            actions: vec!["a1".into()],
            scores: if a_seat == 0 { points } else { [points[1], points[0]] },
            points,
            end: "over".into(),
            fault,
            first_answer_ms: [10 + game as u64, 20],
            slowest_later_ms: [30, 40],
            total_answer_ms: [1000, 2000],
            later_answers_us: [vec![1000 * (game as u32 + 1)], vec![5000]],
            peak_memory_kib: [2048 * (game as u64 + 1), 0],
        }
    }

    /// Two files of one pairing report as the judge that played all their games would, a
    /// killed judge's torn last line is left out with a warning, and any other bad line is an
    /// error that names its place.
    fn summarize_records(paths: &[PathBuf]) -> Result<(JudgeSummary, Vec<String>), String> {
        let (records, warnings) = read_records(paths)?;
        Ok((summarize(&records)?, warnings))
    }

    #[test]
    fn records_files_summarize_as_one_match() {
        let dir = std::env::temp_dir().join(format!("cupzero-summarize-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let records = [record(0, 0, [1.0, 0.0], None), record(1, 1, [0.0, 1.0], Some(FaultKind::Timeout)), record(2, 0, [0.5, 0.5], None)];
        let mut played = JudgeSummary::default();
        for r in &records {
            played.add(r, r.game % 2);
        }
        let line = |r: &GameRecord| serde_json::to_string(r).unwrap() + "\n";
        let first = dir.join("first.jsonl");
        let second = dir.join("second.jsonl.tmp");
        std::fs::write(&first, line(&records[0]) + &line(&records[1])).unwrap();
        let torn = line(&records[0]);
        std::fs::write(&second, line(&records[2]) + &torn[..torn.len() / 2]).unwrap();
        let (summary, warnings) = summarize_records(&[first.clone(), second.clone()]).unwrap();
        assert_eq!(summary.report(["a", "b"]), played.report(["a", "b"]));
        assert_eq!((summary.games, summary.faults[1][0], summary.by_seat[1].losses), (3, 1, 1));
        assert!(summary.report(["a", "b"]).contains("peak memory (resident, the most of any game): A 6.0 MB, B 4.0 MB"), "{}", summary.report(["a", "b"]));
        // A record of a judge before memory was measured reads as unknown.
        let old = line(&records[0]).replace(",\"peak_memory_kib\":[2048,0]", "");
        assert!(!old.contains("peak_memory"));
        assert_eq!(serde_json::from_str::<GameRecord>(&old).unwrap().peak_memory_kib, [0, 0]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        std::fs::write(&second, line(&records[2]) + "{\"game\": 3}\n" + &line(&records[0])).unwrap();
        let error = summarize_records(&[first, second]).unwrap_err();
        assert!(error.contains("second.jsonl.tmp line 2"), "{error}");
        std::fs::write(dir.join("empty.jsonl"), "").unwrap();
        assert!(summarize_records(&[dir.join("empty.jsonl")]).unwrap_err().contains("no game"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Games group by A's seat and their first plies; each seat's most played line comes first,
    /// a shorter game is its whole line, and lines past those shown are added up.
    #[test]
    fn results_group_by_opening_line_and_seat() {
        let game = |a_seat: usize, actions: &str, points: [f32; 2]| {
            let mut r = record(0, a_seat, points, None);
            r.actions = actions.split_whitespace().map(String::from).collect();
            r
        };
        let records = [
            game(1, "44 35 08 27 73", [0.0, 1.0]),
            game(1, "44 35 08 27 40", [0.5, 0.5]),
            game(1, "44 35 08 27", [0.0, 1.0]),
            game(1, "44 35 00 01", [1.0, 0.0]),
            game(0, "35 08 27 73", [1.0, 0.0]),
            game(0, "35", [1.0, 0.0]),
        ];
        let lines = results_by_opening(&records, 4).unwrap();
        let summary: Vec<(usize, &str, [u32; 3])> = lines.iter().map(|l| (l.a_seat, l.line.as_str(), [l.stats.wins, l.stats.draws, l.stats.losses])).collect();
        assert_eq!(summary, vec![(0, "35", [1, 0, 0]), (0, "35 08 27 73", [1, 0, 0]), (1, "44 35 08 27", [0, 1, 2]), (1, "44 35 00 01", [1, 0, 0])]);
        let text = opening_report(&lines, 4, 1);
        assert!(text.contains("A as seat 1, 2 lines:\n  44 35 08 27     3 games  0-1-2   16.7%\n  the other 1: 1 games, 1-0-0, 100.0%"), "{text}");
        assert!(text.contains("A as seat 0, 2 lines:\n  35          1 games  1-0-0  100.0%"), "{text}");
        let mut no_a = record(0, 0, [1.0, 0.0], None);
        no_a.seats = ["B".into(), "B".into()];
        assert!(results_by_opening(&[no_a], 2).unwrap_err().contains("no seat holds player A"));
    }

    #[test]
    fn margin_interval_is_the_normal_approximation() {
        let (mean, half) = mean_with_half_interval(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(mean, 2.5);
        // Sample standard deviation sqrt(5/3); 1.96 * sd / sqrt(4).
        assert!((half - 1.96 * (5.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
        assert_eq!(mean_with_half_interval(&[7.0, 7.0]), (7.0, 0.0));
    }
}
