//! Export end to end: the shipped Connect 4 net survives quantisation, and the exported
//! single file compiles with plain rustc and plays legal, timely moves through the judge.

mod common;

use bots::connect4::Connect4;
use bots::encode::Encode;
use bots::game::{ActionList, Game};
use bots::nn::{Mlp, Storage};
use bots::nn_write::{to_bytes_calibrated_by_layer, Describe};
use bots::tools::{calibration_inputs, CALIBRATION_POSITIONS, CALIBRATION_SEED};
use bots::rng::Rng;
use common::{assert_clean_error, data, one_at_a_time, run};
use std::path::{Path, PathBuf};
use std::process::Command;

fn shipped() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/connect4/net.czw")
}

fn shipped_net() -> Mlp {
    Mlp::from_bytes(&std::fs::read(shipped()).unwrap(), "connect4").unwrap()
}

/// Distinct positions from seeded games of the net against itself (32 playouts a move, the
/// first four moves random for variety): the positions a bot meets, each counted once.
fn positions(net: &Mlp, count: usize) -> Vec<Connect4> {
    use bots::agent::{Agent, SearchAgent};
    let net = std::sync::Arc::new(net.clone());
    let mut rng = Rng::new(2024);
    let mut list = ActionList::new();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    while out.len() < count {
        let mut agent = SearchAgent::new(Connect4::new(), bots::mcts::MctsConfig::puct(), bots::net_eval::NetEvaluator::new(net.clone()), Some(32));
        let mut s = Connect4::new();
        let mut ply = 0;
        while !s.is_terminal() && out.len() < count {
            if seen.insert(s.hash()) {
                out.push(s.clone());
            }
            s.legal_actions(&mut list);
            let a = if ply < 4 { list[rng.below(list.len())] } else { agent.choose(&s, None) };
            agent.observe(a);
            s.apply(a);
            ply += 1;
        }
    }
    out
}

