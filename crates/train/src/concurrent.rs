//! `shashki train` with `[run] mode = "concurrent"`: self-play and the
//! learner at the same time in one process, as KataGo and lc0 run them as
//! jobs on one directory. Self-play plays round after round with the newest
//! published net; the learner trains while the samples it has drawn stay
//! within `[train] replay_ratio` times the samples played (it waits for
//! data when ahead, so it never over-trains on stale data) and publishes a
//! checkpoint every `[train] checkpoint_every_steps`. Each side has its own
//! threads ([`crate::cores::core_split`]): the learner runs on its own rayon pool (burn's
//! matrix products and reductions run on the pool they are called from),
//! self-play on its worker pool.
//!
//! The run directory, resume after a kill, tensorboard and the progress
//! line are the sequential loop's. What differs:
//! - a generation is one self-play round of `games_per_generation` games;
//!   `[run] generations` counts rounds, and a run that reaches its count
//!   trains up to the replay ratio on the last round's data, then stops;
//! - it is not reproducible from the seed: which net plays which game and
//!   which samples are in the window at each step depend on timing (each
//!   session's games and each step's draw from a given window are still
//!   seeded); the sequential mode stays for reproducible runs;
//! - no gating: the configuration refuses it.

use crate::checkpoints::{CheckpointFile, CheckpointStore, StoreError};
use crate::config::RunConfig;
use crate::cores::CoreSplit;
use crate::disk_budget::DiskBudget;
use crate::disk_use::{DiskUse, as_gb};
use crate::errors::RunError;
use crate::family::{Family, Trainee};
use crate::gate::Gatekeeper;
use crate::learning_side::{LossSums, Trainer};
use crate::net_learner::StepReport;
use crate::observer::{GenerationSummary, Observer, RunSummary};
use crate::ratings::{GateRecord, Rater, RatingPoint, TbPoints, capped};
use crate::replay::ReplayState;
use crate::run_dir::RunDir;
use crate::watch::{Gate, Hooks, WatchOptions, watch_run};
use shashki_atomic::{DiskFloor, LowDisk};
use shashki_net::Device;
use shashki_selfplay::{ChunkSink, SelfPlayStats};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the learner sleeps while it waits for data (and between two
/// scans of the chunk directory while it trains).
const POLL: Duration = Duration::from_millis(50);

/// True if one more batch of `batch` samples keeps the samples drawn
/// within `ratio` times the samples played (both counted over the run).
pub fn within_ratio(replay: &ReplayState, batch: usize, ratio: f64) -> bool {
    (replay.drawn + batch as u64) as f64 <= ratio * replay.ingested as f64
}

/// Samples drawn per sample played so far (0 before any sample).
pub fn replay_ratio(replay: &ReplayState) -> f64 {
    if replay.ingested == 0 {
        0.0
    } else {
        replay.drawn as f64 / replay.ingested as f64
    }
}

/// What the two sides tell the thread that holds the observer.
enum Event {
    Message(String),
    Step(StepReport, String),
    /// The learner's step, window and replay ratio now.
    Learner {
        step: u64,
        window: usize,
        ratio: f64,
    },
    Round(Round),
}

/// One self-play round.
#[derive(Clone)]
struct Round {
    /// The run's generation count after it.
    generation: u64,
    stats: SelfPlayStats,
    /// False when a stop cut it short (its games count, the generation
    /// does not).
    complete: bool,
    seconds: f64,
    /// The run directory's bytes after it.
    run_bytes: u64,
}

/// An observer that hands messages and steps to the observer's thread.
struct Relay(Sender<Event>);

impl Relay {
    fn send(&self, event: Event) {
        // The receiver outlives both sides; a failed send changes nothing.
        let _ = self.0.send(event);
    }
}

impl Observer for Relay {
    fn message(&mut self, line: &str) {
        self.send(Event::Message(line.to_string()));
    }

    fn training_step(&mut self, report: &StepReport, losses: &str) {
        self.send(Event::Step(*report, losses.to_string()));
    }
}

/// The evaluator's two judges: the rater (the Elo curve) and, when the
/// run gates, the gatekeeper (promotions).
pub(crate) struct Judges<'a> {
    /// Rates each checkpoint against the anchor (none: no evaluator).
    pub rater: Option<&'a mut (dyn Rater + Send)>,
    /// Gates each rated checkpoint against the best one (`[gating]
    /// enabled`; needs the rater).
    pub gatekeeper: Option<&'a mut (dyn Gatekeeper + Send)>,
}

