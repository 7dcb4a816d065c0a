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

use std::process::Command;
use std::time::Duration;

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
    let (status, tail) = python::run_bounded(
        Command::new(&python)
            .args(["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-s"])
            .arg(root.join("scripts/ray/test_cluster.py"))
            .env("SHASHKI_BIN", env!("CARGO_BIN_EXE_shashki"))
            .env("RAY_USAGE_STATS_ENABLED", "0")
            .current_dir(&root),
        LIMIT,
        80,
    );
    match status {
        None => panic!("the Ray tests ran past {LIMIT:?}:\n{tail}"),
        Some(status) => assert!(status.success(), "the Ray tests failed:\n{tail}"),
    }
    assert!(
        tail.contains("6 passed"),
        "all six cluster tests ran:\n{tail}"
    );
}
