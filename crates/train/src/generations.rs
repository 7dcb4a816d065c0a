//! `shashki train`, generation by generation: self-play N games -> train
//! up to M steps -> checkpoint -> gate every K generations -> repeat, for
//! the engine family `[run] engine` names; or, with `[run] mode =
//! "concurrent"`, both halves at once ([`crate::concurrent`]).
//!
//! Everything is resumable: the run directory holds the configuration, the
//! chunks, the checkpoints with their counters and the tensorboard logs, and
//! a restart continues from the newest checkpoint that loads.

use crate::checkpoints::CheckpointStore;
use crate::concurrent::{Judges, LearnerSide, run_concurrent};
use crate::config::{EngineFamily, RunConfig, RunMode};
use crate::cores::CoreSplit;
use crate::disk_budget::DiskBudget;
use crate::disk_use::{DiskUse, as_gb, dir_bytes};
use crate::errors::RunError;
use crate::family::{Family, MctsFamily, Trainee};
use crate::gate::{GateVerdict, Gatekeeper};
use crate::learning_side::Trainer;
use crate::nnue_family::{NnueFamily, export_model};
use crate::observer::{GenerationSummary, Observer, RunSummary};
use crate::ratings::Rater;
use crate::refit;
use crate::resume::OpenRun;
use crate::run_dir::RunDir;
use crate::seeds::session_seed;
use shashki_atomic::DiskFloor;
use shashki_net::Device;
use shashki_nnue::NnueCheckpoint;
use shashki_selfplay::{ChunkSink, SelfPlayStats, SelfPlayer};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Options of a training run.
pub struct TrainOptions {
    /// The device.
    pub device: Device,
    /// Overrides `[run] generations` (total generations, counting those
    /// already done).
    pub generations: Option<u64>,
    /// Overrides `[run] seconds` (the run's own time in all, counting
    /// earlier sittings').
    pub seconds: Option<u64>,
    /// Start from a fresh network when checkpoints exist but none loads
    /// (they are moved aside); without it that is an error.
    pub restart: bool,
    /// Set (by a signal handler) to stop at the next safe point: the games
    /// finished so far are kept, the current step is finished and saved.
    pub stop: Arc<AtomicBool>,
}

/// Runs `shashki train`: generations until the configured count, for the
/// engine family `[run] engine` names. `gatekeeper` plays the gates (the
/// sequential loop's, or the concurrent evaluator's), `rater` the
/// concurrent loop's ratings (none: no evaluator).
pub fn train<'j>(
    open: OpenRun,
    options: TrainOptions,
    observer: &mut dyn Observer,
    gatekeeper: Option<&'j mut (dyn Gatekeeper + Send)>,
    rater: Option<&'j mut (dyn Rater + Send)>,
) -> Result<RunSummary, RunError> {
    let OpenRun {
        run,
        _lock,
        mut config,
        cores,
        ..
    } = open;
    if let Some(g) = options.generations {
        config.run.generations = g;
    }
    if let Some(s) = options.seconds {
        config.run.seconds = s;
    }
    let session = run.begin_session().map_err(|error| RunError::Io {
        path: run.root().join("run.json"),
        error,
    })?;
    let seed = session_seed(config.run.seed, session);
    let keep = config.train.keep_checkpoints;
    let concurrent = config.run.mode == RunMode::Concurrent;
    // Concurrent self-play stops when the learner says so, which sees the
    // user's stop first.
    let halt = if concurrent {
        config.selfplay.threads = cores.selfplay;
        Arc::new(AtomicBool::new(false))
    } else {
        Arc::clone(&options.stop)
    };
    let loops = Loops {
        run: &run,
        config: &config,
        cores,
        options: &options,
        halt: &halt,
    };
    match config.run.engine {
        EngineFamily::Mcts => {
            let mut player = SelfPlayer::with_progress(
                config.selfplay.clone(),
                config.search.clone(),
                config.game_rules(),
                seed,
                &mut |line| observer.message(line),
            )?;
            player.set_stop(Arc::clone(&halt));
            let family = MctsFamily {
                player,
                device: options.device.clone(),
                kernels: config.run.kernels,
            };
            let store = CheckpointStore::open(run.checkpoint_dir(), keep)?;
            loops.run(family, store, |_| Ok(()), observer, gatekeeper, rater)
        }
        EngineFamily::Nnue => {
            let family = NnueFamily::new(&config, seed, Arc::clone(&halt))?;
            let store = CheckpointStore::<NnueCheckpoint>::open_for(run.checkpoint_dir(), keep)?;
            let export = |c: &NnueCheckpoint| export_model(c, &run, false);
            loops.run(family, store, export, observer, gatekeeper, rater)
        }
    }
}

