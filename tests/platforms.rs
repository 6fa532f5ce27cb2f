//! Every exported bot, every game and engine, compiles where it is submitted and plays there:
//!
//! - with Debian's rustc 1.63 (older than CodeCup's 1.66 at the oldest) and 1.85, as editions
//!   2015, 2018 and 2021, each bot playing a game (both seats over the builds) against `random`
//!   through the judge, with no fault;
//! - without `-O` (CodinGame's IDE may build so): a debug build, overflow checks on, plays its
//!   game too;
//! - held to a small memory limit under `prlimit --as`, a bot whose tree fills its share stops
//!   growing it and finishes its game.
//!
//! `scripts/test` unpacks both compilers into `.toolchains/` (`scripts/old-rustc`); run alone,
//! this file asks for them in one line.

mod common;

use common::{exe, one_at_a_time, run, temp_dir};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The unpacked compiler `rustc-VERSION` of `scripts/old-rustc`.
fn old_rustc(version: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".toolchains/bin").join(format!("rustc-{version}"));
    assert!(path.is_file(), "{} is missing: run scripts/old-rustc (scripts/test does)", path.display());
    path
}

/// One way to compile a bot: which rustc, which edition, optimised or not, and whether the
/// program is then played (the others are checked to compile, `--emit=metadata`: the edition
/// is the front end's business, the code generated the same).
struct Build {
    rustc: PathBuf,
    label: String,
    edition: &'static str,
    optimise: bool,
    play: bool,
}

fn builds() -> Vec<Build> {
    let build = |rustc: PathBuf, version: &str, edition, optimise, play| Build { rustc, label: format!("rustc {version} --edition {edition}{}", if optimise { " -O" } else { "" }), edition, optimise, play };
    let (r163, r185, today) = (old_rustc("1.63"), old_rustc("1.85"), PathBuf::from("rustc"));
    vec![
        build(r163.clone(), "1.63", "2015", true, true),
        build(r185.clone(), "1.85", "2021", true, true),
        // Without -O: CodinGame's IDE.
        build(today.clone(), "today's", "2018", false, true),
        build(r163.clone(), "1.63", "2018", false, false),
        build(r163, "1.63", "2021", false, false),
        build(r185.clone(), "1.85", "2015", false, false),
        build(r185, "1.85", "2018", false, false),
        build(today, "today's", "2015", false, false),
    ]
}

