//! A run's Elo curve: each rated checkpoint against a fixed anchor, one
//! JSON line in `<run>/ratings.jsonl` (append-only: a line is written whole
//! and synced, a torn last line from a kill is ignored on reading, so a
//! resumed rater neither loses nor counts twice a checkpoint), and the
//! same figures as tensorboard scalars (`eval/elo`, `eval/elo_low`,
//! `eval/elo_high`, `eval/score`).
//!
//! The matches themselves are the caller's ([`Rater`], implemented by the
//! command line with the arena; this crate does not depend on it). Every
//! point plays the same anchor, so two runs of one config are on one scale.

use crate::config::RunConfig;
use crate::tblog::{TbError, TbLogger};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// File name of the curve in a run directory.
pub const RATINGS_FILE: &str = "ratings.jsonl";

/// What one rating match found, from the checkpoint's view.
#[derive(Clone, Debug, PartialEq)]
pub struct AnchorResult {
    /// The anchor's player spec.
    pub anchor: String,
    /// Wins, draws and losses of the checkpoint.
    pub wdl: [u64; 3],
    /// Logistic Elo over the anchor and its 95 % interval.
    pub elo: [f64; 3],
}

/// Plays a run's checkpoint against the anchor (implemented with the arena
/// by the command line).
pub trait Rater {
    /// Plays the checkpoint at `checkpoint` (of the family `config` trains)
    /// against the anchor; `seed` makes the match reproducible; `stop`
    /// ends it at the next pair; `log` receives progress lines.
    /// `Ok(None)`: stopped before the end (no point is recorded).
    fn rate(
        &mut self,
        config: &RunConfig,
        checkpoint: &Path,
        seed: u64,
        stop: &AtomicBool,
        log: &mut dyn FnMut(&str),
    ) -> Result<Option<AnchorResult>, String>;
}

/// The largest Elo difference a point records: a whitewash has an
/// infinite estimate or interval end (and JSON has no infinity).
pub const ELO_CAP: f64 = 800.0;

/// `elo` within [`ELO_CAP`].
pub fn capped(elo: f64) -> f64 {
    if elo.is_nan() {
        0.0
    } else {
        elo.clamp(-ELO_CAP, ELO_CAP)
    }
}

/// One line of `ratings.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingPoint {
    /// The checkpoint's training step.
    pub step: u64,
    /// Generations completed at that checkpoint.
    pub generation: u64,
    /// Self-play games played by then.
    pub selfplay_games: u64,
    /// The run's own time at that checkpoint, in seconds.
    pub run_seconds: f64,
    /// The anchor's player spec.
    pub anchor: String,
    /// Games played against it.
    pub games: u64,
    /// Wins, draws and losses of the checkpoint.
    pub wdl: [u64; 3],
    /// Logistic Elo over the anchor (within [`ELO_CAP`], as the interval).
    pub elo: f64,
    /// Lower end of its 95 % interval.
    pub elo_low: f64,
    /// Upper end of its 95 % interval.
    pub elo_high: f64,
    /// Seconds the rating took (the gate's match included).
    pub seconds: f64,
    /// The gate the checkpoint played against the best net, when the run
    /// gates (a concurrent run with `[gating] enabled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateRecord>,
}

/// A checkpoint's gate against the run's best net.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    /// The step of the best net it played.
    pub best_step: u64,
    /// Games played.
    pub games: u64,
    /// Its score (points per game).
    pub score: f64,
    /// Its Elo over the best net (within [`ELO_CAP`]).
    pub elo: f64,
    /// It passed and became the net self-play uses.
    pub promoted: bool,
}

impl RatingPoint {
    /// The checkpoint's score (points per game).
    pub fn score(&self) -> f64 {
        let [w, d, _] = self.wdl;
        if self.games == 0 {
            0.5
        } else {
            (w as f64 + 0.5 * d as f64) / self.games as f64
        }
    }

