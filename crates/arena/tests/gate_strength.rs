//! The gate a training run's checkpoints must pass (`gate_checkpoints`,
//! what the sequential loop and the concurrent loop's evaluator both call),
//! with real nets: an untrained net never displaces a shipped one, and the
//! shipped one displaces an untrained one, for both engine families.

use shashki_arena::{CheckpointPlayers, GateConfig, MctsSettings, gate_checkpoints};
use shashki_net::{Checkpoint, Net, device_from_name, import_model};
use shashki_nnue::{Architecture, FloatNet, save_model};
use std::path::{Path, PathBuf};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-gate-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An SPRT gate on game pairs, as `[gating]` sets it by default, over at
/// most 80 games.
fn sprt() -> GateConfig {
    GateConfig {
        min_games: 10,
        max_games: 80,
        concurrency: 2,
        seed: 54,
        ..GateConfig::default()
    }
}

/// Gates both ways: (untrained promoted over trained, trained over untrained).
fn both_ways(
    untrained: &Path,
    trained: &Path,
    players: &CheckpointPlayers,
    pdn: &Path,
) -> (bool, bool) {
    let mut log = |_: &str| {};
    let weak = gate_checkpoints(untrained, trained, players, &sprt(), pdn, &mut log).unwrap();
    let strong = gate_checkpoints(trained, untrained, players, &sprt(), pdn, &mut log).unwrap();
    (weak.passed, strong.passed)
}

#[test]
fn an_untrained_nnue_never_displaces_the_shipped_one_and_the_reverse_passes() {
    let dir = scratch("nnue");
    let untrained = dir.join("untrained");
    save_model(
        &FloatNet::random(&Architecture::default(), 5).unwrap(),
        0,
        &untrained,
    )
    .unwrap();
    let players = CheckpointPlayers::Nnue { depth: 2 };
    let (weak, strong) = both_ways(&untrained, &repo("models/nnue-data-2h"), &players, &dir);
    assert!(!weak, "an untrained net was promoted over nnue-data-2h");
    assert!(
        strong,
        "nnue-data-2h was not promoted over an untrained net"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_untrained_diagonal_net_never_displaces_the_shipped_one_and_the_reverse_passes() {
    let dir = scratch("mcts");
    let shipped = repo("models/diag-4h");
    let config = import_model(&shipped).unwrap().config;
    let device = device_from_name("cpu").unwrap();
    let net = Net::init(&config, 5, &device).unwrap();
    let untrained = dir.join("untrained.shzk");
    Checkpoint::from_net(&net, 0, None)
        .unwrap()
        .save(&untrained)
        .unwrap();
    let players = CheckpointPlayers::Network {
        device: "cpu".into(),
        search: MctsSettings {
            simulations: Some(32),
            ..MctsSettings::default()
        },
        batch: 16,
    };
    let (weak, strong) = both_ways(&untrained, &shipped, &players, &dir);
    assert!(!weak, "an untrained net was promoted over diag-4h");
    assert!(strong, "diag-4h was not promoted over an untrained net");
    std::fs::remove_dir_all(dir).unwrap();
}
