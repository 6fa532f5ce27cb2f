//! `cupzero compare`: paired differences between two matches on the same seeds.

mod common;

use common::run;

fn temp(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("cupzero-compare-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// Judge-style and arena-style records pair by seed; the margin difference is the
/// mean of the per-game differences, with the normal 95% interval.
#[test]
fn paired_differences_of_judge_and_arena_records() {
    // A's margins: first file +10, +4, -2, +0; second file +6, +4, -4, -2: differences 4, 0, 2, 2.
    let first = temp(
        "first.jsonl",
        concat!(
            r#"{"game":0,"seed":7,"seats":["A","B"],"points":[80,70]}"#, "\n",
            r#"{"game":1,"seed":8,"seats":["B","A"],"points":[77,73]}"#, "\n",
            r#"{"game":2,"seed":9,"seats":["A","B"],"points":[74,76]}"#, "\n",
            r#"{"game":3,"seed":10,"seats":["B","A"],"points":[75,75]}"#, "\n",
        ),
    );
    let second = temp(
        "second.jsonl",
        concat!(
            r#"{"game":0,"seed":7,"a_seat":0,"points":[78,72]}"#, "\n",
            r#"{"game":1,"seed":8,"a_seat":1,"points":[77,73]}"#, "\n",
            r#"{"game":2,"seed":9,"a_seat":0,"points":[73,77]}"#, "\n",
            r#"{"game":3,"seed":10,"a_seat":1,"points":[74,76]}"#, "\n",
            r#"{"game":4,"seed":11,"a_seat":0,"points":[74,76]}"#, "\n",
        ),
    );
    let out = run(&["compare", first.to_str().unwrap(), second.to_str().unwrap()], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("paired games: 4 (only in the first: 0, only in the second: 1)"), "{stdout}");
    // Mean 2, sample sd sqrt(8/3), half interval 1.96 * sd / 2 = 1.60.
    assert!(stdout.contains("margin +2.00 a game (95% CI +0.40..+3.60)"), "{stdout}");
    // A's points: differences 2, 0, 1, 1; mean 1, sd sqrt(2/3), half interval 0.80.
    assert!(stdout.contains("A's points +1.00 a game (95% CI +0.20..+1.80)"), "{stdout}");
    // Scores: first W W L D (62.5%), second W W L L (50%).
    assert!(stdout.contains("score +12.5 points %"), "{stdout}");

    let swapped = temp("swapped.jsonl", r#"{"game":0,"seed":7,"a_seat":1,"points":[78,72]}"#);
    common::assert_clean_error(&run(&["compare", first.to_str().unwrap(), swapped.to_str().unwrap()], ""), "seed 7 has A in seat 0");
    let other = temp("other.jsonl", r#"{"game":0,"seed":99,"a_seat":0,"points":[78,72]}"#);
    common::assert_clean_error(&run(&["compare", first.to_str().unwrap(), other.to_str().unwrap()], ""), "same --seed");
    let twice = temp("twice.jsonl", concat!(r#"{"game":0,"seed":7,"a_seat":0,"points":[78,72]}"#, "\n", r#"{"game":1,"seed":7,"a_seat":1,"points":[70,80]}"#, "\n"));
    common::assert_clean_error(&run(&["compare", first.to_str().unwrap(), twice.to_str().unwrap()], ""), "seed 7 appears twice");
    // Two runs of two games from seeds 7 and 9, concatenated, pair with the run of four from 7.
    let chunks = temp(
        "chunks.jsonl",
        concat!(
            r#"{"game":0,"seed":7,"a_seat":0,"points":[78,72]}"#, "\n",
            r#"{"game":1,"seed":8,"a_seat":1,"points":[77,73]}"#, "\n",
            r#"{"game":0,"seed":9,"a_seat":0,"points":[73,77]}"#, "\n",
            r#"{"game":1,"seed":10,"a_seat":1,"points":[74,76]}"#, "\n",
        ),
    );
    let out = run(&["compare", first.to_str().unwrap(), chunks.to_str().unwrap()], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("paired games: 4 (only in the first: 0, only in the second: 0)"), "{stdout}");
    assert!(stdout.contains("margin +2.00 a game (95% CI +0.40..+3.60)"), "{stdout}");
    let garbage = temp("garbage.jsonl", "not json\n");
    common::assert_clean_error(&run(&["compare", first.to_str().unwrap(), garbage.to_str().unwrap()], ""), "line 1");
}

/// `arena --records` writes what `compare` reads: a match compared with itself differs by 0.
#[test]
fn arena_records_compare_with_themselves() {
    let records = std::env::temp_dir().join(format!("cupzero-compare-{}-arena.jsonl", std::process::id()));
    let out = run(&["arena", "blackhole", "--a", "classic", "--b", "random", "--games", "6", "--playouts", "200", "--records", records.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&records).unwrap().lines().count(), 6);
    let out = run(&["compare", records.to_str().unwrap(), records.to_str().unwrap()], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("paired games: 6") && stdout.contains("margin +0.00 a game"), "{stdout}");
}
