//! The two halves of `shashki train` alone, sharing a directory of chunks
//! (KataGo's layout): `shashki selfplay` writes games with the newest net
//! it finds, `shashki learn` trains on whatever chunks arrive. Both run
//! MCTS configurations only.

use crate::checkpoints::CheckpointStore;
use crate::config::{EngineFamily, RunConfig};
use crate::errors::RunError;
use crate::family::{Trainee, play_round};
use crate::learner::Learner;
use crate::observer::{Observer, RunSummary};
use crate::resume::{OpenRun, open_run};
use crate::trainer::Trainer;
use shashki_net::{Checkpoint, Device, NetEvaluator};
use shashki_selfplay::{ChunkSink, SelfPlayStats, SelfPlayer};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The split halves (`selfplay`, `learn`) run MCTS configurations only;
/// an NNUE run trains with `shashki train`.
fn mcts_only(config: &RunConfig, command: &str) -> Result<(), RunError> {
    match config.run.engine {
        EngineFamily::Mcts => Ok(()),
        EngineFamily::Nnue => Err(RunError::Mismatch(format!(
            "{command} runs MCTS configurations only; train an NNUE run (`[run] engine = \"nnue\"`) with `shashki train`"
        ))),
    }
}

/// Options of `shashki selfplay`.
pub struct SelfPlayOptions {
    /// The configuration.
    pub config: RunConfig,
    /// Where chunks go.
    pub out: PathBuf,
    /// A checkpoint file, or a directory whose newest `ckpt-*`/`best-*`
    /// checkpoint is (re)loaded before each round; `None`: a fresh net from
    /// the config's seed.
    pub model: Option<PathBuf>,
    /// Rounds of `games_per_generation` games; 0 runs until stopped.
    pub rounds: u64,
    /// The device.
    pub device: Device,
    /// Seed of this self-play process (give each machine its own).
    pub seed: u64,
    /// Set to stop after the games finished so far (written out first).
    pub stop: Arc<AtomicBool>,
}

/// The checkpoint a `--model` argument means now: the file itself, an
/// exported model folder (`models/NAME`), or the newest loadable
/// checkpoint in the directory (promoted ones preferred).
fn resolve_model(model: &Path, observer: &mut dyn Observer) -> Result<Checkpoint, RunError> {
    if model.join(shashki_net::MODEL_JSON_FILE).is_file() {
        return Ok(shashki_net::import_model(model)?);
    }
    if model.is_dir() {
        let store = CheckpointStore::open(model, usize::MAX)?;
        let loaded = match store.load_best()? {
            Some(best) if store.promoted()?.len() > 1 => Some(best),
            _ => store.load_latest()?,
        };
        return match loaded {
            Some(l) => {
                for file in &l.skipped {
                    observer.message(&format!("skipping unusable checkpoint: {}", file.reason));
                }
                Ok(l.checkpoint)
            }
            None => Err(RunError::Io {
                path: model.to_path_buf(),
                error: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no loadable checkpoint in this directory",
                ),
            }),
        };
    }
    Ok(Checkpoint::load(model)?)
}

/// The evaluator a self-play round plays with, and the step of its net:
/// the `--model` as it is now, or the fresh net of the config's seed.
fn round_evaluator(
    options: &SelfPlayOptions,
    observer: &mut dyn Observer,
) -> Result<(NetEvaluator, u64), RunError> {
    let config = &options.config;
    let batch = config.selfplay.batch_size;
    let Some(model) = &options.model else {
        let learner = Learner::fresh(config, &options.device)?;
        return Ok((learner.evaluator(&options.device, batch)?, 0));
    };
    let checkpoint = resolve_model(model, observer)?;
    if checkpoint.config != config.net {
        observer.message(&format!(
            "note: the model's architecture {} differs from [net] in the config; using the model's",
            checkpoint.config.to_json()
        ));
    }
    let net = checkpoint.inference_net(&options.device)?;
    Ok((NetEvaluator::new(net, batch), checkpoint.step))
}

