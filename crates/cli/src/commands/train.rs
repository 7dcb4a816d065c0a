//! `shashki train`: the whole loop, generation by generation (self-play ->
//! training -> gating -> repeat), or self-play and the learner at once
//! (`[run] mode = "concurrent"`), resumable from its run directory.
//!
//! With no arguments it uses `configs/cpu.toml` (or the copy built into the
//! binary when that file is not there) and `runs/default`.

use crate::arena_gate::ArenaGate;
use crate::arena_rater::ArenaRater;
use crate::run_options::{DEFAULT_CONFIG, RunArgs, load_config, report_stop};
use crate::signals::stop_on_signals;
use anyhow::{Context, Result};
use shashki_net::device_from_name;
use shashki_train::config::{EngineFamily, RunMode};
use shashki_train::cores::CoreSplit;
use shashki_train::{OpenRun, Rater, RunConfig, TrainOptions};
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
    /// Seconds of the run's own time to reach in all (overrides `[run]
    /// seconds`; counts earlier sittings' time, as far as their last
    /// checkpoint, when resuming). 0: no limit.
    #[arg(long)]
    seconds: Option<u64>,
    /// Start from a fresh network when the run's checkpoints exist but none
    /// loads (they are moved to `checkpoints/unreadable/`, not deleted).
    #[arg(long)]
    restart: bool,
}

/// How the run shares the cores, for the banner.
fn schedule_line(config: &RunConfig, split: CoreSplit) -> String {
    match config.run.mode {
        RunMode::Sequential => format!("self-play on {}", config.selfplay.threads_line()),
        RunMode::Concurrent => {
            let evaluator = match split.evaluator {
                0 => String::new(),
                n => format!(
                    ", evaluator on {n} ({} games against {} per rated net)",
                    config.evaluator.games, config.evaluator.anchor
                ),
            };
            format!(
                "concurrent: self-play on {} threads, learner on {}{evaluator}",
                split.selfplay, split.learner
            )
        }
    }
}

/// How much the learner trains, for the banner.
fn training_line(config: &RunConfig) -> String {
    let train = &config.train;
    match config.run.mode {
        RunMode::Sequential => {
            let refit = &config.refit;
            let every = match (refit.every_seconds, refit.every_generations) {
                (0, 0) => return format!("{} steps/gen", train.steps_per_generation),
                (0, n) => format!("{n} generations"),
                (s, _) => format!("{s} s"),
            };
            format!(
                "{} steps/gen, a refit to all the data every {every} ({} passes)",
                train.steps_per_generation, refit.passes
            )
        }
        RunMode::Concurrent => format!(
            "replay ratio {}, a net published every {} steps",
            train.replay_ratio, train.checkpoint_every_steps
        ),
    }
}

/// Runs `shashki train`.
pub fn run(args: Args) -> Result<()> {
    let asked = load_config(&args.config)?;
    let device = device_from_name(&args.run.device)?;
    let stop = stop_on_signals()?;
    let mut progress = args.run.progress();
    // Opened once: a resumed run keeps its saved config.toml whatever
    // --config says, and the banner names the one in force.
    let run = OpenRun::open(&args.run_dir, &asked, &mut progress)
        .with_context(|| format!("training in {}", args.run_dir.display()))?;
    let shown = run.config();
    let shown_path = run.saved_config().unwrap_or_else(|| args.config.clone());
    let net = match shown.run.engine {
        EngineFamily::Mcts => format!(
            "net {} {}x{}",
            shown.net.kind, shown.net.blocks, shown.net.channels
        ),
        EngineFamily::Nnue => format!(
            "nnue {}x{:?}, alpha-beta self-play at depth {}",
            shown.nnue.ft, shown.nnue.hidden, shown.nnue.depth
        ),
    };
    progress.line(&format!(
        "shashki train: run {} | config {} | device {} | {net} | {} | {} games/gen, {}",
        args.run_dir.display(),
        shown_path.display(),
        args.run.device,
        schedule_line(shown, run.cores()),
        shown.selfplay.games_per_generation,
        training_line(shown),
    ));
    let mut gate = ArenaGate {
        device: args.run.device.clone(),
        pdn_dir: args.run_dir.join("gating"),
        gates: 0,
    };
    let mut rater = ArenaRater::for_run(shown, run.cores().evaluator, &args.run.device)?;
    let options = TrainOptions {
        device,
        generations: args.generations,
        seconds: args.seconds,
        restart: args.restart,
        stop,
    };
    let rater = rater.as_mut().map(|r| r as &mut (dyn Rater + Send));
    let summary = shashki_train::train(run, options, &mut progress, Some(&mut gate), rater)
        .with_context(|| format!("training in {}", args.run_dir.display()))?;
    progress.finish();
    if summary.stopped {
        let resume = format!("shashki train --run-dir {}", args.run_dir.display());
        return report_stop(&resume, &summary);
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
