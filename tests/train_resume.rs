//! `shashki train` survives `kill -9`: a restart continues the counters, and
//! every chunk and checkpoint written before the kill still loads.

use shashki_net::Checkpoint;
use shashki_nnue::NnueCheckpoint;
use shashki_selfplay::{list_chunks, read_chunk};
use shashki_train::RunDir;
use shashki_train::checkpoints::CheckpointStore;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/runs.rs"]
mod runs;

use runs::{chunks_and_samples, newest_state, shipped_config, train};
use shashki_atomic::testing::temp_dir;

/// The smoke run of the MCTS family in `run_dir`.
fn train_smoke(run_dir: &Path, generations: u64) -> Command {
    train(&shipped_config("smoke.toml"), run_dir, generations)
}

/// Every chunk and checkpoint of the run loads; returns (chunks, samples).
fn everything_loads(run: &RunDir) -> (usize, u64) {
    let (chunks, samples) = chunks_and_samples(run);
    let store = CheckpointStore::open(run.checkpoint_dir(), 100).unwrap();
    let checkpoints = store.checkpoints().unwrap();
    assert!(!checkpoints.is_empty());
    for (_, path) in checkpoints.iter().chain(&store.promoted().unwrap()) {
        Checkpoint::load(path).unwrap_or_else(|e| panic!("{e}"));
    }
    (chunks, samples)
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
    kill_once(train_smoke(&dir, 0), || {
        newest_state::<Checkpoint>(&run).is_some_and(|s| s.generation >= 2)
    });
    let before = newest_state::<Checkpoint>(&run).unwrap();
    let (chunks_before, _) = everything_loads(&run);

    // The same command again continues: counters go on from the checkpoint.
    let target = before.generation + 2;
    let output = train_smoke(&dir, target).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("resuming from"), "{stderr}");
    let after = newest_state::<Checkpoint>(&run).unwrap();
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
    let first = train_smoke(&dir, 1).output().unwrap();
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

    let second = train_smoke(&dir, 2).output().unwrap();
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

#[test]
fn killed_nnue_training_resumes_where_it_stopped() {
    let dir = temp_dir("resume-nnue");
    let run = RunDir::new(&dir);
    let nnue_train =
        |generations: u64| train(&shipped_config("nnue-smoke.toml"), &dir, generations);
    kill_once(nnue_train(0), || {
        newest_state::<NnueCheckpoint>(&run).is_some_and(|s| s.generation >= 2)
    });
    let before = newest_state::<NnueCheckpoint>(&run).unwrap();

    let target = before.generation + 2;
    let output = nnue_train(target).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("resuming from"), "{stderr}");
    let after = newest_state::<NnueCheckpoint>(&run).unwrap();
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
