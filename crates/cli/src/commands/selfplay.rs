//! `shashki selfplay`: self-play alone, writing chunk files into a directory
//! that a learner (`shashki learn`) reads. Run one per machine against a
//! shared directory (KataGo's layout); give each its own `--seed`.

use crate::run_options::{RunArgs, load_config};
use crate::signals::stop_on_signals;
use anyhow::Result;
use shashki_net::device_from_name;
use shashki_train::SelfPlayOptions;
use std::path::PathBuf;

/// Options of `shashki selfplay`.
#[derive(clap::Args)]
pub struct Args {
    /// Run configuration (TOML): `[run]` engine, `[net]` or `[nnue]`, `[search]`,
    /// `[selfplay]`, `[draw_rules]`.
    #[arg(long, default_value = "configs/cpu.toml")]
    config: PathBuf,
    /// Directory the chunk files go to.
    #[arg(
        long,
        required_unless_present = "out_file",
        conflicts_with = "out_file"
    )]
    out: Option<PathBuf>,
    /// Write every game into this one chunk file instead (rewritten whole,
    /// atomically, after each round): a round handed to a cluster driver.
    #[arg(long, value_name = "FILE")]
    out_file: Option<PathBuf>,
    /// Network: a checkpoint file (of the config's engine family), an
    /// exported policy/value model folder (`models/NAME`), or a directory
    /// (e.g. a learner's `runs/NAME/checkpoints`) whose newest checkpoint is
    /// reloaded before every round. Without it, a fresh net from the
    /// config's seed.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Worker threads (overrides `[selfplay] threads`; 0: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Games per round (overrides `[selfplay] games_per_generation`).
    #[arg(long)]
    games: Option<usize>,
    /// Rounds of `[selfplay] games_per_generation` games; 0 runs until stopped.
    #[arg(long, default_value_t = 1)]
    rounds: u64,
    /// Seed of this process's games (use a different one per machine).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    run: RunArgs,
}

/// Runs `shashki selfplay`.
pub fn run(args: Args) -> Result<()> {
    let mut config = load_config(&args.config)?;
    if let Some(threads) = args.threads {
        config.selfplay.threads = threads;
    }
    if let Some(games) = args.games {
        anyhow::ensure!(games > 0, "--games must be at least 1");
        config.selfplay.games_per_generation = games;
    }
    let (out, single_file) = match (args.out, args.out_file) {
        (_, Some(file)) => (file, true),
        (Some(dir), None) => (dir, false),
        (None, None) => anyhow::bail!("give --out DIR or --out-file FILE"),
    };
    let device = device_from_name(&args.run.device)?;
    let stop = stop_on_signals()?;
    let mut progress = args.run.progress();
    let stats = shashki_train::selfplay(
        SelfPlayOptions {
            config,
            out: out.clone(),
            single_file,
            model: args.model,
            rounds: args.rounds,
            device,
            seed: args.seed,
            stop: stop.clone(),
        },
        &mut progress,
    )?;
    progress.finish();
    if stop.load(std::sync::atomic::Ordering::SeqCst) {
        println!("stopped; the games finished so far are written");
    }
    println!("total: {} -> {}", stats.summary(), out.display());
    Ok(())
}
