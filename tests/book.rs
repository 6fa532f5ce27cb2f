//! Opening books end to end: `cupzero book` from the shipped net, `export --book`, the compiled
//! bot playing its book move on the contest protocol, and the refusals.

mod common;

use bots::book::Book;
use bots::connect4::Connect4;
use bots::game::Game;
use bots::rng::Rng;
use common::{assert_clean_error, compile_judge_and_feed_garbage, run, temp_dir};

fn shipped(game: &str) -> String {
    format!("{}/checkpoints/{game}/net.czw", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn an_exported_connect4_bot_plays_its_book_move() {
    let dir = temp_dir("book");
    let book = dir.join("c4.book");
    let out = run(&["book", "connect4", "--checkpoint", &shipped("connect4"), "--plies", "2", "--replies", "1", "--playouts", "300", "-o", book.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 positions"), "{}", String::from_utf8_lossy(&out.stdout));
    // The start's entry: the bot's first move as the first player.
    let text = std::fs::read_to_string(&book).unwrap();
    assert!(text.contains("\ngame connect4\n"), "{text}");
    let source = dir.join("bot.rs");
    let out = run(&["export", "connect4", "--checkpoint", &shipped("connect4"), "--book", book.to_str().unwrap(), "--platform", "codingame", "-o", source.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let code = std::fs::read_to_string(&source).unwrap();
    // The book travels packed, in the weights' wide alphabet: 6 bytes a position, 3.2 characters.
    let packed = Book::parse(&text, "connect4").unwrap().to_packed::<Connect4>();
    let embedded = bots::text::bytes_to_text(&packed, bots::text::Alphabet::Wide, 1000);
    let characters = bots::text::utf16_units(&code);
    assert!(characters <= 100_000 && code.contains(&format!("const BOOK: &str = \"{embedded}\";")), "{characters} characters, the book {embedded} embedded");
    assert!(embedded.chars().count() <= "19=".len() + 11, "3 positions in {embedded}");
    let (report, records) = compile_judge_and_feed_garbage(&source, "connect4", "random", "1", 2, "myId oppId");
    assert!(report.contains("games: 2"), "{report}");
    // As the first player the bot opens with the book's move for the empty board.
    let start = <Connect4 as Game>::new_game(&mut Rng::new(0));
    let opening = Book::parse(&text, "connect4").unwrap().lookup(&start).expect("the start is in the book");
    let mut first_moves = Vec::new();
    for game in records.lines() {
        let record: serde_json::Value = serde_json::from_str(game).unwrap();
        if record["seats"][0] == "A" {
            first_moves.push(record["actions"][0].as_str().unwrap().to_string());
        }
    }
    assert_eq!(first_moves, vec![Connect4::format_action(opening)]);
    // In-process too: the arena's players take a book.
    let out = run(&["arena", "connect4", "--a", &shipped("connect4"), "--b", "random", "--a-book", book.to_str().unwrap(), "--games", "2", "--playouts", "50"], "");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && report.contains("a book of 3 positions"), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--positions`: a fixed number of searches, the likeliest positions first; the exported bot
/// answers the first column from its book.
#[test]
fn a_book_by_reach_holds_its_number_of_positions() {
    let dir = temp_dir("book-reach");
    let book = dir.join("c4.book");
    let out = run(&["book", "connect4", "--checkpoint", &shipped("connect4"), "--positions", "8", "--plies", "6", "--playouts", "200", "-o", book.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains(": 8 positions"), "{}", String::from_utf8_lossy(&out.stdout));
    // A smaller book from the same settings takes its moves from the larger one: its entries
    // are the first searches of each seat.
    let smaller = dir.join("c4-small.book");
    let out = run(&["book", "connect4", "--checkpoint", &shipped("connect4"), "--positions", "4", "--plies", "6", "--playouts", "200", "--reuse", book.to_str().unwrap(), "-o", smaller.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let entries = |path: &std::path::Path| std::fs::read_to_string(path).unwrap().lines().filter(|l| !l.starts_with('#') && !l.starts_with("game")).map(str::to_string).collect::<Vec<_>>();
    let (large, small) = (entries(&book), entries(&smaller));
    assert_eq!(small.len(), 4);
    assert!(small.iter().all(|e| large.contains(e)), "{small:?} not all in {large:?}");
    let book = Book::parse(&std::fs::read_to_string(&book).unwrap(), "connect4").unwrap();
    let mut after = <Connect4 as Game>::new_game(&mut Rng::new(0));
    after.apply(4);
    assert!(book.lookup(&after).is_some(), "no answer to the centre column");
    let out = run(&["book", "connect4", "--checkpoint", &shipped("connect4"), "--positions", "0", "-o", dir.join("x.book").to_str().unwrap()], "");
    assert_clean_error(&out, "--plies, --playouts and --positions must be at least 1");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn books_are_refused_where_they_cannot_work() {
    let dir = temp_dir("book-refusals");
    let book = dir.join("bh.book");
    let out = run(&["book", "blackhole", "--checkpoint", &shipped("blackhole"), "-o", book.to_str().unwrap()], "");
    assert_clean_error(&out, "blackhole starts from a random setup");
    assert!(!book.exists());
    let out = run(&["book", "qttt", "--checkpoint", &shipped("qttt"), "--engine", "classic", "-o", book.to_str().unwrap()], "");
    assert_clean_error(&out, "--engine classic needs a game with a classic bot, and qttt has none");
    std::fs::write(&book, "game zuniq\n0123456789abcdef 3\n").unwrap();
    let out = run(&["export", "connect4", "--checkpoint", &shipped("connect4"), "--book", book.to_str().unwrap(), "--platform", "codingame", "-o", dir.join("x.rs").to_str().unwrap()], "");
    assert_clean_error(&out, "a zuniq book, not connect4");
    std::fs::write(&book, "game connect4\nnot a key\n").unwrap();
    let out = run(&["export", "connect4", "--checkpoint", &shipped("connect4"), "--book", book.to_str().unwrap(), "--platform", "codingame", "-o", dir.join("x.rs").to_str().unwrap()], "");
    assert_clean_error(&out, "entry 2: expected a hex key and an action");
    assert!(!dir.join("x.rs").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Zuniq book kept beside the shipped net (`checkpoints/zuniq/opening-book.txt`; not
/// exported by default: no judged gain) is a Zuniq book whose every entry is reached from the
/// start through book positions and holds a move that is legal there (under the symmetry that
/// finds it).
#[test]
fn the_kept_zuniq_book_is_reachable_and_legal() {
    use bots::book::canonical_key;
    use bots::game::ActionList;
    use bots::zuniq::Zuniq;
    use std::collections::HashSet;
    let text = std::fs::read_to_string(format!("{}/checkpoints/zuniq/opening-book.txt", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let book = Book::parse(&text, "zuniq").unwrap();
    let start = Zuniq::new();
    assert!(book.lookup(&start).is_some(), "the start is in the book");
    let mut reached = HashSet::from([canonical_key(&start).0]);
    let mut frontier = vec![start];
    let mut legal = ActionList::new();
    while let Some(state) = frontier.pop() {
        assert!(book.lookup(&state).is_some(), "a book position without a legal move");
        state.legal_actions(&mut legal);
        for &a in legal.iter() {
            let mut child = state.clone();
            child.apply(a);
            if book.contains(&child) && reached.insert(canonical_key(&child).0) {
                frontier.push(child);
            }
        }
    }
    assert_eq!(reached.len(), book.len(), "every entry is reached from the start");
}
