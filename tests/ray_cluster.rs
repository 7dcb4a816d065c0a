//! Self-play on a real Ray cluster: runs `scripts/ray/test_cluster.py`
//! (pytest) against this build's `shashki` binary. The Python tests start a
//! three-node local cluster (`ray.cluster_utils.Cluster`) and check smoke
//! runs of both engine families, an actor killed with kill -9, a node that
//! dies mid-run, a driver killed and restarted, a binary missing on the
//! nodes, a disk below the run's floor and the reproducibility of a round
//! from its seed.
//!
//! Skipped (with a message) when the interpreter lacks ray or pytest; under
//! CI (which installs them into .venv) a skip is a failure.

#[path = "support/python.rs"]
mod python;

use std::time::Duration;

/// The suite's limit: it takes a few minutes on two busy cores.
const LIMIT: Duration = Duration::from_secs(900);

#[test]
fn ray_driver_on_a_local_multi_node_cluster() {
    python::ray_suite(
        "ray_driver_on_a_local_multi_node_cluster",
        env!("CARGO_BIN_EXE_shashki"),
        "scripts/ray/test_cluster.py",
        LIMIT,
        7,
    );
}
