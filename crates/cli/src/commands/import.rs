//! `shashki import`: an exported model folder back into a checkpoint
//! (without optimiser state).

use anyhow::{Result, bail};
use shashki_net::import_model;
use std::path::PathBuf;

/// Options of `shashki import`.
#[derive(clap::Args)]
pub struct Args {
    /// Folder holding `model.safetensors` and `model.json`.
    #[arg(long)]
    model: PathBuf,
    /// Checkpoint file to write.
    #[arg(long)]
    out: PathBuf,
    /// Replace an existing `--out` file (a live run's checkpoint would make
    /// its next resume jump to the imported step).
    #[arg(long)]
    force: bool,
}

/// Runs `shashki import`.
pub fn run(args: Args) -> Result<()> {
    if args.out.exists() && !args.force {
        bail!(
            "--out {}: already exists; use --force to replace it",
            args.out.display()
        );
    }
    let checkpoint = import_model(&args.model)?;
    checkpoint.save(&args.out)?;
    println!(
        "imported {} (step {}, {}) into {}",
        args.model.display(),
        checkpoint.step,
        checkpoint.config.to_json(),
        args.out.display()
    );
    Ok(())
}
