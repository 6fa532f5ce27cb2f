//! Two runs at once: a second run on a folder another run is writing is refused in one line,
//! and a killed trainer's lock does not block the next run.

mod common;

use common::{assert_clean_error, exe, run, temp_dir};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const TINY: &str = r#"
seed = 7
[net]
hidden = [32]
[selfplay]
games_per_iteration = 40
games_in_flight = 16
full_playouts = 16
fast_playouts = 4
[training]
batch_size = 64
min_replay = 100
[eval]
every = 0
"#;

fn spawn(args: &[&str], dir: &Path) -> Child {
    Command::new(exe()).args(args).current_dir(dir).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn cupzero")
}

/// Waits (at most a minute) until `path` exists.
fn wait_for(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display()))).collect()
}

fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn state_iteration(run: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(run.join("state.json")).ok()?;
    serde_json::from_str::<serde_json::Value>(&text).ok()?["iteration"].as_u64()
}

fn metric_iterations(run: &Path) -> Vec<u64> {
    lines(&run.join("metrics.jsonl")).iter().map(|m| m["iteration"].as_u64().unwrap()).collect()
}

fn train_dir(name: &str) -> (PathBuf, PathBuf) {
    let dir = temp_dir(name);
    std::fs::write(dir.join("tiny.toml"), TINY).unwrap();
    (dir.join("tiny.toml"), dir.join("run"))
}

#[test]
fn a_second_trainer_on_a_folder_is_refused_and_the_first_trains_on() {
    let (config, run_dir) = train_dir("two-trainers");
    let args = |iterations: &'static str| ["train", "connect4", "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--iterations", iterations];
    let first = spawn(&args("30"), run_dir.parent().unwrap());
    wait_for(&run_dir.join(".lock"));
    let out = run(&args("30"), "");
    assert_clean_error(&out, &format!("{} is in use by another run (pid {})", run_dir.display(), first.id()));
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    // Each iteration once, by the first run alone.
    assert_eq!(state_iteration(&run_dir), Some(30));
    assert_eq!(metric_iterations(&run_dir), (1..=30).collect::<Vec<_>>());
    assert!(!stderr(&first).contains("resuming"));
    assert!(!run_dir.join(".lock").exists());
}

#[test]
fn a_killed_trainers_lock_does_not_block_the_next_run() {
    let (config, run_dir) = train_dir("killed-trainer");
    let run_path = run_dir.to_str().unwrap();
    let mut child = spawn(&["train", "connect4", "--config", config.to_str().unwrap(), "--run-dir", run_path, "--iterations", "1000"], run_dir.parent().unwrap());
    let start = Instant::now();
    while state_iteration(&run_dir).unwrap_or(0) < 2 {
        assert!(start.elapsed() < Duration::from_secs(120), "training too slow");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // The lock file stays, naming a process that is gone; the kernel let go of its lock.
    assert_eq!(std::fs::read_to_string(run_dir.join(".lock")).unwrap().trim(), child.id().to_string());
    let done = state_iteration(&run_dir).unwrap();
    let target = (done + 1).to_string();
    let out = run(&["train", "connect4", "--run-dir", run_path, "--iterations", &target], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("resuming after iteration {done}")), "{}", stderr(&out));
    assert_eq!(state_iteration(&run_dir), Some(done + 1));
    assert!(!run_dir.join(".lock").exists());
    assert!(!file_names(&run_dir).iter().any(|n| n.ends_with(".tmp")), "{:?}", file_names(&run_dir));
}
