//! The learner's side of a run, which `shashki train` and `shashki learn`
//! share: the learner with its counters and replay window, one training
//! step (draw, train, report, log, checkpoint when due), the save that
//! records the step and the replay accounting with each checkpoint, and the
//! tensorboard log, whose failures are warnings that never stop training.

use crate::checkpoints::{CheckpointStore, checkpoint_name};
use crate::config::RunConfig;
use crate::errors::RunError;
use crate::family::Trainee;
use crate::net_learner::StepReport;
use crate::observer::{Observer, RunSummary};
use crate::replay::{RefreshReport, ReplaySettings, ReplayWindow};
use crate::resume::{open_learner, tidy_checkpoints};
use crate::seeds::batch_seed;
use crate::state::LearnerState;
use crate::tblog::TbLogger;
use shashki_atomic::LowDisk;
use shashki_net::Device;
use shashki_selfplay::SelfPlayStats;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A learner at work on a run directory's checkpoints and a chunk
/// directory's samples.
pub(crate) struct Trainer<'a, L: Trainee> {
    /// The network being trained.
    pub learner: L,
    /// The counters saved with each checkpoint.
    pub state: LearnerState,
    replay: ReplayWindow,
    store: CheckpointStore<L::Checkpoint>,
    config: &'a RunConfig,
    tb: TbLogger,
    last_checkpoint: PathBuf,
    /// Sees every checkpoint saved (e.g. to export it).
    on_save: Option<SaveHook<'a, L::Checkpoint>>,
    /// When this sitting opened the learner, and the run's own time before
    /// it (from the checkpoint it resumed).
    sitting: Instant,
    seconds_before: f64,
    /// Where a refit's learner computes.
    device: Device,
}

/// What a [`Trainer`] calls with each checkpoint it saves.
type SaveHook<'a, C> = Box<dyn FnMut(&C) -> Result<(), RunError> + 'a>;

/// What the training half of a generation did.
pub(crate) struct Training {
    /// Steps taken.
    pub steps: u64,
    /// The mean `total`, `policy` and `value` of their reports.
    pub means: Option<[f32; 3]>,
    /// Samples trained per second.
    pub samples_per_second: f64,
}

