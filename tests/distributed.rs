//! Self-play on many machines: a real `redis-server`, a trainer and worker processes, with
//! workers killed, Redis restarted and the trainer killed mid-run.

mod common;

use common::{assert_clean_error, exe, one_at_a_time, temp_dir};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A `redis-server` on a free loopback port, in its own folder, without persistence: a
/// restart loses everything, the hardest case for the trainer and the workers.
struct Redis {
    port: u16,
    dir: PathBuf,
    child: Child,
    password: Option<String>,
}

impl Redis {
    fn start(dir: &Path, password: Option<&str>) -> Redis {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut redis = Redis { port, dir: dir.to_path_buf(), child: Self::spawn(dir, port, password), password: password.map(String::from) };
        redis.wait_ready();
        redis
    }

    fn spawn(dir: &Path, port: u16, password: Option<&str>) -> Child {
        let mut cmd = Command::new("redis-server");
        cmd.args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]).arg("--dir").arg(dir);
        if let Some(p) = password {
            cmd.args(["--requirepass", p]);
        }
        cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap_or_else(|e| {
            panic!("cannot start redis-server ({e}): the distributed tests need it; ./scripts/test installs it (Debian: apt-get install redis-server)")
        })
    }

    /// Until the server answers a PING (`+PONG`, or `-NOAUTH` with a password): an open port
    /// alone is not yet a server that keeps its connections.
    fn wait_ready(&mut self) {
        let start = Instant::now();
        let answers = |port: u16| -> bool {
            let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else { return false };
            let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
            let mut reply = [0u8; 1];
            stream.write_all(b"PING\r\n").is_ok() && stream.read_exact(&mut reply).is_ok() && (reply[0] == b'+' || reply[0] == b'-')
        };
        while !answers(self.port) {
            assert!(start.elapsed() < Duration::from_secs(20), "redis-server did not start on port {}", self.port);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn url(&self) -> String {
        match &self.password {
            Some(p) => format!("redis://:{p}@127.0.0.1:{}/0", self.port),
            None => format!("redis://127.0.0.1:{}/0", self.port),
        }
    }

    /// Kills the server (everything in it is lost) and starts a new one on the same port.
    fn restart(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        std::thread::sleep(Duration::from_millis(500));
        self.child = Self::spawn(&self.dir, self.port, self.password.as_deref());
        self.wait_ready();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts cupzero with `args`, its stderr into `log`.
fn spawn(args: &[&str], log: &Path) -> Child {
    let log = std::fs::File::create(log).unwrap();
    Command::new(exe()).args(args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(log).spawn().unwrap()
}

fn interrupt(child: &Child) {
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
}

/// The run's last complete iteration.
fn iteration(run_dir: &Path) -> u64 {
    std::fs::read_to_string(run_dir.join("state.json")).ok().and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok()).and_then(|v| v["iteration"].as_u64()).unwrap_or(0)
}

fn wait_for(what: &str, done: &dyn Fn() -> bool, logs: &[&Path]) {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > Duration::from_secs(180) {
            let text: Vec<String> = logs.iter().map(|l| format!("{}:\n{}", l.display(), std::fs::read_to_string(l).unwrap_or_default())).collect();
            panic!("waited in vain for {what}:\n{}", text.join("\n"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for_iteration(run_dir: &Path, at_least: u64, logs: &[&Path]) {
    wait_for(&format!("iteration {at_least}"), &|| iteration(run_dir) >= at_least, logs);
}

/// Until the worker logging to `log` has pushed a batch; returns its name.
fn wait_for_a_batch(log: &Path, logs: &[&Path]) -> String {
    let text = || std::fs::read_to_string(log).unwrap_or_default();
    wait_for(&format!("a batch in {}", log.display()), &|| text().contains(": batch 1:"), logs);
    text().lines().find_map(|l| Some(l.strip_prefix("worker ")?.split(':').next()?.to_string())).unwrap()
}

// Open-ended: each stage below needs the run still going (a fast trainer on a quiet machine
// finished a 12-iteration run before the replacement worker's first batch); the restarted
// trainer is given its last iteration with `--iterations`.
const SMALL_RUN: &str = "iterations = 0
[net]
hidden = [16]
[selfplay]
games_per_iteration = 16
games_in_flight = 4
full_playouts = 8
fast_playouts = 4
threads = 1
[training]
min_replay = 10
keep_all_games = true
[eval]
every = 0
";

#[test]
fn workers_feed_the_trainer_exactly_once_through_kills_and_a_redis_restart() {
    let _serial = one_at_a_time();
    let dir = temp_dir("distributed");
    let mut redis = Redis::start(&dir, None);
    let url = redis.url();
    let config = dir.join("small.toml");
    std::fs::write(&config, SMALL_RUN).unwrap();
    let run_dir = dir.join("run");
    let trainer_args = ["train", "qttt", "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--redis", &url, "--run", "t", "--no-local-selfplay"];
    let worker_args = ["worker", "qttt", "--redis", &url, "--run", "t", "--threads", "1"];
    let logs: Vec<PathBuf> = ["trainer", "trainer-again", "worker-1", "worker-2", "worker-3"].iter().map(|n| dir.join(format!("{n}.log"))).collect();
    let all_logs: Vec<&Path> = logs.iter().map(|p| p.as_path()).collect();

    let mut trainer = spawn(&trainer_args, &logs[0]);
    let mut worker_1 = spawn(&worker_args, &logs[2]);
    let worker_2 = spawn(&worker_args, &logs[3]);
    wait_for_iteration(&run_dir, 2, &all_logs);
    // A worker killed mid-batch, and a new one in its place.
    wait_for_a_batch(&logs[2], &all_logs);
    worker_1.kill().unwrap();
    worker_1.wait().unwrap();
    let worker_3 = spawn(&worker_args, &logs[4]);
    let worker_3_name = wait_for_a_batch(&logs[4], &all_logs);
    wait_for_iteration(&run_dir, iteration(&run_dir) + 1, &all_logs);
    // Redis dies with everything in it: the trainer sets the run up again, the workers wait.
    redis.restart();
    // Both workers are back (their backoff may have grown to seconds), then play on.
    for log in [&logs[3], &logs[4]] {
        wait_for(&format!("{} back after the restart", log.display()), &|| std::fs::read_to_string(log).unwrap_or_default().contains("back after"), &all_logs);
    }
    wait_for_iteration(&run_dir, iteration(&run_dir) + 2, &all_logs);
    // The trainer killed at any moment loses nothing it acknowledged; started again, it resumes
    // and runs to the end it is given.
    trainer.kill().unwrap();
    trainer.wait().unwrap();
    let last = iteration(&run_dir) + 3;
    let last_text = last.to_string();
    let trainer = spawn(&[&trainer_args[..], &["--iterations", &last_text]].concat(), &logs[1]);
    let finished = trainer.wait_with_output().unwrap();
    assert!(finished.status.success(), "{}", std::fs::read_to_string(&logs[1]).unwrap());
    assert_eq!(iteration(&run_dir), last);
    for worker in [&worker_2, &worker_3] {
        interrupt(worker);
    }
    for (worker, log) in [(worker_2, &logs[3]), (worker_3, &logs[4])] {
        let out = worker.wait_with_output().unwrap();
        let text = std::fs::read_to_string(log).unwrap();
        assert!(out.status.success(), "Ctrl-C stops a worker cleanly ({:?}): {text}", out.status);
        assert!(text.contains("stopped after") && !text.contains("panicked"), "{text}");
    }

    // Every game in the run directory came from a worker batch of 4 games (4 games in flight on
    // one thread), and each batch is there whole, once.
    let mut batches: BTreeMap<(String, u64), usize> = BTreeMap::new();
    let mut nets = BTreeSet::new();
    let mut games = 0;
    for entry in std::fs::read_dir(run_dir.join("games")).unwrap() {
        // Each file ends in its checksum line.
        for line in std::fs::read_to_string(entry.unwrap().path()).unwrap().lines().filter(|l| !l.starts_with('#')) {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            let source = &record["source"];
            *batches.entry((source["worker"].as_str().unwrap().to_string(), source["batch"].as_u64().unwrap())).or_default() += 1;
            nets.insert(source["net"].as_u64().unwrap());
            games += 1;
        }
    }
    assert!(games >= last as usize * 16, "{games} games");
    assert!(batches.values().all(|&n| n == 4), "a batch counted twice or in part: {batches:?}");
    let workers: BTreeSet<&String> = batches.keys().map(|(w, _)| w).collect();
    assert!(workers.len() >= 2 && workers.contains(&worker_3_name), "games from the workers, the new one included: {workers:?}");
    // What the trainer recorded as taken is what the games files hold.
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run_dir.join("state.json")).unwrap()).unwrap();
    for worker in &workers {
        let newest = batches.keys().filter(|(w, _)| &w == worker).map(|(_, b)| *b).max().unwrap();
        assert_eq!(state["remote_seen"][worker.as_str()].as_u64(), Some(newest), "{worker}");
    }
    // The workers moved to each new net as it came.
    assert!(nets.len() >= 5, "games were played with nets {nets:?}");
    let worker_2_log = std::fs::read_to_string(&logs[3]).unwrap();
    let both = worker_2_log.clone() + &std::fs::read_to_string(&logs[4]).unwrap();
    let versions: BTreeSet<u64> = both.lines().filter_map(|l| l.split(": net ").nth(1)?.split(',').next()?.parse().ok()).collect();
    assert!(versions.len() >= 5 && versions.last() >= Some(&(last - 1)), "workers 2 and 3 played with nets {versions:?}:\n{both}");
    assert!(worker_2_log.contains("retrying") && worker_2_log.contains("back after"), "worker 2 waited out the restart:\n{worker_2_log}");
    // Games per worker reach the metrics.
    let metrics = std::fs::read_to_string(run_dir.join("metrics.jsonl")).unwrap();
    assert!(metrics.lines().all(|l| l.contains("\"games_by_source\"")), "{metrics}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn run_to_end(args: &[&str]) -> Output {
    Command::new(exe()).args(args).stdin(Stdio::null()).output().unwrap()
}

#[test]
fn a_wrong_password_or_a_run_of_another_game_is_one_clear_line() {
    let _serial = one_at_a_time();
    let dir = temp_dir("distributed-refusals");
    let redis = Redis::start(&dir, Some("s3cret"));
    let wrong = format!("redis://:guess42@127.0.0.1:{}/0", redis.port);
    let out = run_to_end(&["worker", "qttt", "--redis", &wrong, "--run", "r"]);
    assert_clean_error(&out, "authentication failed");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("guess42"), "the password stays out of messages");
    let none = format!("redis://127.0.0.1:{}/0", redis.port);
    let run_dir = dir.join("run");
    let out = run_to_end(&["train", "qttt", "--run-dir", run_dir.to_str().unwrap(), "--redis", &none, "--run", "r"]);
    assert_clean_error(&out, "authentication failed");
    assert!(!run_dir.exists(), "a refused trainer writes nothing");

    // A quantum tic-tac-toe run, trained one iteration by its own threads.
    let config = dir.join("small.toml");
    let one_iteration = SMALL_RUN.replace("iterations = 0", "iterations = 1");
    assert_ne!(one_iteration, SMALL_RUN);
    std::fs::write(&config, one_iteration).unwrap();
    let url = redis.url();
    let out = run_to_end(&["train", "qttt", "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--redis", &url, "--run", "r"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run_to_end(&["worker", "connect4", "--redis", &url, "--run", "r"]);
    assert_clean_error(&out, "run r on redis is a qttt run, not connect4: use another --run");
    let other_dir = dir.join("other");
    let out = run_to_end(&["train", "connect4", "--run-dir", other_dir.to_str().unwrap(), "--redis", &url, "--run", "r"]);
    assert_clean_error(&out, "run r on redis is a qttt run, not connect4");
    assert!(!other_dir.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
