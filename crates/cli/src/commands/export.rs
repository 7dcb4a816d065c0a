//! `shashki export`: a checkpoint as `model.safetensors` + `model.json`
//! (the documented format for other front ends, docs/MODEL.md).

use anyhow::Result;
use shashki_net::{Checkpoint, export_model};
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
}

/// Runs `shashki export`.
pub fn run(args: Args) -> Result<()> {
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