/// What both sides share.
struct Shared<'a, C> {
    /// The net self-play plays with (set before self-play starts): the
    /// newest published one, or with gating the best promoted one.
    published: Mutex<Option<Arc<C>>>,
    /// With gating: the best net's step and promoted file.
    best: Mutex<Option<(u64, PathBuf)>>,
    /// True when the evaluator gates: the learner's saves are not played.
    gating: bool,
    /// Stops self-play at once (its player's stop flag) and the learner at
    /// its next step.
    halt: &'a AtomicBool,
    /// The user's stop (a signal).
    stop: &'a AtomicBool,
    /// Self-play has played its last round.
    selfplay_done: AtomicBool,
    /// The learner has made its last save (or failed).
    learner_done: AtomicBool,
}

/// The parts of a run the learner side needs.
pub(crate) struct LearnerSide<'a, C> {
    pub config: &'a RunConfig,
    pub store: CheckpointStore<C>,
    pub run: &'a RunDir,
    pub cores: CoreSplit,
    pub device: &'a Device,
    pub restart: bool,
}

/// Runs self-play (`family`, whose stop flag is `halt`) and the learner of
/// `side` at once until `[run] generations` rounds (0: until `stop`), and
/// beside them the evaluator when a `rater` is given.
pub(crate) fn run_concurrent<F>(
    family: F,
    side: LearnerSide<'_, F::Checkpoint>,
    halt: &AtomicBool,
    stop: &AtomicBool,
    export: impl FnMut(&F::Checkpoint) -> Result<(), RunError> + Send,
    observer: &mut dyn Observer,
    judges: Judges<'_>,
) -> Result<RunSummary, RunError>
where
    F: Family + Send,
    F::Checkpoint: Clone + Send + Sync,
{
    let config = side.config;
    let split = side.cores;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(split.learner)
        .thread_name(|i| format!("learner-{i}"))
        .build()
        .map_err(|e| RunError::Concurrent(format!("the learner's pool: {e}")))?;
    let output = Output {
        sink: ChunkSink::new(side.run.data_dir(), config.selfplay.games_per_chunk)?,
        disk: DiskUse::new(side.run.root(), &side.run.data_dir()),
    };
    let Judges { rater, gatekeeper } = judges;
    let gating = config.gating.enabled && rater.is_some() && gatekeeper.is_some();
    let shared = Shared {
        published: Mutex::new(None),
        best: Mutex::new(None),
        gating,
        halt,
        stop,
        selfplay_done: AtomicBool::new(false),
        learner_done: AtomicBool::new(false),
    };
    let (events, inbox) = mpsc::channel();
    let (rounds, rounds_in) = mpsc::channel();
    let (start, started) = mpsc::channel();
    let relay = Relay(events.clone());
    let shared = &shared;
    let run_dir = side.run.root().to_path_buf();
    std::thread::scope(|s| {
        if let Some(rater) = rater {
            let relay = Relay(events.clone());
            let run_dir = &run_dir;
            let gatekeeper = gatekeeper.filter(|_| gating);
            s.spawn(move || evaluate(rater, gatekeeper, run_dir, config, shared, relay));
        }
        let learner = s.spawn(move || {
            pool.install(move || {
                let result = learn::<F::Learner>(side, shared, relay, rounds_in, start, export);
                shared.halt.store(true, Ordering::SeqCst);
                shared.learner_done.store(true, Ordering::SeqCst);
                result
            })
        });
        let player = s.spawn(move || play(family, output, config, shared, started, rounds, events));
        pump(inbox, observer, config, <F::Learner as Trainee>::loss_line);
        let learned = learner
            .join()
            .map_err(|_| RunError::Concurrent("the learner panicked".into()))?;
        let played = player
            .join()
            .map_err(|_| RunError::Concurrent("self-play panicked".into()))?;
        let summary = learned?;
        played?;
        Ok(summary)
    })
}

