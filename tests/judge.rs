//! The judge end to end: built-in bots, faulty programs, records.

mod common;

use common::{one_at_a_time, run};
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cupzero-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn records(path: &PathBuf) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn uct_beats_random_through_the_protocol_without_faults() {
    let _serial = one_at_a_time();
    let dir = temp_dir("uct");
    let path = dir.join("games.jsonl");
    let out = run(
        &["judge", "connect4", "--p0", "uct", "--p1", "random", "--games", "4", "--parallel", "2", "--records", path.to_str().unwrap()],
        "",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("A: 4-0-0 (W-D-L)"), "{stdout}");
    assert!(stdout.contains("faults: A 0 timeouts, 0 crashes, 0 illegal, 0 garbled; B 0 timeouts"), "{stdout}");
    let games = records(&path);
    assert_eq!(games.len(), 4);
    let mut seats_of_a: Vec<usize> = games
        .iter()
        .map(|g| g["seats"].as_array().unwrap().iter().position(|s| s == "A").unwrap())
        .collect();
    seats_of_a.sort();
    assert_eq!(seats_of_a, vec![0, 0, 1, 1], "A plays both seats");
    for g in &games {
        assert_eq!(g["points"][0], 10.0);
        assert!(g["fault"].is_null());
    }
    assert!(!dir.join("games.jsonl.tmp").exists(), "temporary file renamed away");
}

/// Programs that misbehave lose, and the record says why.
#[test]
fn faults_are_losses_with_a_reason() {
    let _serial = one_at_a_time();
    let dir = temp_dir("faults");
    let cases = [
        ("sleep 5", "timeout"),
        ("exit 3", "crash"),
        ("yes 9", "illegal"),
        ("yes STEAL", "illegal"),
        ("yes hello", "garbled"),
        ("yes ' 4'", "garbled"),
    ];
    for (i, (command, kind)) in cases.iter().enumerate() {
        let path = dir.join(format!("{i}.jsonl"));
        let out = run(
            &["judge", "connect4", "--p0", "random", "--p1", command, "--games", "2", "--time-scale", "0.3", "--records", path.to_str().unwrap()],
            "",
        );
        assert!(out.status.success(), "{command}: {}", String::from_utf8_lossy(&out.stderr));
        for g in records(&path) {
            let fault = &g["fault"];
            assert_eq!(fault["player"], "B", "{command}: {g}");
            assert_eq!(fault["kind"], *kind, "{command}: {g}");
            assert!(!fault["detail"].as_str().unwrap().is_empty());
            assert_eq!(g["points"], serde_json::json!([10.0, 0.0]), "{command}");
        }
    }
}

#[test]
fn transcripts_are_written_per_game_and_seat() {
    let _serial = one_at_a_time();
    let dir = temp_dir("transcripts");
    let out = run(
        &["judge", "connect4", "--p0", "random", "--p1", "random", "--games", "2", "--transcripts", dir.to_str().unwrap(), "--records", dir.join("r.jsonl").to_str().unwrap()],
        "",
    );
    assert!(out.status.success());
    for game in 0..2 {
        for seat in 0..2 {
            let text = std::fs::read_to_string(dir.join(format!("game{game:04}-seat{seat}.txt"))).unwrap();
            let first = text.lines().next().unwrap();
            assert_eq!(first, if seat == 0 { "> 0 1" } else { "> 1 0" });
            assert!(text.lines().any(|l| l.starts_with("< ")));
        }
    }
}
