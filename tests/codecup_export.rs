//! The shipped CodeCup nets end to end: each exports to one file that plain rustc compiles, the
//! compiled bot plays legal, timely games against the UCT bot through the judge (both seats), and
//! answers garbage with one clean error line.

mod common;

use common::{compile_judge_and_feed_garbage, one_at_a_time, run};
use std::path::{Path, PathBuf};

/// Judged games here run at this fraction of the contest clock, to keep the suite short; the
/// exported bot is built with the same scale so it budgets for the clock the judge enforces.
const TIME_SCALE: &str = "0.2";
/// 6561's clock is 60 s a player for 1000 moves: a twentieth keeps two games near 6 s.
const TIME_SCALE_6561: &str = "0.05";
/// At that scale a move gets about 5 ms, while the costs outside the bot's own clock (the pipe,
/// two process wake-ups) do not shrink: half a millisecond a move on a busy machine, a tenth of
/// the budget. The bot is exported with a quarter kept back instead of the default tenth.
const MARGIN_6561: Option<&str> = Some("0.25");

fn checkpoint(game: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints").join(game).join("net.czw")
}

/// Exports `game`'s shipped net (keeping `margin_frac` of its clock back, if given, else the
/// exporter's default), compiles it, judges two games against `partner` at `time_scale` and
/// feeds it garbage; returns the judge's report and the game records (JSON lines).
fn export_compile_and_judge(game: &str, partner: &str, time_scale: &str, margin_frac: Option<&str>, garbage_error: &str) -> (String, String) {
    let dir = std::env::temp_dir().join(format!("cupzero-codecup-{game}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("bot.rs");
    let net = checkpoint(game);
    let mut export = vec!["export", game, "--checkpoint", net.to_str().unwrap(), "--platform", "codecup", "--time-scale", time_scale, "-o", source.to_str().unwrap()];
    if let Some(fraction) = margin_frac {
        export.extend(["--margin-frac", fraction]);
    }
    let out = run(&export, "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&source).unwrap();
    assert!(!text.contains("extern crate") && !text.contains("#[test]") && !text.contains("connect4"), "only {game}'s modules travel");

    let (report, records) = compile_judge_and_feed_garbage(&source, game, partner, time_scale, 2, garbage_error);
    let _ = std::fs::remove_dir_all(&dir);
    (report, records)
}

/// Mean points of player A from the judge's report.
fn mean_points_of_a(report: &str) -> f64 {
    let line = report.lines().find(|l| l.starts_with("mean points: A ")).unwrap_or_else(|| panic!("{report}"));
    line["mean points: A ".len()..].split(',').next().unwrap().trim().parse().unwrap()
}

#[test]
fn blackhole_export_plays_legally_on_time() {
    let _serial = one_at_a_time();
    let (report, _) = export_compile_and_judge("blackhole", "uct", TIME_SCALE, None, "expected a field A1..H1");
    // Points are 75 plus the margin, so any finished game scores between 0 and 150.
    assert!((0.0..=150.0).contains(&mean_points_of_a(&report)), "{report}");
}

/// The shipped net against the UCT bot in-process at equal playouts per move (no clock, so the
/// result does not depend on the machine): A's score fraction and both players' mean points.
fn arena_against_uct(game: &str, games: usize, playouts: u32) -> (f64, f64, f64) {
    let out = run(
        &["arena", game, "--a", checkpoint(game).to_str().unwrap(), "--b", "uct", "--games", &games.to_string(), "--playouts", &playouts.to_string(), "--seed", "7"],
        "",
    );
    let report = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let score: f64 = report.split("score ").nth(1).and_then(|r| r.split('%').next()).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{report}"));
    let b: f64 = report.split("mean points: A ").nth(1).and_then(|r| r.split(", B ").nth(1)).and_then(|r| r.split([',', '\n']).next()).and_then(|v| v.trim().parse().ok()).unwrap_or_else(|| panic!("{report}"));
    (score / 100.0, mean_points_of_a(&report), b)
}

#[test]
fn qttt_export_plays_legally_on_time() {
    let _serial = one_at_a_time();
    let (report, _) = export_compile_and_judge("qttt", "uct", TIME_SCALE, None, "does not fit here");
    // 20 for a lone four-line plus at most a full board's bonus.
    assert!((0.0..=60.0).contains(&mean_points_of_a(&report)), "{report}");
}

#[test]
fn zuniq_export_plays_legally_on_time_and_never_claims_a_loss() {
    let _serial = one_at_a_time();
    let (report, records) = export_compile_and_judge("zuniq", "uct", TIME_SCALE, None, "expected Start or a move");
    // A (our bot) scores 100 or 50 plus a claim bonus of at most 10; a failed claim scores 0.
    for game in records.lines() {
        let points: f64 = game.split("\"points\":[").nth(1).and_then(|r| r.split(',').next()).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{game}"));
        assert!(points == 50.0 || (100.0..=110.0).contains(&points), "A scored {points}: {game}");
    }
    assert!(report.contains("games: 2"), "{report}");
}

#[test]
fn g6561_export_plays_legally_on_time() {
    let _serial = one_at_a_time();
    // A random partner keeps the two 1000-move games within their scaled clock.
    let (report, _) = export_compile_and_judge("6561", "random", TIME_SCALE_6561, MARGIN_6561, "expected A or B");
    assert!(report.contains("shared score (cooperative)"), "{report}");
    // One game a seat: each seat's line is its shared score, not a win count.
    assert!(report.contains("A as seat 0: mean shared score") && report.contains("A as seat 1: mean shared score") && report.contains("over 1 games"), "{report}");
}

/// Trained nets beat the UCT bot at equal playouts per move, in-process and deterministic for
/// a seed (thresholds under what the shipped nets reach; BENCHMARKS.md has the timed matches,
/// under each game's "Current judged figures").
#[test]
fn shipped_blackhole_net_outscores_uct() {
    let _serial = one_at_a_time();
    // The shipped net (c_puct 0.5): 40-0-0, 84.65 points against 65.35 (deterministic for this seed).
    let (score, a, b) = arena_against_uct("blackhole", 40, 400);
    assert!(score >= 0.8 && a - b >= 10.0, "score {score}, points {a} vs {b}");
}

#[test]
fn shipped_qttt_net_outscores_uct() {
    let _serial = one_at_a_time();
    // The shipped net (c_puct 0.5): 35-0-5, 18.55 points against 7.60 (deterministic for this seed).
    let (score, a, b) = arena_against_uct("qttt", 40, 400);
    assert!(score >= 0.75 && a >= 1.5 * b, "score {score}, points {a} vs {b}");
}

#[test]
fn shipped_zuniq_bot_beats_uct() {
    let _serial = one_at_a_time();
    // The shipped net with its endgame solver and playouts mixed into its values (the exported
    // bot's agent, with Zuniq's own exact search from 34 legal segments), both sides at 300
    // playouts a move: 36-0-4 over these 40 games (deterministic for this seed; 35-0-5 with the
    // own search from 32, 34-0-6 with the generic solver, which
    // won 94-0-6 over 100, where the iteration-98 net won 95-0-5: the net's gain shows on the
    // clock, not at this budget). The net alone scores about half.
    let (score, a, b) = arena_against_uct("zuniq", 40, 300);
    assert!(score >= 0.8 && a > b, "score {score}, points {a} vs {b}");
}

#[test]
fn shipped_6561_net_judges_a_wide_beam_better_than_the_hand_made_evaluation() {
    let _serial = one_at_a_time();
    // The beam (512 lines wide, the width of the games the net learned from, fixed so the
    // games repeat) partnered with itself on the same 4 random openings: with the shipped
    // value net judging its last step's lines, 3,000.5; with the hand-made evaluation alone
    // (the classic bot), 2,904.5. Over 60 openings: +54 (docs/lab/6561.md, A value net judges the
    // beam's lines).
    let beam = |player: &str| {
        let out = run(&["arena", "6561", "--a", player, "--b", player, "--games", "4", "--playouts", "512", "--b-playouts", "512", "--random-opening", "3", "--seed", "7"], "");
        mean_points_of_a(&String::from_utf8_lossy(&out.stdout))
    };
    let (net, hand_made) = (beam(checkpoint("6561").to_str().unwrap()), beam("classic"));
    assert!(net > hand_made, "net {net}, hand-made {hand_made}");
}