/// What either loop runs on.
struct Loops<'a> {
    run: &'a RunDir,
    config: &'a RunConfig,
    cores: CoreSplit,
    options: &'a TrainOptions,
    halt: &'a AtomicBool,
}

impl Loops<'_> {
    /// Runs `family` in the configured mode; `export` sees each checkpoint
    /// the concurrent learner saves (the sequential loop calls the
    /// family's own [`Family::saved`]).
    fn run<'j, F>(
        &self,
        family: F,
        store: CheckpointStore<F::Checkpoint>,
        export: impl FnMut(&F::Checkpoint) -> Result<(), RunError> + Send,
        observer: &mut dyn Observer,
        gatekeeper: Option<&'j mut (dyn Gatekeeper + Send)>,
        rater: Option<&'j mut (dyn Rater + Send)>,
    ) -> Result<RunSummary, RunError>
    where
        F: Family + Send,
        F::Checkpoint: Clone + Send + Sync,
    {
        let (config, options) = (self.config, self.options);
        if config.run.mode == RunMode::Sequential {
            let gatekeeper = gatekeeper.map(|keeper| keeper as &mut dyn Gatekeeper);
            return run_generations(
                family, store, self.run, config, options, observer, gatekeeper,
            );
        }
        let side = LearnerSide {
            config,
            store,
            run: self.run,
            cores: self.cores,
            device: &options.device,
            restart: options.restart,
        };
        let judges = Judges { rater, gatekeeper };
        run_concurrent(
            family,
            side,
            self.halt,
            &options.stop,
            export,
            observer,
            judges,
        )
    }
}

/// The generation loop, whatever the engine family.
fn run_generations<F: Family>(
    family: F,
    store: CheckpointStore<F::Checkpoint>,
    run: &RunDir,
    config: &RunConfig,
    options: &TrainOptions,
    observer: &mut dyn Observer,
    gatekeeper: Option<&mut dyn Gatekeeper>,
) -> Result<RunSummary, RunError> {
    let trainer = Trainer::<F::Learner>::open(
        config,
        store,
        &run.data_dir(),
        &run.tensorboard_dir(),
        &options.device,
        options.restart,
        observer,
    )?;
    let sink = ChunkSink::new(run.data_dir(), config.selfplay.games_per_chunk)?;
    if config.gating.enabled && gatekeeper.is_none() {
        observer.message("gating is enabled in the config but not available in this build; every new net is used at once");
    }
    let mut generations = Generations {
        family,
        trainer,
        sink,
        disk: DiskUse::new(run.root(), &run.data_dir()),
        budget: DiskBudget::new(config),
        run,
        config,
        stop: &options.stop,
        gatekeeper: gatekeeper.map(|keeper| keeper as &mut dyn Gatekeeper),
        train_rate: None,
        refit_rate: None,
    };
    let floor = DiskFloor::new(run.root(), config.run.disk_floor_gb);
    let mut low_disk = None;
    let mut generations_run = 0;
    let target = config.run.generations;
    let stopped = loop {
        if target > 0 && generations.trainer.state.generation >= target {
            break false;
        }
        if generations.trainer.budget_saved() {
            break false;
        }
        if options.stop.load(Ordering::SeqCst) {
            break true;
        }
        // Checked before each generation's chunks and checkpoint: the last
        // checkpoint is saved, so stopping here loses nothing.
        if let Err(low) = floor.check() {
            low_disk = Some(low);
            break true;
        }
        match generations.run_next(observer)? {
            Some(summary) => {
                generations_run += 1;
                observer.generation_done(&summary);
            }
            None => break true,
        }
    };
    Ok(generations
        .trainer
        .finish(generations_run, stopped, low_disk, observer))
}

