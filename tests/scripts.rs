//! The judging scripts: `scripts/marks` (a run's curve at fixed playouts, kept matches reused)
//! and `scripts/judge-arms` (arms on the clock in alternating blocks, resumable).

mod common;

use common::{exe, one_at_a_time, temp_dir};
use std::path::Path;
use std::process::{Command, Output};

fn script(name: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut command = Command::new(root.join("scripts").join(name));
    command.args(args).env("CUPZERO", exe());
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn modified(path: &Path) -> std::time::SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

#[test]
fn marks_writes_the_curve_and_plays_only_new_marks_again() {
    let run = temp_dir("marks");
    let snapshots = run.join("snapshots");
    std::fs::create_dir_all(&snapshots).unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/connect4");
    std::fs::copy(shipped.join("previous-net.czw"), snapshots.join("iter-000100.czw")).unwrap();
    std::fs::copy(shipped.join("net.czw"), snapshots.join("iter-000200.czw")).unwrap();
    let settings = [("GAMES", "4"), ("PLAYOUTS", "20"), ("THREADS", "1")];
    let run_dir = run.to_str().unwrap();

    let first = stdout(&script("marks", &["connect4", run_dir, "100"], &settings));
    assert!(first.contains("iter-000100 vs reference: "), "{first}");
    let match_file = run.join("marks/arena-iter-000100-vs-reference.txt");
    let played = modified(&match_file);

    let second = stdout(&script("marks", &["connect4", run_dir, "100", "200"], &settings));
    assert!(second.contains("iter-000200 vs iter-000100: "), "{second}");
    assert_eq!(modified(&match_file), played, "a kept match was played again");
    let table = std::fs::read_to_string(run.join("marks/curve.tsv")).unwrap();
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 3, "{table}");
    assert!(rows[1].starts_with("100\t-\t-\t-\t"), "{table}");
    let second_row: Vec<&str> = rows[2].split('\t').collect();
    assert_eq!(second_row[0], "200");
    // The reference is the shipped net, so the last mark meets itself: both scores are numbers.
    assert!(second_row[1].parse::<f64>().is_ok() && second_row[4].parse::<f64>().is_ok(), "{table}");
    let chart = std::fs::read_to_string(run.join("marks/curve.svg")).unwrap();
    assert!(chart.starts_with("<svg") && chart.trim_end().ends_with("</svg>"), "{chart}");
    assert_eq!(chart.matches("<circle").count(), 3 + 2, "three scores and two grades:\n{chart}");

    // Other settings than the kept matches' are refused in one line.
    let refused = script("marks", &["connect4", run_dir, "100"], &[("GAMES", "6"), ("PLAYOUTS", "20"), ("THREADS", "1")]);
    assert!(!refused.status.success());
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(error.contains("other settings") && error.lines().count() == 1, "{error}");
}

#[test]
fn judge_arms_plays_blocks_in_turn_and_resumes() {
    let _clocked = one_at_a_time();
    let records = temp_dir("arms");
    let env = [("RECORDS", records.to_str().unwrap()), ("BLOCK", "2"), ("CORE", "0")];
    let out = stdout(&script("judge-arms", &["connect4", "random", "10", "13", "uct", "classic"], &env));
    for name in ["uct-10", "uct-12", "classic-10", "classic-12"] {
        let games = std::fs::read_to_string(records.join(format!("{name}.jsonl"))).unwrap();
        assert_eq!(games.lines().count(), 2, "{name}");
    }
    assert!(out.contains("== uct against random, 2 blocks") && out.contains("== classic against random, 2 blocks"), "{out}");
    assert!(out.contains("== uct - classic, paired") && out.contains("paired games: 4"), "{out}");

    // Run again: nothing is played, the same summary comes back.
    let kept = modified(&records.join("uct-12.jsonl"));
    let again = stdout(&script("judge-arms", &["connect4", "random", "10", "13", "uct", "classic"], &env));
    assert_eq!(modified(&records.join("uct-12.jsonl")), kept);
    assert!(again.contains("paired games: 4"), "{again}");

    let refused = script("judge-arms", &["connect4", "random", "13", "10", "uct"], &env);
    assert_eq!(refused.status.code(), Some(2));
}
