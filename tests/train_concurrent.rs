//! `shashki train` with `[run] mode = "concurrent"`: self-play and the
//! learner at once reach a checkpoint, the learner never trains above the
//! replay ratio (it waits for data instead), a `kill -9` resumes, and both
//! engine families run it.

use shashki_net::Checkpoint;
use shashki_nnue::NnueCheckpoint;
use shashki_selfplay::{list_chunks, read_chunk};
use shashki_train::checkpoints::CheckpointStore;
use shashki_train::tblog::{event_files, read_scalars};
use shashki_train::{LearnerState, RunDir};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The replay ratio of the test configs (their `max_reuse` is 4: without
/// the ratio the learner would draw each sample about 4 times).
const RATIO: f64 = 1.5;

#[path = "support/runs.rs"]
mod runs;

use runs::{chunks_and_samples, newest_state, train};
use shashki_atomic::testing::temp_dir;

/// A shipped smoke config in concurrent mode at [`RATIO`], written to `dir`.
fn concurrent_config(dir: &Path, shipped: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../configs")
        .join(shipped);
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains("[run]\n") && text.contains("[train]\n"));
    let text = text
        .replace(
            "[run]\n",
            "[run]\nmode = \"concurrent\"\nlearner_threads = 1\n",
        )
        .replace("[train]\n", &format!("[train]\nreplay_ratio = {RATIO}\n"));
    let out = dir.join(shipped);
    std::fs::write(&out, text).unwrap();
    out
}

/// [`concurrent_config`] with a quick evaluator: two games a net against
/// `ab:depth=1`.
fn rated_config(dir: &Path, shipped: &str) -> PathBuf {
    let config = concurrent_config(dir, shipped);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[evaluator]\nanchor = \"ab:depth=1\"\ngames = 2\n");
    std::fs::write(&config, text).unwrap();
    config
}

/// Runs `command` to its end (two minutes at most), asserting success.
fn run_ok(mut command: Command) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("training did not end within two minutes");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The learner drew at most [`RATIO`] samples per sample played, and at
/// the end (nothing left to wait for) less than one batch below it.
fn assert_within_ratio(state: &LearnerState, batch: u64) {
    let (drawn, played) = (state.replay.drawn as f64, state.replay.ingested as f64);
    assert!(played > 0.0, "{state:?}");
    assert!(drawn <= RATIO * played, "over-trained: {state:?}");
    assert!(
        drawn > RATIO * played - batch as f64,
        "stopped short of the ratio: {state:?}"
    );
}

/// Every `replay/ratio` point the run logged.
fn logged_ratios(run: &RunDir) -> Vec<f32> {
    let mut ratios = Vec::new();
    for file in event_files(&run.tensorboard_dir()).unwrap() {
        for scalar in read_scalars(&file).unwrap() {
            if scalar.tag == "replay/ratio" {
                ratios.push(scalar.value);
            }
        }
    }
    ratios
}

