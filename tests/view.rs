//! The viewer end to end: judged games of every game of the registry become one HTML page that
//! a real browser (headless Chromium, which `scripts/test` installs) renders: the board is
//! drawn, no script error is logged, and stepping forward changes the board. Bad records files
//! get one line and a non-zero exit.

mod common;

use common::{assert_clean_error, run, temp_dir};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The headless browser: Debian's `chromium-headless-shell`, or a full `chromium`.
fn browser() -> PathBuf {
    for name in ["chromium-headless-shell", "chromium"] {
        if let Ok(out) = Command::new("sh").args(["-c", &format!("command -v {name}")]).output() {
            let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if out.status.success() && !path.is_empty() {
                return PathBuf::from(path);
            }
        }
    }
    panic!("no headless Chromium: scripts/test installs it (Debian: apt-get install chromium-headless-shell)");
}

/// Runs the browser on `url` with `extra` arguments (a screenshot, or the DOM after the
/// page's scripts ran), as root needs it and with no network.
fn chromium(url: &str, extra: &[&str], profile: &Path) -> std::process::Output {
    let mut args = vec![
        "--headless".to_string(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-quic".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        format!("--user-data-dir={}", profile.display()),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push(url.to_string());
    Command::new(browser()).args(&args).output().expect("run the headless browser")
}

/// The page's DOM after its scripts ran.
fn dom(page: &Path, fragment: &str, profile: &Path) -> String {
    let out = chromium(&format!("file://{}#{fragment}", page.display()), &["--dump-dom", "--virtual-time-budget=2000"], profile);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The board element's markup in a dumped DOM.
fn board(dom: &str) -> String {
    let start = dom.find("<svg id=\"board\"").expect("the page has a board");
    let end = start + dom[start..].find("</svg>").expect("the board is closed");
    dom[start..end].to_string()
}

/// The RGB pixels of a screenshot of the board alone (`only=board`).
fn board_pixels(page: &Path, fragment: &str, profile: &Path, shot: &Path) -> Vec<[u8; 3]> {
    let out = chromium(
        &format!("file://{}#{fragment}&only=board", page.display()),
        &[&format!("--screenshot={}", shot.display()), "--window-size=400,400", "--hide-scrollbars", "--virtual-time-budget=2000"],
        profile,
    );
    assert!(out.status.success() && shot.is_file(), "no screenshot: {}", String::from_utf8_lossy(&out.stderr));
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    buffer[..info.buffer_size()].chunks(channels).map(|p| [p[0], p[1], p[2]]).collect()
}

#[test]
fn every_games_replays_render_in_a_real_browser() {
    let dir = temp_dir("view-browser");
    let profile = dir.join("profile");
    for game in bots::GAMES {
        let records = dir.join(format!("{}.jsonl", game.name));
        let out = run(&["judge", game.name, "--p0", "random", "--p1", "random", "--games", "2", "--parallel", "1", "--records", records.to_str().unwrap()], "");
        assert!(out.status.success(), "{}: {}", game.name, String::from_utf8_lossy(&out.stderr));
        let page = dir.join(format!("{}.html", game.name));
        let out = run(&["view", records.to_str().unwrap(), "-o", page.to_str().unwrap()], "");
        assert!(out.status.success(), "{}: {}", game.name, String::from_utf8_lossy(&out.stderr));

        let start = dom(&page, "g=0&p=0", &profile);
        assert!(start.contains("data-ready=\"1\""), "{}: the page's script did not finish", game.name);
        assert!(start.contains("data-errors=\"0\""), "{}: script errors: {start}", game.name);
        let shapes: usize = start.split("data-shapes=\"").nth(1).and_then(|s| s.split('"').next()).and_then(|s| s.parse().ok()).unwrap_or(0);
        assert!(shapes > 0, "{}: an empty board", game.name);
        let later = dom(&page, "g=0&p=3", &profile);
        assert!(later.contains("position 3 of"), "{}: the page did not step", game.name);
        assert_ne!(board(&start), board(&later), "{}: three moves on, the board is the same", game.name);
        // The last move is marked on the board, and nothing is before the first.
        let mark = bots::view::LAST_MOVE;
        assert!(!board(&start).contains(mark) && board(&later).contains(mark), "{}: the last move is not marked", game.name);
        // Moves as the contest writes them: Ultimate tic-tac-toe's `row col`, not the notation's `rc`.
        let html = std::fs::read_to_string(&page).unwrap();
        let first_move = html.split("\"moves\":[\"").nth(1).and_then(|s| s.split('"').next()).unwrap_or_default().to_string();
        if game.name == "uttt" {
            assert!(first_move.len() == 3 && first_move.as_bytes()[1] == b' ', "uttt moves read {first_move:?}");
        }

        let before = board_pixels(&page, "g=0&p=0", &profile, &dir.join(format!("{}-0.png", game.name)));
        let after = board_pixels(&page, "g=0&p=3", &profile, &dir.join(format!("{}-3.png", game.name)));
        let background = before[0];
        let drawn = before.iter().filter(|&&p| p != background).count();
        assert!(drawn * 50 > before.len(), "{}: the board covers {drawn} of {} pixels", game.name, before.len());
        let changed = before.iter().zip(&after).filter(|(a, b)| a != b).count();
        assert!(changed > 20, "{}: stepping forward changed {changed} pixels", game.name);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_page_is_self_contained_and_bad_records_get_one_line() {
    let dir = temp_dir("view-records");
    let records = dir.join("c4.jsonl");
    let out = run(&["judge", "connect4", "--p0", "random", "--p1", "random", "--games", "4", "--parallel", "1", "--records", records.to_str().unwrap()], "");
    assert!(out.status.success());
    let page = dir.join("c4.html");
    let out = run(&["view", records.to_str().unwrap(), "-o", page.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    let outside = html.replace("http://www.w3.org/2000/svg", "");
    assert!(!outside.contains("http://") && !outside.contains("https://") && !outside.contains(" src="), "the page needs nothing outside itself");
    assert!(html.contains("\"game\":\"connect4\"") && html.matches("\"moves\":").count() == 4);

    let garbage = dir.join("garbage.jsonl");
    std::fs::write(&garbage, "{\"game\": 1}\nnot json\n").unwrap();
    let out = run(&["view", garbage.to_str().unwrap(), "-o", dir.join("x.html").to_str().unwrap()], "");
    assert_clean_error(&out, "line 1");
    assert!(!dir.join("x.html").exists(), "nothing written");
    let out = run(&["view", dir.join("missing.jsonl").to_str().unwrap(), "-o", dir.join("x.html").to_str().unwrap()], "");
    assert_clean_error(&out, "cannot read");
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let out = run(&["view", empty.to_str().unwrap(), "-o", dir.join("x.html").to_str().unwrap()], "");
    assert_clean_error(&out, "no game");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn analyze_prints_the_board_and_the_top_moves_with_their_lines() {
    let out = run(&["analyze", "connect4", "--moves", "4 0 4 0 4", "--playouts", "3000", "--top", "3"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let table: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("move")).skip(1).collect();
    assert_eq!(table.len(), 3, "{text}");
    // Three in column 4: the mover must block on top of them.
    assert!(table[0].starts_with('4'), "{text}");
    assert!(text.contains("UCT with random playouts: 3000 playouts"), "{text}");
    let out = run(&["analyze", "connect4", "--moves", "0 0 0 0 0 0 0 0"], "");
    assert_clean_error(&out, "action 8");
}