impl<'a, L: Trainee> Trainer<'a, L> {
    /// Opens the learner of `store` (see [`open_learner`]), the tensorboard
    /// log in `tensorboard` and the replay window over `data`.
    pub fn open(
        config: &'a RunConfig,
        store: CheckpointStore<L::Checkpoint>,
        data: &Path,
        tensorboard: &Path,
        device: &Device,
        restart: bool,
        observer: &mut dyn Observer,
    ) -> Result<Trainer<'a, L>, RunError> {
        tidy_checkpoints(&store, observer)?;
        let (learner, state) = open_learner(config, &store, device, restart, observer)?;
        let tb = TbLogger::open(tensorboard)?;
        let replay = ReplayWindow::new(data, replay_settings(config), state.replay);
        let last_checkpoint = store.dir().join(checkpoint_name(state.step));
        let seconds_before = state.seconds;
        Ok(Trainer {
            learner,
            state,
            replay,
            store,
            config,
            tb,
            last_checkpoint,
            on_save: None,
            sitting: Instant::now(),
            seconds_before,
            device: device.clone(),
        })
    }

    /// Seconds the run has trained: those of earlier sittings (as far as
    /// their last checkpoint) and this one's.
    pub fn run_seconds(&self) -> f64 {
        self.seconds_before + self.sitting.elapsed().as_secs_f64()
    }

    /// Whether `[run] seconds` of the run's own time have passed (the
    /// concurrent learner's check: a halt is followed by a save, which
    /// records the time).
    pub fn out_of_time(&self) -> bool {
        let budget = self.config.run.seconds;
        budget > 0 && self.run_seconds() >= budget as f64
    }

    /// Whether the newest save records the whole `[run] seconds` (the
    /// sequential loop's check, between a save and the next generation: on
    /// the live clock a run could stop a few milliseconds after a save that
    /// holds less, with no save after it, and the next sitting would train
    /// one more generation).
    /// A run refitting by time ends with the refit that served its
    /// budget's mark, which may end a little before it.
    pub fn budget_saved(&self) -> bool {
        let budget = self.config.run.seconds;
        let refitted = self.config.refit.every_seconds > 0 && self.state.refit_mark >= budget;
        budget > 0 && (self.state.seconds >= budget as f64 || refitted)
    }

    /// Calls `hook` with every checkpoint saved from now on.
    pub fn on_save(&mut self, hook: impl FnMut(&L::Checkpoint) -> Result<(), RunError> + 'a) {
        self.on_save = Some(Box::new(hook));
    }

    /// The run's configuration.
    pub fn config(&self) -> &'a RunConfig {
        self.config
    }

    /// The replay accounting now.
    pub fn replay_state(&self) -> crate::replay::ReplayState {
        self.replay.state()
    }

    /// The checkpoint directory.
    pub fn store(&self) -> &CheckpointStore<L::Checkpoint> {
        &self.store
    }

    /// The run's chunk directory.
    pub fn data_dir(&self) -> &Path {
        self.replay.dir()
    }

    /// Where the learner computes.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Samples in every chunk the window knows (the run's whole output as
    /// of the last refresh).
    pub fn total_samples(&self) -> u64 {
        self.replay.total_samples()
    }

    /// The newest checkpoint saved (or loaded).
    pub fn last_checkpoint(&self) -> &Path {
        &self.last_checkpoint
    }

    /// Samples in the replay window.
    pub fn window(&self) -> usize {
        self.replay.len()
    }

    /// Takes the new chunks into the replay window, telling the observer
    /// of each unusable one skipped.
    pub fn refresh(&mut self, observer: &mut dyn Observer) -> Result<RefreshReport, RunError> {
        let report = self.replay.refresh().map_err(|error| RunError::Io {
            path: self.replay.dir().to_path_buf(),
            error,
        })?;
        for reason in &report.skipped {
            observer.message(&format!("skipping unusable chunk: {reason}"));
        }
        Ok(report)
    }

    /// True if the window and its reuse budget allow a batch now.
    pub fn can_draw(&self) -> bool {
        self.replay.can_draw(self.config.train.batch_size)
    }

    /// Samples still to arrive before a batch can be drawn.
    pub fn samples_needed(&self) -> u64 {
        self.replay.samples_needed(self.config.train.batch_size)
    }

    /// One optimiser step on a batch drawn from the window (call
    /// [`Trainer::can_draw`] first), reported to the observer, logged and
    /// checkpointed at the configured intervals.
    pub fn step(&mut self, observer: &mut dyn Observer) -> Result<StepReport, RunError> {
        let config = self.config;
        let (run, train) = (&config.run, &config.train);
        let samples = self
            .replay
            .draw(batch_seed(run.seed, self.learner.step()), train.batch_size)
            .map_err(|error| RunError::Io {
                path: self.replay.dir().to_path_buf(),
                error,
            })?;
        let report = self.learner.train_on(&samples)?;
        let losses = L::loss_line([report.total, report.policy, report.value]);
        observer.training_step(&report, &losses);
        if report.step % run.log_every_steps.max(1) == 0 {
            self.log(&L::step_scalars(&report), report.step, observer);
        }
        if report.step % train.checkpoint_every_steps == 0 {
            self.save()?;
            self.flush(observer);
        }
        Ok(report)
    }

    /// The training half of generation `generation`: steps as far as the
    /// window's reuse budget allows, up to `[train] steps_per_generation`,
    /// until `stop` is set.
    pub fn train_generation(
        &mut self,
        generation: u64,
        stop: &AtomicBool,
        observer: &mut dyn Observer,
    ) -> Result<Training, RunError> {
        self.refresh(observer)?;
        let wanted = self.config.train.steps_per_generation;
        observer.training_started(generation, wanted);
        let started = Instant::now();
        let mut sums = LossSums::default();
        while sums.steps < wanted && self.can_draw() && !stop.load(Ordering::SeqCst) {
            sums.add(&self.step(observer)?);
        }
        let seconds = started.elapsed().as_secs_f64();
        let samples_per_second = if seconds > 0.0 {
            (sums.steps * self.config.train.batch_size as u64) as f64 / seconds
        } else {
            0.0
        };
        let step = self.learner.step();
        self.log(
            &[("train/samples_per_second", samples_per_second)],
            step,
            observer,
        );
        let window = [
            ("replay/window_samples", self.replay.len() as f64),
            ("replay/total_samples", self.replay.total_samples() as f64),
        ];
        self.log(&window, step, observer);
        Ok(Training {
            steps: sums.steps,
            means: sums.means(),
            samples_per_second,
        })
    }

    /// Deletes chunks no draw can reach any more (oldest first; none when
    /// refits read every chunk) and then regular checkpoints but the
    /// `newest`, until `excess` bytes are freed or nothing more may go;
    /// the bytes freed. The chunks' samples count as dropped in the replay
    /// state the next save records.
    pub fn drop_unread(&mut self, excess: u64, newest: usize) -> Result<u64, RunError> {
        let mut freed = 0;
        let refits = self.config.refit.enabled();
        while freed < excess && !refits {
            let Some(path) = self.replay.forget_oldest() else {
                break;
            };
            freed += std::fs::metadata(&path).map_or(0, |m| m.len());
            match std::fs::remove_file(&path) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    return Err(RunError::Io { path, error });
                }
                _ => {}
            }
        }
        while freed < excess {
            let Some(bytes) = self.store.drop_oldest(newest)? else {
                break;
            };
            freed += bytes;
        }
        Ok(freed)
    }

    /// Records the learner's step and the replay accounting in the
    /// counters, then saves a checkpoint with them.
    pub fn save(&mut self) -> Result<L::Checkpoint, RunError> {
        self.state.step = self.learner.step();
        self.state.replay = self.replay.state();
        let before = self.state.seconds;
        self.state.seconds = self.run_seconds();
        let checkpoint = self.learner.checkpoint()?;
        self.last_checkpoint = self.store.save(&checkpoint, &self.state)?;
        let every = self.config.run.keep_every_seconds;
        // A mark a refit ended at keeps the refit's net (`keep_refit`).
        if let Some(mark) = mark_passed(before, self.state.seconds, every)
            && mark > self.state.refit_mark
        {
            self.store.keep_at_time(&checkpoint, &self.state, mark)?;
        }
        if let Some(hook) = &mut self.on_save {
            hook(&checkpoint)?;
        }
        Ok(checkpoint)
    }

    /// Keeps `checkpoint` (the newest, saved just after a refit that ended
    /// at `mark` of the run's time) as that mark's net, if the run keeps
    /// one there: the refit may end a little before the mark, and the
    /// first save past it would otherwise hold a generation more.
    pub fn keep_refit(&mut self, checkpoint: &L::Checkpoint, mark: u64) -> Result<(), RunError> {
        let every = self.config.run.keep_every_seconds;
        if every > 0 && mark > 0 && mark.is_multiple_of(every) {
            self.store.keep_at_time(checkpoint, &self.state, mark)?;
        }
        Ok(())
    }

    /// Promotes `checkpoint` (the newest, just saved): self-play uses it
    /// from now on, and the best net's Elo grows by `elo`.
    pub fn promote(&mut self, checkpoint: &L::Checkpoint, elo: f64) -> Result<(), RunError> {
        self.store.promote(checkpoint)?;
        self.state.best_step = self.state.step;
        self.state.best_elo += elo;
        self.store.save(checkpoint, &self.state)?;
        Ok(())
    }

    /// Logs scalars at `step`; a tensorboard failure is reported once and
    /// logging stops, training goes on.
    pub fn log(&mut self, values: &[(&str, f64)], step: u64, observer: &mut dyn Observer) {
        if self.tb.is_failed() {
            return;
        }
        if let Err(e) = self.tb.scalars(values, step) {
            observer.message(&format!("warning: {e}"));
        }
    }

    /// Logs a round of self-play's counters at the learner's step.
    pub fn log_selfplay(&mut self, s: &SelfPlayStats, observer: &mut dyn Observer) {
        let [w, d, b] = s.result_shares();
        let values = [
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
            (
                "selfplay/distinct_positions_per_hour",
                s.distinct_positions_per_hour(),
            ),
        ];
        let step = self.learner.step();
        self.log(&values, step, observer);
    }

    /// Writes the logged scalars out.
    pub fn flush(&mut self, observer: &mut dyn Observer) {
        if self.tb.is_failed() {
            return;
        }
        if let Err(e) = self.tb.flush() {
            observer.message(&format!("warning: {e}"));
        }
    }

    /// Closes the log; the run's outcome (`low_disk`: it stopped for
    /// want of room).
    pub fn finish(
        self,
        generations_run: u64,
        stopped: bool,
        low_disk: Option<LowDisk>,
        observer: &mut dyn Observer,
    ) -> RunSummary {
        if let Err(e) = self.tb.close() {
            observer.message(&format!("warning: {e}"));
        }
        RunSummary {
            state: self.state,
            generations_run,
            checkpoint: self.last_checkpoint,
            stopped: stopped || low_disk.is_some(),
            low_disk,
        }
    }
}

