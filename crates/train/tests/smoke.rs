//! The smoke config end to end: self-play, a few training steps, a
//! checkpoint, a tensorboard event file that reads back.

mod common;

use shashki_net::{Checkpoint, NetKind};
use shashki_selfplay::{list_chunks, read_chunk};
use shashki_train::checkpoints::CheckpointStore;
use shashki_train::tblog::{event_files, read_scalars};
use shashki_train::{OpenRun, RunConfig, RunDir, RunSummary, Silent, TrainOptions, train};

/// One generation of `config` in `dir` on the CPU.
fn one_generation(config: RunConfig, dir: &std::path::Path) -> RunSummary {
    train(
        OpenRun::open(dir, &config, &mut Silent).unwrap(),
        TrainOptions {
            device: shashki_net::device_from_name("cpu").unwrap(),
            generations: Some(1),
            seconds: None,
            restart: false,
            stop: Default::default(),
        },
        &mut Silent,
        None,
        None,
    )
    .unwrap()
}

#[test]
fn smoke_config_runs_end_to_end() {
    let dir = common::temp_dir("smoke");
    let config = common::smoke_config();
    let steps_per_generation = config.train.steps_per_generation;
    let summary = one_generation(config, &dir);
    assert_eq!(summary.state.generation, 1);
    assert_eq!(
        summary.state.step, steps_per_generation,
        "trained the configured steps"
    );
    assert!(summary.state.games >= 4);

    let run = RunDir::new(&dir);
    assert!(run.config_path().is_file());
    let chunks = list_chunks(&run.data_dir()).unwrap();
    assert!(!chunks.is_empty());
    let samples: usize = chunks.iter().map(|c| read_chunk(c).unwrap().len()).sum();
    assert_eq!(samples as u64, summary.state.samples);

    let store = CheckpointStore::open(run.checkpoint_dir(), 10).unwrap();
    let latest = store.load_latest().unwrap().expect("a checkpoint");
    assert_eq!(latest.checkpoint.step, steps_per_generation);
    assert_eq!(latest.state.as_ref().unwrap().generation, 1);
    assert!(
        latest.checkpoint.optimizer.is_some(),
        "optimizer state is saved"
    );
    for (_, path) in store.checkpoints().unwrap() {
        Checkpoint::load(&path).unwrap();
    }

    let files = event_files(&run.tensorboard_dir()).unwrap();
    assert_eq!(files.len(), 1);
    let scalars = read_scalars(&files[0]).unwrap();
    let tags: Vec<&str> = scalars.iter().map(|s| s.tag.as_str()).collect();
    for tag in [
        "loss/total",
        "loss/policy",
        "loss/value",
        "train/learning_rate",
        "selfplay/games_per_second",
        "selfplay/mean_batch_fill",
        "selfplay/avg_game_length",
        "selfplay/draws",
    ] {
        assert!(tags.contains(&tag), "missing {tag} in {tags:?}");
    }
    let losses: Vec<f32> = scalars
        .iter()
        .filter(|s| s.tag == "loss/total")
        .map(|s| s.value)
        .collect();
    assert_eq!(
        losses.len() as u64,
        steps_per_generation,
        "log_every_steps = 1"
    );
    assert!(losses.iter().all(|l| l.is_finite() && *l > 0.0));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_second_run_resumes_and_continues_the_counters() {
    let dir = common::temp_dir("resume");
    let run = |generations| {
        train(
            OpenRun::open(&dir, &common::smoke_config(), &mut Silent).unwrap(),
            TrainOptions {
                device: shashki_net::device_from_name("cpu").unwrap(),
                generations: Some(generations),
                seconds: None,
                restart: false,
                stop: Default::default(),
            },
            &mut Silent,
            None,
            None,
        )
        .unwrap()
    };
    let first = run(1);
    let second = run(2);
    assert_eq!(
        second.generations_run, 1,
        "only the missing generation runs"
    );
    assert_eq!(second.state.generation, 2);
    assert!(second.state.step > first.state.step);
    assert!(second.state.games > first.state.games);
    assert!(second.state.replay.drawn > first.state.replay.drawn);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_diagonal_net_runs_the_whole_pipeline() {
    let dir = common::temp_dir("smoke-diag");
    let mut config = common::smoke_config();
    config.net.kind = NetKind::Diag32;
    let summary = one_generation(config, &dir);
    assert_eq!(summary.state.generation, 1);
    assert!(summary.state.games >= 4 && summary.state.step > 0);
    let store = CheckpointStore::open(RunDir::new(&dir).checkpoint_dir(), 10).unwrap();
    let latest = store.load_latest().unwrap().expect("a checkpoint");
    assert_eq!(latest.checkpoint.config.kind, NetKind::Diag32);
    assert_eq!(latest.checkpoint.step, summary.state.step);
    std::fs::remove_dir_all(dir).unwrap();
}
