//! Which Python interpreter a test drives, and whether it has the packages
//! the test needs (included by path from the tests that run Python).
//!
//! The interpreter is `$SHASHKI_PYTHON` when set, else the repository's
//! virtual environment `.venv/bin/python3` (made by `.ci/run`), else
//! `python3` on the PATH. A test skips (with a message) only when the
//! packages are missing; under CI (`CI` set, which installs them) a skip
//! is a failure.

use std::path::PathBuf;
use std::process::Command;

/// The repository's root folder.
pub fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join(".ci").is_dir())
        .map(PathBuf::from)
        .unwrap_or(manifest)
}

/// The interpreter tests run: `$SHASHKI_PYTHON`, `.venv/bin/python3`, or
/// `python3`.
pub fn python() -> PathBuf {
    if let Some(path) = std::env::var_os("SHASHKI_PYTHON") {
        return PathBuf::from(path);
    }
    let venv = repo_root().join(".venv/bin/python3");
    if venv.is_file() {
        return venv;
    }
    PathBuf::from("python3")
}

/// The interpreter when it can import every module of `modules`. Panics
/// under CI when not; prints the skip message for `test` otherwise.
pub fn python_with(modules: &[&str], test: &str) -> Option<PathBuf> {
    let python = python();
    let why = match Command::new(&python)
        .args(["-c", &format!("import {}", modules.join(", "))])
        .output()
    {
        Ok(out) if out.status.success() => return Some(python),
        Ok(out) => format!(
            "{} cannot import {}: {}",
            python.display(),
            modules.join(", "),
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => format!("{} cannot be started: {e}", python.display()),
    };
    assert!(
        std::env::var_os("CI").is_none(),
        "{test} cannot run under CI: {why}"
    );
    println!("SKIPPED {test}: {why}");
    println!("(make the environment with: bash scripts/python_env.sh)");
    None
}

/// Runs `command` with its output going to a log file, killing it past
/// `limit`: `(Some(status), log)` when it ended, `(None, log)` when it was
/// killed. The log's last `tail` lines are returned, and the file removed.
#[allow(dead_code)] // not every test that includes this file runs one
pub fn run_bounded(
    command: &mut Command,
    limit: std::time::Duration,
    tail: usize,
) -> (Option<std::process::ExitStatus>, String) {
    use std::process::Stdio;
    let log = std::env::temp_dir().join(format!(
        "shashki-python-{}-{:?}.log",
        std::process::id(),
        std::thread::current().id()
    ));
    let file = std::fs::File::create(&log).unwrap();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .expect("the command starts");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    let lines: Vec<&str> = output.lines().collect();
    (status, lines[lines.len().saturating_sub(tail)..].join("\n"))
}

/// Runs the pytest file `script` (relative to the repository) of the Ray
/// scripts against the `shashki` binary `bin`, within `limit` (a hang fails
/// instead of stalling CI), and checks that all `tests` of it passed.
/// Skipped as [`python_with`] says when ray or pytest is missing.
#[allow(dead_code)] // Only the Ray tests use it.
pub fn ray_suite(test: &str, bin: &str, script: &str, limit: std::time::Duration, tests: usize) {
    let Some(python) = python_with(&["ray", "pytest"], test) else {
        return;
    };
    let root = repo_root();
    let (status, tail) = run_bounded(
        Command::new(&python)
            .args(["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-s"])
            .arg(root.join(script))
            .env("SHASHKI_BIN", bin)
            .env("RAY_USAGE_STATS_ENABLED", "0")
            .current_dir(&root),
        limit,
        80,
    );
    match status {
        None => panic!("{script} ran past {limit:?}:\n{tail}"),
        Some(status) => assert!(status.success(), "{script} failed:\n{tail}"),
    }
    assert!(
        tail.contains(&format!("{tests} passed")),
        "all {tests} tests of {script} ran:\n{tail}"
    );
}