/// Where self-play's games go, and what they cost on disk.
struct Output {
    sink: ChunkSink,
    disk: DiskUse,
}

/// The self-play side: rounds with the newest published net from the
/// generation the learner starts at, until the target or a halt.
fn play<F: Family>(
    mut family: F,
    output: Output,
    config: &RunConfig,
    shared: &Shared<'_, F::Checkpoint>,
    start: Receiver<u64>,
    rounds: Sender<Round>,
    events: Sender<Event>,
) -> Result<(), RunError> {
    // Set however this side ends (a panic included): the learner waits
    // for it before its last save.
    let _done = SetOnDrop(&shared.selfplay_done);
    // No start: the learner failed to open (it reports why).
    let Ok(mut generation) = start.recv() else {
        return Ok(());
    };
    let mut relay = Relay(events);
    let Output { mut sink, mut disk } = output;
    let target = config.run.generations;
    let games = config.selfplay.games_per_generation;
    let mut result = Ok(());
    while (target == 0 || generation < target) && !shared.halt.load(Ordering::SeqCst) {
        let net = shared
            .published
            .lock()
            .expect("publishing never panics")
            .clone();
        let net = net.expect("a net is published before self-play starts");
        sink.set_net_step(net.step());
        let started = Instant::now();
        let last = target > 0 && generation + 1 == target;
        let stats = match family.play_checkpoint(&net, games, last, &mut sink, &mut relay) {
            Ok(stats) => stats,
            Err(e) => {
                result = Err(e);
                shared.halt.store(true, Ordering::SeqCst);
                break;
            }
        };
        let complete = stats.games as usize >= games || !shared.halt.load(Ordering::SeqCst);
        generation += u64::from(complete);
        let seconds = started.elapsed().as_secs_f64();
        let round = Round {
            generation,
            stats,
            complete,
            seconds,
            run_bytes: disk.after_generation(seconds, &mut relay),
        };
        let _ = rounds.send(round.clone());
        relay.send(Event::Round(round));
    }
    result
}

