//! The exported CodinGame bots play the moves of the weights they store, and the same moves as
//! they always have: each is exported with its searches capped at 200 playouts (seeded, so
//! repeatable), its weights in CodinGame's wide text, compiled with plain rustc and judged
//! against itself. The moves of those games must be the ones the same search plays in-process
//! with the weights the exporter says it stored (`--stored-weights`), and equal the ones kept in
//! `tests/data/exported-moves/`. A change to the protocol, the rules, the weights' text or the
//! search that changes a move shows here. A deliberate change of play writes the new moves with
//! `CUPZERO_BLESS=1 cargo test --release --test exported_moves`.

mod common;

use bots::agent::Agent;
use bots::book::{Book, BookAgent};
use bots::bot::{net_agent, Contest};
use bots::connect4::Connect4;
use bots::nn::Mlp;
use bots::uttt::Uttt;
use common::{one_at_a_time, run, temp_dir};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The moves of `games` judged games of the exported bot against itself, one game a line, and
/// the weights the file stores.
fn exported_self_play(game: &str, extra_judge_args: &[&str], games: usize) -> (String, PathBuf) {
    let dir = temp_dir(&format!("moves-{game}-{games}"));
    let source = dir.join("bot.rs");
    let binary = dir.join("bot");
    let stored = std::env::temp_dir().join(format!("cupzero-test-stored-{game}-{games}-{}.czw", std::process::id()));
    // Ten times the clock for the bot and the judge: a capped search never meets its deadline.
    let out = run(&["export", game, "--playouts", "200", "--time-scale", "10", "--stored-weights", stored.to_str().unwrap(), "-o", source.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("limit 100000 characters on CodinGame") && report.contains("15 bits a character"), "{report}");
    let text = std::fs::read_to_string(&source).unwrap();
    assert!(bots::text::utf16_units(&text) <= 100_000, "CodinGame's count");
    let compiled = Command::new("rustc").args(["--edition", "2021", "-O", "-o"]).arg(&binary).arg(&source).output().expect("rustc is needed for this test");
    assert!(compiled.status.success(), "rustc failed:\n{}", String::from_utf8_lossy(&compiled.stderr));
    let records = dir.join("games.jsonl");
    let bot = binary.to_str().unwrap();
    let games = games.to_string();
    let mut args = vec!["judge", game, "--p0", bot, "--p1", bot, "--games", &games];
    args.extend(["--parallel", "1", "--time-scale", "10", "--seed", "5", "--records", records.to_str().unwrap()]);
    args.extend(extra_judge_args);
    let out = run(&args, "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("faults: A 0 timeouts, 0 crashes, 0 illegal, 0 garbled; B 0 timeouts, 0 crashes, 0 illegal, 0 garbled"), "{report}");
    let moves: Vec<String> = std::fs::read_to_string(&records)
        .unwrap()
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            record["actions"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect::<Vec<_>>().join(" ")
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    (moves.join("\n") + "\n", stored)
}

/// The game the net bot's search (capped at 200 playouts, as exported) plays against itself
/// in-process with the weights in `stored` and the game's shipped book, if it has one (a
/// CodinGame bot searches its turn on a book position too, keeping the tree): each move seen by
/// both sides, as the protocol shows them.
fn stored_weights_self_play<G: Contest>(stored: &Path) -> String {
    let net = Mlp::from_bytes(&std::fs::read(stored).unwrap(), G::NAME).unwrap();
    let book_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints").join(G::NAME).join("book.txt");
    let book = book_file.is_file().then(|| Book::parse(&std::fs::read_to_string(&book_file).unwrap(), G::NAME).unwrap());
    let side = |net: Mlp| -> Box<dyn Agent<G>> {
        let agent = net_agent::<G>(net, Some(200)).unwrap();
        match &book {
            Some(book) => Box::new(BookAgent::new(book.clone(), agent).thinking_on_book_moves()),
            None => agent,
        }
    };
    let mut sides = [side(net.clone()), side(net)];
    // A deadline the 200-playout searches never meet, as in the exported bot.
    let deadline = Instant::now() + Duration::from_secs(3600);
    let mut state = G::new_game(&mut bots::rng::Rng::new(0));
    let mut moves = Vec::new();
    while !state.is_terminal() {
        let action = sides[state.to_move() as usize].choose(&state, Some(deadline));
        for side in sides.iter_mut() {
            side.observe(action);
        }
        moves.push(G::format_action(action));
        state.apply(action);
    }
    moves.join(" ") + "\n"
}

fn check(game: &str, moves: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/exported-moves").join(format!("{game}.txt"));
    if std::env::var_os("CUPZERO_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, moves).unwrap();
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (CUPZERO_BLESS=1 writes it)", path.display()));
    assert_eq!(moves, kept, "the exported {game} bot's moves changed");
}

#[test]
fn the_exported_ultimate_tic_tac_toe_bot_plays_its_stored_weights_and_kept_moves() {
    let _serial = one_at_a_time();
    // Seats swap between the two games, but a bot against itself replays one game: one is enough.
    let (moves, stored) = exported_self_play("uttt", &[], 1);
    assert_eq!(moves, stored_weights_self_play::<Uttt>(&stored), "the exported bot plays the weights it stores");
    let _ = std::fs::remove_file(&stored);
    check("uttt", &moves);
}

#[test]
fn the_exported_connect4_bot_plays_its_stored_weights_and_kept_moves() {
    let _serial = one_at_a_time();
    let (moves, stored) = exported_self_play("connect4", &[], 1);
    assert_eq!(moves, stored_weights_self_play::<Connect4>(&stored), "the exported bot plays the weights it stores");
    let _ = std::fs::remove_file(&stored);
    // And two random openings of four plies.
    check("connect4", &exported_self_play("connect4", &["--opening-plies", "4"], 4).0);
}
