//! Runs a numpy reference script of `scripts/` over positions, for the
//! tests that hold our networks to their published reference (included by
//! path from `crates/net/tests/reference_forward.rs` and
//! `crates/nnue/tests/reference.rs`).
//!
//! A test skips (with a message) only when the interpreter, numpy or
//! safetensors is missing; under CI (`CI` set, which installs them) a skip
//! is a failure.

#[path = "python.rs"]
mod python;

use shashki_rules::Position;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether the test interpreter has numpy and safetensors. Panics under
/// CI when not; prints the skip message for `test` otherwise.
pub fn python_ready(test: &str) -> bool {
    python::python_with(&["numpy", "safetensors"], test).is_some()
}

/// `scripts/NAME` of this repository.
pub fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(name)
}

/// Runs `PYTHON SCRIPT --model MODEL --fens-file DIR/fens.txt` on the
/// positions; returns the script's JSON line for each, in order.
pub fn run_reference(
    script: &Path,
    model: &Path,
    positions: &[Position],
    dir: &Path,
) -> Vec<serde_json::Value> {
    let fens: Vec<String> = positions.iter().map(Position::to_fen).collect();
    let fens_file = dir.join("fens.txt");
    std::fs::write(&fens_file, fens.join("\n")).unwrap();
    let out = Command::new(python::python())
        .arg(script)
        .arg("--model")
        .arg(model)
        .arg("--fens-file")
        .arg(&fens_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} failed: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), positions.len());
    lines
}
