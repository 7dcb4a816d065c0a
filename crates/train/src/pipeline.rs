//! The training loop of `shashki train`, generation by generation:
//! self-play N games -> train up to M steps -> gate every K generations ->
//! repeat; and the two halves alone (`shashki selfplay`, `shashki learn`),
//! which share a directory of chunks (KataGo's layout).
//!
//! Everything is resumable: the run directory holds the configuration, the
//! chunks, the checkpoints with their counters and the tensorboard logs, and
//! a restart continues from the newest checkpoint that loads.

use crate::checkpoints::{
    CheckpointFile, CheckpointStore, Loaded, StoreError, UNREADABLE_DIR, Unreadable,
};
use crate::config::EngineFamily;
use crate::config::{ConfigError, RunConfig};
use crate::family::{Family, MctsFamily, Trainee, play_round};
use crate::learner::{Learner, StepReport};
use crate::nnue_family::NnueFamily;
use crate::replay::{RefreshReport, ReplaySettings, ReplayWindow};
use crate::run_dir::{RunDir, RunDirError, RunLock};
use crate::state::LearnerState;
use crate::tblog::{TbError, TbLogger};
use shashki_net::{Checkpoint, Device, NetError, NetEvaluator};
use shashki_nnue::NnueCheckpoint;
use shashki_selfplay::{ChunkError, ChunkSink, SelfPlayError, SelfPlayStats, SelfPlayer};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A failure of the training loop.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The configuration.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The network or a checkpoint.
    #[error(transparent)]
    Net(#[from] NetError),
    /// The checkpoint directory.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Self-play.
    #[error(transparent)]
    SelfPlay(#[from] SelfPlayError),
    /// Writing chunks.
    #[error(transparent)]
    Chunk(#[from] ChunkError),
    /// Tensorboard.
    #[error(transparent)]
    Tensorboard(#[from] TbError),
    /// Other I/O.
    #[error("{path}: {error}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// Gating failed.
    #[error("gating: {0}")]
    Gate(String),
    /// An NNUE network or model folder.
    #[error(transparent)]
    Nnue(#[from] shashki_nnue::NnueError),
    /// A checkpoint of another architecture than the configuration's.
    #[error("{0}")]
    Mismatch(String),
    /// The run directory is locked by another process or unusable.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// Checkpoints exist but none loads: nothing is started or deleted.
    #[error(
        "no checkpoint in {dir} loads:\n{}\nnothing was deleted; fix or move them, or rerun with \
         --restart to start from a fresh network (they are then moved to {dir}/{UNREADABLE_DIR}/)",
        list_unreadable(.files)
    )]
    NoCheckpointLoads {
        /// The checkpoint directory.
        dir: PathBuf,
        /// Each file and why it failed.
        files: Vec<Unreadable>,
    },
}

fn list_unreadable(files: &[Unreadable]) -> String {
    files
        .iter()
        .map(|f| format!("  {}", f.reason))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a gate decided (from the candidate's view).
#[derive(Clone, Debug, PartialEq)]
pub struct GateVerdict {
    /// Promote the candidate.
    pub passed: bool,
    /// Games played.
    pub games: u64,
    /// Candidate's score (points per game).
    pub score: f64,
    /// Elo difference estimate (candidate - best).
    pub elo: f64,
    /// Final log-likelihood ratio (SPRT only).
    pub llr: Option<f64>,
    /// One line saying why.
    pub line: String,
}

/// Plays a candidate checkpoint against the best one (implemented with the
/// arena by the command line; the train crate does not depend on it).
pub trait Gatekeeper {
    /// Plays `candidate` against `best` under the run's `[gating]`,
    /// `[search]` and `[draw_rules]` settings and decides; `log` receives
    /// progress lines.
    fn gate(
        &mut self,
        config: &RunConfig,
        candidate: &Path,
        best: &Path,
        log: &mut dyn FnMut(&str),
    ) -> Result<GateVerdict, String>;
}

/// Receives progress (the command line draws progress bars from it).
pub trait Observer {
    /// A note or warning, one line.
    fn message(&mut self, _line: &str) {}
    /// Self-play of a generation starts.
    fn selfplay_started(&mut self, _generation: u64, _games: usize) {}
    /// A self-play game finished (`done` of `total`).
    fn selfplay_progress(&mut self, _done: usize, _total: usize) {}
    /// Training of a generation starts (at most `steps` steps).
    fn training_started(&mut self, _generation: u64, _steps: u64) {}
    /// A training step finished.
    fn training_step(&mut self, _report: &StepReport) {}
    /// A generation is complete.
    fn generation_done(&mut self, _summary: &GenerationSummary) {}
}

/// An observer that ignores everything.
pub struct Silent;
impl Observer for Silent {}

/// What one generation did.
#[derive(Clone, Debug)]
pub struct GenerationSummary {
    /// Generation number (1 = the first completed).
    pub generation: u64,
    /// Learner step at the end.
    pub step: u64,
    /// Self-play counters.
    pub selfplay: SelfPlayStats,
    /// Steps trained in this generation.
    pub steps: u64,
    /// Mean losses over those steps, as the family words them (MCTS:
    /// total, policy, value), if any step ran.
    pub losses: Option<String>,
    /// Samples in the replay window.
    pub window: usize,
    /// Training samples per second.
    pub train_samples_per_second: f64,
    /// The gate's verdict, if one ran.
    pub gate: Option<GateVerdict>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl GenerationSummary {
    /// The one-line summary printed per generation.
    pub fn line(&self) -> String {
        let s = &self.selfplay;
        let [w, d, b] = s.result_shares();
        let losses = match &self.losses {
            Some(line) => line.clone(),
            None => "no training (waiting for samples)".into(),
        };
        let gate = match &self.gate {
            Some(g) => format!(" | gate: {}", g.line),
            None => String::new(),
        };
        // Alpha-beta self-play makes no network batches.
        let fill = if s.batch_capacity > 0 {
            format!(", batch fill {:.0}%", 100.0 * s.mean_batch_fill())
        } else {
            String::new()
        };
        format!(
            "gen {:>4} | step {:>7} | {} games {:.1}/min, {:.0} pos/s, len {:.0}, W/D/B {:.0}/{:.0}/{:.0}%{fill} \
             | {} steps, {}, window {} | {:.0}s{}",
            self.generation,
            self.step,
            s.games,
            60.0 * s.games_per_second(),
            s.positions_per_second(),
            s.mean_game_length(),
            100.0 * w,
            100.0 * d,
            100.0 * b,
            self.steps,
            losses,
            self.window,
            self.seconds,
            gate,
        )
    }
}

/// What the whole run did.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// Learner state at the end.
    pub state: LearnerState,
    /// Generations run by this call.
    pub generations_run: u64,
    /// The newest checkpoint.
    pub checkpoint: PathBuf,
    /// True if the run ended because a stop was requested.
    pub stopped: bool,
}

/// The seed of the batch drawn at `step` (a pure function, so a resumed
/// run draws what an uninterrupted one would).
pub fn batch_seed(run_seed: u64, step: u64) -> u64 {
    mix(run_seed ^ 0xB47C_11E5, step)
}

/// SplitMix64-style mixing of two numbers into a seed.
pub fn mix(a: u64, b: u64) -> u64 {
    use shashki_rules::splitmix::{GOLDEN_GAMMA, splitmix64};
    splitmix64(a.wrapping_add(b.wrapping_mul(GOLDEN_GAMMA)))
}

/// Options of a training run.
pub struct TrainOptions {
    /// The configuration asked for (a resumed run uses its saved one).
    pub config: RunConfig,
    /// The run directory.
    pub run_dir: PathBuf,
    /// The device.
    pub device: Device,
    /// Overrides `[run] generations` (total generations, counting those
    /// already done).
    pub generations: Option<u64>,
    /// Start from a fresh network when checkpoints exist but none loads
    /// (they are moved aside); without it that is an error.
    pub restart: bool,
    /// Set (by a signal handler) to stop at the next safe point: the games
    /// finished so far are kept, the current step is finished and saved.
    pub stop: Arc<AtomicBool>,
}

/// Opens (or starts) the learner of a run: the newest loadable checkpoint,
/// or a fresh net saved as step 0 when there is none. Checkpoints that fail
/// to load are moved aside, never deleted; if there are some and none
/// loads, this fails unless `restart` asks for a fresh network.
fn open_learner<C: CheckpointFile, L: Trainee<Checkpoint = C>>(
    store: &CheckpointStore<C>,
    restart: bool,
    observer: &mut dyn Observer,
    fresh: impl FnOnce() -> Result<L, RunError>,
    resume: impl FnOnce(&C, &Path) -> Result<L, RunError>,
) -> Result<(L, LearnerState), RunError> {
    let loaded = store.load_latest()?;
    let unusable = match &loaded {
        Some(l) => l.skipped.clone(),
        None => store.unreadable()?,
    };
    if loaded.is_none() && !unusable.is_empty() && !restart {
        return Err(RunError::NoCheckpointLoads {
            dir: store.dir().to_path_buf(),
            files: unusable,
        });
    }
    for file in &unusable {
        let aside = store.set_aside(&file.path)?;
        observer.message(&format!(
            "unusable checkpoint moved to {}: {}",
            aside.display(),
            file.reason
        ));
    }
    match loaded {
        Some(Loaded {
            checkpoint,
            state,
            path,
            ..
        }) => {
            let learner = resume(&checkpoint, &path)?;
            let state = state.unwrap_or_else(|| {
                observer.message(&format!(
                    "{}: no counters saved with it; continuing from step {}",
                    path.display(),
                    checkpoint.step()
                ));
                LearnerState {
                    step: checkpoint.step(),
                    ..LearnerState::default()
                }
            });
            observer.message(&format!(
                "resuming from {} (step {}, generation {})",
                path.display(),
                state.step,
                state.generation
            ));
            Ok((learner, state))
        }
        None => {
            if !unusable.is_empty() {
                observer.message("--restart: starting from a fresh network");
            }
            let learner = fresh()?;
            let state = LearnerState::default();
            let checkpoint = learner.checkpoint()?;
            store.save(&checkpoint, &state)?;
            store.promote(&checkpoint)?;
            Ok((learner, state))
        }
    }
}

/// The MCTS learner of `config`: resumed from a checkpoint (whose
/// architecture must be `[net]`'s) or fresh.
fn open_mcts_learner(
    config: &RunConfig,
    store: &CheckpointStore,
    device: &Device,
    restart: bool,
    observer: &mut dyn Observer,
) -> Result<(Learner, LearnerState), RunError> {
    open_learner(
        store,
        restart,
        observer,
        || {
            Ok(Learner::new(
                &config.net,
                &config.train,
                mix(config.run.seed, 0x4E37),
                device,
            )?)
        },
        |checkpoint, path| {
            if checkpoint.config != config.net {
                return Err(RunError::Net(NetError::ArchitectureMismatch {
                    path: path.to_path_buf(),
                    expected: config.net.to_json(),
                    found: checkpoint.config.to_json(),
                }));
            }
            Ok(Learner::from_checkpoint(checkpoint, &config.train, device)?)
        },
    )
}

/// Takes the run's lock, then removes what killed processes left behind
/// (temporary files, state files without their checkpoint), reporting it.
fn claim_run_dir(run: &RunDir, observer: &mut dyn Observer) -> Result<RunLock, RunError> {
    let lock = run.lock()?;
    let stale = run.remove_stale_temp_files(Duration::from_secs(600));
    if stale > 0 {
        observer.message(&format!(
            "removed {stale} temporary files left by an interrupted run"
        ));
    }
    Ok(lock)
}

/// Removes state files whose checkpoint is gone.
fn tidy_checkpoints<C: CheckpointFile>(
    store: &CheckpointStore<C>,
    observer: &mut dyn Observer,
) -> Result<(), RunError> {
    let orphans = store.remove_orphan_states()?;
    if orphans > 0 {
        observer.message(&format!(
            "removed {orphans} checkpoint state files whose checkpoint was never written"
        ));
    }
    Ok(())
}

fn replay_settings(config: &RunConfig) -> ReplaySettings {
    ReplaySettings {
        window: config.train.window,
        min_samples: config.train.min_samples,
        max_reuse: config.train.max_reuse,
    }
}

/// Runs `shashki train`: generations until the configured count, for the
/// engine family `[run] engine` names.
pub fn train(
    options: TrainOptions,
    observer: &mut dyn Observer,
    gatekeeper: Option<&mut dyn Gatekeeper>,
) -> Result<RunSummary, RunError> {
    let run = RunDir::new(&options.run_dir);
    let _lock = claim_run_dir(&run, observer)?;
    let (mut config, note) = run.prepare(&options.config)?;
    if let Some(note) = note {
        observer.message(&note);
    }
    if let Some(g) = options.generations {
        config.run.generations = g;
    }
    let session = run.begin_session().map_err(|error| RunError::Io {
        path: run.root().join("run.json"),
        error,
    })?;
    let seed = mix(config.run.seed, session);
    match config.run.engine {
        EngineFamily::Mcts => {
            let mut player = SelfPlayer::with_progress(
                config.selfplay.clone(),
                config.search.clone(),
                config.game_rules(),
                seed,
                &mut |line| observer.message(line),
            )?;
            player.set_stop(Arc::clone(&options.stop));
            let family = MctsFamily {
                player,
                device: options.device.clone(),
            };
            let store = CheckpointStore::open(run.checkpoint_dir(), config.train.keep_checkpoints)?;
            run_generations(family, store, &run, config, &options, observer, gatekeeper)
        }
        EngineFamily::Nnue => {
            let family = NnueFamily::new(
                &config,
                seed,
                options.device.clone(),
                Arc::clone(&options.stop),
            )?;
            let store = CheckpointStore::<NnueCheckpoint>::open_for(
                run.checkpoint_dir(),
                config.train.keep_checkpoints,
            )?;
            run_generations(family, store, &run, config, &options, observer, gatekeeper)
        }
    }
}

/// The generation loop, whatever the engine family: self-play -> training
/// -> checkpoint -> gate -> repeat.
fn run_generations<F: Family>(
    mut family: F,
    store: CheckpointStore<F::Checkpoint>,
    run: &RunDir,
    config: RunConfig,
    options: &TrainOptions,
    observer: &mut dyn Observer,
    mut gatekeeper: Option<&mut dyn Gatekeeper>,
) -> Result<RunSummary, RunError> {
    let stop = &options.stop;
    tidy_checkpoints(&store, observer)?;
    let (mut learner, mut state) = open_learner(
        &store,
        options.restart,
        observer,
        || family.fresh(&config),
        |checkpoint, path| family.resume(&config, checkpoint, path),
    )?;
    let mut tb = TbLogger::open(run.tensorboard_dir())?;
    let mut replay = ReplayWindow::new(run.data_dir(), replay_settings(&config), state.replay);
    let mut sink = ChunkSink::new(run.data_dir(), config.selfplay.games_per_chunk)?;
    if config.gating.enabled && gatekeeper.is_none() {
        observer.message("gating is enabled in the config but not available in this build; every new net is used at once");
    }

    let mut generations_run = 0;
    let mut last_checkpoint = store
        .dir()
        .join(crate::checkpoints::checkpoint_name(state.step));
    let mut stopped = false;
    while config.run.generations == 0 || state.generation < config.run.generations {
        if stop.load(Ordering::SeqCst) {
            stopped = true;
            break;
        }
        let started = Instant::now();
        let generation = state.generation + 1;

        // Self-play with the current net (or the promoted one when gating).
        let games = config.selfplay.games_per_generation;
        observer.selfplay_started(generation, games);
        let gating = config.gating.enabled && gatekeeper.is_some();
        let best = if gating && state.best_step != learner.step() {
            store.load_best()?.map(|l| l.checkpoint)
        } else {
            None
        };
        sink.set_net_step(if gating {
            state.best_step
        } else {
            learner.step()
        });
        // The last generation leaves no game unfinished.
        let last = config.run.generations > 0 && generation == config.run.generations;
        let stats = family.play(&learner, best.as_ref(), games, last, &mut sink, observer)?;
        drop(best);
        state.games += stats.games;
        state.samples += stats.samples;
        if stop.load(Ordering::SeqCst) {
            // Self-play was cut short: its finished games are in chunks;
            // the generation reruns on resume.
            last_checkpoint = store.save(&learner.checkpoint()?, &state)?;
            stopped = true;
            break;
        }
        log_selfplay(&mut tb, &stats, learner.step(), observer);

        // Training, as far as the reuse budget allows.
        let phase = TrainPhase {
            store: &store,
            run,
            config: &config,
            stop,
        };
        let (steps, sums, train_rate) = phase.run(
            generation,
            &mut learner,
            &mut replay,
            &mut state,
            &mut tb,
            observer,
        )?;

        if stop.load(Ordering::SeqCst) {
            // Training was cut short after a whole step: save it; the
            // generation reruns on resume.
            state.step = learner.step();
            state.replay = replay.state();
            last_checkpoint = store.save(&learner.checkpoint()?, &state)?;
            stopped = true;
            break;
        }

        // End of generation: counters and a checkpoint.
        state.generation = generation;
        state.step = learner.step();
        state.replay = replay.state();
        let checkpoint = learner.checkpoint()?;
        last_checkpoint = store.save(&checkpoint, &state)?;
        family.saved(&checkpoint, run, false)?;

        // Gating.
        let mut verdict = None;
        if gating
            && generation % config.gating.every_generations == 0
            && state.best_step != state.step
        {
            let keeper = gatekeeper
                .as_deref_mut()
                .expect("gating implies a gatekeeper");
            let phase = GatePhase {
                store: &store,
                run,
                config: &config,
            };
            verdict = Some(phase.run(
                keeper,
                &mut family,
                &checkpoint,
                &last_checkpoint,
                &mut state,
                &mut tb,
                observer,
            )?);
        } else if !gating {
            state.best_step = state.step;
        }
        flush_tb(&mut tb, observer);

        generations_run += 1;
        let summary = GenerationSummary {
            generation,
            step: state.step,
            selfplay: stats,
            steps,
            losses: (steps > 0).then(|| family.loss_line(sums.map(|s| (s / steps as f64) as f32))),
            window: replay.len(),
            train_samples_per_second: train_rate,
            gate: verdict,
            seconds: started.elapsed().as_secs_f64(),
        };
        observer.generation_done(&summary);
    }
    if let Err(e) = tb.close() {
        observer.message(&format!("warning: {e}"));
    }
    Ok(RunSummary {
        state,
        generations_run,
        checkpoint: last_checkpoint,
        stopped,
    })
}

/// The training half of a generation: optimiser steps on the replay window
/// as far as its reuse budget allows, with checkpoints on the way.
struct TrainPhase<'a, C: CheckpointFile> {
    store: &'a CheckpointStore<C>,
    run: &'a RunDir,
    config: &'a RunConfig,
    stop: &'a AtomicBool,
}

impl<C: CheckpointFile> TrainPhase<'_, C> {
    /// Returns the steps taken, the sums of their three losses and the
    /// samples trained per second.
    fn run<L: Trainee<Checkpoint = C>>(
        &self,
        generation: u64,
        learner: &mut L,
        replay: &mut ReplayWindow,
        state: &mut LearnerState,
        tb: &mut TbLogger,
        observer: &mut dyn Observer,
    ) -> Result<(u64, [f64; 3], f64), RunError> {
        let (config, stop) = (self.config, self.stop);
        refresh_replay(replay, &self.run.data_dir(), observer)?;
        let steps_wanted = config.train.steps_per_generation;
        observer.training_started(generation, steps_wanted);
        let train_started = Instant::now();
        let mut steps = 0;
        let mut sums = [0f64; 3];
        while steps < steps_wanted
            && replay.can_draw(config.train.batch_size)
            && !stop.load(Ordering::SeqCst)
        {
            let samples = replay.draw(
                batch_seed(config.run.seed, learner.step()),
                config.train.batch_size,
            );
            let report = learner.train_on(&samples)?;
            steps += 1;
            sums[0] += report.total as f64;
            sums[1] += report.policy as f64;
            sums[2] += report.value as f64;
            observer.training_step(&report);
            if report.step % config.run.log_every_steps.max(1) == 0 {
                log_step(tb, &report, observer);
            }
            if report.step % config.train.checkpoint_every_steps == 0 {
                state.step = learner.step();
                state.replay = replay.state();
                self.store.save(&learner.checkpoint()?, state)?;
            }
        }
        let train_seconds = train_started.elapsed().as_secs_f64();
        let train_rate = if train_seconds > 0.0 {
            (steps * config.train.batch_size as u64) as f64 / train_seconds
        } else {
            0.0
        };
        tb_log(
            tb,
            observer,
            &[("train/samples_per_second", train_rate)],
            learner.step(),
        );
        tb_log(
            tb,
            observer,
            &[
                ("replay/window_samples", replay.len() as f64),
                ("replay/total_samples", replay.total_samples() as f64),
            ],
            learner.step(),
        );
        Ok((steps, sums, train_rate))
    }
}

/// The gate of a generation: the arena plays the new checkpoint against the
/// best promoted one; a pass promotes it.
struct GatePhase<'a, C: CheckpointFile> {
    store: &'a CheckpointStore<C>,
    run: &'a RunDir,
    config: &'a RunConfig,
}

impl<C: CheckpointFile> GatePhase<'_, C> {
    #[allow(clippy::too_many_arguments)] // the loop's state, lent for one gate
    fn run<F: Family<Checkpoint = C>>(
        &self,
        keeper: &mut dyn Gatekeeper,
        family: &mut F,
        checkpoint: &C,
        checkpoint_path: &Path,
        state: &mut LearnerState,
        tb: &mut TbLogger,
        observer: &mut dyn Observer,
    ) -> Result<GateVerdict, RunError> {
        let (store, run, config) = (self.store, self.run, self.config);
        let best_path = store
            .promoted()?
            .last()
            .map(|(_, p)| p.clone())
            .ok_or_else(|| RunError::Gate("no promoted network to gate against".into()))?;
        let mut log = |line: &str| observer.message(line);
        let v = keeper
            .gate(config, checkpoint_path, &best_path, &mut log)
            .map_err(RunError::Gate)?;
        if v.passed {
            store.promote(checkpoint)?;
            state.best_step = state.step;
            state.best_elo += v.elo;
            store.save(checkpoint, state)?;
            family.saved(checkpoint, run, true)?;
        }
        tb_log(
            tb,
            observer,
            &[
                ("gating/passed", if v.passed { 1.0 } else { 0.0 }),
                ("gating/score", v.score),
                ("gating/elo", v.elo),
                ("gating/games", v.games as f64),
                ("gating/best_elo", state.best_elo),
            ],
            state.step,
        );
        if let Some(llr) = v.llr {
            tb_log(tb, observer, &[("gating/llr", llr)], state.step);
        }
        Ok(v)
    }
}

