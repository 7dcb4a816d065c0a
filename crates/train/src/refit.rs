//! Refits (`[refit]`, issue 69): the learner's net fitted again to every
//! sample the run has written, with a falling rate, at marks of the run.
//!
//! The online learner trains at a high rate on its newest window and ends
//! each hour about as strong as the last; a net fitted offline to all of a
//! 2-hour run's data, its rate falling over two passes, beat the run's own
//! net by +24 Elo (docs/RESULTS.md). A refit does that inside the run:
//! self-play pauses, a new learner (the current weights or fresh ones, a
//! new optimizer) takes `passes` passes of batches drawn with replacement
//! from every chunk (read from disk as drawn, as the all-data replay does),
//! and replaces the online learner, which goes on from it.
//!
//! When: after every `every_generations` generations and the run's last
//! (reproducible), or so timed that it ends at each multiple of
//! `every_seconds` of the run's own time and at the run's time budget
//! (started when the time left falls to its estimated length and one
//! generation's), so that the hourly nets kept are refitted ones.

use crate::config::{RefitSection, RunSection};
use crate::errors::RunError;
use crate::family::Trainee;
use crate::learning_side::{LossSums, Trainer};
use crate::observer::Observer;
use crate::replay::{ReplayMode, ReplaySettings, ReplayState, ReplayWindow};
use crate::seeds::{batch_seed, refit_seed};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A refit that is due now: after a generation (`mark: None`) or to end
/// at `mark` seconds of the run's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Due {
    pub mark: Option<u64>,
}

/// The next mark of the run's time a refit by time should end at, the run
/// `now` seconds old, after the mark the last refit served (`served`):
/// the next multiple of `every_seconds`, or the run's budget if that comes
/// first; `None` when refits are not by time or the budget's mark is
/// served. A mark more than a whole period past is skipped (refits turned
/// on in a run's middle catch up once, not once per mark).
pub(crate) fn next_mark(
    refit: &RefitSection,
    run: &RunSection,
    served: u64,
    now: f64,
) -> Option<u64> {
    let every = refit.every_seconds;
    if every == 0 || (run.seconds > 0 && served >= run.seconds) {
        return None;
    }
    let behind = (now - every as f64).max(0.0) as u64;
    let next = (served.max(behind) / every + 1) * every;
    Some(within_budget(run, next))
}

/// `mark`, or the run's time budget if that comes first.
fn within_budget(run: &RunSection, mark: u64) -> u64 {
    if run.seconds > 0 {
        mark.min(run.seconds)
    } else {
        mark
    }
}

/// The mark a refit due at `mark` has served when it ends with the run
/// `now` seconds old: `mark`, or the newest multiple of `every_seconds`
/// (or the budget) it ran past. A catch-up that outlasts the next mark
/// serves that one too, rather than leaving it due at once for a second
/// refit over the same data.
pub(crate) fn served_mark(refit: &RefitSection, run: &RunSection, mark: u64, now: f64) -> u64 {
    let every = refit.every_seconds.max(1);
    mark.max(within_budget(run, now as u64 / every * every))
}

/// Whether a refit is due after `generation` (of a run with `run`'s
/// target), with the run `now` seconds old, its last refit at `served`,
/// and `ahead` seconds the estimate of a refit and one more generation.
pub(crate) fn due(
    refit: &RefitSection,
    run: &RunSection,
    generation: u64,
    served: u64,
    now: f64,
    ahead: f64,
) -> Option<Due> {
    let every = refit.every_generations;
    if every > 0 {
        let last = run.generations > 0 && generation >= run.generations;
        return (generation.is_multiple_of(every) || last).then_some(Due { mark: None });
    }
    let mark = next_mark(refit, run, served, now)?;
    (now + ahead >= mark as f64).then_some(Due { mark: Some(mark) })
}

/// What a refit did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RefitReport {
    /// Samples it drew from.
    pub samples: usize,
    /// Steps taken.
    pub steps: u64,
    /// Samples trained a second.
    pub samples_per_second: f64,
}

