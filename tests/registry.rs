//! A game is its folder and one line of the registry: outside `bots/src/<game>/`, the
//! program's code (tests aside) reaches no game by name. Every command, the judge, the
//! trainer, the fuzz targets and the exporter find the games through `bots::GAMES` and
//! `with_game!`.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The game modules of `bots`: the folders of `bots/src` with a `mod.rs`.
fn game_modules(root: &Path) -> Vec<String> {
    let mut games: Vec<String> = std::fs::read_dir(root.join("bots/src"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("mod.rs").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    games.sort();
    games
}

#[test]
fn no_code_outside_a_games_folder_names_the_game() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let games = game_modules(root);
    assert!(games.len() >= 5, "{games:?}");
    let mut files = Vec::new();
    for dir in ["src", "selfplay/src", "model/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        // Unit tests may pick a game to test on.
        let code = text.split("#[cfg(test)]").next().unwrap();
        for game in &games {
            for (n, line) in code.lines().enumerate() {
                // The fuzzer's example of an opening book is a shipped one.
                if line.contains("BookTarget") || line.contains("opening-book.txt") {
                    continue;
                }
                if line.contains(&format!("bots::{game}::")) || line.contains(&format!("bots::{{{game}")) {
                    found.push(format!("{}:{}: {}", file.strip_prefix(root).unwrap().display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "code that names a game outside its folder:\n{}", found.join("\n"));
}

#[test]
fn the_registry_lists_every_game_folder_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut registered: Vec<&str> = bots::GAMES.iter().map(|g| g.module).collect();
    registered.sort();
    assert_eq!(registered, game_modules(root), "every folder with a mod.rs is a registered game");
    let mut names: Vec<&str> = bots::GAMES.iter().map(|g| g.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), bots::GAMES.len(), "game names are unique");
    for game in bots::GAMES {
        assert!(!game.title.is_empty(), "{} has a title", game.name);
        assert_eq!(bots::registry::find_game(game.name), Some(game));
        assert_eq!(bots::with_game!(game.name, G => <G as bots::game::Game>::NAME), Some(game.name));
    }
    assert_eq!(bots::with_game!("chess", G => <G as bots::game::Game>::NAME), None);
}

/// Adding a game is cheap: Ultimate tic-tac-toe, a whole CodinGame game with its rules,
/// protocol, referee, classic bot, training side and view, takes at most 600 lines without its
/// tests (comments and blank lines counted), because the protocol, the referee's reading of
/// answers, the grid drawing and the UCT classic bot are shared pieces it fills in.
#[test]
fn ultimate_tic_tac_toe_takes_at_most_600_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("bots/src/uttt"), &mut files);
    assert!(files.len() >= 6, "{files:?}");
    let lines: usize = files.iter().map(|f| std::fs::read_to_string(f).unwrap().lines().take_while(|l| l.trim() != "#[cfg(test)]").count()).sum();
    assert!(lines <= 600, "bots/src/uttt holds {lines} lines without its tests");
}

/// Zero Point One, a CodeCup game with drops, a sixteen-letter setup and 1,797 actions, takes
/// at most 800 lines for its rules, protocol, features, symmetries, referee, training side and
/// view without its tests; its classic bot (`classic.rs`, the player, and `evaluation.rs`, what
/// the shared alpha-beta needs of the game) is counted apart.
#[test]
fn zero_point_one_takes_at_most_800_lines_besides_its_classic_bot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("bots/src/zeropointone"), &mut files);
    files.retain(|f| !f.ends_with("classic.rs") && !f.ends_with("evaluation.rs"));
    assert!(files.len() >= 5, "{files:?}");
    let lines: usize = files.iter().map(|f| std::fs::read_to_string(f).unwrap().lines().take_while(|l| l.trim() != "#[cfg(test)]").count()).sum();
    assert!(lines <= 800, "bots/src/zeropointone holds {lines} lines without its tests and classic bot");
}
