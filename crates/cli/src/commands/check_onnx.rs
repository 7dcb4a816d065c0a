//! `shashki check-onnx`: holds a `model.onnx` to the contract of
//! docs/MODEL.md (opset, metadata, inputs and outputs, weights): a
//! policy/value net's or the NNUE's, as its metadata says.

use anyhow::Result;
use shashki_net::check_onnx;
use std::path::{Path, PathBuf};

/// Options of `shashki check-onnx`.
#[derive(clap::Args)]
pub struct Args {
    /// The ONNX file (`model.onnx` written by `shashki export --format onnx`).
    file: PathBuf,
}

/// Runs `shashki check-onnx`.
pub fn run(args: Args) -> Result<()> {
    if is_nnue(&args.file) {
        let (arch, step) = shashki_nnue::check_nnue_onnx(&args.file)?;
        println!(
            "{}: valid: NNUE {} at step {step}, opset {}",
            args.file.display(),
            serde_json::to_string(&arch)?,
            shashki_onnx::OPSET
        );
        return Ok(());
    }
    let summary = check_onnx(&args.file)?;
    println!(
        "{}: valid: {} net {} at step {}, opset {}",
        args.file.display(),
        summary.config.kind,
        summary.config.to_json(),
        summary.training_step,
        shashki_onnx::OPSET
    );
    Ok(())
}

/// Whether `file`'s metadata names the NNUE's format (any other file is
/// checked as a policy/value net, whose check names what differs).
fn is_nnue(file: &Path) -> bool {
    std::fs::read(file)
        .ok()
        .and_then(|bytes| shashki_onnx::OnnxFile::decode(&bytes).ok())
        .and_then(|onnx| onnx.meta("format").ok())
        .is_some_and(|format| format == shashki_nnue::onnx::NNUE_ONNX_FORMAT)
}
