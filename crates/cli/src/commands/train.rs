//! `shashki train`: the whole loop, generation by generation (self-play ->
//! training -> gating -> repeat), resumable from its run directory.
//!
//! With no arguments it uses `configs/cpu.toml` (or the copy built into the
//! binary when that file is not there) and `runs/default`.

use crate::arena_gate::ArenaGate;
use crate::run_options::{DEFAULT_CONFIG, RunArgs, load_config, stopped_line};
use crate::signals::stop_on_signals;
use anyhow::{Context, Result};
use shashki_net::device_from_name;
use shashki_train::TrainOptions;
use shashki_train::config::EngineFamily;
use std::path::PathBuf;

/// Options of `shashki train`.
#[derive(clap::Args)]
pub struct Args {
    /// Run configuration (TOML; see configs/). A resumed run keeps the
    /// configuration saved in its run directory.
    #[arg(long, default_value = DEFAULT_CONFIG)]
    config: PathBuf,
    /// Run directory: chunks, checkpoints, tensorboard logs. Rerunning on an
    /// existing one resumes it.
    #[arg(long, default_value = "runs/default")]
    run_dir: PathBuf,
    #[command(flatten)]
    run: RunArgs,
    /// Total generations to reach (overrides `[run] generations`; counts the
    /// ones already done when resuming). 0 runs until stopped.
    #[arg(long)]
    generations: Option<u64>,
    /// Start from a fresh network when the run's checkpoints exist but none
    /// loads (they are moved to `checkpoints/unreadable/`, not deleted).
    #[arg(long)]
    restart: bool,
}

/// Runs `shashki train`.
pub fn run(args: Args) -> Result<()> {
    let config = load_config(&args.config)?;
    let device = device_from_name(&args.run.device)?;
    let stop = stop_on_signals()?;
    let mut progress = args.run.progress();
    let net = match config.run.engine {
        EngineFamily::Mcts => format!(
            "net {} {}x{}",
            config.net.kind, config.net.blocks, config.net.channels
        ),
        EngineFamily::Nnue => format!(
            "nnue {}x{:?}, alpha-beta self-play at depth {}",
            config.nnue.ft, config.nnue.hidden, config.nnue.depth
        ),
    };
    progress.line(&format!(
        "shashki train: run {} | config {} | device {} | {net} | {} games/gen, {} steps/gen",
        args.run_dir.display(),
        args.config.display(),
        args.run.device,
        config.selfplay.games_per_generation,
        config.train.steps_per_generation
    ));
    let mut gate = ArenaGate {
        device: args.run.device.clone(),
        pdn_dir: args.run_dir.join("gating"),
        gates: 0,
    };
    let options = TrainOptions {
        config,
        run_dir: args.run_dir.clone(),
        device,
        generations: args.generations,
        restart: args.restart,
        stop,
    };
    let summary = shashki_train::train(options, &mut progress, Some(&mut gate))
        .with_context(|| format!("training in {}", args.run_dir.display()))?;
    progress.finish();
    if summary.stopped {
        let resume = format!("shashki train --run-dir {}", args.run_dir.display());
        println!("{}", stopped_line(&resume, &summary));
        return Ok(());
    }
    println!(
        "done: generation {}, step {}, {} games, {} samples; newest checkpoint {}",
        summary.state.generation,
        summary.state.step,
        summary.state.games,
        summary.state.samples,
        summary.checkpoint.display()
    );
    Ok(())
}
