//! `shashki rate --watch RUN`: a run's checkpoints rated as they appear
//! (a running run's or a finished one's), each against the anchor by the
//! caller's [`Rater`], into the run's `ratings.jsonl` and tensorboard
//! ([`crate::ratings`]). Resumable: a restarted watcher goes on after the
//! last recorded step; a rating cut short by a stop or a kill is not
//! recorded, and is played again.

use crate::checkpoints::{checkpoint_name, list_checkpoints, read_state};
use crate::config::RunConfig;
use crate::ratings::{Rater, RatingPoint, RatingsLog, capped};
use crate::run_dir::RunDir;
use crate::seeds::mix;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How a watcher chooses and paces its ratings.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// Rate a checkpoint only when its step is at least this many past the
    /// last rated one (0: every checkpoint).
    pub every_steps: u64,
    /// Stop once a checkpoint at or past this step is rated (`None`: watch
    /// until stopped).
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

/// Rates one checkpoint and records it; `Ok(None)` when stopped or when
/// the checkpoint was removed (a run keeps only its newest) before it
/// could be loaded.
fn rate_one(
    run: &RunDir,
    config: &RunConfig,
    step: u64,
    rater: &mut dyn Rater,
    options: &WatchOptions,
    stop: &AtomicBool,
    log: &mut dyn FnMut(&str),
) -> Result<Option<RatingPoint>, String> {
    let path = run.checkpoint_dir().join(checkpoint_name(step));
    let state = read_state(&path).unwrap_or_default();
    let started = Instant::now();
    let result = match rater.rate(config, &path, mix(options.seed, step), stop, log) {
        Ok(Some(result)) => result,
        Ok(None) => return Ok(None),
        Err(_) if !path.exists() => {
            log(&format!(
                "step {step}: the checkpoint was removed before it was rated"
            ));
            return Ok(None);
        }
        Err(e) => return Err(format!("step {step}: {e}")),
    };
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
    }))
}

/// Watches the run in `run_dir` until `stop` (at once, a rating under way
/// not recorded), `options.until_step`, or `ended` (the run has made its
/// last checkpoint: the newest is rated if it is due, then the watch
/// ends), rating each due checkpoint: each point is appended to the run's
/// `ratings.jsonl`, then handed to `on_point` (tensorboard); returns the
/// points recorded by this call. A run that has not written its
/// configuration yet is waited for.
pub fn watch_run(
    run_dir: &Path,
    rater: &mut dyn Rater,
    options: &WatchOptions,
    stop: &AtomicBool,
    ended: &dyn Fn() -> bool,
    log: &mut dyn FnMut(&str),
    on_point: &mut dyn FnMut(&RatingPoint),
) -> Result<Vec<RatingPoint>, String> {
    let run = RunDir::new(run_dir);
    while !run.config_path().is_file() {
        log(&format!(
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
            let Some(point) = rate_one(&run, &config, step, rater, options, stop, log)? else {
                if stop.load(Ordering::SeqCst) {
                    return Ok(recorded);
                }
                continue;
            };
            ratings.append(&point)?;
            on_point(&point);
            log(&format!(
                "step {step}: {} vs {}: +{} ={} -{}, Elo {:+.1} [{:+.1}, {:+.1}] -> {}",
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