/// Takes the new chunks of `data` into the replay window, telling the
/// observer of each unusable one skipped.
fn refresh_replay(
    replay: &mut ReplayWindow,
    data: &Path,
    observer: &mut dyn Observer,
) -> Result<RefreshReport, RunError> {
    let report = replay.refresh().map_err(|error| RunError::Io {
        path: data.to_path_buf(),
        error,
    })?;
    for reason in &report.skipped {
        observer.message(&format!("skipping unusable chunk: {reason}"));
    }
    Ok(report)
}

/// Logs scalars; a tensorboard failure is reported once and logging stops,
/// training goes on (chunks and checkpoints report their own errors).
fn tb_log(tb: &mut TbLogger, observer: &mut dyn Observer, values: &[(&str, f64)], step: u64) {
    if tb.is_failed() {
        return;
    }
    if let Err(e) = tb.scalars(values, step) {
        observer.message(&format!("warning: {e}"));
    }
}

fn flush_tb(tb: &mut TbLogger, observer: &mut dyn Observer) {
    if tb.is_failed() {
        return;
    }
    if let Err(e) = tb.flush() {
        observer.message(&format!("warning: {e}"));
    }
}

fn log_step(tb: &mut TbLogger, report: &StepReport, observer: &mut dyn Observer) {
    let mut values = vec![
        ("loss/total", report.total as f64),
        ("loss/policy", report.policy as f64),
        ("loss/value", report.value as f64),
        ("train/learning_rate", report.learning_rate),
        ("train/full_search_share", report.full_search_share as f64),
    ];
    if let Some(p) = report.plies_left {
        values.push(("loss/plies_left", p as f64));
    }
    tb_log(tb, observer, &values, report.step);
}

