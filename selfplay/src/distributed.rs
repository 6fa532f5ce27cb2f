//! Self-play on many machines through Redis: workers push batches of games to a stream, the
//! trainer reads them through a consumer group and publishes each new net.
//!
//! Keys of the run NAME, all under `cupzero:NAME:`:
//!
//! ```text
//! meta     hash    game, protocol, cupzero (version), config (the run's settings, TOML)
//! net      hash    version (the iteration whose weights these are), weights (.czw, f32),
//!                  published_ms (Unix time)
//! league   hash    iteration -> .czw (f16): the run's earlier nets, for league games
//! games    stream  one entry a batch: worker, batch (its number), net (version played),
//!                  games (count), data (zstd of the games as JSON lines)
//! ```
//!
//! Exactly once: the trainer acknowledges a batch only after the iteration holding its games is
//! saved (games file, then `state.json`). A trainer killed before that gets the batch again
//! from the group's pending list. Each worker numbers its batches and pushes batch n+1 only once
//! batch n is in; the trainer keeps each worker's highest number taken in `state.json`, so a
//! batch pushed twice (a retry whose first reply was lost) or delivered again after the
//! iteration that took it was saved counts once.

use crate::config::TrainConfig;
use bots::training::Training;
pub use crate::records::BatchSource;
use crate::records::GameRecord;
use crate::worker::{generate, LeagueNet, SelfPlayStats};
use bots::nn::Mlp;
use redis::streams::StreamReadReply;
use redis::{Connection, RedisError, RedisResult};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Raised when the layout of the keys or of a batch changes: a worker and a trainer of
/// different protocols refuse each other.
pub const PROTOCOL: u32 = 1;
const GROUP: &str = "trainer";
const CONSUMER: &str = "trainer";
/// Batches the stream keeps at most, read or not: Redis memory stays bounded while no trainer
/// reads (the oldest unread batches go first).
pub const STREAM_CAP: usize = 2_000;
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// The trainer waits for Redis as long as it takes (killing it loses nothing acknowledged).
static NEVER: AtomicBool = AtomicBool::new(false);

#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// Nothing to retry: a wrong password, a run of another game, a bad URL.
    #[error("{0}")]
    Fatal(String),
    /// Ctrl-C while waiting for Redis.
    #[error("stopped")]
    Stopped,
}

/// A batch of a worker's games, as read from the stream.
pub struct Batch {
    pub source: BatchSource,
    pub records: Vec<GameRecord>,
    /// Its compressed size in the stream.
    pub bytes: usize,
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The URL without its password, for messages.
fn shown(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => format!("{}{}", &url[..scheme + 3], &url[at + 1..]),
        _ => url.to_string(),
    }
}

/// Errors worth waiting out: Redis down or restarting, the network gone.
fn passing(e: &RedisError) -> bool {
    let text = e.to_string();
    e.is_io_error() || e.is_connection_refusal() || e.is_connection_dropped() || e.is_timeout() || text.contains("LOADING") || text.contains("broken pipe")
}

/// One connection to a run's keys that reconnects with backoff and counts its reconnections,
/// so that callers can set the run up again on a Redis that lost its data.
pub struct Link {
    client: redis::Client,
    con: Option<Connection>,
    url: String,
    prefix: String,
    /// Incremented by every new connection.
    generation: u64,
    down_since: Option<Instant>,
}

impl Link {
    pub fn open(url: &str, run: &str) -> Result<Link, RemoteError> {
        if run.is_empty() || run.contains(char::is_whitespace) {
            return Err(RemoteError::Fatal(format!("--run {run:?}: a run name is one word")));
        }
        let client = redis::Client::open(url).map_err(|e| RemoteError::Fatal(format!("{}: {e}", shown(url))))?;
        Ok(Link { client, con: None, url: shown(url), prefix: format!("cupzero:{run}:"), generation: 0, down_since: None })
    }

    pub fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    pub fn run(&self) -> &str {
        self.prefix.trim_start_matches("cupzero:").trim_end_matches(':')
    }

    fn connection(&mut self) -> RedisResult<&mut Connection> {
        if self.con.is_none() {
            let con = self.client.get_connection_with_timeout(Duration::from_secs(5))?;
            // A dropped network must not hang a read forever.
            con.set_read_timeout(Some(Duration::from_secs(5)))?;
            con.set_write_timeout(Some(Duration::from_secs(5)))?;
            self.con = Some(con);
            self.generation += 1;
        }
        Ok(self.con.as_mut().expect("connected"))
    }

