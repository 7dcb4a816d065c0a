//! `shashki learn`: the learner alone, training on a chunk directory that
//! any number of `shashki selfplay` processes fill. Checkpoints go to
//! `<run-dir>/checkpoints`, where `shashki selfplay --model` finds them.

use crate::run_options::{RunArgs, load_config, report_stop};
use crate::signals::stop_on_signals;
use anyhow::Result;
use shashki_net::device_from_name;
use shashki_train::LearnOptions;
use std::path::PathBuf;

/// Options of `shashki learn`.
#[derive(clap::Args)]
pub struct Args {
    /// Run configuration (TOML): `[run]` engine, `[net]` or `[nnue]`, `[train]`.
    #[arg(long, default_value = "configs/cpu.toml")]
    config: PathBuf,
    /// Chunk directory to train on.
    #[arg(long)]
    data: PathBuf,
    /// The learner's run directory (checkpoints, tensorboard); resumed if it exists.
    #[arg(long, default_value = "runs/learner")]
    run_dir: PathBuf,
    /// Stop at this training step (0: run until stopped).
    #[arg(long, default_value_t = 0)]
    steps: u64,
    /// Seconds between scans of the data directory while waiting for samples.
    #[arg(long, default_value_t = 5.0)]
    poll: f64,
    /// Stop after waiting this many seconds for new samples (0: wait forever).
    #[arg(long, default_value_t = 0.0)]
    max_wait: f64,
    /// Start from a fresh network when the run's checkpoints exist but none
    /// loads (they are moved to `checkpoints/unreadable/`, not deleted).
    #[arg(long)]
    restart: bool,
    #[command(flatten)]
    run: RunArgs,
}

/// Runs `shashki learn`.
pub fn run(args: Args) -> Result<()> {
    let config = load_config(&args.config)?;
    let run_dir = args.run_dir.clone();
    let data = args.data.clone();
    let device = device_from_name(&args.run.device)?;
    let stop = stop_on_signals()?;
    let mut progress = args.run.progress();
    let summary = shashki_train::learn(
        LearnOptions {
            config,
            data: data.clone(),
            run_dir: run_dir.clone(),
            max_steps: args.steps,
            poll_seconds: args.poll,
            max_wait_seconds: args.max_wait,
            device,
            restart: args.restart,
            stop,
        },
        &mut progress,
    )?;
    progress.finish();
    if summary.stopped {
        let resume = format!(
            "shashki learn --data {} --run-dir {}",
            data.display(),
            run_dir.display()
        );
        return report_stop(&resume, &summary);
    }
    println!(
        "learner at step {}; newest checkpoint {}",
        summary.state.step,
        summary.checkpoint.display()
    );
    Ok(())
}