fn log_selfplay(tb: &mut TbLogger, s: &SelfPlayStats, step: u64, observer: &mut dyn Observer) {
    let [w, d, b] = s.result_shares();
    tb_log(
        tb,
        observer,
        &[
            ("selfplay/games_per_second", s.games_per_second()),
            ("selfplay/positions_per_second", s.positions_per_second()),
            (
                "selfplay/evaluations_per_second",
                s.evaluations_per_second(),
            ),
            ("selfplay/mean_batch_fill", s.mean_batch_fill()),
            ("selfplay/avg_game_length", s.mean_game_length()),
            ("selfplay/white_wins", w),
            ("selfplay/draws", d),
            ("selfplay/black_wins", b),
            (
                "selfplay/resign_false_positive_rate",
                s.false_resignation_rate(),
            ),
            ("selfplay/network_time_share", s.network_time_share()),
            ("selfplay/search_time_share", s.search_time_share()),
        ],
        step,
    );
}

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
        let (evaluator, step) = match &options.model {
            Some(model) => {
                let checkpoint = resolve_model(model, observer)?;
                if checkpoint.config != config.net {
                    observer.message(&format!(
                        "note: the model's architecture {} differs from [net] in the config; using the model's",
                        checkpoint.config.to_json()
                    ));
                }
                let net = checkpoint.inference_net(&options.device)?;
                (
                    NetEvaluator::new(net, config.selfplay.batch_size),
                    checkpoint.step,
                )
            }
            None => {
                let learner = Learner::new(
                    &config.net,
                    &config.train,
                    mix(config.run.seed, 0x4E37),
                    &options.device,
                )?;
                (
                    learner.evaluator(&options.device, config.selfplay.batch_size)?,
                    0,
                )
            }
        };
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
    /// As [`TrainOptions::restart`].
    pub restart: bool,
    /// Set to stop after the current step (which is saved).
    pub stop: Arc<AtomicBool>,
}