/// Runs self-play alone, writing chunks to `options.out`.
pub fn selfplay(
    options: SelfPlayOptions,
    observer: &mut dyn Observer,
) -> Result<SelfPlayStats, RunError> {
    let config = &options.config;
    mcts_only(config, "shashki selfplay")?;
    let mut player = SelfPlayer::with_progress(
        config.selfplay.clone(),
        config.search.clone(),
        config.game_rules(),
        options.seed,
        &mut |line| observer.message(line),
    )?;
    player.set_stop(Arc::clone(&options.stop));
    let mut sink = ChunkSink::new(&options.out, config.selfplay.games_per_chunk)?;
    let mut total = SelfPlayStats::default();
    let mut round = 0;
    while (options.rounds == 0 || round < options.rounds) && !options.stop.load(Ordering::SeqCst) {
        round += 1;
        let (evaluator, step) = round_evaluator(&options, observer)?;
        sink.set_net_step(step);
        let games = config.selfplay.games_per_generation;
        observer.selfplay_started(round, games);
        // The last round leaves no game unfinished.
        let last = options.rounds > 0 && round == options.rounds;
        let stats = play_round(&mut player, &evaluator, games, last, &mut sink, observer)?;
        observer.message(&format!(
            "round {round} (net step {step}): {}",
            stats.summary()
        ));
        total.merge(&stats);
    }
    Ok(total)
}

/// Options of `shashki learn`.
pub struct LearnOptions {
    /// The configuration asked for (a resumed run uses its saved one).
    pub config: RunConfig,
    /// The chunk directory to train on.
    pub data: PathBuf,
    /// The learner's run directory (checkpoints, tensorboard).
    pub run_dir: PathBuf,
    /// Stop after this many steps in total (0: run until stopped).
    pub max_steps: u64,
    /// Seconds between directory scans while waiting for data.
    pub poll_seconds: f64,
    /// Give up after waiting this long for new data (0: wait forever).
    pub max_wait_seconds: f64,
    /// The device.
    pub device: Device,
    /// As [`crate::TrainOptions::restart`].
    pub restart: bool,
    /// Set to stop after the current step (which is saved).
    pub stop: Arc<AtomicBool>,
}

/// Runs the learner alone on a chunk directory fed by any number of
/// self-play processes. Checkpoints go to `<run-dir>/checkpoints`, where
/// `shashki selfplay --model` picks them up.
pub fn learn(options: LearnOptions, observer: &mut dyn Observer) -> Result<RunSummary, RunError> {
    let OpenRun { run, _lock, config } = open_run(&options.run_dir, &options.config, observer)?;
    mcts_only(&config, "shashki learn")?;
    let store = CheckpointStore::open(run.checkpoint_dir(), config.train.keep_checkpoints)?;
    let mut trainer = Trainer::<Learner>::open(
        &config,
        store,
        &options.data,
        &run.tensorboard_dir(),
        &options.device,
        options.restart,
        observer,
    )?;
    let (stop, max_steps) = (&options.stop, options.max_steps);
    let poll = options.poll_seconds.max(0.01);
    let mut waited = 0.0;
    observer.training_started(0, max_steps.saturating_sub(trainer.state.step));
    while (max_steps == 0 || trainer.learner.step() < max_steps) && !stop.load(Ordering::SeqCst) {
        if trainer.refresh(observer)?.new_samples > 0 {
            waited = 0.0;
        }
        if trainer.can_draw() {
            trainer.step(observer)?;
            continue;
        }
        if options.max_wait_seconds > 0.0 && waited >= options.max_wait_seconds {
            observer.message(&format!(
                "no new data for {waited:.0}s (need {} more samples); stopping",
                trainer.samples_needed()
            ));
            break;
        }
        std::thread::sleep(Duration::from_secs_f64(poll));
        waited += poll;
    }
    if trainer.state.step != trainer.learner.step() {
        trainer.save()?;
    }
    Ok(trainer.finish(0, stop.load(Ordering::SeqCst), observer))
}
