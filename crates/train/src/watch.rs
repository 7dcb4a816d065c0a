//! `shashki rate --watch RUN`: a run's checkpoints rated as they appear
//! (a running run's or a finished one's), each against the anchor by the
//! caller's [`Rater`], into the run's `ratings.jsonl` and tensorboard
//! ([`crate::ratings`]). Resumable: a restarted watcher goes on after the
//! last recorded step; a rating cut short by a stop or a kill is not
//! recorded, and is played again.

use crate::checkpoints::{checkpoint_name, list_checkpoints, read_state};
use crate::config::RunConfig;
use crate::ratings::{GateRecord, Rater, RatingPoint, RatingsLog, capped};
use crate::run_dir::RunDir;
use crate::seeds::mix;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Plays a rated checkpoint (at `path`, a copy the run cannot prune away)
/// of step `step` against the run's best net and promotes it if it passes;
/// `log` receives progress lines.
pub type Gate<'a> = dyn FnMut(u64, &Path, &mut dyn FnMut(&str)) -> Result<GateRecord, String> + 'a;

/// What a watcher calls: the rater, the gate (none: no gating), where each
/// point goes once it is recorded, and the log.
pub struct Hooks<'a> {
    /// Plays each checkpoint against the anchor.
    pub rater: &'a mut dyn Rater,
    /// Gates each rated checkpoint, when the run gates.
    pub gate: Option<&'a mut Gate<'a>>,
    /// Sees each point after it is in `ratings.jsonl` (tensorboard).
    pub on_point: &'a mut dyn FnMut(&RatingPoint),
    /// Progress and warnings.
    pub log: &'a mut dyn FnMut(&str),
}

/// How a watcher chooses and paces its ratings.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// Rate a checkpoint only when its step is at least this many past the
    /// last rated one (0: every checkpoint).
    pub every_steps: u64,
    /// Stop once a checkpoint at or past this step is rated, by this watch
    /// or an earlier one (`ratings.jsonl`); `None`: watch until stopped.
    pub until_step: Option<u64>,
    /// Time between two looks at the checkpoint folder.
    pub poll: Duration,
    /// Base of each match's seed (mixed with the checkpoint's step).
    pub seed: u64,
}

/// The checkpoints of `checkpoint_dir` due for a rating after `last` (the
/// last rated step), oldest first.
pub fn due(
    checkpoints: &[(u64, std::path::PathBuf)],
    last: Option<u64>,
    every_steps: u64,
) -> Vec<u64> {
    let mut due = Vec::new();
    let mut last = last;
    for &(step, _) in checkpoints {
        if last.is_none_or(|l| step > l && step - l >= every_steps.max(1)) {
            due.push(step);
            last = Some(step);
        }
    }
    due
}

/// Sleeps `total` in short slices; false if `stop` was set meanwhile.
fn wait(total: Duration, stop: &AtomicBool) -> bool {
    let until = Instant::now() + total;
    while Instant::now() < until {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50).min(total));
    }
    !stop.load(Ordering::SeqCst)
}

/// Rates one checkpoint (and gates it, when the run gates) from a copy in
/// `<run>/evaluator/`; `Ok(None)` when stopped or when the checkpoint was
/// removed (a run keeps only its newest) before it could be copied.
fn rate_one(
    run: &RunDir,
    config: &RunConfig,
    step: u64,
    hooks: &mut Hooks<'_>,
    options: &WatchOptions,
    stop: &AtomicBool,
) -> Result<Option<RatingPoint>, String> {
    let path = run.checkpoint_dir().join(checkpoint_name(step));
    let state = read_state(&path).unwrap_or_default();
    let scratch = run.root().join("evaluator");
    let copy = scratch.join(checkpoint_name(step));
    let copied = std::fs::create_dir_all(&scratch).and_then(|()| std::fs::copy(&path, &copy));
    if let Err(e) = copied {
        if !path.exists() {
            (hooks.log)(&format!(
                "step {step}: the checkpoint was removed before it was rated"
            ));
            return Ok(None);
        }
        return Err(format!("{}: {e}", copy.display()));
    }
    let started = Instant::now();
    let rated = hooks
        .rater
        .rate(config, &copy, mix(options.seed, step), stop, hooks.log);
    let gated = match (&rated, hooks.gate.as_mut()) {
        (Ok(Some(_)), Some(gate)) if !stop.load(Ordering::SeqCst) => {
            gate(step, &copy, hooks.log).map(Some)
        }
        _ => Ok(None),
    };
    let _ = std::fs::remove_file(&copy);
    let Some(result) = rated.map_err(|e| format!("step {step}: {e}"))? else {
        return Ok(None);
    };
    let gate = gated.map_err(|e| format!("step {step}: gate: {e}"))?;
    if hooks.gate.is_some() && gate.is_none() {
        return Ok(None); // stopped before its gate
    }
    let [w, d, l] = result.wdl;
    Ok(Some(RatingPoint {
        step,
        generation: state.generation,
        selfplay_games: state.games,
        run_seconds: state.seconds,
        anchor: result.anchor,
        games: w + d + l,
        wdl: result.wdl,
        elo: capped(result.elo[0]),
        elo_low: capped(result.elo[1]),
        elo_high: capped(result.elo[2]),
        seconds: started.elapsed().as_secs_f64(),
        gate,
    }))
}