#[test]
fn quantised_nets_agree_with_f32_on_1200_positions() {
    let _serial = one_at_a_time();
    let net = shipped_net();
    let test_positions = positions(&net, 1200);
    // Check the storage the CodinGame export actually picks for the shipped net, and f16.
    let dir = std::env::temp_dir().join(format!("cupzero-quant-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = run(&["export", "connect4", "--checkpoint", shipped().to_str().unwrap(), "--platform", "codingame", "-o", dir.join("b.rs").to_str().unwrap()], "");
    let report = String::from_utf8_lossy(&out.stdout).to_string();
    // In CodinGame's 100,000 characters the shipped net fits as f16 (with the shipped book);
    // under `--count bytes` as integers of 8 to 10 bits (8 beside the tactical playouts' code,
    // without the book, whose reader would take the weights to 7). Both are checked.
    let bytes_report = {
        let out = run(&["export", "connect4", "--checkpoint", shipped().to_str().unwrap(), "--platform", "codingame", "--count", "bytes", "--no-book", "-o", dir.join("c.rs").to_str().unwrap()], "");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    assert!(report.contains("hidden layers as f16"), "{report}");
    let bits: u8 = bytes_report.split("hidden layers as i").nth(1).and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next()).and_then(|b| b.parse().ok()).unwrap_or_else(|| panic!("{bytes_report}"));
    assert!(bits >= 8, "{bytes_report}");
    // Exactly the weights the exporter writes (same calibration set).
    let calibration = calibration_inputs::<Connect4>(CALIBRATION_POSITIONS, CALIBRATION_SEED);
    for dtype in [Storage::Int { bits }, Storage::F16] {
        let (agreement, mean_diff) = agreement_with_f32(&net, &vec![dtype; net.hidden.len()], &calibration, &test_positions);
        // 9 or 10 bits a weight give 97 to 98% the same top move here, 8 bits 94% (12 bits
        // 99.8%, f16 all but a few): what that costs on the clock is judged (BENCHMARKS.md,
        // Connect 4); a storage that damages the net fails here.
        let floor = match dtype {
            Storage::Int { bits: 8 } => 0.93,
            _ => 0.96,
        };
        assert!(agreement >= floor, "{dtype:?}: policy argmax agrees on {:.2}% of the positions", 100.0 * agreement);
        assert!(mean_diff <= 0.05, "{dtype:?}: mean value difference {mean_diff:.4}");
    }
}

/// How often the net stored in `layout` (a storage per layer) picks f32's top legal move, and its
/// mean value difference.
fn agreement_with_f32(net: &Mlp, layout: &[Storage], calibration: &[Vec<f32>], test_positions: &[Connect4]) -> (f64, f64) {
    let small = Mlp::from_bytes(&to_bytes_calibrated_by_layer(net, layout, calibration).unwrap(), "connect4").unwrap();
    let (mut same, mut value_diff, mut n) = (0usize, 0f64, 0usize);
    let (mut f, mut la, mut lb) = (vec![0.0; Connect4::NUM_FEATURES], vec![0.0; 10], vec![0.0; 10]);
    let mut legal = ActionList::new();
    for s in test_positions {
        f.fill(0.0);
        s.encode(&mut f);
        let va = net.forward_f32(&f, &mut la);
        let vb = small.forward_f32(&f, &mut lb);
        s.legal_actions(&mut legal);
        let best = |l: &[f32]| legal.iter().copied().max_by(|&x, &y| l[x as usize].total_cmp(&l[y as usize])).unwrap();
        same += (best(&la) == best(&lb)) as usize;
        value_diff += (va[0] - vb[0]).abs() as f64;
        n += 1;
    }
    (same as f64 / n as f64, value_diff / n as f64)
}

/// The storages `export --dtype auto` falls back to for a net wider than 8 bits allow: each bit
/// less moves the net further from f32 (the shipped Connect 4 net, which ships at 9 or 10 bits:
/// 93.8%, 89.2% and 79.9% the same top move at 8, 7 and 6 bits when measured). What a narrower
/// storage costs a wider net is judged on the clock, not here.
#[test]
fn seven_and_six_bit_storage_stay_near_f32() {
    let net = shipped_net();
    let test_positions = positions(&net, 1200);
    let calibration = calibration_inputs::<Connect4>(CALIBRATION_POSITIONS, CALIBRATION_SEED);
    let every_layer = |bits| vec![Storage::Coded { bits }; net.hidden.len()];
    let [eight, seven, six] = [8, 7, 6].map(|bits| agreement_with_f32(&net, &every_layer(bits), &calibration, &test_positions));
    assert!(eight.1 <= seven.1 && seven.1 <= six.1, "the value moves further with fewer bits: {eight:?} {seven:?} {six:?}");
    assert!(eight.0 >= seven.0 && seven.0 >= six.0, "the top move too: {eight:?} {seven:?} {six:?}");
    assert!(seven.0 >= 0.87 && seven.1 <= 0.05, "7 bits: {seven:?}");
    assert!(six.0 >= 0.75 && six.1 <= 0.08, "6 bits: {six:?}");
    // auto's order past 8 bits: the first layer narrows alone before the others follow.
    let mut first_only = every_layer(8);
    first_only[0] = Storage::Coded { bits: 6 };
    let first_only = agreement_with_f32(&net, &first_only, &calibration, &test_positions);
    assert!(first_only.0 >= six.0 && first_only.1 <= six.1, "6 bits in the first layer only: {first_only:?}, in every layer: {six:?}");
}

/// `--bits` picks the storage of each layer, and `--stored-weights` writes exactly the weights
/// the file embeds, which load as a net of the same shape.
#[test]
fn bits_choose_the_storage_and_the_stored_weights_are_the_embedded_ones() {
    let _serial = one_at_a_time();
    let dir = std::env::temp_dir().join(format!("cupzero-export-bits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (source, stored) = (dir.join("b.rs"), dir.join("stored.czw"));
    let out = run(&["export", "connect4", "--bits", "6,7", "--stored-weights", stored.to_str().unwrap(), "-o", source.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("hidden layers as i6/i7"), "{}", String::from_utf8_lossy(&out.stdout));
    let net = shipped_net();
    let calibration = calibration_inputs::<Connect4>(CALIBRATION_POSITIONS, CALIBRATION_SEED);
    let expected = to_bytes_calibrated_by_layer(&net, &[Storage::Coded { bits: 6 }, Storage::Coded { bits: 7 }], &calibration).unwrap();
    assert_eq!(std::fs::read(&stored).unwrap(), expected);
    let loaded = Mlp::from_bytes(&expected, "connect4").unwrap();
    assert_eq!(loaded.hidden_widths(), net.hidden_widths());
    let _ = std::fs::remove_dir_all(&dir);
}

fn rustc_available() -> bool {
    Command::new("rustc").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

#[test]
fn exported_bot_compiles_with_plain_rustc_and_plays_legally_on_time() {
    let _serial = one_at_a_time();
    assert!(rustc_available(), "rustc is needed for this test");
    let dir = std::env::temp_dir().join(format!("cupzero-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("bot.rs");
    let out = run(&["export", "connect4", "--checkpoint", shipped().to_str().unwrap(), "--platform", "codingame", "-o", source.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&source).unwrap();
    let size = bots::text::utf16_units(&text);
    assert!(size <= 100_000, "CodinGame limit: {size} characters");
    assert!(!text.contains("extern crate") && !text.contains("#[test]"));
    let binary = dir.join("bot");
    let compiled = Command::new("rustc").args(["--edition", "2021", "-O", "-o"]).arg(&binary).arg(&source).output().unwrap();
    assert!(compiled.status.success(), "rustc failed:\n{}", String::from_utf8_lossy(&compiled.stderr));
    assert!(!String::from_utf8_lossy(&compiled.stderr).contains("warning"), "{}", String::from_utf8_lossy(&compiled.stderr));

    // The compiled bot against the UCT bot through the judge, both seats.
    let records = dir.join("games.jsonl");
    let out = run(
        &["judge", "connect4", "--p0", binary.to_str().unwrap(), "--p1", "uct", "--games", "2", "--parallel", "1", "--records", records.to_str().unwrap()],
        "",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("faults: A 0 timeouts, 0 crashes, 0 illegal, 0 garbled"), "{stdout}");

    // The same file answers garbage with one clean line.
    let mut child = Command::new(&binary).stdin(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).spawn().unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"garbage\n").unwrap();
    let garbage = child.wait_with_output().unwrap();
    assert_clean_error(&garbage, "myId oppId");

    // And it replays a recorded transcript turn by turn.
    let input: String = std::fs::read_to_string(data("connect4/steal-seat1.txt")).unwrap().lines().filter_map(|l| l.strip_prefix("> ")).map(|l| format!("{l}\n")).collect();
    let mut child = Command::new(&binary).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let replay = child.wait_with_output().unwrap();
    assert!(replay.status.success());
    assert_eq!(String::from_utf8_lossy(&replay.stdout).lines().count(), 12, "one answer per recorded turn");
}

#[test]
fn export_refuses_bad_requests_with_one_line() {
    let _serial = one_at_a_time();
    let dir = std::env::temp_dir().join(format!("cupzero-export-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_file = dir.join("x.rs");
    let ship = shipped();
    let out = run(&["export", "connect4", "--checkpoint", ship.to_str().unwrap(), "--platform", "codecup", "-o", out_file.to_str().unwrap()], "");
    assert_clean_error(&out, "played on CodinGame");
    let out = run(&["export", "connect4", "--checkpoint", "/nonexistent.czw", "--platform", "codingame", "-o", out_file.to_str().unwrap()], "");
    assert_clean_error(&out, "cannot read");
    // f32 weights of this net do not fit CodinGame's 100,000 characters: refused in one line
    // that gives both counts, nothing written.
    let out = run(&["export", "connect4", "--checkpoint", ship.to_str().unwrap(), "--platform", "codingame", "--dtype", "f32", "-o", out_file.to_str().unwrap()], "");
    assert_clean_error(&out, "over the CodinGame limit of 100000 characters");
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    let counts: Vec<usize> = said.split(' ').filter_map(|w| w.trim_start_matches('(').parse().ok()).collect();
    assert!(said.contains(" characters (") && said.contains(" bytes) with f32 weights") && counts[0] > 100_000 && counts[1] > counts[0], "{said}");
    assert!(!out_file.exists());
    // f16 fits in characters, not in the cautious reading's 100,000 bytes of ASCII.
    let out = run(&["export", "connect4", "--checkpoint", ship.to_str().unwrap(), "--platform", "codingame", "--dtype", "f16", "--count", "bytes", "-o", out_file.to_str().unwrap()], "");
    assert_clean_error(&out, "over the CodinGame limit of 100000 bytes; try --dtype auto");
    assert!(!out_file.exists());
    let out = run(&["export", "connect4", "--checkpoint", ship.to_str().unwrap(), "--dtype", "f16", "-o", out_file.to_str().unwrap()], "");
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("limit 100000 characters on CodinGame"), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::remove_file(&out_file).unwrap();
    // CodeCup counts bytes only.
    let out = run(&["export", "zuniq", "--count", "characters", "-o", out_file.to_str().unwrap()], "");
    assert_clean_error(&out, "CodeCup counts a file in bytes");
    assert!(!out_file.exists());
    // Unless asked to judge a net past the limit: then written whole, and said to be over.
    let out = run(&["export", "connect4", "--checkpoint", ship.to_str().unwrap(), "--dtype", "f32", "--over-limit", "-o", out_file.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("OVER the contest's limit of 100000 characters"), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(bots::text::utf16_units(&std::fs::read_to_string(&out_file).unwrap()) > 100_000);
    std::fs::remove_file(&out_file).unwrap();
    // `--bits` wants one width per hidden layer (then optionally the heads), each 2 to 16.
    let out = run(&["export", "connect4", "--bits", "6", "-o", out_file.to_str().unwrap()], "");
    assert_clean_error(&out, "--bits takes 2 widths");
    let out = run(&["export", "connect4", "--bits", "6,1", "-o", out_file.to_str().unwrap()], "");
    assert_clean_error(&out, "2 to 16 bits");
    assert!(!out_file.exists());
    // A file too big with the asked widths is refused the same way.
    let wide = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/connect4/wide-300.czw");
    let out = run(&["export", "connect4", "--checkpoint", wide.to_str().unwrap(), "--bits", "12,12", "-o", out_file.to_str().unwrap()], "");
    assert_clean_error(&out, "try fewer --bits");
    // A corrupt weight file is named as such.
    let mut bytes = std::fs::read(&ship).unwrap();
    let k = bytes.len() / 2;
    bytes[k] ^= 0xff;
    let corrupt = dir.join("corrupt.czw");
    std::fs::write(&corrupt, bytes).unwrap();
    let out = run(&["export", "connect4", "--checkpoint", corrupt.to_str().unwrap(), "--platform", "codingame", "-o", out_file.to_str().unwrap()], "");
    assert_clean_error(&out, "checksum");
}

/// `export GAME -o FILE` alone writes the shipped net (and the shipped book, where a game
/// has one: Connect 4's one entry; Zuniq's kept book showed no gain and is not shipped) for
/// the game's own platform, from any working directory; `--book FILE` embeds a book.
#[test]
fn every_game_exports_with_no_other_flag() {
    let dir = std::env::temp_dir().join(format!("cupzero-export-defaults-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (game, platform, book) in [("connect4", "CodinGame", true), ("6561", "CodeCup", false), ("blackhole", "CodeCup", false), ("zuniq", "CodeCup", false), ("qttt", "CodeCup", false)] {
        let file = dir.join(format!("{game}.rs"));
        let out = Command::new(common::exe()).args(["export", game, "-o", file.to_str().unwrap()]).current_dir(&dir).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{game}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains(&format!("on {platform}")), "{game}: {stdout}");
        assert_eq!(stdout.contains("a book of"), book, "{game}: {stdout}");
        let text = std::fs::read_to_string(&file).unwrap();
        let first = text.lines().next().unwrap();
        assert!(first.starts_with(&format!("// {game} bot for {platform}, generated by cupzero")), "{game}: {first}");
        assert!(first.ends_with("from net.czw."), "{game}: the shipped net: {first}");
        assert!(text.contains(&format!("// Build: rustc --edition 2021 -O {game}.rs")), "{game}: the header says how to build it");
    }
    let file = dir.join("zuniq-no-book.rs");
    let out = run(&["export", "zuniq", "--no-book", "-o", file.to_str().unwrap()], "");
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("a book of"));
    let file = dir.join("zuniq-book.rs");
    let book = format!("{}/checkpoints/zuniq/opening-book.txt", env!("CARGO_MANIFEST_DIR"));
    let out = run(&["export", "zuniq", "--book", &book, "-o", file.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("a book of 253 positions"), "{}", String::from_utf8_lossy(&out.stdout));
}
