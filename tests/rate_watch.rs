//! `shashki rate --watch RUN`: a run's checkpoints rated while it trains
//! (the watcher started before the run exists), into `ratings.jsonl` and
//! the run's tensorboard; killed with SIGKILL and started again, it goes
//! on after its last point, counting no checkpoint twice.

use shashki_train::tblog::{event_files, read_scalars};
use shashki_train::{RatingPoint, RatingsLog, RunDir};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Every process here is done in seconds; this bounds a hang.
const LIMIT: Duration = Duration::from_secs(180);

#[path = "support/runs.rs"]
mod runs;

use runs::train;
use shashki_atomic::testing::temp_dir;

/// configs/nnue-smoke.toml keeping every checkpoint (the smoke config
/// keeps two, and a busy machine could then leave the watcher nothing
/// between two looks), written into `dir`.
fn config_keeping_all(dir: &Path) -> PathBuf {
    let smoke = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/nnue-smoke.toml");
    let text = std::fs::read_to_string(smoke).unwrap();
    assert!(text.contains("keep_checkpoints = 2"));
    let path = dir.join("nnue-smoke-keep.toml");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        &path,
        text.replace("keep_checkpoints = 2", "keep_checkpoints = 1000"),
    )
    .unwrap();
    path
}

/// The watcher: two games a checkpoint against `ab:depth=1`.
fn watch(run: &Path, until_step: u64) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shashki"));
    cmd.args([
        "rate",
        "--against",
        "ab:depth=1",
        "--games",
        "2",
        "--concurrency",
        "1",
    ])
    .args(["--poll", "0.05", "--until-step", &until_step.to_string()])
    .arg("--watch")
    .arg(run)
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    cmd
}

/// Waits for `child` within [`LIMIT`]; true if it succeeded.
fn finish(mut child: Child, what: &str) -> bool {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.success();
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} ran past {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn points(run: &Path) -> Vec<RatingPoint> {
    RatingsLog::of_run(run).read().unwrap()
}

fn steps(points: &[RatingPoint]) -> Vec<u64> {
    points.iter().map(|p| p.step).collect()
}

#[test]
fn rate_watch_rates_a_run_while_it_trains_and_resumes_after_a_kill_without_double_counting() {
    let dir = temp_dir("rate-watch");
    let run = dir.join("run");
    // Started first, the watcher waits for the run to appear.
    let watcher = watch(&run, 12).spawn().unwrap();
    let trainer = train(&config_keeping_all(&dir), &run, 30)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(finish(watcher, "rate --watch"), "the watcher failed");
    let during = points(&run);
    let rated = steps(&during);
    assert!(
        rated.len() >= 3,
        "few checkpoints rated while training: {rated:?}"
    );
    assert!(
        rated.windows(2).all(|w| w[0] < w[1]),
        "steps in order: {rated:?}"
    );
    assert!(*rated.last().unwrap() >= 12);
    for point in &during {
        assert_eq!((point.games, point.anchor.as_str()), (2, "ab:depth=1"));
        assert_eq!(point.wdl.iter().sum::<u64>(), 2);
        assert!(point.elo_low <= point.elo && point.elo <= point.elo_high);
        // Each checkpoint's counters come from its state file.
        assert!(
            point.step == 0 || (point.selfplay_games > 0 && point.run_seconds > 0.0),
            "{point:?}"
        );
    }
    // A second watcher is killed at once (during or between ratings),
    // a third goes on to the run's last checkpoint.
    let mut killed = watch(&run, u64::MAX).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    killed.kill().unwrap();
    killed.wait().unwrap();
    assert!(finish(trainer, "train"), "training failed");
    let last = shashki_train::checkpoints::list_checkpoints(&RunDir::new(&run).checkpoint_dir())
        .unwrap()
        .last()
        .unwrap()
        .0;
    assert!(finish(
        watch(&run, last).spawn().unwrap(),
        "the resumed watcher"
    ));
    let all = steps(&points(&run));
    assert!(
        all.windows(2).all(|w| w[0] < w[1]),
        "no step twice: {all:?}"
    );
    assert_eq!(&all[..rated.len()], &rated[..]);
    assert_eq!(*all.last().unwrap(), last);
    // The points of the watchers that ended by themselves are in the run's
    // tensorboard at their steps (the killed one may have died between a
    // point and its scalars).
    let mut logged: Vec<i64> = Vec::new();
    for file in event_files(&RunDir::new(&run).tensorboard_dir().join("evaluator")).unwrap() {
        for scalar in read_scalars(&file).unwrap() {
            if scalar.tag == "eval/elo" {
                logged.push(scalar.step);
            }
        }
    }
    logged.sort_unstable();
    assert!(
        rated
            .iter()
            .chain([&last])
            .all(|s| logged.contains(&(*s as i64))),
        "tensorboard {logged:?} lacks some of {rated:?} and {last}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
