//! `shashki train` with gating on: every generation's net plays the best
//! one in an arena match; the verdict is logged and the games saved.

use shashki_train::checkpoints::CheckpointStore;
use shashki_train::tblog::{event_files, read_scalars};
use shashki_train::{RunConfig, RunDir};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `shashki train --generations 2` on `smoke` (a config in configs/)
/// with a fixed-games gate of `games` games after every generation, after
/// `adjust` has its say; asserts it succeeded and gated twice, and returns
/// the scratch folder and the run directory.
fn train_gated(
    name: &str,
    smoke: &str,
    games: u32,
    adjust: impl FnOnce(&mut RunConfig),
) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("shashki-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let smoke = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../configs")
        .join(smoke);
    let mut config = RunConfig::load(&smoke).unwrap();
    config.gating.enabled = true;
    config.gating.every_generations = 1;
    config.gating.method = shashki_train::config::GateMethodKind::Fixed;
    config.gating.games = games;
    adjust(&mut config);
    let config_path = dir.join("gating.toml");
    std::fs::write(&config_path, config.to_toml()).unwrap();
    let run_dir = dir.join("run");
    let output = Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(["train", "--plain", "--generations", "2", "--config"])
        .arg(&config_path)
        .arg("--run-dir")
        .arg(&run_dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let gate_line = format!("| gate: fixed {games} games");
    assert_eq!(stdout.matches(&gate_line).count(), 2, "{stdout}");
    (dir, run_dir)
}

#[test]
fn gating_runs_every_generation_and_records_its_verdict() {
    let (dir, run_dir) = train_gated("gating", "smoke.toml", 4, |config| {
        config.gating.simulations = 4;
    });

    let run = RunDir::new(&run_dir);
    let pdns: Vec<_> = std::fs::read_dir(run_dir.join("gating"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(pdns.len(), 2);
    let text = std::fs::read_to_string(pdns[0].path()).unwrap();
    assert_eq!(text.matches("[Event ").count(), 4, "4 games per gate");

    let store = CheckpointStore::open(run.checkpoint_dir(), 100).unwrap();
    let state = store.load_latest().unwrap().unwrap().state.unwrap();
    let best = store.promoted().unwrap();
    // The self-play net is the newest promoted one, whatever the verdicts.
    assert_eq!(best.last().unwrap().0, state.best_step);

    let events = read_scalars(&event_files(&run.tensorboard_dir()).unwrap()[0]).unwrap();
    let scores = events.iter().filter(|e| e.tag == "gating/score").count();
    assert_eq!(scores, 2);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn nnue_gating_plays_alpha_beta_matches_and_exports_the_best() {
    let (dir, run_dir) = train_gated("nnue-gating", "nnue-smoke.toml", 2, |config| {
        // Any score passes: every candidate is promoted.
        config.gating.threshold = 0.0;
    });
    // Each gate's games were played between the two checkpoints and saved.
    let gates: Vec<String> = std::fs::read_dir(run_dir.join("gating"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(gates.len(), 2, "{gates:?}");
    assert!(
        gates
            .iter()
            .all(|g| g.starts_with("ckpt-") && g.contains("-vs-") && g.ends_with(".pdn")),
        "{gates:?}"
    );
    let store = CheckpointStore::<shashki_nnue::NnueCheckpoint>::open_for(
        RunDir::new(&run_dir).checkpoint_dir(),
        100,
    )
    .unwrap();
    let promoted = store.promoted().unwrap();
    assert_eq!(promoted.len(), 3, "step 0 and both candidates");
    // The promoted net is exported as best-model.
    let best = store.load_best().unwrap().unwrap().checkpoint;
    let exported = shashki_nnue::load_quantized(&run_dir.join("best-model")).unwrap();
    assert_eq!(exported, shashki_nnue::QuantNet::quantize(&best.net));
    std::fs::remove_dir_all(dir).unwrap();
}
