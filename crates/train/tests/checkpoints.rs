//! Checkpoint store: a truncated or corrupt newest checkpoint is reported
//! and the one before it is used; old ones are pruned, promoted ones kept.

mod common;

use shashki_net::NetConfig;
use shashki_train::checkpoints::CheckpointStore;
use shashki_train::config::TrainSection;
use shashki_train::{Learner, LearnerState};

fn tiny() -> NetConfig {
    NetConfig {
        blocks: 1,
        channels: 8,
        ..NetConfig::tiny()
    }
}

#[test]
fn a_truncated_checkpoint_is_skipped_with_a_clear_reason() {
    let dir = common::temp_dir("ckpt");
    let device = shashki_net::device_from_name("cpu").unwrap();
    let learner = Learner::new(&tiny(), &TrainSection::default(), 3, &device).unwrap();
    let store = CheckpointStore::open(&dir, 3).unwrap();
    let mut checkpoint = learner.checkpoint().unwrap();
    for step in [10, 20, 30] {
        checkpoint.step = step;
        let state = LearnerState {
            step,
            generation: step / 10,
            ..LearnerState::default()
        };
        store.save(&checkpoint, &state).unwrap();
    }
    let newest = store.checkpoints().unwrap().last().unwrap().1.clone();
    let bytes = std::fs::read(&newest).unwrap();
    std::fs::write(&newest, &bytes[..bytes.len() / 2]).unwrap();

    let loaded = store
        .load_latest()
        .unwrap()
        .expect("an older checkpoint loads");
    assert_eq!(loaded.checkpoint.step, 20);
    assert_eq!(loaded.state.unwrap().generation, 2);
    assert_eq!(loaded.skipped.len(), 1);
    assert!(
        loaded.skipped[0].reason.contains("truncated"),
        "{}",
        loaded.skipped[0]
    );
    assert!(
        loaded.skipped[0].reason.contains("ckpt-000000030"),
        "{}",
        loaded.skipped[0]
    );

    // Corrupt (same length, flipped byte): a checksum error.
    let older = store.checkpoints().unwrap()[1].1.clone();
    let mut bytes = std::fs::read(&older).unwrap();
    let n = bytes.len();
    bytes[n - 100] ^= 0xFF;
    std::fs::write(&older, &bytes).unwrap();
    let loaded = store.load_latest().unwrap().unwrap();
    assert_eq!(loaded.checkpoint.step, 10);
    assert!(
        loaded.skipped.iter().any(|r| r.reason.contains("checksum")),
        "{:?}",
        loaded.skipped
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn old_checkpoints_are_pruned_and_promoted_ones_kept() {
    let dir = common::temp_dir("prune");
    let device = shashki_net::device_from_name("cpu").unwrap();
    let learner = Learner::new(&tiny(), &TrainSection::default(), 3, &device).unwrap();
    let store = CheckpointStore::open(&dir, 2).unwrap();
    let mut checkpoint = learner.checkpoint().unwrap();
    for step in 1..=5 {
        checkpoint.step = step;
        store
            .save(
                &checkpoint,
                &LearnerState {
                    step,
                    ..LearnerState::default()
                },
            )
            .unwrap();
        if step == 2 {
            store.promote(&checkpoint).unwrap();
        }
    }
    let steps: Vec<u64> = store.checkpoints().unwrap().iter().map(|c| c.0).collect();
    assert_eq!(steps, [4, 5]);
    let best: Vec<u64> = store.promoted().unwrap().iter().map(|c| c.0).collect();
    assert_eq!(best, [2]);
    assert_eq!(store.load_best().unwrap().unwrap().checkpoint.step, 2);
    // The learner resumes with its optimiser state.
    let resumed = Learner::from_checkpoint(
        &store.load_latest().unwrap().unwrap().checkpoint,
        &TrainSection::default(),
        &device,
    )
    .unwrap();
    assert_eq!(resumed.step(), 5);
    std::fs::remove_dir_all(dir).unwrap();
}