fn replay_settings(config: &RunConfig) -> ReplaySettings {
    ReplaySettings {
        mode: config.train.replay_mode(),
        window: config.train.window,
        min_samples: config.train.min_samples,
        max_reuse: config.train.max_reuse,
    }
}

/// Sums of the losses of a generation's steps.
#[derive(Default)]
pub(crate) struct LossSums {
    pub steps: u64,
    sums: [f64; 3],
}

impl LossSums {
    pub fn add(&mut self, report: &StepReport) {
        self.steps += 1;
        self.sums[0] += report.total as f64;
        self.sums[1] += report.policy as f64;
        self.sums[2] += report.value as f64;
    }

    /// The mean `total`, `policy` and `value`, if any step ran.
    pub fn means(&self) -> Option<[f32; 3]> {
        (self.steps > 0).then(|| self.sums.map(|s| (s / self.steps as f64) as f32))
    }
}

/// The last multiple of `every` seconds passed between `before` and
/// `now`, if one was (none when `every` is 0).
fn mark_passed(before: f64, now: f64, every: u64) -> Option<u64> {
    if every == 0 {
        return None;
    }
    let marks = |t: f64| (t / every as f64).floor() as u64;
    (marks(now) > marks(before)).then(|| marks(now) * every)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoints::CheckpointFile;
    use crate::nnue_family::NnueLearner;
    use crate::tblog::{event_files, read_scalars};
    use shashki_rules::{DrawState, Position};
    use shashki_selfplay::{ChunkWriter, Sample};
    use std::collections::HashSet;

    #[test]
    fn a_time_mark_is_kept_once_when_passed() {
        assert_eq!(mark_passed(3590.0, 3610.0, 3600), Some(3600));
        assert_eq!(mark_passed(3610.0, 3700.0, 3600), None);
        assert_eq!(mark_passed(0.0, 7300.0, 3600), Some(7200));
        assert_eq!(mark_passed(10.0, 20.0, 0), None);
    }

    fn config() -> RunConfig {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/nnue-smoke.toml");
        RunConfig::load(&path).unwrap()
    }

    use shashki_atomic::testing::temp_dir;

    fn open<'a>(config: &'a RunConfig, dir: &Path) -> Trainer<'a, NnueLearner> {
        let store = CheckpointStore::open_for(dir.join("checkpoints"), 10).unwrap();
        Trainer::open(
            config,
            store,
            &dir.join("data"),
            &dir.join("tb"),
            &Device::flex(),
            false,
            &mut crate::observer::Silent,
        )
        .unwrap()
    }

    /// A chunk of `n` start positions, half of them won.
    fn write_samples(dir: &Path, n: usize) -> Vec<Sample> {
        let samples: Vec<Sample> = (0..n)
            .map(|i| {
                let mut s = Sample::new(Position::startpos(), DrawState::default());
                s.result = if i % 2 == 0 { 1 } else { 0 };
                s
            })
            .collect();
        ChunkWriter::new(dir.join("data"))
            .unwrap()
            .write(&samples, 0)
            .unwrap();
        samples
    }

    #[test]
    fn a_refit_fits_every_chunk_with_a_falling_rate_and_replaces_the_net() {
        use crate::config::RefitSection;
        use crate::diagnose::loss::sigmoid;
        use crate::refit::Due;
        let mut config = config();
        config.refit = RefitSection {
            every_seconds: 0,
            every_generations: 1,
            passes: 4.0,
            learning_rate: 0.01,
            learning_rate_end: 0.001,
            fresh: true,
        };
        // The online window holds 50 of the 200 samples.
        config.train.window = 50;
        let dir = temp_dir("refit");
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let samples = [write_samples(&dir, 100), write_samples(&dir, 100)].concat();
        let lambda = config.nnue.lambda as f32;
        let mean = samples
            .iter()
            .map(|s| crate::nnue_family::target(s, lambda))
            .sum::<f32>()
            / samples.len() as f32;
        let mut trainer = open(&config, &dir);
        trainer.refresh(&mut crate::observer::Silent).unwrap();
        assert_eq!(trainer.window(), 50);
        let start = Position::startpos();
        let before = trainer.learner.float_net().forward(&start);
        let report = trainer
            .refit(
                Due { mark: Some(3600) },
                &AtomicBool::new(false),
                &mut crate::observer::Silent,
            )
            .unwrap()
            .expect("not stopped");
        // Every chunk, not the window: 4 passes of 200 in batches of 32.
        assert_eq!((report.samples, report.steps), (200, 25));
        assert_eq!(trainer.learner.step(), 25);
        assert_eq!((trainer.state.refits, trainer.state.refit_mark), (1, 3600));
        // One position, its targets' mean: the fitted net says it.
        let after = trainer.learner.float_net().forward(&start);
        assert_ne!(before, after);
        assert!(
            (sigmoid(after) - mean).abs() < 0.03,
            "{} {mean}",
            sigmoid(after)
        );
        // A stop before its first step leaves the learner and counters.
        let stopped = trainer
            .refit(
                Due { mark: None },
                &AtomicBool::new(true),
                &mut crate::observer::Silent,
            )
            .unwrap();
        assert!(stopped.is_none());
        assert_eq!(trainer.learner.float_net().forward(&start), after);
        assert_eq!((trainer.learner.step(), trainer.state.refits), (25, 1));
    }

    #[test]
    fn a_generation_trains_checkpoints_and_logs_the_familys_own_losses() {
        let config = config();
        let dir = temp_dir("generation");
        std::fs::create_dir_all(dir.join("data")).unwrap();
        write_samples(&dir, 100);
        let mut trainer = open(&config, &dir);
        let stop = AtomicBool::new(false);
        let training = trainer
            .train_generation(1, &stop, &mut crate::observer::Silent)
            .unwrap();
        // steps_per_generation = 3, checkpoint_every_steps = 2.
        assert_eq!(training.steps, 3);
        let [total, policy, value] = training.means.expect("steps ran");
        assert!(total > 0.0 && policy == 0.0 && value == total);
        assert_eq!(trainer.state.step, 2, "the step-2 checkpoint's counters");
        assert!(trainer.last_checkpoint().ends_with(checkpoint_name(2)));

        let checkpoint = trainer.save().unwrap();
        assert_eq!(checkpoint.step(), 3);
        assert_eq!(trainer.state.step, 3);
        assert_eq!(trainer.state.replay.drawn, 3 * 32);
        let summary = trainer.finish(1, false, None, &mut crate::observer::Silent);
        assert!(summary.checkpoint.ends_with(checkpoint_name(3)));
        let steps: Vec<u64> =
            CheckpointStore::<shashki_nnue::NnueCheckpoint>::open_for(dir.join("checkpoints"), 10)
                .unwrap()
                .checkpoints()
                .unwrap()
                .iter()
                .map(|(step, _)| *step)
                .collect();
        assert_eq!(steps, [0, 2, 3]);

        let files = event_files(&dir.join("tb")).unwrap();
        let tags: HashSet<String> = read_scalars(&files[0])
            .unwrap()
            .into_iter()
            .map(|s| s.tag)
            .collect();
        for tag in [
            "loss/total",
            "loss/expected_score_mse",
            "train/learning_rate",
            "train/samples_per_second",
            "replay/window_samples",
        ] {
            assert!(tags.contains(tag), "missing {tag} in {tags:?}");
        }
        for tag in ["loss/policy", "loss/value", "train/full_search_share"] {
            assert!(!tags.contains(tag), "{tag} is not an NNUE quantity");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn no_step_without_enough_samples_or_after_a_stop() {
        let config = config();
        let dir = temp_dir("waiting");
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let mut trainer = open(&config, &dir);
        let stop = AtomicBool::new(false);
        let silent = &mut crate::observer::Silent;
        let training = trainer.train_generation(1, &stop, silent).unwrap();
        assert_eq!((training.steps, training.means), (0, None));
        assert_eq!(trainer.samples_needed(), 32, "min_samples = batch = 32");

        write_samples(&dir, 100);
        stop.store(true, Ordering::SeqCst);
        let training = trainer.train_generation(1, &stop, silent).unwrap();
        assert_eq!(training.steps, 0);
        assert!(trainer.can_draw(), "the samples are in the window");
        assert_eq!(trainer.learner.step(), 0);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn loss_means_are_taken_in_f64() {
        let mut sums = LossSums::default();
        assert_eq!(sums.means(), None);
        for (total, policy, value) in [(3.0, 2.0, 1.0), (1.0, 0.5, 0.25)] {
            sums.add(&StepReport {
                step: 1,
                learning_rate: 0.1,
                total,
                policy,
                value,
                plies_left: None,
                full_search_share: 1.0,
            });
        }
        assert_eq!(sums.means(), Some([2.0, 1.25, 0.625]));
    }
}
