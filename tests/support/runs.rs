//! What the tests of training runs share: the `shashki train` command, a
//! run's newest counters and the samples its chunks hold. Each test file
//! takes it with `#[path = "support/runs.rs"] mod runs;`.
#![allow(dead_code)]

use shashki_selfplay::{list_chunks, read_chunk};
use shashki_train::checkpoints::{CheckpointFile, CheckpointStore};
use shashki_train::{LearnerState, RunDir};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A shipped config (`configs/NAME`).
pub fn shipped_config(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../configs")
        .join(name)
}

/// `shashki train --config CONFIG --run-dir RUN_DIR --generations N
/// --plain`, to start as the test needs.
pub fn train(config: &Path, run_dir: &Path, generations: u64) -> Command {
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

/// The newest checkpoint's saved counters, for checkpoints of kind `C`
/// (`shashki_net::Checkpoint` or `shashki_nnue::NnueCheckpoint`).
pub fn newest_state<C: CheckpointFile>(run: &RunDir) -> Option<LearnerState> {
    let store = CheckpointStore::<C>::open_for(run.checkpoint_dir(), 100).ok()?;
    store.load_latest().ok()??.state
}

/// The run's chunks and the samples they hold (every chunk must load).
pub fn chunks_and_samples(run: &RunDir) -> (usize, u64) {
    let chunks = list_chunks(&run.data_dir()).unwrap();
    let mut samples = 0;
    for chunk in &chunks {
        let chunk = read_chunk(chunk).unwrap_or_else(|e| panic!("{e}"));
        samples += chunk.samples().unwrap().len() as u64;
    }
    (chunks.len(), samples)
}
