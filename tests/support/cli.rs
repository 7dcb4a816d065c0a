//! What the end-to-end tests of the binary share: running `shashki`,
//! fresh temporary folders, paths as arguments. Each test file takes it
//! with `#[path = "support/cli.rs"] mod cli;` and uses what it needs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root (where `models/` and `configs/` are).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A shipped config file.
pub fn config(name: &str) -> PathBuf {
    repo_root().join("configs").join(name)
}

/// Runs `shashki ARGS` in the test's working folder.
pub fn shashki(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(args)
        .output()
        .expect("shashki runs")
}

/// Runs `shashki ARGS` in the repository's root (relative model paths).
pub fn shashki_in_repo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shashki"))
        .current_dir(repo_root())
        .args(args)
        .output()
        .expect("shashki runs")
}

/// The standard output of a run that must succeed.
pub fn succeeded(args: &[&str], out: Output) -> String {
    assert!(
        out.status.success(),
        "shashki {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `shashki ARGS`, which must succeed, and returns its output.
pub fn ok(args: &[&str]) -> String {
    succeeded(args, shashki(args))
}

/// Like [`ok`], in the repository's root.
pub fn ok_in_repo(args: &[&str]) -> String {
    succeeded(args, shashki_in_repo(args))
}

pub use shashki_atomic::testing::temp_dir;

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