impl<L: Trainee> Trainer<'_, L> {
    /// Refits the learner's net to every sample of the run's chunks (see
    /// the module docs); `None` if `stop` cut it short, the learner then
    /// as it was. A run with no samples yet keeps its learner.
    pub(crate) fn refit(
        &mut self,
        due: Due,
        stop: &AtomicBool,
        observer: &mut dyn Observer,
    ) -> Result<Option<RefitReport>, RunError> {
        let config = self.config();
        let refit = &config.refit;
        let started = Instant::now();
        let mut pool = self.pool(observer)?;
        let samples = pool.len();
        let batch = config.train.batch_size;
        let steps = (refit.passes * samples as f64 / batch as f64).ceil() as u64;
        let number = self.state.refits + 1;
        let seed = refit_seed(config.run.seed, number);
        observer.message(&format!(
            "refit {number}: {samples} samples, {steps} steps ({} passes), rate {} -> {}, from {}",
            refit.passes,
            refit.learning_rate,
            refit.learning_rate_end,
            if refit.fresh {
                "fresh weights"
            } else {
                "the learner's net"
            }
        ));
        // The progress bar counts the refit's steps (within the generation
        // under way).
        observer.training_started(self.state.generation + 1, steps);
        let mut learner = self
            .learner
            .refit_start(config, refit.fresh, seed, self.device())?;
        let mut sums = LossSums::default();
        for k in 0..steps {
            if stop.load(Ordering::SeqCst) {
                observer.message(&format!("refit {number} stopped; it reruns on resume"));
                return Ok(None);
            }
            let progress = k as f64 / steps as f64;
            let rate =
                refit.learning_rate + (refit.learning_rate_end - refit.learning_rate) * progress;
            let drawn = pool
                .draw(batch_seed(seed, k), batch)
                .map_err(|error| RunError::Io {
                    path: self.data_dir().to_path_buf(),
                    error,
                })?;
            let report = learner.train_at(&drawn, rate)?;
            observer.training_step(
                &report,
                &L::loss_line([report.total, report.policy, report.value]),
            );
            if report.step % config.run.log_every_steps.max(1) == 0 {
                let scalars = [
                    ("refit/loss", f64::from(report.total)),
                    ("refit/learning_rate", rate),
                ];
                self.log(&scalars, report.step, observer);
            }
            sums.add(&report);
        }
        if steps > 0 {
            self.learner = learner;
        }
        self.state.refits = number;
        if let Some(mark) = due.mark {
            let now = self.run_seconds();
            self.state.refit_mark = served_mark(refit, &config.run, mark, now);
        }
        let seconds = started.elapsed().as_secs_f64();
        let samples_per_second = (steps * batch as u64) as f64 / seconds.max(1e-9);
        let loss = sums.means().map_or(f64::NAN, |m| f64::from(m[0]));
        let scalars = [
            ("refit/samples", samples as f64),
            ("refit/seconds", seconds),
            ("refit/mean_loss", loss),
        ];
        self.log(&scalars, self.learner.step(), observer);
        observer.message(&format!(
            "refit {number} done: {steps} steps in {seconds:.0} s ({samples_per_second:.0} samples/s), mean loss {loss:.4}"
        ));
        Ok(Some(RefitReport {
            samples,
            steps,
            samples_per_second,
        }))
    }

    /// Every chunk of the run, drawn from uniformly and read from disk.
    fn pool(&self, observer: &mut dyn Observer) -> Result<ReplayWindow, RunError> {
        let settings = ReplaySettings {
            mode: ReplayMode::All { half_life: 0.0 },
            window: 1,
            min_samples: 1,
            max_reuse: 1.0,
        };
        let mut pool = ReplayWindow::new(self.data_dir(), settings, ReplayState::default());
        let report = pool.refresh().map_err(|error| RunError::Io {
            path: self.data_dir().to_path_buf(),
            error,
        })?;
        for reason in &report.skipped {
            observer.message(&format!("refit: skipping unusable chunk: {reason}"));
        }
        Ok(pool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_time(every: u64, budget: u64) -> (RefitSection, RunSection) {
        let refit = RefitSection {
            every_seconds: every,
            ..RefitSection::default()
        };
        let run = RunSection {
            seconds: budget,
            ..RunSection::default()
        };
        (refit, run)
    }

    #[test]
    fn refits_by_time_end_at_each_multiple_and_at_the_budget() {
        let (refit, run) = by_time(3600, 9000);
        assert_eq!(next_mark(&refit, &run, 0, 100.0), Some(3600));
        assert_eq!(next_mark(&refit, &run, 3600, 3700.0), Some(7200));
        assert_eq!(next_mark(&refit, &run, 7200, 7300.0), Some(9000));
        assert_eq!(next_mark(&refit, &run, 9000, 9100.0), None);
        // Started when the time left is the estimate, not before.
        assert_eq!(due(&refit, &run, 5, 0, 3000.0, 500.0), None);
        assert_eq!(
            due(&refit, &run, 5, 0, 3100.0, 500.0),
            Some(Due { mark: Some(3600) })
        );
        // A run past its mark (an estimate too short) refits at once.
        assert_eq!(
            due(&refit, &run, 9, 3600, 7300.0, 0.0),
            Some(Due { mark: Some(7200) })
        );
        // No budget: the multiples only; a mark past every one: the budget.
        let (refit, run) = by_time(3600, 0);
        assert_eq!(next_mark(&refit, &run, 7200, 7300.0), Some(10800));
        let (refit, run) = by_time(1_000_000, 9000);
        assert_eq!(next_mark(&refit, &run, 0, 5837.0), Some(9000));
    }

    #[test]
    fn refits_turned_on_in_a_runs_middle_catch_up_once() {
        // A run 5,837 s old that never refitted: the last mark less than a
        // period ago is due now, the ones before it are skipped.
        let (refit, run) = by_time(1800, 9437);
        assert_eq!(next_mark(&refit, &run, 0, 5837.0), Some(5400));
        assert_eq!(next_mark(&refit, &run, 5400, 6100.0), Some(7200));
        let (refit, run) = by_time(3600, 9437);
        assert_eq!(next_mark(&refit, &run, 0, 5837.0), Some(3600));
        assert_eq!(next_mark(&refit, &run, 3600, 6100.0), Some(7200));
        assert_eq!(next_mark(&refit, &run, 7200, 8000.0), Some(9437));
        // A catch-up that outlasts the next mark serves it: no second
        // refit at once (the blocks lever's start, docs/RESULTS.md).
        let (refit, run) = by_time(1200, 9437);
        assert_eq!(next_mark(&refit, &run, 0, 5837.0), Some(4800));
        assert_eq!(served_mark(&refit, &run, 4800, 6072.0), 6000);
        assert_eq!(next_mark(&refit, &run, 6000, 6080.0), Some(7200));
        // A refit that ends before its mark, or just after it, serves it.
        assert_eq!(served_mark(&refit, &run, 7200, 7100.0), 7200);
        assert_eq!(served_mark(&refit, &run, 7200, 7250.0), 7200);
        assert_eq!(served_mark(&refit, &run, 9437, 9500.0), 9437);
    }

    #[test]
    fn refits_by_generations_come_every_n_and_after_the_last() {
        let refit = RefitSection {
            every_generations: 4,
            ..RefitSection::default()
        };
        let run = RunSection {
            generations: 10,
            ..RunSection::default()
        };
        let at: Vec<u64> = (1..=10)
            .filter(|&g| due(&refit, &run, g, 0, 0.0, 0.0).is_some())
            .collect();
        assert_eq!(at, [4, 8, 10]);
        assert_eq!(due(&RefitSection::default(), &run, 4, 0, 1e9, 1e9), None);
    }
}
