//! The judge end to end: built-in bots, faulty programs, records.

mod common;

use common::{assert_clean_error, one_at_a_time, run, temp_dir};
use std::path::PathBuf;

fn records(path: &PathBuf) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn uct_beats_random_through_the_protocol_without_faults() {
    let _serial = one_at_a_time();
    let dir = temp_dir("uct");
    let path = dir.join("games.jsonl");
    let out = run(
        &["judge", "connect4", "--p0", "uct", "--p1", "random", "--games", "4", "--parallel", "1", "--records", path.to_str().unwrap()],
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
        ("false", "crash"),
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

/// `--opening` starts every game from the same actions, both seats in turn, then the random
/// plies; an opening that cannot be played is one error before any game.
#[test]
fn every_game_starts_from_the_given_opening() {
    let _serial = one_at_a_time();
    let dir = temp_dir("opening");
    let path = dir.join("games.jsonl");
    let out = run(
        &["judge", "connect4", "--p0", "random", "--p1", "random", "--games", "4", "--opening", "1 STEAL 4", "--opening-plies", "1", "--records", path.to_str().unwrap(), "--by-opening", "3"],
        "",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Both seats played the one line twice.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("A by the first 3 plies"), "{stdout}");
    for seat in 0..2 {
        assert!(stdout.contains(&format!("A as seat {seat}, 1 lines:\n  1 STEAL 4     2 games")), "{stdout}");
    }
    let games = records(&path);
    assert_eq!(games.len(), 4);
    // The same report from the records alone; four plies part the games by the random one.
    let out = run(&["judge", "connect4", "--p0", "x", "--p1", "y", "--summarize", path.to_str().unwrap(), "--by-opening", "4"], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("A by the first 4 plies"), "{stdout}");
    let shown: u32 = stdout.lines().filter(|l| l.starts_with("  1 STEAL 4 ")).map(|l| l.split_whitespace().nth(4).unwrap().parse::<u32>().unwrap()).sum();
    assert_eq!(shown, 4, "every game in one line: {stdout}");
    for g in &games {
        let actions: Vec<&str> = g["actions"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        assert_eq!(&actions[..3], ["1", "STEAL", "4"], "{g}");
        assert!(actions.len() >= 4 + 3, "the opening, one random ply, then the game: {g}");
    }
    // Games 2k and 2k + 1 share the random ply (one seed, seats swapped).
    assert_eq!(games[0]["actions"][3], games[1]["actions"][3]);
    for (opening, error) in [("1 STEAL STEAL", "action 3 (STEAL) is illegal here"), ("1 x", "cannot read action"), ("0 0 0 0 0 0 0 0 0 0", "illegal")] {
        let bad = dir.join("bad.jsonl");
        let out = run(&["judge", "connect4", "--p0", "random", "--p1", "random", "--games", "2", "--opening", opening, "--records", bad.to_str().unwrap()], "");
        assert_clean_error(&out, error);
        assert!(!bad.exists(), "{opening}: no game was played");
    }
    let out = run(&["judge", "zuniq", "--p0", "random", "--p1", "random", "--games", "2", "--opening", "a1b1"], "");
    assert_clean_error(&out, "cannot start from an opening");
}

/// A program that cannot be started is one error before the match, not games lost to crashes.
#[test]
fn a_program_that_is_not_there_is_an_error_before_any_game() {
    let dir = temp_dir("missing-program");
    let records = dir.join("r.jsonl");
    let plain_file = dir.join("not-executable");
    std::fs::write(&plain_file, "#!/bin/sh\n").unwrap();
    let plain_file = plain_file.to_str().unwrap();
    for (player, named) in [("./no-such-bot --fast", "./no-such-bot"), ("no-such-program-on-path", "no-such-program-on-path"), (plain_file, plain_file)] {
        let out = run(&["judge", "connect4", "--p0", "random", "--p1", player, "--games", "2", "--records", records.to_str().unwrap()], "");
        assert_clean_error(&out, &format!("program {named:?} not found"));
        assert!(!records.exists(), "{player}: no game was played");
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

/// Processes whose command line names `marker` and that still run (zombies are dead).
fn live_processes_naming(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let dir = entry.path();
        let Ok(cmdline) = std::fs::read(dir.join("cmdline")) else { continue };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim_start().chars().next();
        if cmdline.contains(marker) && state != Some('Z') {
            found.push(format!("{}: {cmdline}", dir.display()));
        }
    }
    found
}

/// Programs that try to hang the judge or outlive the game: each ends as a forfeit with its
/// reason within its clock plus a small grace, and leaves no process behind.
#[cfg(target_os = "linux")]
#[test]
fn no_program_can_hang_the_judge_or_outlive_its_game() {
    let _serial = one_at_a_time();
    let dir = temp_dir("hostile");
    let bot = common::exe();
    // Zuniq at a twentieth of the clock: 1.5 s a game each. The hostile program sits in seat 0
    // (it reads Start); A1h is a legal first move.
    let cases: [(&str, String, Option<&str>); 8] = [
        ("flood", "cat /dev/zero >&2 &\nexec yes garbage\n".into(), Some("garbled")),
        ("endless-line", "exec cat /dev/zero\n".into(), Some("garbled")),
        ("half-line", "read start\nprintf A1\nexec sleep 97\n".into(), Some("timeout")),
        ("closes-stdout", "read start\nexec >&-\nexec sleep 97\n".into(), Some("crash")),
        ("exits-mid-game", "read start\necho A1h\nread reply\nexit 0\n".into(), Some("crash")),
        ("child-holds-the-pipe", "read start\necho A1h\nread reply\nsleep 97 &\nexit 0\n".into(), Some("timeout")),
        // One write holds both lines: a line written after the judge stopped the program would
        // only come out on its next turn, where it is an answer like any other.
        ("extra-lines", "read start\nprintf 'A1h\\nB1h\\n'\nexec sleep 97\n".into(), Some("garbled")),
        ("ignores-quit", format!("trap '' TERM INT HUP\n{bot} play zuniq --engine random --quiet --time-scale 0.05\nexec sleep 97\n"), None),
    ];
    for (name, script, fault) in &cases {
        let path = dir.join(format!("{name}.sh"));
        std::fs::write(&path, script).unwrap();
        let records_path = dir.join(format!("{name}.jsonl"));
        let started = std::time::Instant::now();
        let out = run(
            &[
                "judge", "zuniq", "--p0", &format!("sh {}", path.display()), "--p1", "random", "--games", "1", "--time-scale", "0.05",
                "--records", records_path.to_str().unwrap(),
            ],
            "",
        );
        let took = started.elapsed();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        // 1.5 s of clock, the other player's 1.5 s at most, and a grace for starting programs.
        assert!(took < std::time::Duration::from_secs(6), "{name}: the judge took {took:?}");
        let game = &records(&records_path)[0];
        match fault {
            Some(kind) => {
                assert_eq!(game["fault"]["player"], "A", "{name}: {game}");
                assert_eq!(game["fault"]["kind"], *kind, "{name}: {game}");
                assert!(!game["fault"]["detail"].as_str().unwrap().is_empty(), "{name}: a reason is given");
                assert_eq!(game["points"][0], 0.0, "{name}: {game}");
            }
            None => assert!(game["fault"].is_null(), "{name}: {game}"),
        }
        let left = live_processes_naming(path.to_str().unwrap());
        assert!(left.is_empty(), "{name} left processes behind: {left:?}");
    }
    // Children that name no script (the flood's writer, the sleepers) must be gone with
    // their groups too.
    for marker in ["cat /dev/zero", "sleep 97"] {
        let left = live_processes_naming(marker);
        assert!(left.is_empty(), "left behind: {left:?}");
    }
}

/// In a CodeCup game the judge stops a program, children included, while the other thinks,
/// as CodeCup's does; `--no-suspend` lets it run.
#[cfg(target_os = "linux")]
#[test]
fn codecup_programs_are_suspended_while_the_other_thinks() {
    let _serial = one_at_a_time();
    let dir = temp_dir("suspend");
    let mut ticked = Vec::new();
    for suspend in [true, false] {
        let ticks = dir.join(format!("ticks-{suspend}.txt"));
        let ticker = format!("while :; do date +%s%N; sleep 0.005; done >> {} &\nexec {} play zuniq --engine random --quiet --time-scale 0.1\n", ticks.display(), common::exe());
        let script = dir.join("ticker.sh");
        std::fs::write(&script, ticker).unwrap();
        // uct thinks about 2.7 s of its 3 s; the random player at once.
        let mut args = vec!["judge", "zuniq", "--p0", "uct", "--games", "1", "--time-scale", "0.1"];
        let p1 = format!("sh {}", script.display());
        args.extend(["--p1", &p1]);
        if !suspend {
            args.push("--no-suspend");
        }
        let out = run(&args, "");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        // "thinking a game: A 2345 ms, ...": how long uct thought.
        let uct_ms: f64 = stdout.split("thinking a game: A ").nth(1).and_then(|t| t.split(' ').next()).and_then(|ms| ms.parse().ok()).expect(&stdout);
        assert!(uct_ms > 500.0, "uct thought {uct_ms} ms");
        let lines = std::fs::read_to_string(&ticks).unwrap().lines().filter(|l| l.trim().parse::<u64>().is_ok()).count();
        ticked.push((lines, uct_ms / 1000.0));
    }
    // Counted, not timed: on a loaded machine a resumed ticker may not finish a line in the
    // moment the random player takes, so stalls between lines go unseen; the count still tells.
    let [(suspended, _), (running, thought)] = ticked[..] else { unreachable!() };
    assert!(running as f64 >= 20.0 * thought, "not suspended: the ticker wrote only {running} lines while uct thought {thought:.2} s");
    assert!(suspended * 4 <= running, "suspended: the ticker wrote {suspended} lines, running {running}");
}
