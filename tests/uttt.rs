//! Ultimate tic-tac-toe end to end: the shipped net's export fits CodinGame's 100,000 characters,
//! compiles with plain rustc and plays legal games on the clock through the judge, both seats;
//! the classic bot does the same; garbage gets one error line.

mod common;

use common::{compile_judge_and_feed_garbage, one_at_a_time, run, temp_dir};

#[test]
fn the_net_bot_exports_under_the_limit_and_plays_on_the_clock() {
    let _serial = one_at_a_time();
    let dir = temp_dir("uttt-net");
    let source = dir.join("bot.rs");
    let out = run(&["export", "uttt", "-o", source.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&source).unwrap();
    let characters = bots::text::utf16_units(&text);
    assert!(characters <= 100_000, "{characters} characters (UTF-16 units)");
    assert!(text.contains("const WEIGHTS: &str") && !text.contains("connect4") && !text.contains("DecisivePlayouts"), "only the net bot's modules travel");
    let (report, records) = compile_judge_and_feed_garbage(&source, "uttt", "uct", "1", 2, "the opponent's last action");
    assert!(report.contains("games: 2"), "{report}");
    assert_eq!(records.lines().count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_classic_bot_exports_and_plays_on_the_clock() {
    let _serial = one_at_a_time();
    let dir = temp_dir("uttt-classic");
    let source = dir.join("bot.rs");
    let out = run(&["export", "uttt", "--engine", "classic", "-o", source.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (report, _) = compile_judge_and_feed_garbage(&source, "uttt", "random", "1", 2, "the opponent's last action");
    assert!(report.contains("A: 2-0-0"), "the classic bot beats random play: {report}");
    let _ = std::fs::remove_dir_all(&dir);
}