/// The evaluator side: the run's checkpoints rated as they are published
/// (the watcher of `shashki rate --watch` on the run's own folder), each
/// point into `ratings.jsonl` and tensorboard (`tb/evaluator/`: the
/// learner's writer owns `tb/`); with a `gatekeeper`, each rated one also
/// plays the best net, and one that passes is promoted and becomes
/// self-play's net. When the learner has ended, the newest checkpoint is
/// rated if it is not yet, then the evaluator ends; the user's stop ends
/// it at once.
fn evaluate<C: CheckpointFile>(
    rater: &mut (dyn Rater + Send),
    gatekeeper: Option<&mut (dyn Gatekeeper + Send)>,
    run_dir: &Path,
    config: &RunConfig,
    shared: &Shared<'_, C>,
    relay: Relay,
) {
    let options = WatchOptions {
        every_steps: config.evaluator.every_steps,
        until_step: None,
        poll: 4 * POLL,
        seed: config.run.seed,
    };
    let run = RunDir::new(run_dir);
    let mut tb = TbPoints::new(run.tensorboard_dir().join("evaluator"));
    let store = CheckpointStore::<C>::open_for(run.checkpoint_dir(), config.train.keep_checkpoints);
    let mut gate = gatekeeper.map(|keeper| {
        move |step: u64, candidate: &Path, log: &mut dyn FnMut(&str)| {
            gate_and_promote(keeper, config, shared, store.as_ref(), step, candidate, log)
        }
    });
    let mut on_point = |point: &RatingPoint| {
        if let Err(e) = tb.write(point) {
            relay.send(Event::Message(format!("evaluator: warning: {e}")));
        }
    };
    let mut log = |line: &str| relay.send(Event::Message(format!("evaluator: {line}")));
    let hooks = Hooks {
        rater,
        gate: gate.as_mut().map(|g| g as &mut Gate<'_>),
        on_point: &mut on_point,
        log: &mut log,
    };
    let ended = || shared.learner_done.load(Ordering::SeqCst);
    if let Err(e) = watch_run(run_dir, hooks, &options, shared.stop, &ended) {
        relay.send(Event::Message(format!(
            "evaluator stopped (the run goes on unrated): {e}"
        )));
    }
}

/// The gate of a rated checkpoint (its copy at `candidate`) against the
/// best net; a pass promotes it (`best-<step>.shzk`) and hands it to
/// self-play.
fn gate_and_promote<C: CheckpointFile>(
    keeper: &mut (dyn Gatekeeper + Send),
    config: &RunConfig,
    shared: &Shared<'_, C>,
    store: Result<&CheckpointStore<C>, &StoreError>,
    step: u64,
    candidate: &Path,
    log: &mut dyn FnMut(&str),
) -> Result<GateRecord, String> {
    let store = store.map_err(|e| e.to_string())?;
    let (best_step, best) = shared
        .best
        .lock()
        .expect("the best net's lock is never poisoned")
        .clone()
        .ok_or("no best net to gate against")?;
    let verdict = keeper.gate(config, candidate, &best, log)?;
    if verdict.passed {
        let checkpoint = C::load(candidate).map_err(|e| e.to_string())?;
        let path = store.promote(&checkpoint).map_err(|e| e.to_string())?;
        *shared.best.lock().expect("never poisoned") = Some((step, path));
        *shared.published.lock().expect("publishing never panics") = Some(Arc::new(checkpoint));
    }
    Ok(GateRecord {
        best_step,
        games: verdict.games,
        score: verdict.score,
        elo: capped(verdict.elo),
        promoted: verdict.passed,
    })
}

/// Sets its flag when dropped.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// The learner side: opens the learner, publishes its net, starts
/// self-play, then trains within the replay ratio until self-play is done
/// and the ratio reached, or a halt; saves at the end.
fn learn<L: Trainee>(
    side: LearnerSide<'_, L::Checkpoint>,
    shared: &Shared<'_, L::Checkpoint>,
    mut relay: Relay,
    rounds: Receiver<Round>,
    start: Sender<u64>,
    mut export: impl FnMut(&L::Checkpoint) -> Result<(), RunError>,
) -> Result<RunSummary, RunError>
where
    L::Checkpoint: Clone,
{
    let config = side.config;
    let mut trainer = Trainer::<L>::open(
        config,
        side.store,
        &side.run.data_dir(),
        &side.run.tensorboard_dir(),
        side.device,
        side.restart,
        &mut relay,
    )?;
    let publish = |checkpoint: &L::Checkpoint| {
        *shared.published.lock().expect("publishing never panics") =
            Some(Arc::new(checkpoint.clone()));
    };
    let current = trainer.learner.checkpoint()?;
    if shared.gating {
        let (step, path, best) = initial_best(&side.run.checkpoint_dir(), current, config)?;
        publish(&best);
        *shared.best.lock().expect("never poisoned") = Some((step, path));
    } else {
        publish(&current);
    }
    trainer.on_save(move |checkpoint| {
        if !shared.gating {
            publish(checkpoint);
        }
        export(checkpoint)
    });
    let _ = start.send(trainer.state.generation);
    let mut learner = Learning {
        trainer,
        relay,
        rounds,
        generations_run: 0,
        interval: Interval::new(),
        floor: DiskFloor::new(side.run.root(), config.run.disk_floor_gb),
        low_disk: None,
        budget: DiskBudget::new(config),
    };
    let stopped = learner.train(shared)?;
    // The round in play when a stop came ends soon (its player stops too):
    // its games count in the last save.
    while !shared.selfplay_done.load(Ordering::SeqCst) {
        std::thread::sleep(POLL);
    }
    learner.take_rounds()?;
    learner.trainer.save()?;
    learner.trainer.flush(&mut learner.relay);
    let Learning {
        trainer,
        mut relay,
        generations_run,
        low_disk,
        ..
    } = learner;
    Ok(trainer.finish(generations_run, stopped, low_disk, &mut relay))
}

/// The best net of a gated run at its start: the newest promoted one, or
/// (a new run) `current`, promoted as the first.
fn initial_best<C: CheckpointFile + Clone>(
    dir: &Path,
    current: C,
    config: &RunConfig,
) -> Result<(u64, PathBuf, C), RunError> {
    let store = CheckpointStore::<C>::open_for(dir, config.train.keep_checkpoints)?;
    if let Some(best) = store.load_best()? {
        return Ok((best.checkpoint.step(), best.path, best.checkpoint));
    }
    let path = store.promote(&current)?;
    Ok((current.step(), path, current))
}

/// The learner side at work.
struct Learning<'a, L: Trainee> {
    trainer: Trainer<'a, L>,
    relay: Relay,
    rounds: Receiver<Round>,
    generations_run: u64,
    interval: Interval,
    /// The free space self-play's chunks and the learner's saves leave.
    floor: DiskFloor,
    /// Set when the disk fell below the floor (the run then stops).
    low_disk: Option<LowDisk>,
    budget: DiskBudget,
}

