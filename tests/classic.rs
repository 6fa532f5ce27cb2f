//! The classic (net-free) bots end to end: each exports to one file that plain rustc compiles,
//! plays legal, timely games through the judge against the UCT bot (both seats), and answers
//! garbage with one clean error line; the built-in `classic` player works in `arena`, and
//! games without a classic bot refuse it with one line.

mod common;

use common::{assert_clean_error, one_at_a_time, run};
use std::process::{Command, Stdio};

/// Exports `game`'s classic bot for `platform` at `time_scale`, compiles it, judges `games`
/// games against the UCT bot (A is the classic bot) and feeds it garbage. Returns the report.
fn export_compile_and_judge(game: &str, platform: &str, time_scale: &str, games: usize, garbage_error: &str) -> String {
    let dir = std::env::temp_dir().join(format!("cupzero-classic-{game}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("bot.rs");
    let out = run(&["export", game, "--engine", "classic", "--platform", platform, "--time-scale", time_scale, "-o", source.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&source).unwrap();
    assert!(text.contains("exported_classic_main") && !text.contains("const WEIGHTS: &str"), "a classic bot carries no weights");

    let binary = dir.join("bot");
    let compiled = Command::new("rustc").args(["--edition", "2021", "-O", "-o"]).arg(&binary).arg(&source).output().expect("rustc is needed for this test");
    let warnings = String::from_utf8_lossy(&compiled.stderr);
    assert!(compiled.status.success(), "rustc failed:\n{warnings}");
    assert!(!warnings.contains("warning"), "{warnings}");

    let records = dir.join("games.jsonl");
    let out = run(
        &[
            "judge", game, "--p0", binary.to_str().unwrap(), "--p1", "uct", "--games", &games.to_string(), "--parallel", "1", "--time-scale", time_scale,
            "--records", records.to_str().unwrap(),
        ],
        "",
    );
    let report = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains("faults: A 0 timeouts, 0 crashes, 0 illegal, 0 garbled"), "{report}");

    let mut child = Command::new(&binary).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"garbage\n").unwrap();
    assert_clean_error(&child.wait_with_output().unwrap(), garbage_error);
    let _ = std::fs::remove_dir_all(&dir);
    report
}

/// A's wins in the judge's report ("A: W-D-L (W-D-L)").
fn wins_of_a(report: &str) -> usize {
    let line = report.lines().find(|l| l.starts_with("A: ")).unwrap_or_else(|| panic!("{report}"));
    line[3..].split('-').next().unwrap().trim().parse().unwrap()
}

#[test]
fn connect4_classic_exports_and_beats_uct_on_the_clock() {
    let _serial = one_at_a_time();
    let report = export_compile_and_judge("connect4", "codingame", "1", 4, "myId oppId");
    assert!(wins_of_a(&report) >= 3, "{report}");
}

#[test]
fn blackhole_classic_exports_and_plays_on_the_clock() {
    let _serial = one_at_a_time();
    let report = export_compile_and_judge("blackhole", "codecup", "0.2", 2, "expected a field A1..H1");
    assert!(report.contains("games: 2"), "{report}");
}

#[test]
fn zuniq_classic_exports_and_plays_on_the_clock() {
    let _serial = one_at_a_time();
    let report = export_compile_and_judge("zuniq", "codecup", "0.1", 2, "expected Start or a move");
    assert!(report.contains("games: 2"), "{report}");
}

#[test]
fn classic_plays_in_the_arena_by_node_budget() {
    let _serial = one_at_a_time();
    let out = run(&["arena", "connect4", "--a", "classic", "--b", "random", "--games", "4", "--playouts", "20000", "--parallel", "1"], "");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains("A = classic") && report.contains("A: 4-0-0"), "{report}");
}

#[test]
fn games_without_a_classic_bot_refuse_it_with_one_line() {
    assert_clean_error(&run(&["play", "6561", "--engine", "classic"], ""), "6561 has no classic bot");
    assert_clean_error(&run(&["arena", "qttt", "--a", "classic", "--b", "random", "--games", "2"], ""), "qttt has no classic bot");
    let path = std::env::temp_dir().join(format!("cupzero-classic-refused-{}.rs", std::process::id()));
    assert_clean_error(&run(&["export", "qttt", "--engine", "classic", "--platform", "codecup", "-o", path.to_str().unwrap()], ""), "qttt has no classic bot");
    assert!(!path.exists(), "nothing written");
    assert_clean_error(
        &run(&["export", "connect4", "--engine", "classic", "--checkpoint", "checkpoints/connect4/net.czw", "--platform", "codingame", "-o", path.to_str().unwrap()], ""),
        "--checkpoint goes with --engine net",
    );
    assert_clean_error(&run(&["export", "connect4", "--platform", "codingame", "-o", path.to_str().unwrap()], ""), "--engine net needs --checkpoint");
    assert!(!path.exists(), "nothing written");
}
