//! Zero Point One end to end: the shipped net's export fits CodeCup's 1,474,560 bytes, compiles
//! with plain rustc and plays legal games on a scaled clock through the judge, both colours;
//! the classic bot beats random play; garbage gets one error line, and so does an unknown piece
//! letter or square.

mod common;

use common::{compile_judge_and_feed_garbage, one_at_a_time, run, temp_dir};

#[test]
fn the_net_bot_exports_under_the_limit_and_plays_on_the_clock() {
    let _serial = one_at_a_time();
    let dir = temp_dir("zeropointone-net");
    let source = dir.join("bot.rs");
    let out = run(&["export", "zeropointone", "--time-scale", "0.05", "-o", source.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::metadata(&source).unwrap().len();
    assert!(bytes <= 1_474_560, "{bytes} bytes");
    let (report, records) = compile_judge_and_feed_garbage(&source, "zeropointone", "random", "0.05", 2, "expected Start or a move");
    assert!(report.contains("games: 2"), "{report}");
    assert_eq!(records.lines().count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_classic_bot_exports_and_beats_random_play() {
    let _serial = one_at_a_time();
    let dir = temp_dir("zeropointone-classic");
    let source = dir.join("bot.rs");
    let out = run(&["export", "zeropointone", "--engine", "classic", "--time-scale", "0.05", "-o", source.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (report, _) = compile_judge_and_feed_garbage(&source, "zeropointone", "random", "0.05", 2, "expected Start or a move");
    assert!(report.contains("A: 2-0-0"), "the classic bot beats random play: {report}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unknown_piece_or_square_is_one_line() {
    for (input, says) in [
        ("WNFFDDDDAAAAAAAX\n", "a setup of 16 letters"),
        ("WNFFDDDDAAAAAAAA\nb1j3\n", "cannot read action \"b1j3\""),
        ("Start\nwnffddddaaaaaaaa\nKd4\n", "cannot read action \"Kd4\""),
        ("Start\nwnffddddaaaaaaaa\nWd4\n", "cannot read action \"Wd4\""),
    ] {
        let out = run(&["play", "zeropointone", "--engine", "classic", "--time-scale", "0.05", "--quiet"], input);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{input:?}");
        assert_eq!(err.trim().lines().count(), 1, "{input:?}: {err}");
        assert!(err.contains(says), "{input:?}: {err}");
    }
}
