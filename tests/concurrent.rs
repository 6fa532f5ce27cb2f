//! Two runs at once: two judges started in the same second each keep their own games, a
//! second run on a folder or records file another run is writing is refused in one line, a
//! killed trainer's lock does not block the next run, and a judge whose records cannot be
//! written still reports its match.

mod common;

use common::{assert_clean_error, exe, run, temp_dir};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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

/// Runs cupzero with `args` while `first` is paused (SIGSTOP, then SIGCONT): a first run that
/// holds a lock cannot end before the second one starts, however busy the machine, and a
/// stopped process keeps its lock.
fn run_while_paused(first: &Child, args: &[&str]) -> Output {
    let signal = |name: &str| {
        let status = Command::new("kill").arg(format!("-{name}")).arg(first.id().to_string()).status().expect("run kill");
        assert!(status.success(), "kill -{name} failed");
    };
    signal("STOP");
    let out = run(args, "");
    signal("CONT");
    out
}

/// Waits (at most a minute) until `done` holds; `what` names it when it never does.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(60), "{what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits until `child` holds the lock file `lock`: its pid is written there once the lock is taken.
fn wait_until_locked(lock: &Path, child: &Child) {
    let pid = child.id().to_string();
    wait_until(&format!("{} never locked", lock.display()), || std::fs::read_to_string(lock).map_or(false, |text| text.trim() == pid));
}

/// Waits until `path` exists.
fn wait_for(path: &Path) {
    wait_until(&format!("{} never appeared", path.display()), || path.exists());
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display()))).collect()
}

fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn two_judges_started_in_the_same_second_keep_their_own_games() {
    let dir = temp_dir("same-second");
    // Just after a second begins, so both take the same default name.
    while SystemTime::now().duration_since(UNIX_EPOCH).unwrap().subsec_millis() > 100 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let games = 6;
    let judge = |seed: &str| spawn(&["judge", "6561", "--p0", "random", "--p1", "greedy", "--games", &games.to_string(), "--parallel", "1", "--seed", seed], &dir);
    let (first, second) = (judge("1"), judge("101"));
    let outs = [first.wait_with_output().unwrap(), second.wait_with_output().unwrap()];
    let mut files = Vec::new();
    for (out, seed) in outs.iter().zip([1u64, 101]) {
        assert!(out.status.success(), "{}", stderr(out));
        let report = stdout(out);
        assert!(report.contains(&format!("games: {games}\n")), "{report}");
        let named = report.lines().find_map(|l| l.strip_prefix("records: ")).unwrap_or_else(|| panic!("no records line: {report}"));
        let path = dir.join(named);
        // Every game of this judge, once, and none of the other's (seeds tell them apart).
        let records = lines(&path);
        let mut seen: Vec<(u64, u64)> = records.iter().map(|r| (r["game"].as_u64().unwrap(), r["seed"].as_u64().unwrap())).collect();
        seen.sort();
        assert_eq!(seen, (0..games as u64).map(|g| (g, seed + g)).collect::<Vec<_>>(), "{}", path.display());
        files.push(named.to_string());
    }
    assert_ne!(files[0], files[1]);
    let mut names = file_names(&dir.join("runs"));
    names.sort_by_key(|n| n.len());
    // One name as a judge alone takes it, the other with a suffix: nothing else is left there.
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].starts_with("judge-6561-") && names[1] == names[0].replace(".jsonl", "-2.jsonl"), "{names:?}");
}

#[test]
fn records_another_judge_is_writing_are_refused() {
    let dir = temp_dir("records-held");
    let records = dir.join("games.jsonl");
    let path = records.to_str().unwrap();
    let first = spawn(&["judge", "connect4", "--p0", "uct", "--p1", "random", "--games", "4", "--parallel", "1", "--time-scale", "0.3", "--records", path], &dir);
    wait_until_locked(&dir.join("games.jsonl.lock"), &first);
    let out = run_while_paused(&first, &["judge", "connect4", "--p0", "random", "--p1", "random", "--games", "2", "--records", path]);
    assert_clean_error(&out, &format!("{path} is in use by another run (pid {})", first.id()));
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    let games = lines(&records);
    assert_eq!(games.len(), 4);
    assert!(games.iter().all(|g| g["players"][0] == "uct"), "only the first judge's games");
    assert_eq!(file_names(&dir), ["games.jsonl"]);
}

#[test]
fn a_judge_whose_records_cannot_be_written_still_reports_its_match() {
    let dir = temp_dir("records-lost");
    let folder = dir.join("out");
    std::fs::create_dir_all(&folder).unwrap();
    let records = folder.join("games.jsonl");
    let child = spawn(&["judge", "connect4", "--p0", "uct", "--p1", "random", "--games", "4", "--parallel", "1", "--time-scale", "0.3", "--records", records.to_str().unwrap()], &dir);
    // The records' folder goes while the judge plays: its last rename has nowhere to go.
    wait_for(&folder.join("games.jsonl.tmp"));
    std::fs::remove_dir_all(&folder).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    let report = stdout(&out);
    assert!(report.contains("A: 4-0-0 (W-D-L)") && !report.contains("records:"), "{report}");
    let errors = stderr(&out);
    let last = errors.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with(&format!("cupzero: error: cannot write {}", records.display())), "{errors}");
    assert!(!errors.contains("panicked"), "{errors}");
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
    wait_until_locked(&run_dir.join(".lock"), &first);
    let out = run_while_paused(&first, &args("30"));
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
