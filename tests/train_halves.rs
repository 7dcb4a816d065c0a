//! `shashki selfplay` and `shashki learn` alone, sharing a chunk directory
//! (KataGo's layout): self-play writes chunks, the learner trains on them,
//! self-play picks up the learner's newest checkpoint.

use shashki_selfplay::{list_chunks, read_chunk};
use std::path::Path;
use std::process::{Command, Output};

fn shashki(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "shashki {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

#[test]
fn selfplay_and_learn_share_a_directory() {
    let dir = std::env::temp_dir().join(format!("shashki-cli-halves-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/smoke.toml");
    let config = config.to_str().unwrap();
    let data = dir.join("data");
    let data = data.to_str().unwrap();
    let learner = dir.join("learner");
    let learner = learner.to_str().unwrap();
    let checkpoints = dir.join("learner/checkpoints");
    let checkpoints = checkpoints.to_str().unwrap();

    shashki(&[
        "selfplay", "--plain", "--config", config, "--out", data, "--rounds", "2", "--seed", "1",
    ]);
    let chunks = list_chunks(Path::new(data)).unwrap();
    assert_eq!(chunks.len(), 4, "8 games, 2 per chunk");

    let out = shashki(&[
        "learn",
        "--plain",
        "--config",
        config,
        "--data",
        data,
        "--run-dir",
        learner,
        "--steps",
        "6",
        "--poll",
        "0.05",
        "--max-wait",
        "0.2",
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("learner at step 6"));

    // A second self-play machine: its own seed, the learner's newest net.
    shashki(&[
        "selfplay",
        "--plain",
        "--config",
        config,
        "--out",
        data,
        "--model",
        checkpoints,
        "--seed",
        "2",
    ]);
    let chunks = list_chunks(Path::new(data)).unwrap();
    assert_eq!(chunks.len(), 6);
    let newest = read_chunk(chunks.last().unwrap()).unwrap();
    assert_eq!(
        newest.header.net_step, 6,
        "played by the learner's step-6 net"
    );

    let out = shashki(&[
        "learn",
        "--plain",
        "--config",
        config,
        "--data",
        data,
        "--run-dir",
        learner,
        "--steps",
        "9",
        "--poll",
        "0.05",
        "--max-wait",
        "0.2",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("learner at step 9"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// One round into one chunk file, as the Ray driver's actors run it: the
/// same seed and net give the same bytes, with any family.
fn round_file(config: &str, seed: &str, model: Option<&str>, out: &Path) -> Vec<u8> {
    let out_s = out.to_str().unwrap();
    let mut args = vec![
        "selfplay",
        "--plain",
        "--config",
        config,
        "--out-file",
        out_s,
        "--rounds",
        "1",
        "--threads",
        "2",
        "--seed",
        seed,
    ];
    if let Some(model) = model {
        args.extend(["--model", model]);
    }
    shashki(&args);
    std::fs::read(out).unwrap()
}

#[test]
fn nnue_selfplay_and_learn_share_a_directory_and_rounds_replay_from_their_seed() {
    let dir = std::env::temp_dir().join(format!("shashki-cli-nnue-halves-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/nnue-smoke.toml");
    let config = config.to_str().unwrap();
    let data = dir.join("data");

    let first = round_file(config, "5", None, &data.join("chunk-a.shzc"));
    let again = round_file(config, "5", None, &dir.join("again.shzc"));
    assert_eq!(first, again, "a round replays byte for byte from its seed");
    let other = round_file(config, "6", None, &data.join("chunk-b.shzc"));
    assert_ne!(first, other, "another seed, other games");
    let chunk = read_chunk(&data.join("chunk-a.shzc")).unwrap();
    assert!(!chunk.is_empty(), "4 games in one chunk file");
    assert_eq!(
        list_chunks(&data).unwrap().len(),
        2,
        "one file per round, nothing else"
    );

    let learner = dir.join("learner");
    let out = shashki(&[
        "learn",
        "--plain",
        "--config",
        config,
        "--data",
        data.to_str().unwrap(),
        "--run-dir",
        learner.to_str().unwrap(),
        "--steps",
        "4",
        "--poll",
        "0.05",
        "--max-wait",
        "0.2",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("learner at step 4"), "{text}");
    assert!(
        learner.join("model").is_dir(),
        "the NNUE learner exports its model folder"
    );

    let checkpoints = learner.join("checkpoints");
    let played = round_file(
        config,
        "7",
        Some(checkpoints.to_str().unwrap()),
        &dir.join("newest.shzc"),
    );
    assert!(!played.is_empty());
    let newest = read_chunk(&dir.join("newest.shzc")).unwrap();
    assert_eq!(
        newest.header.net_step, 4,
        "played by the learner's step-4 net"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
