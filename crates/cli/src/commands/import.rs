//! `shashki import`: an exported model folder back into a checkpoint
//! (without optimiser state).

use anyhow::Result;
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
}

/// Runs `shashki import`.
pub fn run(args: Args) -> Result<()> {
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