/// The learner's steps and waiting since the last self-play round.
struct Interval {
    started: Instant,
    steps: u64,
    waited: Duration,
}

impl Interval {
    fn new() -> Interval {
        Interval {
            started: Instant::now(),
            steps: 0,
            waited: Duration::ZERO,
        }
    }
}

impl<L: Trainee> Learning<'_, L> {
    /// Trains until self-play is done and the ratio reached (false) or a
    /// stop (true).
    fn train(&mut self, shared: &Shared<'_, L::Checkpoint>) -> Result<bool, RunError> {
        let config = self.trainer.config();
        let (batch, ratio) = (config.train.batch_size, config.train.replay_ratio);
        let mut scanned: Option<Instant> = None;
        self.report_learner();
        loop {
            self.take_rounds()?;
            if shared.stop.load(Ordering::SeqCst) || shared.halt.load(Ordering::SeqCst) {
                shared.halt.store(true, Ordering::SeqCst);
                return Ok(true);
            }
            // The time budget ends the run as a finished one: self-play
            // stops its round, the learner saves after it.
            if self.trainer.out_of_time() {
                shared.halt.store(true, Ordering::SeqCst);
                return Ok(false);
            }
            // Read before the scan: when set, the scan sees the last chunks.
            let done = shared.selfplay_done.load(Ordering::SeqCst);
            if done || scanned.is_none_or(|at| at.elapsed() >= POLL) {
                // Below the floor: stop as for a signal; the save after
                // the last round takes little room.
                if let Err(low) = self.floor.check() {
                    self.low_disk = Some(low);
                    shared.halt.store(true, Ordering::SeqCst);
                    return Ok(true);
                }
                self.trainer.refresh(&mut self.relay)?;
                scanned = Some(Instant::now());
            }
            if self.trainer.can_draw() && within_ratio(&self.trainer.replay_state(), batch, ratio) {
                let report = self.trainer.step(&mut self.relay)?;
                self.interval.steps += 1;
                if report.step % config.run.log_every_steps.max(1) == 0 {
                    let value = replay_ratio(&self.trainer.replay_state());
                    self.trainer
                        .log(&[("replay/ratio", value)], report.step, &mut self.relay);
                }
                self.report_learner();
                continue;
            }
            if done {
                return Ok(false);
            }
            std::thread::sleep(POLL);
            self.interval.waited += POLL;
        }
    }

    fn report_learner(&self) {
        self.relay.send(Event::Learner {
            step: self.trainer.learner.step(),
            window: self.trainer.window(),
            ratio: replay_ratio(&self.trainer.replay_state()),
        });
    }

    /// Counts the rounds self-play has finished, logs them and keeps the
    /// run within its disk budget.
    fn take_rounds(&mut self) -> Result<(), RunError> {
        while let Ok(round) = self.rounds.try_recv() {
            let state = &mut self.trainer.state;
            state.games += round.stats.games;
            state.samples += round.stats.samples;
            if !round.complete {
                continue;
            }
            state.generation = round.generation;
            self.generations_run += 1;
            self.trainer.log_selfplay(&round.stats, &mut self.relay);
            let step = self.trainer.learner.step();
            let size = [("disk/run_gb", as_gb(round.run_bytes))];
            self.trainer.log(&size, step, &mut self.relay);
            self.budget
                .keep(round.run_bytes, &mut self.trainer, &mut self.relay)?;
            self.log_interval();
            self.trainer.flush(&mut self.relay);
        }
        Ok(())
    }

    /// Logs the learner's throughput and waiting since the last round.
    fn log_interval(&mut self) {
        let seconds = self.interval.started.elapsed().as_secs_f64().max(1e-9);
        let batch = self.trainer.config().train.batch_size as f64;
        let replay = self.trainer.replay_state();
        let values = [
            (
                "train/samples_per_second",
                self.interval.steps as f64 * batch / seconds,
            ),
            (
                "train/wait_share",
                self.interval.waited.as_secs_f64() / seconds,
            ),
            ("replay/ratio", replay_ratio(&replay)),
            ("replay/window_samples", self.trainer.window() as f64),
            ("replay/total_samples", replay.ingested as f64),
        ];
        let step = self.trainer.learner.step();
        self.trainer.log(&values, step, &mut self.relay);
        self.interval = Interval::new();
    }
}