    /// Runs `f` until it succeeds, reconnecting with backoff while Redis is unreachable; an
    /// error that waiting cannot cure (a wrong password, say) is returned as one line. `stop`
    /// ends the waiting (not a first try).
    pub fn call<T>(&mut self, stop: &AtomicBool, mut f: impl FnMut(&mut Connection) -> RedisResult<T>) -> Result<T, RemoteError> {
        let mut delay = Duration::from_millis(100);
        loop {
            let result = self.connection().and_then(&mut f);
            match result {
                Ok(value) => {
                    if let Some(since) = self.down_since.take() {
                        eprintln!("redis {}: back after {:.1} s", self.url, since.elapsed().as_secs_f64());
                    }
                    return Ok(value);
                }
                Err(e) if passing(&e) => {
                    self.con = None;
                    // The first failure, then one line every 30 s while it lasts.
                    let said = self.down_since.map(|since| since.elapsed() >= Duration::from_secs(30));
                    if said != Some(false) {
                        eprintln!("redis {}: {}; retrying", self.url, one_line(&e));
                        self.down_since = Some(Instant::now());
                    }
                    let until = Instant::now() + delay;
                    while Instant::now() < until {
                        if stop.load(Ordering::Relaxed) {
                            return Err(RemoteError::Stopped);
                        }
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    delay = (delay * 2).min(MAX_BACKOFF);
                }
                Err(e) => return Err(RemoteError::Fatal(describe(&self.url, &e))),
            }
        }
    }
}

fn one_line(e: &RedisError) -> String {
    e.to_string().lines().next().unwrap_or_default().trim().to_string()
}

fn describe(url: &str, e: &RedisError) -> String {
    let text = one_line(e);
    if text.contains("WRONGPASS") || text.contains("NOAUTH") || text.contains("AUTH") || text.contains("uthentication") {
        format!("redis {url}: authentication failed ({text}); give the password in the URL: redis://:PASSWORD@host:port/db")
    } else {
        format!("redis {url}: {text}")
    }
}

/// What a run's `meta` hash holds, checked by both sides.
fn check_meta(meta: &BTreeMap<String, String>, run: &str, game: &str) -> Result<(), RemoteError> {
    if let Some(other) = meta.get("game").filter(|g| g.as_str() != game) {
        return Err(RemoteError::Fatal(format!("run {run} on redis is a {other} run, not {game}: use another --run")));
    }
    let protocol = meta.get("protocol").cloned().unwrap_or_default();
    if !meta.is_empty() && protocol != PROTOCOL.to_string() {
        let by = meta.get("cupzero").map_or(String::new(), |v| format!(" (cupzero {v})"));
        return Err(RemoteError::Fatal(format!(
            "run {run} on redis speaks protocol {protocol}{by}, this cupzero {} speaks {PROTOCOL}: use the same version on every machine",
            env!("CARGO_PKG_VERSION")
        )));
    }
    Ok(())
}

/// Compresses a batch of games: JSON lines through zstd.
pub fn encode_games(records: &[GameRecord]) -> Vec<u8> {
    let mut lines = String::new();
    for r in records {
        lines.push_str(&serde_json::to_string(r).expect("records serialise"));
        lines.push('\n');
    }
    zstd::encode_all(lines.as_bytes(), 3).expect("compressing to memory does not fail")
}

pub fn decode_games(data: &[u8]) -> Result<Vec<GameRecord>, String> {
    let bytes = zstd::decode_all(data).map_err(|e| format!("not zstd: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    text.lines().map(|l| serde_json::from_str(l).map_err(|e| format!("a game does not read: {e}"))).collect()
}

/// The trainer's side: publishes the run and its nets, takes the workers' batches.
pub struct TrainerLink {
    link: Link,
    game: &'static str,
    config: String,
    net: Option<(u64, Vec<u8>)>,
    league: Vec<(u64, Vec<u8>)>,
    /// The connection generation the run was last set up on.
    ready: u64,
    /// Batches delivered earlier and not acknowledged are read first.
    pending_first: bool,
    /// Stream ids taken since the last acknowledgement.
    taken: Vec<String>,
}

impl TrainerLink {
    /// Connects, refuses a run of another game or protocol, and sets the run up (the consumer
    /// group, the configuration).
    pub fn open(url: &str, run: &str, game: &'static str, config: &TrainConfig) -> Result<TrainerLink, RemoteError> {
        let link = Link::open(url, run)?;
        let mut t = TrainerLink { link, game, config: config.to_toml(), net: None, league: Vec::new(), ready: 0, pending_first: true, taken: Vec::new() };
        t.prepare()?;
        Ok(t)
    }

    pub fn url(&self) -> &str {
        &self.link.url
    }

    /// Sets the run up on the current connection unless done already: after a Redis restart
    /// that lost the data, the group, the configuration and the newest net come back.
    fn prepare(&mut self) -> Result<(), RemoteError> {
        let (meta_key, net_key, league_key, games_key) = (self.link.key("meta"), self.link.key("net"), self.link.key("league"), self.link.key("games"));
        let run = self.link.run().to_string();
        // `call` retries on a new connection, so success means the run is set up on the
        // connection now current; a later reconnection sets it up again.
        while self.ready == 0 || self.ready != self.link.generation {
            let (game, config, net, league) = (self.game, &self.config, &self.net, &self.league);
            self.link.call(&NEVER, |con| {
                let meta: BTreeMap<String, String> = redis::cmd("HGETALL").arg(&meta_key).query(con)?;
                if let Err(e) = check_meta(&meta, &run, game) {
                    return Ok(Err(e));
                }
                let created: RedisResult<()> = redis::cmd("XGROUP").arg("CREATE").arg(&games_key).arg(GROUP).arg("0").arg("MKSTREAM").query(con);
                if let Err(e) = created {
                    if !e.to_string().contains("BUSYGROUP") {
                        return Err(e);
                    }
                }
                let mut pipe = redis::pipe();
                pipe.atomic();
                pipe.cmd("HSET").arg(&meta_key).arg("game").arg(game).arg("protocol").arg(PROTOCOL).arg("cupzero").arg(env!("CARGO_PKG_VERSION")).arg("config").arg(config).ignore();
                if let Some((version, weights)) = net {
                    pipe.cmd("HSET").arg(&net_key).arg("version").arg(*version).arg("weights").arg(weights.as_slice()).arg("published_ms").arg(now_ms()).ignore();
                }
                pipe.cmd("DEL").arg(&league_key).ignore();
                for (iteration, bytes) in league {
                    pipe.cmd("HSET").arg(&league_key).arg(*iteration).arg(bytes.as_slice()).ignore();
                }
                pipe.query::<()>(con)?;
                Ok(Ok(()))
            })??;
            self.ready = self.link.generation;
        }
        Ok(())
    }

    /// Publishes the net of `version` (and the league) for the workers.
    pub fn publish(&mut self, version: u64, weights: Vec<u8>, league: Vec<(u64, Vec<u8>)>) -> Result<(), RemoteError> {
        self.net = Some((version, weights));
        self.league = league;
        // Setting the run up again writes the net and the league.
        self.ready = 0;
        self.prepare()
    }

    /// Batches from the stream: first those delivered before and never acknowledged, then new
    /// ones, waiting at most `block` for one. Batches a worker numbered at or below what
    /// `seen` holds for it were taken before: they are acknowledged, not returned. A batch that
    /// does not read is reported and dropped.
    pub fn take(&mut self, seen: &mut BTreeMap<String, u64>, block: Duration) -> Result<Vec<Batch>, RemoteError> {
        self.prepare()?;
        let games_key = self.link.key("games");
        let pending = self.pending_first;
        let result = self.link.call(&NEVER, |con| {
            let mut cmd = redis::cmd("XREADGROUP");
            cmd.arg("GROUP").arg(GROUP).arg(CONSUMER);
            if pending {
                // All of this consumer's batches delivered before and never acknowledged.
                cmd.arg("COUNT").arg(100_000).arg("STREAMS").arg(&games_key).arg("0");
            } else {
                cmd.arg("COUNT").arg(64).arg("BLOCK").arg(block.as_millis().max(1) as u64).arg("STREAMS").arg(&games_key).arg(">");
            }
            cmd.query::<Option<StreamReadReply>>(con)
        });
        let reply = match result {
            Ok(reply) => reply,
            // The group is gone with a Redis that restarted empty: set the run up again.
            Err(RemoteError::Fatal(e)) if e.contains("NOGROUP") => {
                self.ready = 0;
                return Ok(Vec::new());
            }
            Err(e) => return Err(e),
        };
        self.pending_first = false;
        let entries: Vec<_> = reply.into_iter().flat_map(|r| r.keys).flat_map(|k| k.ids).collect();
        let mut batches = Vec::new();
        for entry in entries {
            self.taken.push(entry.id.clone());
            let worker: Option<String> = entry.get("worker");
            let (Some(worker), Some(batch), Some(net), Some(data)) = (worker, entry.get::<u64>("batch"), entry.get::<u64>("net"), entry.get::<Vec<u8>>("data")) else {
                // Trimmed away while pending, or not ours.
                continue;
            };
            if seen.get(&worker).is_some_and(|&s| batch <= s) {
                continue;
            }
            match decode_games(&data) {
                Ok(records) => {
                    seen.insert(worker.clone(), batch);
                    batches.push(Batch { source: BatchSource { worker, batch, net }, records, bytes: data.len() });
                }
                Err(why) => eprintln!("run {}: batch {batch} of worker {worker} dropped: {why}", self.link.run()),
            }
        }
        Ok(batches)
    }

    /// Acknowledges every batch taken so far (their games are saved) and trims them from the
    /// stream.
    pub fn acknowledge(&mut self) -> Result<(), RemoteError> {
        if self.taken.is_empty() {
            return Ok(());
        }
        let games_key = self.link.key("games");
        let ids = std::mem::take(&mut self.taken);
        let newest = ids.iter().max_by_key(|id| stream_id(id)).cloned().expect("not empty");
        self.link.call(&NEVER, |con| {
            let mut pipe = redis::pipe();
            pipe.cmd("XACK").arg(&games_key).arg(GROUP).arg(&ids).ignore();
            // Everything before the newest batch taken has been taken (the group reads in order).
            pipe.cmd("XTRIM").arg(&games_key).arg("MINID").arg(&newest).ignore();
            pipe.query::<()>(con)
        })
    }
}

/// A stream id's two numbers, for ordering.
fn stream_id(id: &str) -> (u64, u64) {
    let (ms, seq) = id.split_once('-').unwrap_or((id, "0"));
    (ms.parse().unwrap_or(0), seq.parse().unwrap_or(0))
}

/// How a worker went.
#[derive(Debug, Default)]
pub struct WorkerSummary {
    pub batches: u64,
    pub games: u64,
    pub bytes: u64,
}

/// A name no other worker process has: host, process id and start time.
pub fn worker_name() -> String {
    let host = std::fs::read_to_string("/etc/hostname").ok().map(|h| h.trim().to_string()).filter(|h| !h.is_empty()).unwrap_or_else(|| "host".into());
    format!("{host}-{}-{:x}", std::process::id(), now_ms() % 0x1_0000_0000)
}

/// The net a worker plays with, and the settings it came with.
struct Current {
    version: u64,
    net: Arc<Mlp>,
    league: Vec<LeagueNet>,
    config: TrainConfig,
}

/// Plays self-play games for the run `run` until `stop`: reads the run's configuration and
/// newest net from Redis, plays batches with the same code and settings as `train` on `threads`
/// threads (0 = all cores), pushes each batch, and picks up each new net between batches.
/// Waits (with backoff) while Redis or the run's trainer is away.
pub fn run_worker<G: Training>(url: &str, run: &str, threads: usize, stop: &AtomicBool) -> Result<WorkerSummary, RemoteError> {
    let name = worker_name();
    let mut summary = WorkerSummary::default();
    let result = play_batches::<G>(url, run, threads, stop, &name, &mut summary);
    if matches!(result, Ok(()) | Err(RemoteError::Stopped)) {
        eprintln!("worker {name}: stopped after {} batches, {} games", summary.batches, summary.games);
    }
    result.map(|()| summary)
}

fn play_batches<G: Training>(url: &str, run: &str, threads: usize, stop: &AtomicBool, name: &str, summary: &mut WorkerSummary) -> Result<(), RemoteError> {
    let mut link = Link::open(url, run)?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| RemoteError::Fatal(format!("cannot start threads: {e}")))?;
    let (meta_key, net_key, league_key, games_key) = (link.key("meta"), link.key("net"), link.key("league"), link.key("games"));
    let mut current: Option<Current> = None;
    let mut waiting_said = false;
    let mut greeted = false;
    while !stop.load(Ordering::Relaxed) {
        // The run as it stands: checked every batch, so that a Redis restarted empty or a new
        // trainer is seen at once.
        let (meta, version): (BTreeMap<String, String>, Option<u64>) = link.call(stop, |con| redis::pipe().cmd("HGETALL").arg(&meta_key).cmd("HGET").arg(&net_key).arg("version").query(con))?;
        check_meta(&meta, run, G::NAME)?;
        if !greeted {
            eprintln!("worker {name}: run {run} on redis {}, {} threads", link.url, pool.current_num_threads());
            greeted = true;
        }
        let (Some(version), Some(config_text)) = (version, meta.get("config")) else {
            if !waiting_said {
                eprintln!("worker {name}: run {run} has no trainer yet: waiting");
                waiting_said = true;
            }
            sleep_unless(stop, Duration::from_millis(500));
            continue;
        };
        waiting_said = false;
        if current.as_ref().is_none_or(|c| c.version != version) {
            let (got, weights, published): (Option<u64>, Option<Vec<u8>>, Option<u64>) =
                link.call(stop, |con| redis::cmd("HMGET").arg(&net_key).arg("version").arg("weights").arg("published_ms").query(con))?;
            let (Some(got), Some(weights)) = (got, weights) else { continue };
            let net = Mlp::from_bytes(&weights, G::NAME).map_err(|e| RemoteError::Fatal(format!("run {run}: the published net does not read: {e}")))?;
            let config = TrainConfig::from_toml(config_text, &TrainConfig::for_game::<G>()).map_err(|e| RemoteError::Fatal(format!("run {run}: its configuration does not read: {e}")))?;
            let stored: BTreeMap<u64, Vec<u8>> = link.call(stop, |con| redis::cmd("HGETALL").arg(&league_key).query(con))?;
            let mut league = Vec::new();
            for (iteration, bytes) in stored {
                let net = Mlp::from_bytes(&bytes, G::NAME).map_err(|e| RemoteError::Fatal(format!("run {run}: league net {iteration} does not read: {e}")))?;
                // Fixed members (`selfplay.league_nets`) take the ids counting down from u64::MAX.
                let label = if iteration > u64::MAX / 2 { format!("fixed {}", u64::MAX - iteration) } else { format!("iter {iteration}") };
                league.push(LeagueNet { label, net: Arc::new(net) });
            }
            let age = published.map_or(String::new(), |ms| format!(", published {:.2} s ago", now_ms().saturating_sub(ms) as f64 / 1000.0));
            eprintln!("worker {name}: net {got}{age}, league of {}", league.len());
            current = Some(Current { version: got, net: Arc::new(net), league, config });
        }
        let c = current.as_ref().expect("set above");
        // The net's version is the iteration it starts: its games are that iteration's.
        let settings = crate::schedule::selfplay_settings(&c.config, c.version + 1);
        let games = settings.games_in_flight * pool.current_num_threads();
        let seed = now_ms() ^ (summary.batches << 40) ^ std::process::id() as u64;
        let (records, stats): (Vec<GameRecord>, SelfPlayStats) = pool.install(|| generate::<G>(&c.net, &c.league, &settings, games, seed, &|| {}));
        let data = encode_games(&records);
        let batch = summary.batches + 1;
        // Pushed until Redis has it, under the same number: a retry that lands twice counts once.
        link.call(stop, |con| {
            redis::cmd("XADD")
                .arg(&games_key)
                .arg("MAXLEN")
                .arg("~")
                .arg(STREAM_CAP)
                .arg("*")
                .arg("worker")
                .arg(name)
                .arg("batch")
                .arg(batch)
                .arg("net")
                .arg(c.version)
                .arg("games")
                .arg(records.len())
                .arg("data")
                .arg(data.as_slice())
                .query::<String>(con)
        })?;
        summary.batches = batch;
        summary.games += records.len() as u64;
        summary.bytes += data.len() as u64;
        eprintln!(
            "worker {name}: batch {batch}: {} games with net {} ({:.1} games/s, {} bytes, {:.0} bytes a game)",
            records.len(),
            c.version,
            stats.games as f64 / stats.elapsed.as_secs_f64().max(1e-9),
            data.len(),
            data.len() as f64 / records.len().max(1) as f64
        );
    }
    Ok(())
}

fn sleep_unless(stop: &AtomicBool, total: Duration) {
    let until = Instant::now() + total;
    while Instant::now() < until && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The games of one iteration of a distributed run.
pub struct Gathered {
    pub records: Vec<GameRecord>,
    pub stats: SelfPlayStats,
    /// Games by where they came from (`local` for the trainer's threads, else the worker).
    pub by_source: BTreeMap<String, u64>,
    pub bytes: u64,
}

/// Gathers at least `wanted` games: the workers' batches from the stream, and, when `local`
/// is given, batches the trainer plays itself in between.
pub fn gather(link: &mut TrainerLink, seen: &mut BTreeMap<String, u64>, wanted: usize, local: Option<&dyn Fn(u64) -> (Vec<GameRecord>, SelfPlayStats)>) -> Result<Gathered, RemoteError> {
    let start = Instant::now();
    let mut out = Gathered { records: Vec::new(), stats: SelfPlayStats::default(), by_source: BTreeMap::new(), bytes: 0 };
    let mut waiting_said = false;
    let mut round = 0;
    while out.records.len() < wanted {
        let block = if local.is_some() { Duration::from_millis(1) } else { Duration::from_millis(1000) };
        for batch in link.take(seen, block)? {
            *out.by_source.entry(batch.source.worker.clone()).or_default() += batch.records.len() as u64;
            out.bytes += batch.bytes as u64;
            out.stats.actions += batch.records.iter().map(|r| r.actions.len() as u64).sum::<u64>();
            out.stats.samples += batch.records.iter().map(|r| r.targets.iter().filter(|t| t.is_some()).count() as u64).sum::<u64>();
            out.records.extend(batch.records.into_iter().map(|mut r| {
                r.source = Some(batch.source.clone());
                r
            }));
        }
        if out.records.len() >= wanted {
            break;
        }
        match local {
            Some(play) => {
                let (records, stats) = play(round);
                round += 1;
                *out.by_source.entry("local".into()).or_default() += records.len() as u64;
                out.stats.actions += stats.actions;
                out.stats.samples += stats.samples;
                out.stats.net_evals += stats.net_evals;
                out.records.extend(records);
            }
            None if !waiting_said && start.elapsed() > Duration::from_secs(10) && out.records.is_empty() => {
                eprintln!("run {}: no games from workers for 10 s (start some with `cupzero worker`)", link.link.run());
                waiting_said = true;
            }
            None => {}
        }
    }
    out.stats.games = out.records.len() as u64;
    out.stats.elapsed = start.elapsed();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_round_trips_through_zstd() {
        let record = GameRecord { seed: 7, actions: vec![3, 4], targets: vec![None, None], utilities: [1.0, -1.0], scores: [1.0, 0.0], opponent: None, learner_seat: None, source: None };
        let data = encode_games(&[record.clone(), record.clone()]);
        let back = decode_games(&data).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(serde_json::to_string(&back[1]).unwrap(), serde_json::to_string(&record).unwrap());
        assert!(decode_games(b"not zstd").unwrap_err().starts_with("not zstd"));
    }

    #[test]
    fn passwords_stay_out_of_messages() {
        assert_eq!(shown("redis://:s3cret@10.0.0.5:6379/0"), "redis://10.0.0.5:6379/0");
        assert_eq!(shown("redis://user:pw@host/1"), "redis://host/1");
        assert_eq!(shown("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
    }

    #[test]
    fn a_run_of_another_game_or_protocol_is_refused() {
        let meta = |game: &str, protocol: &str| BTreeMap::from([("game".to_string(), game.to_string()), ("protocol".to_string(), protocol.to_string())]);
        assert!(check_meta(&BTreeMap::new(), "r", "zuniq").is_ok(), "a new run");
        assert!(check_meta(&meta("zuniq", &PROTOCOL.to_string()), "r", "zuniq").is_ok());
        let RemoteError::Fatal(e) = check_meta(&meta("qttt", &PROTOCOL.to_string()), "r", "zuniq").unwrap_err() else { panic!() };
        assert_eq!(e, "run r on redis is a qttt run, not zuniq: use another --run");
        let RemoteError::Fatal(e) = check_meta(&meta("zuniq", "0"), "r", "zuniq").unwrap_err() else { panic!() };
        assert!(e.contains("protocol 0"), "{e}");
        assert!(Link::open("redis://h", "two words").is_err());
        assert!(Link::open("http://h", "r").is_err());
    }

    #[test]
    fn stream_ids_order_by_time_then_sequence() {
        assert!(stream_id("1700000000000-2") > stream_id("1700000000000-1"));
        assert!(stream_id("1700000000001-0") > stream_id("1700000000000-9"));
    }
}