    /// The tensorboard scalars of the point, at its step.
    pub fn scalars(&self) -> [(&'static str, f64); 4] {
        [
            ("eval/elo", self.elo),
            ("eval/elo_low", self.elo_low),
            ("eval/elo_high", self.elo_high),
            ("eval/score", self.score()),
        ]
    }
}

/// The `ratings.jsonl` of a run.
#[derive(Clone, Debug)]
pub struct RatingsLog {
    path: PathBuf,
}

impl RatingsLog {
    /// The curve of the run in `run_dir`.
    pub fn of_run(run_dir: &Path) -> RatingsLog {
        RatingsLog {
            path: run_dir.join(RATINGS_FILE),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every point written so far (none when the file does not exist); a
    /// last line without its newline (a write cut by a kill) is ignored, a
    /// damaged line elsewhere is an error naming it.
    pub fn read(&self) -> Result<Vec<RatingPoint>, String> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("{}: {e}", self.path.display())),
        };
        let whole = match text.rfind('\n') {
            Some(end) => &text[..end],
            None => "",
        };
        whole
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| {
                serde_json::from_str(line)
                    .map_err(|e| format!("{} line {}: {e}", self.path.display(), i + 1))
            })
            .collect()
    }

    /// Appends `point` as one line, synced before returning. A torn line
    /// left by an earlier kill is cut off first, so the file stays whole.
    pub fn append(&self, point: &RatingPoint) -> Result<(), String> {
        let io = |e: std::io::Error| format!("{}: {e}", self.path.display());
        self.drop_torn_tail().map_err(io)?;
        let mut line = serde_json::to_string(point).expect("a rating point serialises");
        line.push('\n');
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(io)?;
        file.write_all(line.as_bytes()).map_err(io)?;
        file.sync_data().map_err(io)
    }

    /// Truncates the file after its last newline.
    fn drop_torn_tail(&self) -> std::io::Result<()> {
        let Ok(bytes) = std::fs::read(&self.path) else {
            return Ok(());
        };
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if whole < bytes.len() {
            File::options()
                .write(true)
                .open(&self.path)?
                .set_len(whole as u64)?;
        }
        Ok(())
    }
}

/// The points' scalars in a run's tensorboard folder, the writer opened at
/// the first point.
pub struct TbPoints {
    dir: PathBuf,
    logger: Option<TbLogger>,
}

impl TbPoints {
    /// Writes into `dir` (a run's `tb/`).
    pub fn new(dir: PathBuf) -> TbPoints {
        TbPoints { dir, logger: None }
    }

    /// Writes `point`'s scalars at its step and flushes them.
    pub fn write(&mut self, point: &RatingPoint) -> Result<(), TbError> {
        if self.logger.is_none() {
            self.logger = Some(TbLogger::open(&self.dir)?);
        }
        let logger = self.logger.as_mut().expect("opened above");
        logger.scalars(&point.scalars(), point.step)?;
        logger.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(step: u64) -> RatingPoint {
        RatingPoint {
            step,
            generation: step / 10,
            selfplay_games: step * 3,
            run_seconds: step as f64,
            anchor: "ab:depth=2".into(),
            games: 4,
            wdl: [2, 1, 1],
            elo: 88.7,
            elo_low: -200.0,
            elo_high: capped(f64::INFINITY),
            seconds: 1.5,
            gate: (step == 20).then_some(GateRecord {
                best_step: 10,
                games: 2,
                score: 1.0,
                elo: 800.0,
                promoted: true,
            }),
        }
    }

    #[test]
    fn points_are_appended_and_a_torn_last_line_is_ignored_then_cut() {
        let dir = std::env::temp_dir().join(format!("shashki-ratings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = RatingsLog::of_run(&dir);
        let _ = std::fs::remove_file(log.path());
        assert!(log.read().unwrap().is_empty());
        log.append(&point(10)).unwrap();
        log.append(&point(20)).unwrap();
        // A kill in the middle of a write leaves half a line.
        let mut file = OpenOptions::new().append(true).open(log.path()).unwrap();
        file.write_all(b"{\"step\": 30, \"gen").unwrap();
        drop(file);
        let read = log.read().unwrap();
        assert_eq!(read.iter().map(|p| p.step).collect::<Vec<_>>(), [10, 20]);
        assert_eq!(read[0], point(10));
        log.append(&point(30)).unwrap();
        let steps: Vec<u64> = log.read().unwrap().iter().map(|p| p.step).collect();
        assert_eq!(steps, [10, 20, 30]);
        assert_eq!(point(10).score(), 0.625);
        assert_eq!(point(10).scalars()[2], ("eval/elo_high", 800.0));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
