//! `shashki train` survives `kill -9`: a restart continues the counters, and
//! every chunk and checkpoint written before the kill still loads.

use shashki_net::Checkpoint;
use shashki_nnue::NnueCheckpoint;
use shashki_selfplay::{list_chunks, read_chunk};
use shashki_train::checkpoints::CheckpointStore;
use shashki_train::{LearnerState, RunDir};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shashki-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn smoke_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/smoke.toml")
}

fn train(run_dir: &Path, generations: u64) -> Command {
    train_with(&smoke_config(), run_dir, generations)
}

fn train_with(config: &Path, run_dir: &Path, generations: u64) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shashki"));
    cmd.arg("train")
        .arg("--config")
        .arg(config)
        .arg("--run-dir")
        .arg(run_dir)
        .arg("--generations")
        .arg(generations.to_string())
        .arg("--plain");
    cmd
}

/// The newest checkpoint's saved counters.
fn newest_state(run: &RunDir) -> Option<LearnerState> {
    let store = CheckpointStore::open(run.checkpoint_dir(), 100).ok()?;
    store.load_latest().ok()??.state
}

/// Every chunk and checkpoint of the run loads; returns (chunks, samples).
fn everything_loads(run: &RunDir) -> (usize, usize) {
    let chunks = list_chunks(&run.data_dir()).unwrap();
    let mut samples = 0;
    for chunk in &chunks {
        let chunk = read_chunk(chunk).unwrap_or_else(|e| panic!("{e}"));
        samples += chunk.samples().unwrap().len();
    }
    let store = CheckpointStore::open(run.checkpoint_dir(), 100).unwrap();
    let checkpoints = store.checkpoints().unwrap();
    assert!(!checkpoints.is_empty());
    for (_, path) in checkpoints.iter().chain(&store.promoted().unwrap()) {
        Checkpoint::load(path).unwrap_or_else(|e| panic!("{e}"));
    }
    (chunks.len(), samples)
}

/// Starts `command` and kills it (SIGKILL) as soon as `saved` holds,
/// failing if that takes a minute or the process ends first.
fn kill_once(mut command: Command, saved: impl Fn() -> bool) {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !saved() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "training made no progress"
        );
        assert!(child.try_wait().unwrap().is_none(), "training exited early");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn killed_training_resumes_where_it_stopped() {
    let dir = temp_dir("resume");
    let run = RunDir::new(&dir);

    // Run "forever" and kill -9 once two generations are saved.
    kill_once(train(&dir, 0), || {
        newest_state(&run).is_some_and(|s| s.generation >= 2)
    });
    let before = newest_state(&run).unwrap();
    let (chunks_before, _) = everything_loads(&run);

    // The same command again continues: counters go on from the checkpoint.
    let target = before.generation + 2;
    let output = train(&dir, target).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("resuming from"), "{stderr}");
    let after = newest_state(&run).unwrap();
    assert_eq!(after.generation, target);
    assert!(
        after.step > before.step,
        "{} -> {}",
        before.step,
        after.step
    );
    assert!(after.games > before.games);
    assert!(after.replay.drawn > before.replay.drawn);
    let (chunks_after, _) = everything_loads(&run);
    assert!(chunks_after > chunks_before);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains(&format!("gen {:>4}", target)), "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn corrupted_chunk_and_truncated_checkpoint_are_reported_not_fatal() {
    let dir = temp_dir("damage");
    let run = RunDir::new(&dir);
    let first = train(&dir, 1).output().unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );

    let chunk = list_chunks(&run.data_dir()).unwrap()[0].clone();
    let mut bytes = std::fs::read(&chunk).unwrap();
    bytes[100] ^= 0x5A;
    std::fs::write(&chunk, bytes).unwrap();
    let store = CheckpointStore::open(run.checkpoint_dir(), 100).unwrap();
    let newest = store.checkpoints().unwrap().last().unwrap().1.clone();
    let bytes = std::fs::read(&newest).unwrap();
    std::fs::write(&newest, &bytes[..bytes.len() - 10]).unwrap();

    let second = train(&dir, 2).output().unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(second.status.success(), "{stderr}");
    assert!(
        stderr.contains("unusable checkpoint moved to") && stderr.contains("truncated"),
        "{stderr}"
    );
    assert!(
        stderr.contains("skipping unusable chunk") && stderr.contains("checksum mismatch"),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_bad_config_is_a_clear_error() {
    let dir = temp_dir("badconfig");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("bad.toml");
    std::fs::write(&config, "[train]\nbatch_sise = 4\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(["train", "--config"])
        .arg(&config)
        .arg("--run-dir")
        .arg(dir.join("run"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("batch_sise") && stderr.contains("bad.toml"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

fn nnue_smoke_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/nnue-smoke.toml")
}

/// The NNUE run's newest saved counters.
fn newest_nnue_state(run: &RunDir) -> Option<LearnerState> {
    let store = CheckpointStore::<NnueCheckpoint>::open_for(run.checkpoint_dir(), 100).ok()?;
    store.load_latest().ok()??.state
}

#[test]
fn killed_nnue_training_resumes_where_it_stopped() {
    let dir = temp_dir("resume-nnue");
    let run = RunDir::new(&dir);
    let nnue_train = |generations: u64| train_with(&nnue_smoke_config(), &dir, generations);
    kill_once(nnue_train(0), || {
        newest_nnue_state(&run).is_some_and(|s| s.generation >= 2)
    });
    let before = newest_nnue_state(&run).unwrap();

    let target = before.generation + 2;
    let output = nnue_train(target).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("resuming from"), "{stderr}");
    let after = newest_nnue_state(&run).unwrap();
    assert_eq!(after.generation, target);
    assert!(after.step > before.step && after.games > before.games);
    // Every chunk, checkpoint and the exported model still load.
    for chunk in list_chunks(&run.data_dir()).unwrap() {
        read_chunk(&chunk).unwrap_or_else(|e| panic!("{e}"));
    }
    let store = CheckpointStore::<NnueCheckpoint>::open_for(run.checkpoint_dir(), 100).unwrap();
    for (_, path) in store.checkpoints().unwrap() {
        NnueCheckpoint::load(&path).unwrap_or_else(|e| panic!("{e}"));
    }
    shashki_nnue::load_quantized(&dir.join("model")).unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains(&format!("gen {:>4}", target)), "{stdout}");
    assert!(stdout.contains("expected-score MSE"), "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}