/// The state of the generation loop.
struct Generations<'a, F: Family> {
    family: F,
    trainer: Trainer<'a, F::Learner>,
    sink: ChunkSink,
    /// The run's size, and what a generation costs on disk.
    disk: DiskUse,
    budget: DiskBudget,
    run: &'a RunDir,
    config: &'a RunConfig,
    stop: &'a AtomicBool,
    gatekeeper: Option<&'a mut dyn Gatekeeper>,
    /// Samples the online learner trains a second, as last measured.
    train_rate: Option<f64>,
    /// ... and by the last refit of this sitting: about half as fast (its
    /// records are read from disk), so a refit's length is estimated from
    /// it once known (with the online rate, issue 69's refit lever ended
    /// its last refit 165 s past its mark).
    refit_rate: Option<f64>,
}

impl<F: Family> Generations<'_, F> {
    /// Runs the next generation; `None` when a stop cut it short (what it
    /// did is saved, and it reruns on resume).
    fn run_next(
        &mut self,
        observer: &mut dyn Observer,
    ) -> Result<Option<GenerationSummary>, RunError> {
        let started = Instant::now();
        let generation = self.trainer.state.generation + 1;
        let stats = self.self_play(generation, observer)?;
        // Self-play cut short: its finished games are in chunks.
        if self.stopped()? {
            return Ok(None);
        }
        self.trainer.log_selfplay(&stats, observer);
        let training = self
            .trainer
            .train_generation(generation, self.stop, observer)?;
        // Training cut short after a whole step.
        if self.stopped()? {
            return Ok(None);
        }
        if training.steps > 0 {
            self.train_rate = Some(training.samples_per_second);
        }
        let refit = self.refit_if_due(generation, started.elapsed().as_secs_f64(), observer)?;
        // A refit cut short leaves the learner as it was.
        if self.stopped()? {
            return Ok(None);
        }
        self.trainer.state.generation = generation;
        // Before the save, which records what was dropped.
        if self.budget.is_set() {
            let run_bytes = dir_bytes(self.run.root());
            self.budget.keep(run_bytes, &mut self.trainer, observer)?;
        }
        let checkpoint = self.trainer.save()?;
        if let Some(mark) = refit {
            self.trainer.keep_refit(&checkpoint, mark)?;
        }
        self.family.saved(&checkpoint, self.run, false)?;
        let gate = self.gate(generation, &checkpoint, observer)?;
        let run_bytes = self
            .disk
            .after_generation(started.elapsed().as_secs_f64(), observer);
        let step = self.trainer.state.step;
        self.trainer
            .log(&[("disk/run_gb", as_gb(run_bytes))], step, observer);
        self.trainer.flush(observer);
        Ok(Some(GenerationSummary {
            generation,
            step: self.trainer.state.step,
            selfplay: stats,
            steps: training.steps,
            losses: training.means.map(<F::Learner as Trainee>::loss_line),
            window: self.trainer.window(),
            train_samples_per_second: training.samples_per_second,
            gate,
            seconds: started.elapsed().as_secs_f64(),
            replay_ratio: None,
            run_bytes: Some(run_bytes),
        }))
    }

    /// Refits the learner if one is due after `generation` (which took
    /// `seconds`); the mark of the run's time it ended at, if by time.
    fn refit_if_due(
        &mut self,
        generation: u64,
        seconds: f64,
        observer: &mut dyn Observer,
    ) -> Result<Option<u64>, RunError> {
        let config = self.config;
        if !config.refit.enabled() {
            return Ok(None);
        }
        let state = &self.trainer.state;
        let samples = self.trainer.total_samples() as f64;
        // Unmeasured (no step yet): the mark is met late, never early.
        let refit_seconds = self
            .refit_rate
            .or(self.train_rate)
            .map_or(0.0, |rate| config.refit.passes * samples / rate.max(1.0));
        let Some(due) = refit::due(
            &config.refit,
            &config.run,
            generation,
            state.refit_mark,
            self.trainer.run_seconds(),
            refit_seconds + seconds,
        ) else {
            return Ok(None);
        };
        if let Some(report) = self.trainer.refit(due, self.stop, observer)?
            && report.steps > 0
        {
            self.refit_rate = Some(report.samples_per_second);
        }
        Ok(due.mark)
    }

    /// True if a stop was asked for; what the generation did so far is
    /// then saved (the generation reruns on resume).
    fn stopped(&mut self) -> Result<bool, RunError> {
        if !self.stop.load(Ordering::SeqCst) {
            return Ok(false);
        }
        self.trainer.save()?;
        Ok(true)
    }

    /// True if new nets must pass a gate before self-play uses them.
    fn gating(&self) -> bool {
        self.config.gating.enabled && self.gatekeeper.is_some()
    }

    /// Self-play of a generation with the current net (or the promoted one
    /// when gating), counted in the run's counters.
    fn self_play(
        &mut self,
        generation: u64,
        observer: &mut dyn Observer,
    ) -> Result<SelfPlayStats, RunError> {
        let games = self.config.selfplay.games_per_generation;
        observer.selfplay_started(generation, games);
        let gating = self.gating();
        let (state, learner) = (&self.trainer.state, &self.trainer.learner);
        let best = if gating && state.best_step != learner.step() {
            self.trainer.store().load_best()?.map(|l| l.checkpoint)
        } else {
            None
        };
        let net_step = if gating {
            state.best_step
        } else {
            learner.step()
        };
        self.sink.set_net_step(net_step);
        // The last generation leaves no game unfinished.
        let target = self.config.run.generations;
        let last = target > 0 && generation == target;
        let stats = self.family.play(
            learner,
            best.as_ref(),
            games,
            last,
            &mut self.sink,
            observer,
        )?;
        self.trainer.state.games += stats.games;
        self.trainer.state.samples += stats.samples;
        Ok(stats)
    }

    /// The gate of generation `generation`, when one is due: the arena
    /// plays the new `checkpoint` against the best promoted one; a pass
    /// promotes it. Without gating every new net is the best at once.
    fn gate(
        &mut self,
        generation: u64,
        checkpoint: &F::Checkpoint,
        observer: &mut dyn Observer,
    ) -> Result<Option<GateVerdict>, RunError> {
        let gating = self.gating();
        let state = &mut self.trainer.state;
        if !gating {
            state.best_step = state.step;
            return Ok(None);
        }
        if !generation.is_multiple_of(self.config.gating.every_generations)
            || state.best_step == state.step
        {
            return Ok(None);
        }
        let best = self
            .trainer
            .store()
            .promoted()?
            .last()
            .map(|(_, p)| p.clone())
            .ok_or_else(|| RunError::Gate("no promoted network to gate against".into()))?;
        let candidate = self.trainer.last_checkpoint().to_path_buf();
        let keeper = self
            .gatekeeper
            .as_deref_mut()
            .expect("gating implies a gatekeeper");
        let mut log = |line: &str| observer.message(line);
        let v = keeper
            .gate(self.config, &candidate, &best, &mut log)
            .map_err(RunError::Gate)?;
        if v.passed {
            self.trainer.promote(checkpoint, v.elo)?;
            self.family.saved(checkpoint, self.run, true)?;
        }
        let values = [
            ("gating/passed", if v.passed { 1.0 } else { 0.0 }),
            ("gating/score", v.score),
            ("gating/elo", v.elo),
            ("gating/games", v.games as f64),
            ("gating/best_elo", self.trainer.state.best_elo),
        ];
        let step = self.trainer.state.step;
        self.trainer.log(&values, step, observer);
        if let Some(llr) = v.llr {
            self.trainer.log(&[("gating/llr", llr)], step, observer);
        }
        Ok(Some(v))
    }
}
