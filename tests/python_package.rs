//! The Python package `shashki` (crates/python): built and installed into
//! the test interpreter's environment the way README.md says (pip with
//! maturin, sharing the workspace's target directory; here without build
//! isolation, maturin coming from `.venv`), then its pytest suite
//! (crates/python/tests) run against this build's `shashki` binary: the
//! rules, engines, networks, data and tablebases against the Rust
//! commands, PettingZoo's `api_test` and Gymnasium's `check_env`, and the
//! README's example.
//!
//! Skipped (with a message) when the interpreter lacks maturin, pytest,
//! PettingZoo or Gymnasium; under CI (which installs them into .venv) a
//! skip is a failure.

#[path = "support/python.rs"]
mod python;

use std::process::Command;
use std::time::Duration;

/// Building the extension (mostly cached, up to a few minutes when a
/// dependency changed) and the suite (about a minute); a hang fails here.
const LIMIT: Duration = Duration::from_secs(1500);

#[test]
fn python_package_installs_and_passes_its_tests() {
    let Some(python) = python::python_with(
        &["maturin", "pytest", "pettingzoo", "gymnasium"],
        "python_package_installs_and_passes_its_tests",
    ) else {
        return;
    };
    let root = python::repo_root();
    // Without build isolation, pip's backend runs the `maturin` beside the
    // interpreter: that folder goes first on the PATH.
    let bin = python
        .parent()
        .map(|dir| dir.to_path_buf())
        .unwrap_or_default();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path)))
        .expect("PATH entries join");
    let (status, tail) = python::run_bounded(
        Command::new(&python)
            .env("PATH", path)
            .args(["-m", "pip", "install", "--no-build-isolation", "--no-deps"])
            .args(["--disable-pip-version-check", "--quiet", "./crates/python"])
            .current_dir(&root),
        LIMIT,
        60,
    );
    assert!(
        status.is_some_and(|s| s.success()),
        "pip install ./crates/python failed ({status:?}):\n{tail}"
    );
    let (status, tail) = python::run_bounded(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root.join("crates/python/tests"))
            .env("SHASHKI_BIN", env!("CARGO_BIN_EXE_shashki"))
            .current_dir(&root),
        LIMIT,
        80,
    );
    match status {
        None => panic!("the Python package's tests ran past {LIMIT:?}:\n{tail}"),
        Some(status) => assert!(
            status.success(),
            "the Python package's tests failed:\n{tail}"
        ),
    }
    assert!(
        tail.contains(" passed") && !tail.contains("skipped"),
        "every test of the package ran:\n{tail}"
    );
}
