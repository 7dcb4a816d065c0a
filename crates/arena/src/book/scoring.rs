//! The expensive part of making a book: a cheap search screens every
//! candidate, a deep one scores those the screen keeps, and every result
//! goes to the [`Pool`] as it arrives.
//!
//! Positions are searched in parallel, one engine per worker and one
//! thread per search: at a fixed depth (or node count) a one-thread search
//! from an empty table is deterministic, so the pool holds the same scores
//! whatever the number of workers. The deep search takes the survivors in
//! an order fixed by their hashes, so a run stopped early has scored a
//! fair sample of them rather than the first plies only.

use super::pool::{Pool, Scored, Stage};
use super::{BookError, ScoreBand, book_key};
use crate::openings::Opening;
use shashki_rules::DrawRules;
use shashki_rules::splitmix::mix64;
use shashki_search::{Engine, SearchLimits, SearchReport};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How often the collecting loop looks at the deadline and the clock.
const TICK: Duration = Duration::from_millis(200);

/// Makes one engine for one worker.
pub type EngineMaker<'a> = dyn Fn() -> Result<Box<dyn Engine>, String> + Sync + 'a;

/// How a pool is filled.
#[derive(Clone, Debug)]
pub struct ScoreSettings {
    /// The cheap search's limits.
    pub screen: SearchLimits,
    /// The deep search's limits.
    pub deep: SearchLimits,
    /// The screen keeps a position for the deep search if White's advantage
    /// or Black's (the score's absolute value) lies in this window.
    pub window: ScoreBand,
    /// Positions searched at once (one engine each).
    pub jobs: usize,
    /// The deep search stops once the pool holds this many deep scores.
    pub max_deep: Option<usize>,
    /// How often a progress report is due.
    pub progress_every: Duration,
    /// No search starts after this time (those in flight finish).
    pub deadline: Option<Instant>,
}

/// Where a run stands, for its progress lines.
#[derive(Clone, Debug)]
pub struct StageProgress {
    /// The search running.
    pub stage: Stage,
    /// Positions searched in this stage by this run.
    pub done: usize,
    /// Positions this stage has to search in this run.
    pub total: usize,
    /// Of those searched, how many were found won or lost.
    pub decided: usize,
    /// Time since the stage started.
    pub elapsed: Duration,
}

impl StageProgress {
    /// The expected time to the end of the stage, from its pace so far.
    pub fn eta(&self) -> Option<Duration> {
        (self.done > 0).then(|| {
            self.elapsed
                .mul_f64((self.total - self.done) as f64 / self.done as f64)
        })
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Distinct candidates given.
    pub candidates: usize,
    /// Candidates screened by this run (the others were in the pool).
    pub screened: usize,
    /// Candidates the screen kept for the deep search, in the pool or not.
    pub survivors: usize,
    /// Positions deep-scored by this run.
    pub deep_scored: usize,
    /// Deep scores in the pool after the run.
    pub deep_in_pool: usize,
    /// The run was stopped before it finished.
    pub stopped: bool,
}

/// Screens and scores `candidates` (distinct positions) into `pool`,
/// searching only what the pool does not hold yet. `stop` ends the run
/// after the searches in flight; `progress` hears how it goes.
pub fn fill_pool(
    candidates: &[Opening],
    pool: &mut Pool,
    settings: &ScoreSettings,
    make_engine: &EngineMaker<'_>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&StageProgress),
) -> Result<RunSummary, BookError> {
    let keyed: Vec<_> = candidates
        .iter()
        .map(|c| (book_key(&c.position()), c))
        .collect();
    let to_screen: Vec<&Opening> = keyed
        .iter()
        .filter(|(key, _)| !pool.has(Stage::Screen, key))
        .map(|(_, c)| *c)
        .collect();
    let mut summary = RunSummary {
        candidates: candidates.len(),
        screened: to_screen.len(),
        ..RunSummary::default()
    };
    let run = Run {
        settings,
        make_engine,
        stop,
    };
    run.stage(Stage::Screen, &to_screen, pool, progress)?;

    // The screen's verdicts, by position, for this run's candidates.
    let kept: std::collections::HashSet<_> = pool
        .contents
        .screen
        .iter()
        .filter(|r| {
            r.white_cp
                .is_some_and(|cp| settings.window.contains(cp.abs()))
        })
        .filter_map(|r| r.position().ok().map(|p| book_key(&p)))
        .collect();
    let mut survivors: Vec<_> = keyed.iter().filter(|(key, _)| kept.contains(key)).collect();
    summary.survivors = survivors.len();
    survivors.sort_by_key(|(key, _)| mix64(key.hash()));
    let room = settings.max_deep.map_or(usize::MAX, |max| {
        max.saturating_sub(pool.contents.deep.len())
    });
    let to_deepen: Vec<&Opening> = survivors
        .into_iter()
        .filter(|(key, _)| !pool.has(Stage::Deep, key))
        .take(room)
        .map(|(_, c)| *c)
        .collect();
    summary.deep_scored = run.stage(Stage::Deep, &to_deepen, pool, progress)?;
    summary.deep_in_pool = pool.contents.deep.len();
    summary.stopped = stop.load(Ordering::Relaxed);
    Ok(summary)
}

/// What the stages of a run share.
struct Run<'a> {
    settings: &'a ScoreSettings,
    make_engine: &'a EngineMaker<'a>,
    stop: &'a AtomicBool,
}

