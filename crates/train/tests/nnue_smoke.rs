//! The NNUE family end to end (configs/nnue-smoke.toml): alpha-beta
//! self-play into chunks, Adam steps on the float net, checkpoints with
//! optimiser state, the quantized model folder, tensorboard, a resumed
//! generation, and the same games again from the same seed.

mod common;

use shashki_nnue::{NnueCheckpoint, QuantNet, load_quantized};
use shashki_selfplay::{Sample, list_chunks, read_chunk};
use shashki_train::checkpoints::CheckpointStore;
use shashki_train::nnue_family::{MODEL_DIR, target};
use shashki_train::tblog::{event_files, read_scalars};
use shashki_train::{OpenRun, RunConfig, RunDir, RunSummary, Silent, TrainOptions, train};
use std::path::{Path, PathBuf};

fn nnue_smoke_config() -> RunConfig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/nnue-smoke.toml");
    RunConfig::load(&path).unwrap()
}

fn run(dir: &Path, generations: u64) -> RunSummary {
    train(
        OpenRun::open(dir, &nnue_smoke_config(), &mut Silent).unwrap(),
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
}

fn all_samples(dir: &PathBuf) -> Vec<Sample> {
    list_chunks(&RunDir::new(dir).data_dir())
        .unwrap()
        .iter()
        .flat_map(|c| read_chunk(c).unwrap().samples().unwrap())
        .collect()
}

#[test]
fn nnue_config_trains_checkpoints_exports_and_resumes() {
    let dir = common::temp_dir("nnue-smoke");
    let steps = nnue_smoke_config().train.steps_per_generation;
    let summary = run(&dir, 2);
    assert_eq!(summary.state.generation, 2);
    assert_eq!(summary.state.step, 2 * steps);
    assert_eq!(summary.state.games, 8);

    let samples = all_samples(&dir);
    assert_eq!(samples.len() as u64, summary.state.samples);
    for s in &samples {
        // Alpha-beta scores stored as W/D/L with D = 0; no capture positions.
        assert_eq!(s.root_wdl[1], 0.0);
        assert!(!s.position.legal_moves().iter().any(|m| m.is_capture()));
        let t = target(s, 0.5);
        assert!((0.0..=1.0).contains(&t));
    }

    let run_dir = RunDir::new(&dir);
    let store = CheckpointStore::<NnueCheckpoint>::open_for(run_dir.checkpoint_dir(), 10).unwrap();
    let latest = store.load_latest().unwrap().expect("a checkpoint");
    assert_eq!(latest.checkpoint.step, 2 * steps);
    assert_eq!(latest.state.as_ref().unwrap().generation, 2);
    assert!(
        latest.checkpoint.optimizer.is_some(),
        "optimizer state saved"
    );
    // The exported model folder is the newest network, quantized.
    let model = load_quantized(&dir.join(MODEL_DIR)).unwrap();
    assert_eq!(model, QuantNet::quantize(&latest.checkpoint.net));
    // Training moved the weights away from the initial network.
    let first = store.load_best().unwrap().expect("step 0 is promoted");
    assert_eq!(first.checkpoint.step, 0);
    assert_ne!(first.checkpoint.net, latest.checkpoint.net);

    let files = event_files(&run_dir.tensorboard_dir()).unwrap();
    let scalars = read_scalars(&files[0]).unwrap();
    for tag in ["loss/total", "selfplay/games_per_second", "selfplay/draws"] {
        assert!(scalars.iter().any(|s| s.tag == tag), "missing {tag}");
    }

    // Resuming continues the counters and the optimiser.
    let resumed = run(&dir, 3);
    assert_eq!(resumed.state.generation, 3);
    assert_eq!(resumed.state.step, 3 * steps);
    assert_eq!(resumed.state.games, 12);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_same_seed_plays_the_same_games() {
    let a = common::temp_dir("nnue-seed-a");
    let b = common::temp_dir("nnue-seed-b");
    run(&a, 1);
    run(&b, 1);
    let (x, y) = (all_samples(&a), all_samples(&b));
    assert!(!x.is_empty());
    assert_eq!(x, y);
    let ckpt = |dir: &PathBuf| {
        CheckpointStore::<NnueCheckpoint>::open_for(RunDir::new(dir).checkpoint_dir(), 10)
            .unwrap()
            .load_latest()
            .unwrap()
            .unwrap()
            .checkpoint
    };
    let (ca, cb) = (ckpt(&a), ckpt(&b));
    assert_eq!(ca.step, cb.step);
    assert!(ca.net == cb.net, "the same batches train the same weights");
    std::fs::remove_dir_all(a).unwrap();
    std::fs::remove_dir_all(b).unwrap();
}

#[test]
fn a_label_model_gives_the_samples_its_values() {
    use shashki_net::{Checkpoint, Net, NetConfig, NetEvaluator, NetKind};
    use shashki_search::{EvalRequest, Evaluation, Evaluator};

    let dir = common::temp_dir("nnue-label");
    let device = shashki_net::Device::flex();
    let net = Net::init(&NetConfig::tiny_of(NetKind::Diag32), 11, &device).unwrap();
    let label_path = dir.with_extension("label.shzk");
    let checkpoint = Checkpoint::from_net(&net, 0, None).unwrap();
    checkpoint.save(&label_path).unwrap();
    let mut config = nnue_smoke_config();
    config.nnue.label_model = Some(label_path.display().to_string());
    train(
        OpenRun::open(&dir, &config, &mut Silent).unwrap(),
        TrainOptions {
            device: device.clone(),
            generations: Some(1),
            seconds: None,
            restart: false,
            stop: Default::default(),
        },
        &mut Silent,
        None,
        None,
    )
    .unwrap();

    let samples = all_samples(&dir);
    assert!(!samples.is_empty());
    let labeller = NetEvaluator::new(checkpoint.inference_net(&device).unwrap(), 64);
    for s in &samples {
        let moves = s.position.legal_moves();
        let request = EvalRequest {
            position: &s.position,
            draw_state: s.draw_state,
            moves: moves.as_slice(),
        };
        let mut out = [Evaluation::default()];
        labeller.evaluate(&[request], &mut out);
        let wdl = out[0].wdl;
        for (got, want) in s.root_wdl.iter().zip([wdl.win, wdl.draw, wdl.loss]) {
            assert!((got - want).abs() < 1e-4, "{:?} vs {wdl:?}", s.root_wdl);
        }
    }
    // The search's own scores have no draw share; the net's values do.
    assert!(samples.iter().all(|s| s.root_wdl[1] > 0.0));
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&label_path).unwrap();
}

#[test]
fn a_time_budget_ends_the_run_counts_every_sitting_and_keeps_its_marks() {
    let dir = common::temp_dir("nnue-seconds");
    let mut config = nnue_smoke_config();
    config.run.keep_every_seconds = 1;
    let sitting = |seconds: u64| {
        train(
            OpenRun::open(&dir, &config, &mut Silent).unwrap(),
            TrainOptions {
                device: shashki_net::device_from_name("cpu").unwrap(),
                generations: Some(0),
                seconds: Some(seconds),
                restart: false,
                stop: Default::default(),
            },
            &mut Silent,
            None,
            None,
        )
        .unwrap()
    };
    let first = sitting(2);
    assert!(!first.stopped, "a spent budget finishes the run");
    assert!(first.state.generation >= 1);
    // Checked before each generation, so the last saved one is at most a
    // generation short of the budget (smoke generations take well under 1 s).
    assert!(first.state.seconds > 1.0, "{}", first.state.seconds);
    // The budget is spent: another sitting trains nothing.
    let again = sitting(2);
    assert_eq!(again.state.generation, first.state.generation);
    assert_eq!(again.generations_run, 0);
    // A larger one goes on from there, counting the first sitting's time.
    let more = sitting(4);
    assert!(more.state.generation > first.state.generation);
    assert!(more.state.seconds > 3.0, "{}", more.state.seconds);
    // Each whole second of the run's time passed left its net, kept.
    let store = dir.join("checkpoints");
    for mark in 1..=3 {
        let kept = store.join(format!("time-{mark}s.shzk"));
        let net = NnueCheckpoint::load(&kept).unwrap_or_else(|e| panic!("{e}"));
        assert!(net.step <= more.state.step);
        assert!(store.join(format!("time-{mark}s.state.json")).exists());
    }
}
