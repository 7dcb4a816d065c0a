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

use std::time::Duration;

/// The suite's limit (about two minutes on two idle cores).
const LIMIT: Duration = Duration::from_secs(600);

#[test]
fn matches_and_relabelling_on_a_local_multi_node_cluster() {
    python::ray_suite(
        "matches_and_relabelling_on_a_local_multi_node_cluster",
        env!("CARGO_BIN_EXE_shashki"),
        "scripts/ray/test_match.py",
        LIMIT,
        5,
    );
}
