//! The training loop end to end, CI-sized: a few iterations from scratch learn something,
//! and a run killed with SIGKILL mid-iteration resumes without losing more than an iteration.

mod common;

use common::{exe, run};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TINY: &str = r#"
seed = 7
[net]
hidden = [64]
[selfplay]
games_per_iteration = 80
games_in_flight = 16
full_playouts = 24
fast_playouts = 6
[training]
batch_size = 128
learning_rate = 3e-3
warmup_steps = 10
min_replay = 300
sample_reuse = 6.0
[eval]
every = 0
"#;

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cupzero-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tiny.toml"), TINY).unwrap();
    dir
}

fn metrics(run: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(run.join("metrics.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The names of the files in `dir`, sorted.
fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn state_iteration(run: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(run.join("state.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).expect("state.json is always whole");
    v["iteration"].as_u64()
}

#[test]
fn a_few_iterations_lower_the_policy_loss_and_beat_random() {
    let dir = fresh_dir("learn");
    let run_dir = dir.join("run");
    let config = dir.join("tiny.toml");
    let out = run(&["train", "connect4", "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--iterations", "10"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m = metrics(&run_dir);
    assert_eq!(m.len(), 10);
    let trained: Vec<f64> = m.iter().filter(|x| x["train_steps"].as_u64().unwrap() > 0).map(|x| x["policy_loss"].as_f64().unwrap()).collect();
    assert!(trained.len() >= 8, "{trained:?}");
    let early = (trained[0] + trained[1]) / 2.0;
    let late = (trained[trained.len() - 1] + trained[trained.len() - 2]) / 2.0;
    assert!(late < early - 0.1, "policy loss should fall: {trained:?}");
    for name in ["config.toml", "metrics.csv", "progress.svg", "weights.czw", "state.json"] {
        assert!(run_dir.join(name).exists(), "{name} missing");
    }
    let weights = run_dir.join("weights.czw");
    let out = run(&["arena", "connect4", "--a", weights.to_str().unwrap(), "--b", "random", "--games", "20", "--playouts", "16"], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let wins: u32 = stdout.lines().find(|l| l.starts_with("A: ")).and_then(|l| l[3..].split('-').next()).unwrap().parse().unwrap();
    assert!(wins >= 18, "trained net should beat random: {stdout}");
}

#[test]
fn a_run_that_follows_its_plan_decays_over_it_and_grows_its_window() {
    let dir = fresh_dir("plan");
    let run_dir = dir.join("run");
    let config = dir.join("plan.toml");
    // 3e-3 down to 3.75e-4 is three halvings: over a plan of 4 iterations, one an iteration.
    let plan = TINY.replace("warmup_steps = 10", "warmup_steps = 1\nfollow_plan = true\nreplay_window = 1000\nmin_learning_rate = 3.75e-4");
    // The search deepens too: 24/6 playouts at the first iteration, three times that at the last.
    std::fs::write(&config, plan.replace("fast_playouts = 6", "fast_playouts = 6\nplayouts_growth = 3.0")).unwrap();
    let out = run(&["train", "connect4", "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--iterations", "4"], "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("learning rate and replay window follow the plan"), "{stderr}");
    let m = metrics(&run_dir);
    let rates: Vec<f64> = m.iter().map(|x| x["learning_rate"].as_f64().unwrap()).collect();
    assert_eq!(rates, [3e-3, 1.5e-3, 7.5e-4, 3.75e-4]);
    assert!(stderr.contains("self-play search 24/6 playouts (full/fast), growing to 72/18 by the plan's end"), "{stderr}");
    for search in ["search 24/6,", "search 40/10,", "search 56/14,", "search 72/18,"] {
        assert!(stderr.contains(search), "{search}: {stderr}");
    }
    let evals = |x: &serde_json::Value| x["net_evals_per_second"].as_f64().unwrap() * x["selfplay_seconds"].as_f64().unwrap();
    assert!(evals(&m[3]) > 2.0 * evals(&m[0]), "the last iteration's games searched {} leaves, the first's {}", evals(&m[3]), evals(&m[0]));
    // The window holds 1,000 positions until the run has seen more, then grows.
    let mut seen = 0;
    for x in &m {
        let capacity = x["replay_capacity"].as_u64().unwrap();
        assert!(if seen <= 1000 { capacity == 1000 } else { capacity > 1000 && capacity <= 4000 }, "{capacity} after {seen} samples");
        assert!(x["replay_size"].as_u64().unwrap() <= capacity);
        seen += x["samples_added"].as_u64().unwrap();
    }
    assert!(seen > 1000, "the test needs the run to see more than the window: {seen}");
}

#[test]
fn a_killed_run_resumes_where_it_stopped() {
    let dir = fresh_dir("resume");
    let run_dir = dir.join("run");
    let config = dir.join("tiny.toml");
    let mut child = Command::new(exe())
        .args(["train", "connect4", "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--iterations", "1000"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while state_iteration(&run_dir).unwrap_or(0) < 3 {
        assert!(start.elapsed() < Duration::from_secs(120), "training too slow");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Into the next iteration, then SIGKILL.
    std::thread::sleep(Duration::from_millis(150));
    child.kill().unwrap();
    child.wait().unwrap();
    let done = state_iteration(&run_dir).unwrap();
    assert!(done >= 3);
    // metrics.jsonl is written just before state.json, the commit point: a kill between the two
    // leaves one line of an uncommitted iteration, which the resume drops.
    let lines = metrics(&run_dir).len() as u64;
    assert!(lines == done || lines == done + 1, "{lines} metric lines for {done} iterations");

    // A kill between committing an iteration and deleting the checkpoint before it leaves that
    // one behind; the resumed run deletes it with its next commit.
    std::fs::create_dir_all(run_dir.join("checkpoint-000000")).unwrap();

    let target = done + 2;
    let out = run(&["train", "connect4", "--run-dir", run_dir.to_str().unwrap(), "--iterations", &target.to_string()], "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("resuming after iteration {done}")), "{stderr}");
    // The resumed run states its plan and, per iteration, how much of it is done.
    assert!(stderr.contains(&format!("plan: {target} iterations in all, {done} done")), "{stderr}");
    assert!(stderr.contains(&format!("iter {}/{target} (", done + 1)) && stderr.contains(&format!("iter {target}/{target} (100%)")), "{stderr}");
    assert_eq!(state_iteration(&run_dir), Some(target));
    let iterations: Vec<u64> = metrics(&run_dir).iter().map(|m| m["iteration"].as_u64().unwrap()).collect();
    assert_eq!(iterations, (1..=target).collect::<Vec<_>>());
    // One checkpoint folder is kept: the one state.json names.
    let checkpoints: Vec<_> = std::fs::read_dir(&run_dir).unwrap().filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().starts_with("checkpoint-")).collect();
    assert_eq!(checkpoints.len(), 1);

    // A changed digit in state.json or in a metrics line still reads as JSON: its checksum
    // refuses the resume with one line.
    let changes = [
        ("state.json", format!("\"iteration\": {target}"), format!("\"iteration\": {}", target + 10)),
        ("metrics.jsonl", "\"iteration\":2,".to_string(), "\"iteration\":9,".to_string()),
    ];
    for (file, from, to) in changes {
        let path = run_dir.join(file);
        let good = std::fs::read_to_string(&path).unwrap();
        assert!(good.contains(&from), "{file}: {good}");
        std::fs::write(&path, good.replacen(&from, &to, 1)).unwrap();
        let out = run(&["train", "connect4", "--run-dir", run_dir.to_str().unwrap(), "--iterations", &target.to_string()], "");
        common::assert_clean_error(&out, "checksum mismatch");
        std::fs::write(&path, good).unwrap();
    }

    // A different configuration for the same run directory is refused with one clear line.
    let other = dir.join("other.toml");
    std::fs::write(&other, TINY.replace("hidden = [64]", "hidden = [32]")).unwrap();
    let out = run(&["train", "connect4", "--config", other.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap()], "");
    common::assert_clean_error(&out, "another configuration");
}

/// Trains `game` on the configuration `toml` in a fresh run directory: one clean error line
/// naming `message`, and nothing written.
fn assert_refused(name: &str, game: &str, toml: &str, message: &str) {
    let dir = fresh_dir(name);
    let config = dir.join("config.toml");
    std::fs::write(&config, toml).unwrap();
    let out = run(&["train", game, "--config", config.to_str().unwrap(), "--run-dir", dir.join("run").to_str().unwrap()], "");
    common::assert_clean_error(&out, message);
    assert!(!dir.join("run").exists(), "nothing written for a refused config");
}

#[test]
fn bad_configs_are_refused_before_any_work() {
    assert_refused("bad", "connect4", "[selfplay]\nfull_playout = 3\n", "full_playout");
}

#[test]
fn the_solver_in_self_play_is_refused_for_games_with_draws() {
    // Quantum tic-tac-toe has draws and no exact search: a win-or-loss solver would take "no
    // forced win" for a loss. (Connect 4's endgames go to its alpha-beta, which scores draws.)
    assert_refused("solve", "qttt", "[selfplay]\nsolve_legal = 10\n", "solve_legal needs a game with an exact endgame search");
}

#[test]
fn a_classic_evaluation_opponent_is_refused_for_games_without_one() {
    assert_refused("classic", "qttt", "[eval]\nopponent = \"classic\"\n", "needs a game with a classic bot");
    assert_refused("classic-games", "qttt", "[selfplay]\nclassic_share = 0.2\n", "selfplay.classic_share needs a game with a classic bot");
}

/// TINY with these hidden widths and no training in the first iteration (min_replay above its
/// samples): the weights a run starts from are what it saves.
fn untrained_config(hidden: &str) -> String {
    TINY.replace("hidden = [64]", &format!("hidden = {hidden}")).replace("min_replay = 300", "min_replay = 100000\nreplay_window = 100000")
}

/// The shipped Connect 4 net, from the repository root.
fn shipped_connect4() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/connect4/net.czw")
}

/// `--init` with weights that cannot start this run: one clean error line, nothing written.
#[test]
fn init_refuses_weights_that_do_not_fit() {
    let dir = fresh_dir("init-refused");
    let run_dir = dir.join("run");
    let run_dir = run_dir.to_str().unwrap();
    let config = dir.join("tiny.toml");
    let shipped = shipped_connect4();
    let blackhole = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/blackhole/net.czw");
    let garbage = dir.join("garbage.czw");
    std::fs::write(&garbage, "not weights").unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["train", "connect4", "--init", blackhole.to_str().unwrap(), "--run-dir", run_dir], "not \"connect4\""),
        // The tiny configuration's net is [64]; the shipped one [96, 96].
        (&["train", "connect4", "--init", shipped.to_str().unwrap(), "--config", config.to_str().unwrap(), "--run-dir", run_dir], "net.hidden = [64]"),
        (&["train", "connect4", "--init", garbage.to_str().unwrap(), "--run-dir", run_dir], "not a cupzero weight file"),
        (&["train", "connect4", "--init", dir.to_str().unwrap(), "--run-dir", run_dir], "weights.czw"),
    ];
    for (args, message) in cases {
        common::assert_clean_error(&run(args, ""), message);
        assert!(!Path::new(run_dir).exists(), "nothing written for {args:?}");
    }
}

/// A run started with `--init` begins from those weights exactly, resumes when given the same
/// weights again, and refuses other weights for the same directory.
#[test]
fn init_starts_a_run_from_a_shipped_net() {
    let dir = fresh_dir("init");
    let run_dir = dir.join("run");
    let config = dir.join("init.toml");
    // No training in the first iteration (min_replay above its samples): the weights stay
    // the shipped ones, bit for bit.
    std::fs::write(&config, untrained_config("[96, 96]")).unwrap();
    let shipped = shipped_connect4();
    let (shipped_s, config_s, run_s) = (shipped.to_str().unwrap(), config.to_str().unwrap(), run_dir.to_str().unwrap());
    let args = |iterations: &'static str| ["train", "connect4", "--init", shipped_s, "--config", config_s, "--run-dir", run_s, "--iterations", iterations];
    let out = run(&args("1"), "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(run_dir.join("weights.czw")).unwrap(), std::fs::read(&shipped).unwrap());
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run_dir.join("state.json")).unwrap()).unwrap();
    assert!(state["init"].as_str().unwrap().contains("checkpoints/connect4/net.czw (checksum "), "{state}");

    let out = run(&args("2"), "");
    assert!(out.status.success(), "the same --init resumes: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(state_iteration(&run_dir), Some(2));

    // Another run's weights (a run directory) for this run: refused.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(run_dir.join("weights.czw"), other.join("weights.czw")).unwrap();
    let out = run(&["train", "connect4", "--init", other.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap()], "");
    common::assert_clean_error(&out, "already holds a run");
}

/// Weights from before a game's features were extended at the end (Black Hole's hole
/// structure) start a run widened: the new inputs get zero weights and nothing else changes.
#[test]
fn init_widens_weights_from_before_the_features_were_extended() {
    use bots::encode::Encode;
    use bots::nn::{Dense, Mlp};
    let dir = fresh_dir("widen");
    let run_dir = dir.join("run");
    let config = dir.join("widen.toml");
    std::fs::write(&config, untrained_config("[64]")).unwrap();
    let features = bots::blackhole::BlackHole::NUM_FEATURES;
    let narrow_inputs = features - bots::blackhole::HOLE_FEATURES;
    let dense = |inputs: usize, outputs: usize| Dense {
        inputs,
        outputs,
        weights: (0..inputs * outputs).map(|i| ((i % 97) as f32 - 48.0) / 512.0).collect(),
        bias: (0..outputs).map(|o| o as f32 / 1024.0).collect(),
    };
    let narrow = Mlp { game: "blackhole".into(), hidden: vec![dense(narrow_inputs, 64)], policy: dense(64, 540), value: dense(64, 2) };
    let narrow_file = dir.join("narrow.czw");
    std::fs::write(&narrow_file, bots::nn_write::to_bytes(&narrow)).unwrap();
    let out = run(&["train", "blackhole", "--init", narrow_file.to_str().unwrap(), "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--iterations", "1"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trained = Mlp::from_bytes(&std::fs::read(run_dir.join("weights.czw")).unwrap(), "blackhole").unwrap();
    assert_eq!(trained.num_features(), features);
    assert_eq!(trained, narrow.clone().with_inputs(features).unwrap());
    let state = std::fs::read_to_string(run_dir.join("state.json")).unwrap();
    assert!(state.contains(&format!("widened from {narrow_inputs} to {features} inputs")), "{state}");

    // A configuration with wider hidden layers grows them too, from the run's seed (TINY's 7).
    let grown_dir = dir.join("grown");
    std::fs::write(&config, untrained_config("[96]")).unwrap();
    let out = run(&["train", "blackhole", "--init", narrow_file.to_str().unwrap(), "--config", config.to_str().unwrap(), "--run-dir", grown_dir.to_str().unwrap(), "--iterations", "1"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let grown = Mlp::from_bytes(&std::fs::read(grown_dir.join("weights.czw")).unwrap(), "blackhole").unwrap();
    assert_eq!(grown, narrow.with_inputs(features).unwrap().with_hidden(&[96], 7).unwrap());
}

/// A configuration with narrower hidden layers prunes the `--init` weights: the net keeps the
/// units that matter on its own play, so it still picks the moves it picked.
#[test]
fn init_narrows_weights_to_a_narrower_configuration() {
    use bots::encode::Encode;
    use bots::game::{ActionList, Game};
    use bots::nn::Mlp;
    let dir = fresh_dir("narrow");
    let run_dir = dir.join("run");
    let config = dir.join("narrow.toml");
    std::fs::write(&config, untrained_config("[80, 72]")).unwrap();
    let shipped = shipped_connect4();
    let out = run(&["train", "connect4", "--init", shipped.to_str().unwrap(), "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--iterations", "1"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let wide = Mlp::from_bytes(&std::fs::read(&shipped).unwrap(), "connect4").unwrap();
    let narrow = Mlp::from_bytes(&std::fs::read(run_dir.join("weights.czw")).unwrap(), "connect4").unwrap();
    assert_eq!(narrow.hidden.iter().map(|d| d.outputs).collect::<Vec<_>>(), [80, 72]);
    // Top moves on positions of random games: the pruned net against the shipped one, and a
    // net cut to the same widths by keeping the first units.
    let cut = {
        let mut cut = wide.clone();
        for (k, keep) in [(0, 80), (1, 72)] {
            let layer = &mut cut.hidden[k];
            let width = layer.outputs;
            layer.weights = (0..layer.inputs).flat_map(|i| (0..keep).map(move |u| i * width + u)).map(|j| layer.weights[j]).collect();
            layer.bias.truncate(keep);
            layer.outputs = keep;
            let readers: Vec<&mut bots::nn::Dense> = if k == 0 { vec![&mut cut.hidden[1]] } else { vec![&mut cut.policy, &mut cut.value] };
            for reader in readers {
                reader.weights.truncate(keep * reader.outputs);
                reader.inputs = keep;
            }
        }
        cut
    };
    let mut rng = bots::rng::Rng::new(5);
    let (mut agree_pruned, mut agree_cut, mut positions) = (0, 0, 0);
    let top = |net: &Mlp, features: &[f32], legal: &ActionList| {
        let mut logits = vec![0.0; bots::connect4::Connect4::NUM_ACTIONS];
        net.forward_f32(features, &mut logits);
        *legal.iter().max_by(|&&a, &&b| logits[a as usize].total_cmp(&logits[b as usize])).unwrap()
    };
    for _ in 0..40 {
        let mut game = bots::connect4::Connect4::new_game(&mut rng);
        let mut legal = ActionList::new();
        while !game.is_terminal() {
            let mut features = vec![0.0; bots::connect4::Connect4::NUM_FEATURES];
            game.encode(&mut features);
            game.legal_actions(&mut legal);
            let best = top(&wide, &features, &legal);
            agree_pruned += (top(&narrow, &features, &legal) == best) as usize;
            agree_cut += (top(&cut, &features, &legal) == best) as usize;
            positions += 1;
            game.apply(legal[rng.below(legal.len())]);
        }
    }
    assert!(agree_pruned > 2 * agree_cut, "pruned {agree_pruned}, cut {agree_cut} of {positions}");
    assert!(agree_pruned * 10 > positions * 6, "pruned {agree_pruned}, cut {agree_cut} of {positions}");
}

/// Games files the replay window no longer draws from are deleted (unless kept on purpose),
/// and a resume still refills the window from those that remain.
#[test]
fn the_run_directory_keeps_only_the_games_the_window_needs() {
    let dir = fresh_dir("bounded");
    // About 250 samples an iteration: a window of 600 needs the newest three files at most.
    let small = TINY.replace("min_replay = 300", "min_replay = 200\nreplay_window = 600");
    for (name, keep_all, most) in [("bounded", false, 3), ("kept", true, 6)] {
        let config = dir.join(format!("{name}.toml"));
        std::fs::write(&config, small.replace("[training]", &format!("[training]\nkeep_all_games = {keep_all}"))).unwrap();
        let run_dir = dir.join(name);
        let out = run(&["train", "connect4", "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--iterations", "6"], "");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let files = std::fs::read_dir(run_dir.join("games")).unwrap().count();
        let m = metrics(&run_dir);
        let added: Vec<u64> = m.iter().map(|x| x["samples_added"].as_u64().unwrap()).collect();
        assert!(added.iter().all(|&n| n > 200), "{added:?}: the bound below assumes over 200 samples an iteration");
        if keep_all {
            assert_eq!(files, most);
        } else {
            assert!((1..=most).contains(&files), "{files} games files left: {added:?}");
            // The newest file is always there, and the window refills on resume.
            assert!(run_dir.join("games/iter-000006.jsonl").exists());
            let out = run(&["train", "connect4", "--run-dir", run_dir.to_str().unwrap(), "--iterations", "7"], "");
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let replay = metrics(&run_dir).last().unwrap()["replay_size"].as_u64().unwrap();
            assert_eq!(replay, 600, "the window was full again after the resume");
        }
    }
}

/// With `training.overlap`, each iteration trains on the window as it stood before its games
/// (none in the first iteration, the previous iteration's share after), and the net learns.
#[test]
fn overlapped_training_trains_one_iteration_behind() {
    let dir = fresh_dir("overlap");
    let config = dir.join("overlap.toml");
    std::fs::write(&config, TINY.replace("[training]", "[training]\noverlap = true")).unwrap();
    let run_dir = dir.join("run");
    let out = run(&["train", "connect4", "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--iterations", "8"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m = metrics(&run_dir);
    let field = |i: usize, k: &str| m[i][k].as_u64().unwrap();
    assert_eq!(field(0, "train_steps"), 0, "nothing to train on while the first games are played");
    for i in 1..m.len() {
        // The steps of iteration i are those the samples of iteration i - 1 call for.
        let expected = (field(i - 1, "samples_added") as f64 * 6.0 / 128.0).ceil() as u64;
        let window_before = field(i, "replay_size") - field(i, "samples_added");
        assert_eq!(field(i, "train_steps"), if window_before >= 300 { expected } else { 0 }, "iteration {}", i + 1);
    }
    let trained: Vec<f64> = m.iter().filter(|x| x["train_steps"].as_u64().unwrap() > 0).map(|x| x["policy_loss"].as_f64().unwrap()).collect();
    assert!(trained.len() >= 5 && trained[trained.len() - 1] < trained[0] - 0.1, "policy loss should fall: {trained:?}");
}

/// The league: every `league_every` iterations the net joins it, the newest `league_size`
/// stay, and a share of the games is played against them (none before the first joins);
/// classic games come in their share from the start, with samples of the learner only.
#[test]
fn league_and_classic_games_in_a_run() {
    let dir = fresh_dir("league");
    let config = dir.join("league.toml");
    let toml = TINY
        .replace("fast_playouts = 6", "fast_playouts = 6\nleague_share = 0.4\nleague_every = 2\nleague_size = 2\nclassic_share = 0.2\nclassic_playouts = 300")
        .replace("sample_reuse = 6.0", "sample_reuse = 6.0\nsnapshot_every = 3");
    std::fs::write(&config, toml).unwrap();
    let run_dir = dir.join("run");
    let out = run(&["train", "connect4", "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--iterations", "6"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(file_names(&run_dir.join("league")), ["iter-000004.czw", "iter-000006.czw"]);
    // Snapshots stay, every third iteration, and read as nets.
    assert_eq!(file_names(&run_dir.join("snapshots")), ["iter-000003.czw", "iter-000006.czw"]);
    assert_eq!(std::fs::read(run_dir.join("snapshots/iter-000006.czw")).unwrap(), std::fs::read(run_dir.join("weights.czw")).unwrap());
    let m = metrics(&run_dir);
    let games = |i: usize, k: &str| m[i][k].as_u64().unwrap();
    assert_eq!((games(0, "league_games"), games(1, "league_games")), (0, 0), "the league is empty before iteration 2 ends");
    for i in 2..6 {
        let (l, c) = (games(i, "league_games"), games(i, "classic_games"));
        assert!((15..=50).contains(&l), "iteration {}: {l} of 80 league games", i + 1);
        assert!((5..=30).contains(&c), "iteration {}: {c} of 80 classic games", i + 1);
        assert!(m[i]["classic_utility"].as_f64().is_some());
    }
}

/// `selfplay.league_nets`: a fixed net is in the league from the first iteration on (the run's
/// own nets join only after `league_every` iterations) and is never dropped from it.
#[test]
fn a_fixed_league_net_plays_from_the_first_iteration() {
    let dir = fresh_dir("fixed-league");
    let first = dir.join("first.toml");
    std::fs::write(&first, TINY).unwrap();
    let donor = dir.join("donor");
    let out = run(&["train", "connect4", "--config", first.to_str().unwrap(), "--run-dir", donor.to_str().unwrap(), "--iterations", "1"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let fixed = donor.join("weights.czw");
    let config = dir.join("fixed.toml");
    let toml = TINY.replace("fast_playouts = 6", &format!("fast_playouts = 6\nleague_share = 0.4\nleague_every = 2\nleague_size = 1\nleague_nets = [{:?}]", fixed.to_str().unwrap()));
    std::fs::write(&config, toml).unwrap();
    let run_dir = dir.join("run");
    let out = run(&["train", "connect4", "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--iterations", "4"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m = metrics(&run_dir);
    for (i, row) in m.iter().enumerate() {
        let league = row["league_games"].as_u64().unwrap();
        assert!((15..=50).contains(&league), "iteration {}: {league} of 80 league games", i + 1);
    }
    assert_eq!(file_names(&run_dir.join("league")), ["iter-000004.czw"], "the run's own league keeps league_size nets; the fixed one is not among its files");
    // Without a league share no game would meet the fixed net: refused before any work.
    std::fs::write(&config, TINY.replace("fast_playouts = 6", &format!("fast_playouts = 6\nleague_nets = [{:?}]", fixed.to_str().unwrap()))).unwrap();
    let out = run(&["train", "connect4", "--config", config.to_str().unwrap(), "--run-dir", dir.join("refused").to_str().unwrap(), "--iterations", "1"], "");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("league_nets") && err.lines().count() == 1, "{err}");
}

/// `net.train_bits`: the run's nets come out rounded as `export --bits` stores them (every
/// hidden weight a whole number of its unit's steps), and a width list that does not match
/// the layers is refused before any work.
#[test]
fn a_run_trained_as_stored_hands_out_rounded_nets() {
    let dir = fresh_dir("train-bits");
    let config = dir.join("bits.toml");
    std::fs::write(&config, TINY.replace("hidden = [64]", "hidden = [64]\ntrain_bits = [5]")).unwrap();
    let run_dir = dir.join("run");
    let out = run(&["train", "connect4", "--config", config.to_str().unwrap(), "--run-dir", run_dir.to_str().unwrap(), "--iterations", "2"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(metrics(&run_dir).iter().any(|m| m["train_steps"].as_u64().unwrap() > 0), "it trained");
    let net = bots::nn::Mlp::from_bytes(&std::fs::read(run_dir.join("weights.czw")).unwrap(), "connect4").unwrap();
    let layer = &net.hidden[0];
    let max_q = bots::nn::Storage::int_max(5) as f32;
    for o in 0..layer.outputs {
        let column: Vec<f32> = (0..layer.inputs).map(|i| layer.weights[i * layer.outputs + o]).collect();
        let step = column.iter().fold(0.0f32, |m, w| m.max(w.abs())) / max_q;
        assert!(column.iter().all(|w| ((w / step) - (w / step).round()).abs() < 1e-3), "unit {o}: weights off the 5-bit grid");
    }
    assert_refused("train-bits-bad", "connect4", &TINY.replace("hidden = [64]", "hidden = [64]\ntrain_bits = [5, 5]"), "net.train_bits");
    assert_refused("train-bits-wide", "connect4", &TINY.replace("hidden = [64]", "hidden = [64]\ntrain_bits = [17]"), "net.train_bits");
}
