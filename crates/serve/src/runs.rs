//! Training runs (`--runs DIR`): `GET /api/runs` lists the runs in the
//! folder with their progress, `GET /api/runs/{name}` gives one run's
//! curves, all read from the files a run already writes:
//!
//! - `checkpoints/ckpt-*.state.json`: step, generation, games, and the
//!   gating Elo of the best net (`best_elo`) at each checkpoint;
//! - `ratings.json` (what `shashki rate --ratings RUN/ratings.json` keeps):
//!   Elo against training steps, fitted as `rate` does;
//! - `ratings.jsonl` (the evaluator's curve: a concurrent run's own, or
//!   `shashki rate --watch`'s): each rated checkpoint's Elo over the
//!   anchor, with its interval;
//! - `tb/events.out.tfevents.*`: the loss curves.
//!
//! A run is named by its folder name and looked up in the folder's
//! listing, so no path from the request ever reaches the disk. A run
//! folder that does not exist yet (no training so far) lists no runs.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use shashki_arena::ratings_file::RatingsFile;
use shashki_arena::tournament::default_anchor;
use shashki_train::tblog::{event_files, read_scalars};
use shashki_train::{LearnerState, RatingsLog};
use std::collections::BTreeMap;
use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;

/// Most points sent for one loss curve (longer ones are thinned evenly).
const MAX_POINTS: usize = 400;

/// One run's progress.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunSummary {
    /// The folder name.
    pub name: String,
    /// Generations completed (at the newest checkpoint).
    pub generation: u64,
    /// Training steps.
    pub step: u64,
    /// Self-play games.
    pub games: u64,
    /// Self-play samples.
    pub samples: u64,
    /// Step of the net self-play uses.
    pub best_step: u64,
    /// Gating Elo of that net against the first.
    pub best_elo: f64,
    /// Checkpoints kept.
    pub checkpoints: usize,
}

/// One point of a curve.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Point {
    /// Training steps.
    pub step: u64,
    /// The value.
    pub value: f64,
    /// Half-width of its 95 % interval, when it has one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ci95: Option<f64>,
    /// What the point is (a player's name), when it is not just a step.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub label: Option<String>,
}

/// One run's curves.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunDetail {
    /// The progress at the newest checkpoint.
    pub summary: RunSummary,
    /// Games played against steps (one point per checkpoint).
    pub games: Vec<Point>,
    /// Gating Elo of the best net against steps.
    pub gating_elo: Vec<Point>,
    /// Elo of rated checkpoints against steps (`ratings.json`).
    pub rated_elo: Vec<Point>,
    /// The anchor of the rated Elo, if any.
    pub rated_anchor: Option<String>,
    /// The evaluator's Elo over its anchor against steps (`ratings.jsonl`),
    /// each with its 95 % interval's half-width.
    pub evaluator_elo: Vec<Point>,
    /// The evaluator's anchor (of its newest point), if any.
    pub evaluator_anchor: Option<String>,
    /// Loss curves by tensorboard tag (`loss/total`, `loss/policy`, ...).
    pub losses: BTreeMap<String, Vec<Point>>,
    /// Files that could not be read, with why (the rest is still shown).
    pub warnings: Vec<String>,
}

fn runs_dir(state: &AppState) -> ApiResult<&FsPath> {
    state.runs.as_deref().ok_or_else(|| {
        ApiError::not_found("no run folder: start the server with --runs DIR to see training runs")
    })
}

/// The runs of `dir`: its sub-folders holding a `config.toml` or a
/// `checkpoints/` folder, by name; none while `dir` does not exist.
fn run_folders(dir: &FsPath) -> ApiResult<Vec<(String, PathBuf)>> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| ApiError::internal(format!("cannot list the run folder: {e}")))?;
    let mut runs: Vec<(String, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("config.toml").is_file() || p.join("checkpoints").is_dir())
        .filter_map(|p| Some((p.file_name()?.to_str()?.to_string(), p)))
        .collect();
    runs.sort();
    Ok(runs)
}

/// The learner states of a run's checkpoints, by step.
fn states(run: &FsPath, warnings: &mut Vec<String>) -> Vec<LearnerState> {
    let dir = run.join("checkpoints");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<LearnerState> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("ckpt-") && name.ends_with(".state.json")
        })
        .filter_map(|e| {
            let path = e.path();
            let parsed = std::fs::read(&path)
                .map_err(|err| err.to_string())
                .and_then(|b| {
                    serde_json::from_slice::<LearnerState>(&b).map_err(|err| err.to_string())
                });
            parsed
                .map_err(|err| warnings.push(format!("{}: {err}", path.display())))
                .ok()
        })
        .collect();
    out.sort_by_key(|s| s.step);
    out
}

fn summary(
    name: &str,
    run: &FsPath,
    warnings: &mut Vec<String>,
) -> (RunSummary, Vec<LearnerState>) {
    let states = states(run, warnings);
    let last = states.last().cloned().unwrap_or_default();
    let summary = RunSummary {
        name: name.to_string(),
        generation: last.generation,
        step: last.step,
        games: last.games,
        samples: last.samples,
        best_step: last.best_step,
        best_elo: last.best_elo,
        checkpoints: states.len(),
    };
    (summary, states)
}