/// Runs the learner alone on a chunk directory fed by any number of
/// self-play processes. Checkpoints go to `<run-dir>/checkpoints`, where
/// `shashki selfplay --model` picks them up.
pub fn learn(options: LearnOptions, observer: &mut dyn Observer) -> Result<RunSummary, RunError> {
    let run = RunDir::new(&options.run_dir);
    let _lock = claim_run_dir(&run, observer)?;
    let (config, note) = run.prepare(&options.config)?;
    if let Some(note) = note {
        observer.message(&note);
    }
    mcts_only(&config, "shashki learn")?;
    let store = CheckpointStore::open(run.checkpoint_dir(), config.train.keep_checkpoints)?;
    tidy_checkpoints(&store, observer)?;
    let (mut learner, mut state) =
        open_mcts_learner(&config, &store, &options.device, options.restart, observer)?;
    let stop = &options.stop;
    let mut tb = TbLogger::open(run.tensorboard_dir())?;
    let mut replay = ReplayWindow::new(&options.data, replay_settings(&config), state.replay);
    let mut last_checkpoint = store
        .dir()
        .join(crate::checkpoints::checkpoint_name(state.step));
    let mut waited = 0.0;
    observer.training_started(0, options.max_steps.saturating_sub(state.step));
    while options.max_steps == 0 || learner.step() < options.max_steps {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let report = refresh_replay(&mut replay, &options.data, observer)?;
        if report.new_samples > 0 {
            waited = 0.0;
        }
        if !replay.can_draw(config.train.batch_size) {
            if options.max_wait_seconds > 0.0 && waited >= options.max_wait_seconds {
                observer.message(&format!(
                    "no new data for {waited:.0}s (need {} more samples); stopping",
                    replay.samples_needed(config.train.batch_size)
                ));
                break;
            }
            std::thread::sleep(Duration::from_secs_f64(options.poll_seconds.max(0.01)));
            waited += options.poll_seconds.max(0.01);
            continue;
        }
        let samples = replay.draw(
            batch_seed(config.run.seed, learner.step()),
            config.train.batch_size,
        );
        let step = learner.train_on(&samples)?;
        observer.training_step(&step);
        if step.step % config.run.log_every_steps.max(1) == 0 {
            log_step(&mut tb, &step, observer);
        }
        if step.step % config.train.checkpoint_every_steps == 0 {
            state.step = learner.step();
            state.replay = replay.state();
            last_checkpoint = store.save(&learner.checkpoint()?, &state)?;
            flush_tb(&mut tb, observer);
        }
    }
    if state.step != learner.step() {
        state.step = learner.step();
        state.replay = replay.state();
        last_checkpoint = store.save(&learner.checkpoint()?, &state)?;
    }
    if let Err(e) = tb.close() {
        observer.message(&format!("warning: {e}"));
    }
    Ok(RunSummary {
        state,
        generations_run: 0,
        checkpoint: last_checkpoint,
        stopped: stop.load(Ordering::SeqCst),
    })
}
