//! `cupzero league` end to end: refusals, a kill in the middle and the resume, the report.

mod common;

use common::{assert_clean_error, one_at_a_time, run, temp_dir};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Three quick players: the built-in UCT bot on the clock (a program through the referee),
/// and two at budgets (in-process against each other, programs against the clock player).
const POOL: &str = "games_per_pairing = 4\n\
[[player]]\nname = \"uct-clock\"\nbuiltin = \"uct\"\n\
[[player]]\nname = \"uct-20\"\nbuiltin = \"uct\"\nplayouts = 20\n\
[[player]]\nname = \"random\"\nbuiltin = \"random\"\nplayouts = 1\n";

fn games_in(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap_or_default().lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

#[test]
fn bad_pools_unknown_players_and_missing_programs_are_refused_with_one_line() {
    let dir = temp_dir("refused");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let cases = [
        (write("bad.toml", "[[player]]\nname = \"a\"\nbuiltin = \"uct\"\nspeed = 3\n"), vec![], "unknown field"),
        (write("one.toml", "[[player]]\nname = \"a\"\nbuiltin = \"uct\"\n"), vec![], "at least two"),
        (write("missing.toml", "[[player]]\nname = \"a\"\nbuiltin = \"uct\"\n[[player]]\nname = \"b\"\ncommand = \"./no-such-bot --fast\"\n"), vec![], "program \"./no-such-bot\" not found"),
        (write("nonet.toml", "[[player]]\nname = \"a\"\nbuiltin = \"uct\"\n[[player]]\nname = \"b\"\nnet = \"missing.czw\"\n"), vec![], "no net at"),
        (write("ok.toml", POOL), vec!["--gauntlet", "nobody"], "no player \"nobody\""),
    ];
    for (pool, extra, why) in &cases {
        let mut args = vec!["league", "qttt", "--pool", pool.as_str()];
        args.extend(extra.iter().copied());
        assert_clean_error(&run(&args, ""), why);
    }
    assert_clean_error(&run(&["league", "qttt", "--pool", dir.join("absent.toml").to_str().unwrap()], ""), "absent.toml");
    let written: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| !n.ends_with(".toml")).collect();
    assert!(written.is_empty(), "nothing written: {written:?}");
}

/// Killed while it plays, the league resumes: every game of every pairing once, none lost.
#[test]
fn a_league_killed_mid_run_resumes_without_losing_or_repeating_a_game() {
    let _serial = one_at_a_time();
    let dir = temp_dir("resume");
    let pool = dir.join("pool.toml");
    std::fs::write(&pool, POOL).unwrap();
    let results = dir.join("pool.results.jsonl");
    let args = ["league", "qttt", "--pool", pool.to_str().unwrap(), "--time-scale", "0.2"];
    let mut league = Command::new(common::exe()).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let started = Instant::now();
    while games_in(&results).len() < 4 && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    league.kill().unwrap();
    league.wait().unwrap();
    let before = games_in(&results).len();
    assert!((4..12).contains(&before), "killed after {before} of 12 games");
    // A line cut short by the kill is dropped and its game played again.
    let mut text = std::fs::read_to_string(&results).unwrap();
    text.push_str("{\"a\":\"uct-clock\",\"b\":\"ra");
    std::fs::write(&results, text).unwrap();

    let out = run(&args, "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("cut short"), "{stderr}");
    let games = games_in(&results);
    assert_eq!(games.len(), 12, "3 pairings x 4 games");
    let mut seen = BTreeMap::new();
    for g in &games {
        *seen.entry((g["a"].as_str().unwrap().to_string(), g["b"].as_str().unwrap().to_string(), g["game"].as_u64().unwrap())).or_insert(0) += 1;
    }
    assert_eq!(seen.len(), 12, "each game once: {seen:?}");
    // Pairs share a seed, the seats swap.
    for g in &games {
        assert_eq!(g["seed"].as_u64().unwrap(), 1 + g["game"].as_u64().unwrap() / 2);
    }
    // Budget players meet in-process; against the clock player, through the referee.
    for g in &games {
        let in_process = g["end"].as_str().unwrap().starts_with("in-process");
        assert_eq!(in_process, g["a"] == "uct-20" && g["b"] == "random", "{g}");
    }
    for name in ["uct-clock", "uct-20", "random"] {
        assert!(stdout.lines().any(|l| l.contains(name) && l.contains('±')), "{name} rated: {stdout}");
    }
    assert!(stdout.contains("uct-clock vs uct-20: 4 games"), "{stdout}");
    assert!(std::fs::read_to_string(results.with_extension("svg")).unwrap().starts_with("<svg"));
    // Run again: nothing left to play, the same report.
    let again = run(&args, "");
    assert_eq!(games_in(&results).len(), 12);
    assert_eq!(String::from_utf8_lossy(&again.stdout), stdout);
}

/// A gauntlet under a sequential test: the shipped net at a budget, in-process, stops each
/// pairing once the test decides, and says so.
#[test]
fn a_gauntlet_with_a_sequential_test_stops_each_pairing_when_it_is_decided() {
    let dir = temp_dir("gauntlet");
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/connect4/net.czw");
    let pool = dir.join("pool.toml");
    let text = format!(
        "games_per_pairing = 100\nopening_plies = 2\n\
         [[player]]\nname = \"net\"\nnet = {net:?}\nplayouts = 40\n\
         [[player]]\nname = \"random\"\nbuiltin = \"random\"\nplayouts = 1\n\
         [[player]]\nname = \"uct-10\"\nbuiltin = \"uct\"\nplayouts = 10\n"
    );
    std::fs::write(&pool, text).unwrap();
    let out = run(&["league", "connect4", "--pool", pool.to_str().unwrap(), "--gauntlet", "net", "--sprt", "0,200"], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("SPRT(0, 200) net vs random: H1 accepted"), "{stdout}");
    let games = games_in(&dir.join("pool.results.jsonl"));
    for opponent in ["random", "uct-10"] {
        let played = games.iter().filter(|g| g["b"] == opponent).count();
        assert!((4..100).contains(&played), "{played} games against {opponent}");
    }
    assert!(games.iter().all(|g| g["a"] == "net" && g["end"].as_str().unwrap().starts_with("in-process")), "{games:?}");
}
