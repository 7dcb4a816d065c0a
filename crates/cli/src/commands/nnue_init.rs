//! `shashki nnue-init`: writes a freshly initialised (untrained) NNUE model
//! folder: the from-zero start of a training run, and a stand-in for
//! measuring the engine's speed with the network.

use crate::nnue_layout::NnueLayoutArgs;
use anyhow::{Context, Result};
use shashki_nnue::{FloatNet, save_model};
use std::path::PathBuf;

/// Options of `shashki nnue-init`.
#[derive(clap::Args)]
pub struct Args {
    /// The model folder to write (`model.json` + safetensors files).
    #[arg(long)]
    out: PathBuf,
    /// Seed of the random weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    layout: NnueLayoutArgs,
}

/// Runs `shashki nnue-init`.
pub fn run(args: Args) -> Result<()> {
    let arch = args.layout.architecture()?;
    let net = FloatNet::random(&arch, args.seed)?;
    save_model(&net, 0, &args.out).with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "wrote an untrained NNUE model (ft {}, hidden {:?}, stacks {}, seed {}) to {}",
        arch.ft,
        arch.hidden,
        arch.stacks,
        args.seed,
        args.out.display()
    );
    Ok(())
}
