//! Matches and relabelling on a real Ray cluster: runs
//! `scripts/ray/test_match.py` (pytest) against this build's `shashki`
//! binary. The Python tests start a three-node local cluster and check that
//! a match dealt to the nodes equals the local `shashki match` game for
//! game, that a killed driver resumes from its journal, that `--sprt` stops
//! the cluster on the local decision, that a node lost mid-match costs only
//! its unfinished pairs, and that `relabel.py` writes the chunks one
//! machine writes.
//!
//! Skipped (with a message) when the interpreter lacks ray or pytest; under
//! CI (which installs them into .venv) a skip is a failure.

#[path = "support/python.rs"]
mod python;

use std::process::Command;
use std::time::Duration;

/// The suite's limit (about two minutes on two idle cores): a hang fails
/// here instead of stalling CI.
const LIMIT: Duration = Duration::from_secs(600);

#[test]
fn matches_and_relabelling_on_a_local_multi_node_cluster() {
    let Some(python) = python::python_with(
        &["ray", "pytest"],
        "matches_and_relabelling_on_a_local_multi_node_cluster",
    ) else {
        return;
    };
    let root = python::repo_root();
    let (status, tail) = python::run_bounded(
        Command::new(&python)
            .args(["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-s"])
            .arg(root.join("scripts/ray/test_match.py"))
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
    assert!(tail.contains("5 passed"), "all five tests ran:\n{tail}");
}
