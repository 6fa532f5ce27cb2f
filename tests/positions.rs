//! The labelled position set: `positions` samples judged games and labels them with a net's
//! deep search, `grade` measures nets against the labels, and bad sets are refused in one line.

mod common;

use common::{assert_clean_error, run, temp_dir};
use std::path::{Path, PathBuf};

fn shipped(game: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints").join(game).join("net.czw")
}

fn ok(args: &[&str]) -> String {
    let out = run(args, "");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_set_from_arena_games_grades_its_own_search_perfectly_and_refuses_damage() {
    let dir = temp_dir("positions");
    let records = dir.join("games.jsonl");
    let net = shipped("uttt");
    let net = net.to_str().unwrap();
    ok(&["arena", "uttt", "--a", net, "--b", "uct", "--playouts", "30", "--games", "6", "--random-opening", "2", "--records", records.to_str().unwrap()]);
    let set = dir.join("uttt.positions");
    let made = ok(&["positions", "uttt", "--records", records.to_str().unwrap(), "--net", net, "--count", "60", "--playouts", "150", "--threads", "2", "-o", set.to_str().unwrap()]);
    assert!(made.contains("60 positions of uttt"), "{made}");
    let text = std::fs::read_to_string(&set).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("p ")).count(), 60);
    assert!(text.lines().filter(|l| l.starts_with("g ")).count() <= 6);

    // The labels are the net's own search at 150 playouts: the same search agrees on every
    // position (move and value); the raw policy and a shorter search do not.
    let graded = ok(&["grade", "uttt", "--set", set.to_str().unwrap(), net, "--playouts", "150"]);
    assert!(graded.contains("60 positions of uttt"), "{graded}");
    assert!(graded.contains("search at 150 playouts: move 100.0%, value MSE 0.0000"), "{graded}");
    let short = ok(&["grade", "uttt", "--set", set.to_str().unwrap(), net, "--playouts", "5"]);
    assert!(!short.contains("move 100.0%"), "{short}");

    // Damage: an illegal best action, a position past the game's end, another game's set.
    let lines: Vec<&str> = text.lines().collect();
    let first_position = lines.iter().position(|l| l.starts_with("p ")).unwrap();
    let mut fields: Vec<String> = lines[first_position].split(' ').map(String::from).collect();
    let (game, plies) = (fields[1].clone(), fields[2].clone());
    let damaged = |name: &str, replace: String| {
        let mut copy: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        copy[first_position] = replace;
        let path = dir.join(name);
        std::fs::write(&path, copy.join("\n")).unwrap();
        path
    };
    // The game's first action is taken once the position's actions are played (plies >= 1).
    let game_line = lines.iter().filter(|l| l.starts_with("g ")).nth(game.parse().unwrap()).unwrap();
    let first_action = game_line.split(' ').nth(2).unwrap();
    if plies != "0" {
        fields[4] = first_action.to_string();
        let path = damaged("taken.positions", fields.join(" "));
        assert_clean_error(&run(&["grade", "uttt", "--set", path.to_str().unwrap(), net], ""), &format!("line {}: the best action", first_position + 1));
    }
    let path = damaged("past.positions", format!("p {game} 999 0.5 44 0"));
    assert_clean_error(&run(&["grade", "uttt", "--set", path.to_str().unwrap(), net], ""), "has no position after 999 actions");
    let path = damaged("value.positions", format!("p {game} 0 1.5 44 0"));
    assert_clean_error(&run(&["grade", "uttt", "--set", path.to_str().unwrap(), net], ""), "not a number in [-1, 1]");
    let connect4 = shipped("connect4");
    assert_clean_error(&run(&["grade", "connect4", "--set", set.to_str().unwrap(), connect4.to_str().unwrap()], ""), "the set is of uttt, not connect4");
    // Asking for more positions than the games hold writes nothing.
    let too_many = dir.join("too-many.positions");
    assert_clean_error(&run(&["positions", "uttt", "--records", records.to_str().unwrap(), "--net", net, "--count", "100000", "-o", too_many.to_str().unwrap()], ""), "fewer than --count 100000");
    assert!(!too_many.exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// Every shipped labelled set still replays under today's rules and grades its game's shipped
/// net: 10,000 positions, each a legal position of a recorded game with a legal best move.
#[test]
fn every_shipped_set_replays_and_grades_the_shipped_net() {
    let checkpoints = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints");
    for game in ["uttt", "connect4", "qttt", "blackhole", "zuniq"] {
        let set = checkpoints.join(game).join("positions.txt");
        assert!(set.is_file(), "{} is missing", set.display());
        let out = ok(&["grade", game, "--set", set.to_str().unwrap(), shipped(game).to_str().unwrap(), "--threads", "2"]);
        assert!(out.contains(&format!("10000 positions of {game}")), "{out}");
        assert!(out.contains("value MSE") && out.contains("top move"), "{out}");
    }
}