/// Exports `game`'s bot for `engine` at `time_scale` into `dir` (default profile, `extra`
/// export options), compiles it every way of [`builds`], and plays the playing builds'
/// programs against `random`: two games for the first (both seats), one for the others.
/// Panics naming the build that failed. Alone on the machine: a debug build is slow, and a
/// busy neighbour would cost it moves on the clock.
fn compile_everywhere_and_play(game: &str, engine: &str, time_scale: &str, extra: &[&str]) {
    let _serial = one_at_a_time();
    let dir = temp_dir(&format!("platforms-{game}-{engine}"));
    let source = dir.join("bot.rs");
    let mut export = vec!["export", game, "--engine", engine, "--time-scale", time_scale, "-o", source.to_str().unwrap()];
    export.extend_from_slice(extra);
    let out = run(&export, "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Only a net bot whose nodes list some of their actions carries the lines that do it.
    let lists_some = std::fs::read_to_string(&source).unwrap().contains("every_action_listed");
    assert_eq!(lists_some, game == "zeropointone" && engine == "net", "{game} {engine}");
    let mut programs = Vec::new();
    let builds = builds();
    for (k, build) in builds.iter().enumerate() {
        let binary = dir.join(format!("bot{k}"));
        let mut rustc = Command::new(&build.rustc);
        rustc.args(["--edition", build.edition]);
        if build.optimise {
            rustc.arg("-O");
        }
        if build.play {
            rustc.arg("-o").arg(&binary);
        } else {
            rustc.args(["--emit=metadata", "-o"]).arg(dir.join(format!("bot{k}.rmeta")));
        }
        let compiled = rustc.arg(&source).output().unwrap_or_else(|e| panic!("{}: {e}", build.label));
        assert!(compiled.status.success(), "{game} {engine} with {}:\n{}", build.label, String::from_utf8_lossy(&compiled.stderr));
        if build.play {
            programs.push((binary, &build.label));
        }
    }
    for (k, (binary, label)) in programs.iter().enumerate() {
        let games = if k == 0 { "2" } else { "1" };
        let records = dir.join(format!("records{k}.jsonl"));
        let out = run(&["judge", game, "--p0", binary.to_str().unwrap(), "--p1", "random", "--games", games, "--parallel", "1", "--time-scale", time_scale, "--seed", "11", "--records", records.to_str().unwrap()], "");
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{game} {engine} built with {label}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(report.contains(&format!("games: {games}")) && report.contains("faults: A 0 timeouts, 0 crashes, 0 illegal, 0 garbled"), "{game} {engine} built with {label}:\n{report}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn connect4_bots_compile_everywhere_and_play() {
    compile_everywhere_and_play("connect4", "net", "0.5", &[]);
    compile_everywhere_and_play("connect4", "classic", "0.5", &[]);
}

#[test]
fn ultimate_tic_tac_toe_bots_compile_everywhere_and_play() {
    compile_everywhere_and_play("uttt", "net", "0.5", &[]);
    compile_everywhere_and_play("uttt", "classic", "0.5", &[]);
}

#[test]
fn black_hole_bots_compile_everywhere_and_play() {
    compile_everywhere_and_play("blackhole", "net", "0.4", &[]);
    compile_everywhere_and_play("blackhole", "classic", "0.4", &[]);
}

#[test]
fn zuniq_bots_compile_everywhere_and_play() {
    compile_everywhere_and_play("zuniq", "net", "0.1", &[]);
    compile_everywhere_and_play("zuniq", "classic", "0.1", &[]);
}

#[test]
fn game6561_bots_compile_everywhere_and_play() {
    // A 6561 move gets 6 ms at this scale, where the pipe and two wake-ups cost the same as
    // at any: a quarter of the clock kept back (tests/codecup_export.rs says more).
    compile_everywhere_and_play("6561", "net", "0.1", &["--margin-frac", "0.25"]);
    compile_everywhere_and_play("6561", "classic", "0.1", &["--margin-frac", "0.25"]);
}

#[test]
fn zero_point_one_bots_compile_everywhere_and_play() {
    compile_everywhere_and_play("zeropointone", "net", "0.05", &[]);
    compile_everywhere_and_play("zeropointone", "classic", "0.05", &[]);
}

#[test]
fn quantum_tic_tac_toe_bot_compiles_everywhere_and_plays() {
    compile_everywhere_and_play("qttt", "net", "0.4", &[]);
}

/// A Black Hole bot told it has 48 MiB, and held to them by the kernel (its address space:
/// every mapping counts, so an allocation past it fails and the program aborts), plays whole
/// games on the full clock: its tree fills its share (it grows past 100 MiB unbounded) and
/// stops there, and the bot still moves on time.
#[test]
fn a_bot_held_to_a_small_memory_limit_finishes_its_games() {
    const MIB: u64 = 48;
    let _serial = one_at_a_time();
    let dir = temp_dir("platforms-memory");
    let source = dir.join("bot.rs");
    let out = run(&["export", "blackhole", "--memory-mb", &MIB.to_string(), "-o", source.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("trees within {MIB} MiB")));
    let binary = dir.join("bot");
    let compiled = Command::new("rustc").args(["--edition", "2021", "-O", "-o"]).arg(&binary).arg(&source).output().unwrap();
    assert!(compiled.status.success(), "{}", String::from_utf8_lossy(&compiled.stderr));
    let held = format!("prlimit --as={} {}", MIB << 20, binary.display());
    let out = Command::new(exe()).args(["judge", "blackhole", "--p0", &held, "--p1", "random", "--games", "2", "--parallel", "1", "--seed", "5", "--records"]).arg(dir.join("records.jsonl")).output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains("faults: A 0 timeouts, 0 crashes, 0 illegal, 0 garbled"), "{report}");
    let peak: f64 = report.split("peak memory (resident, the most of any game): A ").nth(1).and_then(|r| r.split(" MB").next()).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{report}"));
    assert!(peak < MIB as f64, "{report}");
    // Its tree did fill: unbounded, a game's peak is above 100 MB.
    assert!(peak > MIB as f64 / 3.0, "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}
