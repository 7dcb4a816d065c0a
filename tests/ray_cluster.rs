//! Self-play on a real Ray cluster: runs `scripts/ray/test_cluster.py`
//! (pytest) against this build's `shashki` binary. The Python tests start a
//! three-node local cluster (`ray.cluster_utils.Cluster`) and check smoke
//! runs of both engine families, an actor killed with kill -9, a node that
//! dies mid-run, a driver killed and restarted, a binary missing on the
//! nodes and the reproducibility of a round from its seed.
//!
//! Skipped (with a message) when the interpreter lacks ray or pytest; under
//! CI (which installs them into .venv) a skip is a failure.

#[path = "support/python.rs"]
mod python;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The whole Python suite's limit: it takes a few minutes on two busy
/// cores; a hang fails here instead of stalling CI.
const LIMIT: Duration = Duration::from_secs(900);

#[test]
fn ray_driver_on_a_local_multi_node_cluster() {
    let Some(python) = python::python_with(
        &["ray", "pytest"],
        "ray_driver_on_a_local_multi_node_cluster",
    ) else {
        return;
    };
    let root = python::repo_root();
    let log = std::env::temp_dir().join(format!("shashki-ray-tests-{}.log", std::process::id()));
    let file = std::fs::File::create(&log).unwrap();
    let mut child = Command::new(&python)
        .args(["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-s"])
        .arg(root.join("scripts/ray/test_cluster.py"))
        .env("SHASHKI_BIN", env!("CARGO_BIN_EXE_shashki"))
        .env("RAY_USAGE_STATS_ENABLED", "0")
        .current_dir(&root)
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    let tail: String = {
        let lines: Vec<&str> = output.lines().collect();
        lines[lines.len().saturating_sub(80)..].join("\n")
    };
    match status {
        None => panic!(
            "the Ray tests ran past {LIMIT:?}; log {}:\n{tail}",
            log.display()
        ),
        Some(status) => assert!(
            status.success(),
            "the Ray tests failed; log {}:\n{tail}",
            log.display()
        ),
    }
    assert!(
        output.contains("6 passed"),
        "all six cluster tests ran:\n{tail}"
    );
    let _ = std::fs::remove_file(&log);
}