/// Hands the events of both sides to `observer` until both are done: a
/// generation line per self-play round with the learner's work since the
/// last one.
fn pump(
    inbox: Receiver<Event>,
    observer: &mut dyn Observer,
    config: &RunConfig,
    loss_line: fn([f32; 3]) -> String,
) {
    let batch = config.train.batch_size as f64;
    let mut sums = LossSums::default();
    let mut since = Instant::now();
    let (mut step, mut window, mut ratio) = (0, 0, 0.0);
    for event in inbox {
        match event {
            Event::Message(line) => observer.message(&line),
            Event::Step(report, losses) => {
                observer.training_step(&report, &losses);
                sums.add(&report);
            }
            Event::Learner {
                step: s,
                window: w,
                ratio: r,
            } => (step, window, ratio) = (s, w, r),
            Event::Round(round) if round.complete => {
                let seconds = since.elapsed().as_secs_f64().max(1e-9);
                observer.generation_done(&GenerationSummary {
                    generation: round.generation,
                    step,
                    selfplay: round.stats,
                    steps: sums.steps,
                    losses: sums.means().map(loss_line),
                    window,
                    train_samples_per_second: sums.steps as f64 * batch / seconds,
                    gate: None,
                    seconds: round.seconds,
                    replay_ratio: Some(ratio),
                    run_bytes: Some(round.run_bytes),
                });
                observer.training_started(round.generation + 1, 0);
                sums = LossSums::default();
                since = Instant::now();
            }
            Event::Round(_) => {}
        }
    }
    // Steps after the last round (a run that reached its count trains up
    // to the ratio on the last round's data).
    if let Some(means) = sums.means() {
        observer.message(&format!(
            "after the last round: {} steps, {}, window {window}, replay ratio {ratio:.2} | step {step}",
            sums.steps,
            loss_line(means)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_learner_steps_only_within_the_replay_ratio() {
        let state = |drawn, ingested| ReplayState {
            ingested,
            tokens: 1e9,
            drawn,
            dropped: 0,
        };
        // 100 samples played at ratio 2: 200 may be drawn, in batches of 32.
        assert!(within_ratio(&state(0, 100), 32, 2.0));
        assert!(within_ratio(&state(160, 100), 32, 2.0), "192 <= 200");
        assert!(!within_ratio(&state(192, 100), 32, 2.0), "224 > 200");
        assert!(!within_ratio(&state(0, 0), 1, 2.0), "nothing played yet");
        assert!(within_ratio(&state(192, 112), 32, 2.0), "new data frees it");
        assert_eq!(replay_ratio(&state(192, 100)), 1.92);
        assert_eq!(replay_ratio(&state(0, 0)), 0.0);
    }
}
