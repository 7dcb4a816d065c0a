//! `shashki nnue-widen`: an NNUE training checkpoint with a wider feature
//! transformer that evaluates exactly as the narrow one
//! ([`shashki_nnue::widen`]): a run goes on from it (with `[nnue] ft` set
//! to the new width) with room in its net and nothing it learned lost.

use anyhow::{Context, Result};
use shashki_nnue::NnueCheckpoint;
use shashki_nnue::widen::widen;
use std::path::PathBuf;

/// Options of `shashki nnue-widen`.
#[derive(clap::Args)]
pub struct Args {
    /// The NNUE training checkpoint (`ckpt-<step>.shzk` of a run).
    checkpoint: PathBuf,
    /// The new accumulator width per perspective (more than the net's).
    #[arg(long)]
    ft: usize,
    /// The checkpoint to write: same step; the optimiser starts afresh
    /// (its state has the old shapes).
    #[arg(long)]
    out: PathBuf,
    /// Seed of the new units' random weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `shashki nnue-widen`.
pub fn run(args: Args) -> Result<()> {
    let narrow = NnueCheckpoint::load(&args.checkpoint)?;
    let net = widen(&narrow.net, args.ft, args.seed)?;
    let wide = NnueCheckpoint {
        net,
        step: narrow.step,
        optimizer: None,
    };
    wide.save(&args.out)
        .with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "wrote {}: ft {} -> {} (hidden {:?}, stacks {}), step {}, the same evaluation",
        args.out.display(),
        narrow.net.arch.ft,
        args.ft,
        narrow.net.arch.hidden,
        narrow.net.arch.stacks,
        narrow.step
    );
    Ok(())
}