/// `GET /api/runs`.
pub async fn list(State(state): State<Arc<AppState>>) -> ApiResult<Json<Vec<RunSummary>>> {
    let dir = runs_dir(&state)?.to_path_buf();
    let runs = tokio::task::spawn_blocking(move || -> ApiResult<Vec<RunSummary>> {
        let mut ignored = Vec::new();
        Ok(run_folders(&dir)?
            .iter()
            .map(|(name, path)| summary(name, path, &mut ignored).0)
            .collect())
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))??;
    Ok(Json(runs))
}

/// `GET /api/runs/{name}`.
pub async fn detail(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
) -> ApiResult<Json<RunDetail>> {
    let dir = runs_dir(&state)?.to_path_buf();
    let detail = tokio::task::spawn_blocking(move || -> ApiResult<RunDetail> {
        let (_, path) = run_folders(&dir)?
            .into_iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| ApiError::not_found(format!("no run {name:?} in the run folder")))?;
        let mut detail = read_detail(&name, &path);
        // Warnings name files inside the run folder, not where it lies.
        let prefix = format!("{}{}", dir.display(), std::path::MAIN_SEPARATOR);
        for warning in &mut detail.warnings {
            *warning = warning.replace(&prefix, "");
        }
        Ok(detail)
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))??;
    Ok(Json(detail))
}

fn read_detail(name: &str, run: &FsPath) -> RunDetail {
    let mut warnings = Vec::new();
    let (summary, states) = summary(name, run, &mut warnings);
    let point = |step: u64, value: f64| Point {
        step,
        value,
        ci95: None,
        label: None,
    };
    let (rated_elo, rated_anchor) = rated(run, &mut warnings);
    let (evaluator_elo, evaluator_anchor) = evaluator_curve(run, &mut warnings);
    RunDetail {
        games: states
            .iter()
            .map(|s| point(s.step, s.games as f64))
            .collect(),
        gating_elo: states.iter().map(|s| point(s.step, s.best_elo)).collect(),
        rated_elo,
        rated_anchor,
        evaluator_elo,
        evaluator_anchor,
        losses: losses(run, &mut warnings),
        summary,
        warnings,
    }
}

/// Elo against steps from the run's `ratings.json`, anchored as `rate`
/// anchors by default.
fn rated(run: &FsPath, warnings: &mut Vec<String>) -> (Vec<Point>, Option<String>) {
    let path = run.join("ratings.json");
    if !path.is_file() {
        return (Vec::new(), None);
    }
    let file = match RatingsFile::load(&path) {
        Ok(f) => f,
        Err(e) => {
            warnings.push(e.to_string());
            return (Vec::new(), None);
        }
    };
    let Some((anchor, elo)) = default_anchor(&file.player_names()) else {
        return (Vec::new(), None);
    };
    match file.rate(&anchor, elo, 1.0) {
        Ok(table) => {
            let mut points: Vec<Point> = table
                .players
                .iter()
                .filter_map(|p| {
                    Some(Point {
                        step: p.steps?,
                        value: p.elo,
                        ci95: Some(p.ci95),
                        label: Some(p.name.clone()),
                    })
                })
                .collect();
            points.sort_by_key(|p| p.step);
            (points, Some(anchor))
        }
        Err(e) => {
            warnings.push(format!("{}: {e}", path.display()));
            (Vec::new(), None)
        }
    }
}

/// The evaluator's points from the run's `ratings.jsonl` (a torn last
/// line, a run being written, is left out).
fn evaluator_curve(run: &FsPath, warnings: &mut Vec<String>) -> (Vec<Point>, Option<String>) {
    let points = match RatingsLog::of_run(run).read() {
        Ok(points) => points,
        Err(e) => {
            warnings.push(e);
            return (Vec::new(), None);
        }
    };
    let anchor = points.last().map(|p| p.anchor.clone());
    let curve = points
        .into_iter()
        .map(|p| Point {
            step: p.step,
            value: p.elo,
            ci95: Some((p.elo_high - p.elo_low) / 2.0),
            label: Some(format!("{} games vs {}", p.games, p.anchor)),
        })
        .collect();
    (curve, anchor)
}

/// The `loss/*` scalars of the run's tensorboard files, thinned.
fn losses(run: &FsPath, warnings: &mut Vec<String>) -> BTreeMap<String, Vec<Point>> {
    let mut curves: BTreeMap<String, Vec<Point>> = BTreeMap::new();
    let files = event_files(&run.join("tb")).unwrap_or_default();
    for file in files {
        match read_scalars(&file) {
            Ok(events) => {
                for e in events.into_iter().filter(|e| e.tag.starts_with("loss/")) {
                    curves.entry(e.tag).or_default().push(Point {
                        step: e.step.max(0) as u64,
                        value: f64::from(e.value),
                        ci95: None,
                        label: None,
                    });
                }
            }
            Err(e) => warnings.push(e.to_string()),
        }
    }
    for points in curves.values_mut() {
        points.sort_by_key(|p| p.step);
        if points.len() > MAX_POINTS {
            let n = points.len();
            *points = (0..MAX_POINTS)
                .map(|i| points[i * (n - 1) / (MAX_POINTS - 1)].clone())
                .collect();
        }
    }
    curves
}
