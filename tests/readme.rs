//! The commands README.md shows run as written: every `cargo run --release -- ...` line parses
//! (its subcommand and every flag exist, every value is of the right kind), and the quick ones
//! (export, perft, train-config) run to success from a working directory like the repository's.

mod common;

use std::path::Path;
use std::process::Command;

/// The arguments after `cargo run --release --` of every such line in a ```sh block.
fn readme_commands() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let mut in_block = false;
    let mut commands = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_block = line == "```sh";
            continue;
        }
        if let Some(rest) = line.strip_prefix("cargo run --release -- ").filter(|_| in_block) {
            commands.push(shell_words(rest));
        }
    }
    commands
}

/// Splits a command line as the shell does for these examples: quotes group words, `#` starts a
/// comment, `>` redirects the rest away.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut has_word = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                has_word = true;
            }
            (None, '#' | '>') if !has_word => break,
            (None, c) if c.is_whitespace() => {
                if has_word {
                    words.push(std::mem::take(&mut word));
                    has_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                has_word = true;
            }
        }
    }
    if has_word {
        words.push(word);
    }
    words
}

#[test]
fn every_readme_command_parses() {
    let commands = readme_commands();
    assert!(commands.len() >= 20, "found {} commands", commands.len());
    for args in &commands {
        let out = Command::new(common::exe()).args(args).arg("--help").output().unwrap();
        assert!(out.status.success(), "cupzero {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn the_quick_readme_commands_run() {
    let _serial = common::one_at_a_time();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("cupzero-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(root.join("checkpoints"), dir.join("checkpoints")).unwrap();
    let mut ran = 0;
    for args in readme_commands() {
        let quick = match args[0].as_str() {
            "perft" | "train-config" => true,
            // Exports of the shipped nets (not of runs the examples train first).
            "export" => !args.iter().any(|a| a.starts_with("runs/") || a.ends_with(".book")),
            _ => false,
        };
        if !quick {
            continue;
        }
        let out = Command::new(common::exe()).args(&args).current_dir(&dir).output().unwrap();
        assert!(out.status.success(), "cupzero {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
        ran += 1;
    }
    assert!(ran >= 5, "ran {ran} commands");
    assert!(dir.join("bot.rs").is_file(), "export connect4 -o bot.rs wrote bot.rs");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn shell_words_follow_the_shell() {
    assert_eq!(shell_words("perft connect4 --moves \"4 STEAL\"  # a comment"), ["perft", "connect4", "--moves", "4 STEAL"]);
    assert_eq!(shell_words("train-config connect4 > my.toml"), ["train-config", "connect4"]);
}

/// A newcomer reads README.md and BENCHMARKS.md whole: each stays short (the lab notebooks of
/// every lever tried live under docs/lab/).
#[test]
fn readme_and_benchmarks_stay_short() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (file, limit) in [("README.md", 350), ("BENCHMARKS.md", 600)] {
        let lines = std::fs::read_to_string(root.join(file)).unwrap().lines().count();
        assert!(lines < limit, "{file} has {lines} lines: keep it under {limit} (move detail to docs/)");
    }
}
