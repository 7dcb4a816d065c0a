//! The two halves of `shashki train` alone, sharing a directory of chunks
//! (KataGo's layout): `shashki selfplay` writes games with the newest net
//! it finds, `shashki learn` trains on whatever chunks arrive. Both run
//! either engine family (`[run] engine`); the Ray driver (scripts/ray/)
//! runs `selfplay --out-file` rounds on its actors.

use crate::checkpoints::{CheckpointFile, CheckpointStore};
use crate::config::{EngineFamily, RunConfig};
use crate::errors::RunError;
use crate::family::{Trainee, play_round};
use crate::learning_side::Trainer;
use crate::net_learner::Learner;
use crate::nnue_family::{NnueFamily, NnueLearner, export_model, fresh_net};
use crate::observer::{Observer, RunSummary};
use crate::resume::{OpenRun, open_run};
use crate::run_dir::RunDir;
use shashki_atomic::DiskFloor;
use shashki_net::{Checkpoint, Device, NetEvaluator};
use shashki_nnue::NnueCheckpoint;
use shashki_selfplay::{ChunkSink, SelfPlayStats, SelfPlayer};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Options of `shashki selfplay`.
pub struct SelfPlayOptions {
    /// The configuration.
    pub config: RunConfig,
    /// Where chunks go: a directory, or with `single_file` the one file.
    pub out: PathBuf,
    /// Write every game into the one chunk file `out` (rewritten whole
    /// after each round) instead of named chunks in a directory.
    pub single_file: bool,
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

/// The checkpoint a `--model` argument means now: the file itself, or the
/// newest loadable checkpoint in the directory (promoted ones preferred).
fn resolve_model<C: CheckpointFile>(
    model: &Path,
    observer: &mut dyn Observer,
) -> Result<C, RunError> {
    if model.is_dir() {
        let store = CheckpointStore::<C>::open_for(model, usize::MAX)?;
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
    Ok(C::load(model)?)
}

/// The free space `shashki selfplay` leaves on the disk it writes to.
fn selfplay_floor(options: &SelfPlayOptions) -> DiskFloor {
    let floor = options.config.run.disk_floor_gb;
    DiskFloor::of_output(&options.out, options.single_file, floor)
}

/// Where `shashki selfplay` writes: named chunks in a directory, or one file.
fn selfplay_sink(options: &SelfPlayOptions) -> Result<ChunkSink, RunError> {
    Ok(if options.single_file {
        ChunkSink::to_file(&options.out)?
    } else {
        ChunkSink::new(&options.out, options.config.selfplay.games_per_chunk)?
    })
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
        return Ok((
            learner.evaluator(&options.device, batch, config.run.kernels)?,
            0,
        ));
    };
    // An exported model folder (`models/NAME`) is a network too.
    let checkpoint: Checkpoint = if model.join(shashki_net::MODEL_JSON_FILE).is_file() {
        shashki_net::import_model(model)?
    } else {
        resolve_model(model, observer)?
    };
    if checkpoint.config != config.net {
        observer.message(&format!(
            "note: the model's architecture {} differs from [net] in the config; using the model's",
            checkpoint.config.to_json()
        ));
    }
    let net = checkpoint.inference_net_with(&options.device, config.run.kernels)?;
    Ok((NetEvaluator::new(net, batch), checkpoint.step))
}

/// Runs self-play alone, writing chunks to `options.out`.
pub fn selfplay(
    options: SelfPlayOptions,
    observer: &mut dyn Observer,
) -> Result<SelfPlayStats, RunError> {
    let config = &options.config;
    if config.run.engine == EngineFamily::Nnue {
        return nnue_selfplay(options, observer);
    }
    let mut player = SelfPlayer::with_progress(
        config.selfplay.clone(),
        config.search.clone(),
        config.game_rules(),
        options.seed,
        &mut |line| observer.message(line),
    )?;
    player.set_stop(Arc::clone(&options.stop));
    let mut sink = selfplay_sink(&options)?;
    let mut total = SelfPlayStats::default();
    let mut round = 0;
    let floor = selfplay_floor(&options);
    while (options.rounds == 0 || round < options.rounds) && !options.stop.load(Ordering::SeqCst) {
        // The rounds before are written; this one's chunks need room.
        floor.check()?;
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

/// Runs NNUE self-play alone: `options.rounds` rounds (0: until stopped)
/// of `[selfplay] games_per_generation` games each, the network reloaded
/// from `options.model` before every round (a fresh one from the config's
/// seed without it), games seeded by `options.seed`.
fn nnue_selfplay(
    options: SelfPlayOptions,
    observer: &mut dyn Observer,
) -> Result<SelfPlayStats, RunError> {
    let config = &options.config;
    let mut family = NnueFamily::new(config, options.seed, Arc::clone(&options.stop))?;
    let mut sink = selfplay_sink(&options)?;
    let mut total = SelfPlayStats::default();
    let mut round = 0;
    let floor = selfplay_floor(&options);
    while (options.rounds == 0 || round < options.rounds) && !options.stop.load(Ordering::SeqCst) {
        // The rounds before are written; this one's chunks need room.
        floor.check()?;
        round += 1;
        let (net, step) = match &options.model {
            Some(model) => {
                let checkpoint: NnueCheckpoint = resolve_model(model, observer)?;
                (checkpoint.net, checkpoint.step)
            }
            None => (fresh_net(config)?, 0),
        };
        sink.set_net_step(step);
        let games = config.selfplay.games_per_generation;
        observer.selfplay_started(round, games);
        let stats = family.play_net(&net, games, &mut sink, observer)?;
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
/// `shashki selfplay --model` picks them up (NNUE runs also export the
/// newest network as `<run-dir>/model/`).
pub fn learn(options: LearnOptions, observer: &mut dyn Observer) -> Result<RunSummary, RunError> {
    let OpenRun {
        run, _lock, config, ..
    } = open_run(&options.run_dir, &options.config, observer)?;
    match config.run.engine {
        EngineFamily::Mcts => learn_loop::<Learner>(&run, &config, &options, observer, |_| Ok(())),
        EngineFamily::Nnue => learn_loop::<NnueLearner>(&run, &config, &options, observer, |c| {
            export_model(c, &run, false)
        }),
    }
}

/// The learner's loop, whatever the engine family: take new chunks, train
/// a step when the window allows, wait for data when it does not; `saved`
/// sees every checkpoint saved.
fn learn_loop<L: Trainee>(
    run: &RunDir,
    config: &RunConfig,
    options: &LearnOptions,
    observer: &mut dyn Observer,
    saved: impl FnMut(&L::Checkpoint) -> Result<(), RunError>,
) -> Result<RunSummary, RunError> {
    let keep = config.train.keep_checkpoints;
    let store = CheckpointStore::<L::Checkpoint>::open_for(run.checkpoint_dir(), keep)?;
    let mut trainer = Trainer::<L>::open(
        config,
        store,
        &options.data,
        &run.tensorboard_dir(),
        &options.device,
        options.restart,
        observer,
    )?;
    trainer.on_save(saved);
    let (stop, max_steps) = (&options.stop, options.max_steps);
    let poll = options.poll_seconds.max(0.01);
    let mut waited = 0.0;
    observer.training_started(0, max_steps.saturating_sub(trainer.state.step));
    let floor = DiskFloor::new(run.root(), config.run.disk_floor_gb);
    let mut low_disk = None;
    while (max_steps == 0 || trainer.learner.step() < max_steps) && !stop.load(Ordering::SeqCst) {
        // Before the step whose save could be the next file.
        if let Err(low) = floor.check() {
            low_disk = Some(low);
            break;
        }
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
    Ok(trainer.finish(0, stop.load(Ordering::SeqCst), low_disk, observer))
}
