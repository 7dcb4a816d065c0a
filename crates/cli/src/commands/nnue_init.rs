//! `shashki nnue-init`: writes a freshly initialised (untrained) NNUE model
//! folder: the from-zero start of a training run, and a stand-in for
//! measuring the engine's speed with the network.

use anyhow::{Context, Result};
use shashki_nnue::{Architecture, FloatNet, save_model};
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
    /// Accumulator width per perspective (a multiple of 16).
    #[arg(long, default_value_t = 128)]
    ft: usize,
    /// Widths of the two hidden layers (the first a multiple of 32).
    #[arg(long, num_args = 2, value_delimiter = ',', default_values_t = [32, 32])]
    hidden: Vec<usize>,
    /// Output layer stacks by phase: single, phase4, pieces8.
    #[arg(long, default_value = "single")]
    stacks: shashki_nnue::Stacks,
}

/// Runs `shashki nnue-init`.
pub fn run(args: Args) -> Result<()> {
    let arch = Architecture {
        ft: args.ft,
        hidden: [args.hidden[0], args.hidden[1]],
        stacks: args.stacks,
    };
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