/// A worker's answer: the index of the position and its search, or why
/// the worker could not search.
type Answer = Result<(usize, SearchReport), String>;

impl Run<'_> {
    /// Searches `items` with the stage's limits on `jobs` workers, appending
    /// each result to the pool; returns how many were searched.
    fn stage(
        &self,
        stage: Stage,
        items: &[&Opening],
        pool: &mut Pool,
        progress: &mut dyn FnMut(&StageProgress),
    ) -> Result<usize, BookError> {
        if items.is_empty() {
            return Ok(0);
        }
        let limits = match stage {
            Stage::Screen => self.settings.screen,
            Stage::Deep => self.settings.deep,
        };
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel::<Answer>();
        let mut state = StageProgress {
            stage,
            done: 0,
            total: items.len(),
            decided: 0,
            elapsed: Duration::ZERO,
        };
        let start = Instant::now();
        let mut failure = None;
        std::thread::scope(|scope| {
            for _ in 0..self.settings.jobs.clamp(1, items.len()) {
                let tx = tx.clone();
                let next = &next;
                scope.spawn(move || self.work(items, &limits, next, &tx));
            }
            drop(tx);
            let mut last_report = Instant::now();
            loop {
                if self.settings.deadline.is_some_and(|d| Instant::now() >= d) {
                    self.stop.store(true, Ordering::Relaxed);
                }
                let answers = match rx.recv_timeout(TICK) {
                    // Everything that has arrived goes to the pool in one write.
                    Ok(first) => std::iter::once(first).chain(rx.try_iter()).collect(),
                    Err(mpsc::RecvTimeoutError::Timeout) => Vec::new(),
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                };
                if let Err(e) = self.record(answers, items, stage, pool, &mut state) {
                    // Let the workers finish what they hold, and stop.
                    self.stop.store(true, Ordering::Relaxed);
                    failure.get_or_insert(e);
                }
                if last_report.elapsed() >= self.settings.progress_every {
                    state.elapsed = start.elapsed();
                    progress(&state);
                    last_report = Instant::now();
                }
            }
        });
        state.elapsed = start.elapsed();
        progress(&state);
        match failure {
            Some(e) => Err(e),
            None => Ok(state.done),
        }
    }

    /// One worker: its own engine, positions taken in turn until none is
    /// left or the run is stopped.
    fn work(
        &self,
        items: &[&Opening],
        limits: &SearchLimits,
        next: &AtomicUsize,
        tx: &mpsc::Sender<Answer>,
    ) {
        let mut engine = match (self.make_engine)() {
            Ok(engine) => engine,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        while !self.stop.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(opening) = items.get(i) else { break };
            // Each search starts from an empty table: the result depends on
            // the position alone, not on what this worker searched before.
            engine.new_game();
            let game = opening.game(DrawRules::default());
            let report = engine.go(&game, limits, &mut |_| {});
            if tx.send(Ok((i, report))).is_err() {
                break;
            }
        }
    }

    fn record(
        &self,
        answers: Vec<Answer>,
        items: &[&Opening],
        stage: Stage,
        pool: &mut Pool,
        state: &mut StageProgress,
    ) -> Result<(), BookError> {
        let mut records = Vec::new();
        let mut failure = None;
        for answer in answers {
            let scored = answer.and_then(|(i, report)| Scored::new(items[i], &report));
            match scored {
                Ok(record) => {
                    state.done += 1;
                    state.decided += usize::from(record.is_decided());
                    records.push(record);
                }
                Err(e) => {
                    failure.get_or_insert(BookError::Engine(e));
                }
            }
        }
        pool.append(stage, records)?;
        failure.map_or(Ok(()), Err)
    }
}
