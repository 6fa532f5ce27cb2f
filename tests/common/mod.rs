#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};

/// Held for its whole run by every test of a file that judges clocked games. The judge times
/// answers by the wall clock, so a clocked game must not share the (possibly two) cores with
/// another test's rustc, arena or bots: on a loaded machine each move's process wake-ups cost
/// the bot milliseconds it cannot see. (Cargo runs the test files one after another; the
/// tests of one file run in parallel unless they take this.)
pub fn one_at_a_time() -> MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    // A failed test poisons the lock; the others still run.
    ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An empty directory of this test process's own, named after the test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cupzero-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_cupzero")
}

pub fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(path)
}

/// Runs cupzero with `args`, feeding `stdin`.
pub fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(exe())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cupzero");
    let mut input = child.stdin.take().unwrap();
    // The bot may exit before reading everything (on garbage); ignore a broken pipe.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    child.wait_with_output().expect("wait for cupzero")
}

/// One seat's transcript: the text it read, and its answers, turn by turn.
pub struct Transcript {
    /// Lines read before each answer (the first block includes the ids line).
    pub turns: Vec<Vec<String>>,
    pub answers: Vec<String>,
}

pub fn read_transcript(path: &Path) -> Transcript {
    let text = std::fs::read_to_string(path).unwrap();
    let mut turns = vec![];
    let mut answers = vec![];
    let mut block = vec![];
    for line in text.lines() {
        if let Some(input) = line.strip_prefix("> ") {
            block.push(input.to_string());
        } else if let Some(output) = line.strip_prefix("< ") {
            turns.push(std::mem::take(&mut block));
            answers.push(output.to_string());
        } else {
            panic!("{}: unexpected line {line:?}", path.display());
        }
    }
    assert!(block.is_empty(), "input after the last answer");
    Transcript { turns, answers }
}

/// Asserts the process failed cleanly: non-zero exit, one stderr line, no panic.
pub fn assert_clean_error(out: &Output, expected_fragment: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "exit status {:?}", out.status);
    assert_eq!(stderr.trim_end().lines().count(), 1, "stderr should be one line: {stderr:?}");
    assert!(!stderr.contains("panicked") && !stderr.contains("internal error"), "{stderr}");
    assert!(stderr.contains(expected_fragment), "{stderr:?} should mention {expected_fragment:?}");
}

/// Compiles the exported bot `source` with plain rustc (no warnings), judges `games` games of it
/// (player A) against `partner` at `time_scale` with no fault of A, and feeds it garbage (one
/// clean error line naming `garbage_error`). Returns the judge's report and the game records
/// (JSON lines); everything is written beside `source`.
pub fn compile_judge_and_feed_garbage(source: &Path, game: &str, partner: &str, time_scale: &str, games: usize, garbage_error: &str) -> (String, String) {
    let dir = source.parent().expect("the source lies in a folder");
    let binary = dir.join("bot");
    let compiled = Command::new("rustc").args(["--edition", "2021", "-O", "-o"]).arg(&binary).arg(source).output().expect("rustc is needed for this test");
    let warnings = String::from_utf8_lossy(&compiled.stderr);
    assert!(compiled.status.success(), "rustc failed:\n{warnings}");
    assert!(!warnings.contains("warning"), "{warnings}");

    let records = dir.join("games.jsonl");
    let out = run(
        &[
            "judge", game, "--p0", binary.to_str().unwrap(), "--p1", partner, "--games", &games.to_string(), "--parallel", "1", "--time-scale", time_scale,
            "--records", records.to_str().unwrap(),
        ],
        "",
    );
    let report = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains("faults: A 0 timeouts, 0 crashes, 0 illegal, 0 garbled"), "{report}");

    let mut child = Command::new(&binary).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"garbage\n").unwrap();
    assert_clean_error(&child.wait_with_output().unwrap(), garbage_error);
    (report, std::fs::read_to_string(&records).unwrap())
}