#[test]
fn concurrent_training_reaches_a_checkpoint_within_the_replay_ratio() {
    let dir = temp_dir("smoke");
    let config = concurrent_config(&dir, "smoke.toml");
    let run = RunDir::new(dir.join("run"));
    let output = run_ok(train(&config, run.root(), 2));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("concurrent: self-play on"), "{stdout}");
    assert!(stdout.contains("gen    2 |"), "{stdout}");
    assert!(stdout.contains("replay ratio"), "{stdout}");

    let state = newest_state::<Checkpoint>(&run).unwrap();
    assert_eq!(state.generation, 2);
    assert!(state.games >= 8, "two rounds of 4 games: {state:?}");
    assert!(state.step > 0);
    // The learner saw every sample played and trained up to the ratio.
    assert_eq!(state.replay.ingested, chunks_and_samples(&run).1);
    assert_eq!(state.replay.drawn, 16 * state.step, "batch 16");
    assert_within_ratio(&state, 16);
    // At no point did it train above the ratio: it waited for self-play.
    let ratios = logged_ratios(&run);
    assert!(ratios.len() >= 2, "{ratios:?}");
    assert!(
        ratios.iter().all(|&r| r as f64 <= RATIO + 1e-6),
        "{ratios:?}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn killed_concurrent_training_resumes_where_it_stopped() {
    let dir = temp_dir("resume");
    let config = concurrent_config(&dir, "smoke.toml");
    let run = RunDir::new(dir.join("run"));
    // Run "forever" and kill -9 once a round is counted in a checkpoint.
    let mut child = train(&config, run.root(), 0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !newest_state::<Checkpoint>(&run).is_some_and(|s| s.generation >= 1 && s.step >= 2) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "training made no progress"
        );
        assert!(child.try_wait().unwrap().is_none(), "training exited early");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = newest_state::<Checkpoint>(&run).unwrap();

    let target = before.generation + 2;
    let output = run_ok(train(&config, run.root(), target));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("resuming from"), "{stderr}");
    let after = newest_state::<Checkpoint>(&run).unwrap();
    assert_eq!(after.generation, target);
    assert!(after.step > before.step, "{before:?} -> {after:?}");
    assert!(after.games >= before.games + 8, "{before:?} -> {after:?}");
    // Chunks written after the killed run's last checkpoint count too.
    assert_eq!(after.replay.ingested, chunks_and_samples(&run).1);
    assert_within_ratio(&after, 16);
    let store = CheckpointStore::<Checkpoint>::open_for(run.checkpoint_dir(), 100).unwrap();
    for (_, path) in store.checkpoints().unwrap() {
        Checkpoint::load(&path).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn concurrent_nnue_training_exports_its_model() {
    let dir = temp_dir("nnue");
    let config = concurrent_config(&dir, "nnue-smoke.toml");
    let run = RunDir::new(dir.join("run"));
    let output = run_ok(train(&config, run.root(), 1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("gen    1 |"), "{stdout}");
    // The steps on the last round's data are reported too.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("after the last round:") && stderr.contains("expected-score MSE"),
        "{stderr}"
    );
    let state = newest_state::<NnueCheckpoint>(&run).unwrap();
    assert_eq!(state.generation, 1);
    assert!(state.step > 0);
    let batch = 32;
    assert_eq!(state.replay.drawn, batch * state.step);
    assert_within_ratio(&state, batch);
    shashki_nnue::load_quantized(&run.root().join("model")).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_resumed_run_names_the_config_it_runs_with() {
    let dir = temp_dir("banner");
    let config = concurrent_config(&dir, "nnue-smoke.toml");
    let run = RunDir::new(dir.join("run"));
    run_ok(train(&config, run.root(), 1));
    // Resumed with the shipped sequential config: the saved concurrent one runs,
    // and the banner says so rather than describing the one given.
    let sequential = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/nnue-smoke.toml");
    let output = run_ok(train(&sequential, run.root(), 2));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let banner = all
        .lines()
        .find(|l| l.starts_with("shashki train: run"))
        .unwrap();
    let saved = run.root().join("config.toml");
    assert!(
        banner.contains(&format!("| config {} |", saved.display())),
        "{banner}"
    );
    assert!(banner.contains("| concurrent: self-play on"), "{banner}");
    assert!(all.contains("resuming with the saved one"), "{all}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn gating_without_the_evaluator_is_refused_in_concurrent_mode() {
    let dir = temp_dir("gating");
    let config = concurrent_config(&dir, "smoke.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let text = text.replace("enabled = false", "enabled = true");
    std::fs::write(&config, format!("{text}\n[evaluator]\nenabled = false\n")).unwrap();
    let output = train(&config, &dir.join("run"), 1).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("needs [evaluator] enabled = true"),
        "{stderr}"
    );
    assert!(!dir.join("run").join("checkpoints").exists());
    std::fs::remove_dir_all(dir).unwrap();
}

/// The step of the run's newest checkpoint.
fn newest_step(run: &RunDir) -> u64 {
    shashki_train::checkpoints::list_checkpoints(&run.checkpoint_dir())
        .unwrap()
        .last()
        .unwrap()
        .0
}

/// Every `eval/elo` step the run's evaluator logged (`tb/evaluator/`).
fn logged_elo_steps(run: &RunDir) -> Vec<u64> {
    let mut steps = Vec::new();
    for file in event_files(&run.tensorboard_dir().join("evaluator")).unwrap() {
        for scalar in read_scalars(&file).unwrap() {
            if scalar.tag == "eval/elo" {
                steps.push(scalar.step as u64);
            }
        }
    }
    steps.sort_unstable();
    steps
}

#[test]
fn the_evaluator_rates_published_nets_as_both_families_train() {
    for (shipped, generations) in [("nnue-smoke.toml", 6), ("smoke.toml", 3)] {
        let dir = temp_dir(&format!("evaluator-{shipped}"));
        let config = rated_config(&dir, shipped);
        let run = RunDir::new(dir.join("run"));
        let output = run_ok(train(&config, run.root(), generations));
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("evaluator on 1 (2 games against ab:depth=1 per rated net)"),
            "{stdout}"
        );
        let points = shashki_train::RatingsLog::of_run(run.root())
            .read()
            .unwrap();
        assert!(!points.is_empty(), "{shipped}: nothing rated\n{stdout}");
        let steps: Vec<u64> = points.iter().map(|p| p.step).collect();
        assert!(steps.windows(2).all(|w| w[0] < w[1]), "{steps:?}");
        assert!(
            points
                .iter()
                .all(|p| p.games == 2 && p.anchor == "ab:depth=1")
        );
        assert_eq!(logged_elo_steps(&run), steps, "{shipped}: tensorboard");
        // The run's last checkpoint is rated before the run ends.
        let last = newest_step(&run);
        assert_eq!(steps.last(), Some(&last), "{shipped}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_gated_concurrent_run_plays_only_promoted_nets() {
    let dir = temp_dir("gated");
    let config = rated_config(&dir, "nnue-smoke.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("[gating]\nenabled = false\n"));
    // Every gate passes (score >= 0): each rated net is promoted at once.
    let text = text.replace(
        "[gating]\nenabled = false\n",
        "[gating]\nenabled = true\nmethod = \"fixed\"\ngames = 2\nthreshold = 0.0\n",
    );
    std::fs::write(&config, text).unwrap();
    let run = RunDir::new(dir.join("run"));
    let output = run_ok(train(&config, run.root(), 8));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let points = shashki_train::RatingsLog::of_run(run.root())
        .read()
        .unwrap();
    assert!(!points.is_empty(), "nothing rated\n{stdout}");
    let store = CheckpointStore::<NnueCheckpoint>::open_for(run.checkpoint_dir(), 100).unwrap();
    let promoted: Vec<u64> = store.promoted().unwrap().iter().map(|(s, _)| *s).collect();
    assert_eq!(promoted[0], 0, "the first net is the first best");
    for point in &points {
        let gate = point.gate.as_ref().expect("each point has its gate");
        assert!(gate.promoted && gate.games == 2, "{point:?}");
        assert!(
            promoted.contains(&point.step),
            "{promoted:?} lacks {}",
            point.step
        );
    }
    // Self-play played the promoted nets only, never a mere publication.
    for chunk in list_chunks(&run.data_dir()).unwrap() {
        let step = read_chunk(&chunk).unwrap().header.net_step;
        assert!(
            promoted.contains(&step),
            "chunk of net {step}, promoted {promoted:?}"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_run_killed_during_its_ratings_resumes_its_curve_without_a_double_count() {
    for shipped in ["nnue-smoke.toml", "smoke.toml"] {
        let dir = temp_dir(&format!("evaluator-kill-{shipped}"));
        let config = rated_config(&dir, shipped);
        let run = RunDir::new(dir.join("run"));
        let log = shashki_train::RatingsLog::of_run(run.root());
        // Run "forever" and kill -9 once two points are in: the evaluator
        // is then rating the next one (or about to).
        let mut child = train(&config, run.root(), 0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while log.read().unwrap().len() < 2 {
            assert!(
                started.elapsed() < Duration::from_secs(90),
                "{shipped}: nothing rated"
            );
            assert!(child.try_wait().unwrap().is_none(), "training exited early");
            std::thread::sleep(Duration::from_millis(5));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let before: Vec<u64> = log.read().unwrap().iter().map(|p| p.step).collect();
        let generation = newest_generation(&run, shipped);
        run_ok(train(&config, run.root(), generation + 2));
        let after: Vec<u64> = log.read().unwrap().iter().map(|p| p.step).collect();
        assert_eq!(&after[..before.len()], &before[..], "{shipped}");
        assert!(
            after.windows(2).all(|w| w[0] < w[1]),
            "{shipped}: {after:?}"
        );
        assert_eq!(after.last(), Some(&newest_step(&run)), "{shipped}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// The generation of the run's newest checkpoint.
fn newest_generation(run: &RunDir, shipped: &str) -> u64 {
    let state = if shipped.starts_with("nnue") {
        newest_state::<NnueCheckpoint>(run)
    } else {
        newest_state::<Checkpoint>(run)
    };
    state.map_or(0, |s| s.generation)
}