/// Watches the run in `run_dir` until `stop` (at once, a rating under way
/// not recorded), `options.until_step`, or `ended` (the run has made its
/// last checkpoint: the newest is rated if it is due, then the watch
/// ends), rating (and gating) each due checkpoint with `hooks`: each point
/// is appended to the run's `ratings.jsonl`, then handed to
/// `hooks.on_point` (tensorboard); returns the points recorded by this
/// call. A run that has not written its configuration yet is waited for.
pub fn watch_run(
    run_dir: &Path,
    mut hooks: Hooks<'_>,
    options: &WatchOptions,
    stop: &AtomicBool,
    ended: &dyn Fn() -> bool,
) -> Result<Vec<RatingPoint>, String> {
    let run = RunDir::new(run_dir);
    while !run.config_path().is_file() {
        (hooks.log)(&format!(
            "waiting for the run {} to start",
            run_dir.display()
        ));
        if !wait(options.poll, stop) {
            return Ok(Vec::new());
        }
    }
    let config = RunConfig::load(&run.config_path()).map_err(|e| e.to_string())?;
    let ratings = RatingsLog::of_run(run_dir);
    let mut last = ratings.read()?.iter().map(|p| p.step).max();
    let mut recorded = Vec::new();
    loop {
        // A step at or past the aim may be rated already (by a watcher
        // killed after rating it): nothing is left to wait for.
        if options
            .until_step
            .zip(last)
            .is_some_and(|(until, rated)| rated >= until)
        {
            return Ok(recorded);
        }
        // Read before the listing: once set, the listing has the last one.
        let last_pass = ended();
        let checkpoints = list_checkpoints(&run.checkpoint_dir()).map_err(|e| e.to_string())?;
        let mut due = due(&checkpoints, last, options.every_steps);
        if last_pass {
            due.drain(..due.len().saturating_sub(1));
        }
        for step in due {
            if stop.load(Ordering::SeqCst) {
                return Ok(recorded);
            }
            let Some(point) = rate_one(&run, &config, step, &mut hooks, options, stop)? else {
                if stop.load(Ordering::SeqCst) {
                    return Ok(recorded);
                }
                continue;
            };
            ratings.append(&point)?;
            (hooks.on_point)(&point);
            let gate = point.gate.as_ref().map_or(String::new(), |g| {
                format!(
                    "; gate vs step {}: score {:.3} -> {}",
                    g.best_step,
                    g.score,
                    if g.promoted {
                        "promoted"
                    } else {
                        "kept the best"
                    }
                )
            });
            (hooks.log)(&format!(
                "step {step}: {} vs {}: +{} ={} -{}, Elo {:+.1} [{:+.1}, {:+.1}]{gate} -> {}",
                checkpoint_name(step),
                point.anchor,
                point.wdl[0],
                point.wdl[1],
                point.wdl[2],
                point.elo,
                point.elo_low,
                point.elo_high,
                ratings.path().display()
            ));
            last = Some(step);
            recorded.push(point);
            if options.until_step.is_some_and(|until| step >= until) {
                return Ok(recorded);
            }
        }
        if last_pass || !wait(options.poll, stop) {
            return Ok(recorded);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn due_checkpoints_are_spaced_by_every_steps_after_the_last_rated() {
        let found: Vec<(u64, PathBuf)> = [0, 50, 100, 150, 200, 260]
            .iter()
            .map(|&s| (s, PathBuf::from(format!("ckpt-{s}"))))
            .collect();
        assert_eq!(due(&found, None, 0), [0, 50, 100, 150, 200, 260]);
        assert_eq!(due(&found, Some(100), 0), [150, 200, 260]);
        assert_eq!(due(&found, None, 100), [0, 100, 200]);
        assert_eq!(due(&found, Some(150), 100), [260]);
        assert!(due(&found, Some(260), 0).is_empty());
    }
}
