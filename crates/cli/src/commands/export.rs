//! `shashki export`: a checkpoint as `model.safetensors` + `model.json`
//! (the documented format for other front ends, docs/MODEL.md).

use anyhow::{Result, bail};
use shashki_net::{Checkpoint, MODEL_JSON_FILE, WEIGHTS_FILE, export_model};
use std::path::PathBuf;

/// Options of `shashki export`.
#[derive(clap::Args)]
pub struct Args {
    /// The checkpoint to export.
    #[arg(long)]
    checkpoint: PathBuf,
    /// Folder to write `model.safetensors` and `model.json` into (created if needed).
    #[arg(long)]
    out: PathBuf,
    /// Replace a model already in `--out`.
    #[arg(long)]
    force: bool,
}

/// Runs `shashki export`.
pub fn run(args: Args) -> Result<()> {
    if args.out.exists() && !args.out.is_dir() {
        bail!(
            "--out {}: is a file; export writes a folder",
            args.out.display()
        );
    }
    let existing: Vec<&str> = [WEIGHTS_FILE, MODEL_JSON_FILE]
        .into_iter()
        .filter(|name| args.out.join(name).exists())
        .collect();
    if !existing.is_empty() && !args.force {
        bail!(
            "--out {}: already holds {}; use --force to replace it",
            args.out.display(),
            existing.join(" and ")
        );
    }
    let checkpoint = Checkpoint::load(&args.checkpoint)?;
    export_model(&checkpoint, &args.out)?;
    println!(
        "exported {} (step {}, {}) to {}",
        args.checkpoint.display(),
        checkpoint.step,
        checkpoint.config.to_json(),
        args.out.display()
    );
    Ok(())
}
