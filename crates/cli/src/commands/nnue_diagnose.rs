//! `shashki nnue-diagnose`: why an NNUE run stops improving (issue 24).
//! Argument handling only; the measurements, end to end, are in
//! `shashki_train::diagnose::report`.

use crate::label_search::LabelSearchArgs;
use crate::nnue_layout::NnueLayoutArgs;
use anyhow::Result;
use shashki_search::alphabeta::Selectivity;
use shashki_train::diagnose::capacity::CapacityFit;
use shashki_train::diagnose::label::Labeller;
use shashki_train::diagnose::report::{self, SetPlan};
use std::path::PathBuf;

/// Options of `shashki nnue-diagnose`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Make a held-out set: quiet positions from PDN files and self-play
    /// chunk folders, labelled by a deeper search or the tablebases.
    MakeSet {
        /// PDN files to draw positions from.
        #[arg(long, num_args = 1..)]
        pdn: Vec<PathBuf>,
        /// Chunk folders to draw positions from (they keep their stored
        /// score and result, for `noise --set`).
        #[arg(long, num_args = 1..)]
        chunks: Vec<PathBuf>,
        /// Positions in the set.
        #[arg(long, default_value_t = 1000)]
        positions: usize,
        /// Depth of the labelling search.
        #[arg(long, default_value_t = 11)]
        depth: u32,
        /// The labelling search's evaluation, tables and threads.
        #[command(flatten)]
        search: LabelSearchArgs,
        /// Seed of the draw.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The set file to write (JSON, atomically).
        #[arg(long)]
        out: PathBuf,
    },
    /// How far a shallower (or selective) search's labels agree with a
    /// set's deeper ones, and what each label costs: which self-play
    /// search labels best for its time.
    Agreement {
        /// The held-out set.
        #[arg(long)]
        set: PathBuf,
        /// Depth of the search labelling again.
        #[arg(long)]
        depth: u32,
        /// Its selectivity: `none` (full width) or techniques joined by
        /// `+` (`prune+lmr`), as `[nnue] search`.
        #[arg(long, default_value = "none", value_parser = Selectivity::parse)]
        search: Selectivity,
        /// The labelling search's evaluation, tables and threads.
        #[command(flatten)]
        labels: LabelSearchArgs,
    },
    /// Each model's loss (expected-score MSE) and sign agreement on a set;
    /// the hand evaluation and a constant 1/2 as baselines.
    Loss {
        /// The held-out set.
        #[arg(long)]
        set: PathBuf,
        /// NNUE model folders or checkpoint files.
        models: Vec<PathBuf>,
    },
    /// Label noise: the stored self-play score against the game result;
    /// with --set, each target blend against the set's deep labels.
    Noise {
        /// Chunk folders.
        #[arg(long, num_args = 1.., required = true)]
        chunks: Vec<PathBuf>,
        /// A held-out set made from chunks.
        #[arg(long)]
        set: Option<PathBuf>,
    },
    /// Speed of NNUE layouts against the hand evaluation, in one run:
    /// nodes per second of fixed-depth searches and the cost of one
    /// incremental evaluation per kernel (with checksums).
    Speed {
        /// Accumulator widths to measure.
        #[arg(long, num_args = 1.., value_delimiter = ',', default_values_t = [128, 256, 512])]
        ft: Vec<usize>,
        /// Output stacks to measure.
        #[arg(long, num_args = 1.., value_delimiter = ',', default_values_t = [shashki_nnue::Stacks::Single, shashki_nnue::Stacks::Phase4])]
        stacks: Vec<shashki_nnue::Stacks>,
        /// Depth of the timed searches.
        #[arg(long, default_value_t = 12)]
        depth: u32,
        /// Interleaved rounds (the best is kept).
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Incremental evaluations per timing.
        #[arg(long, default_value_t = 200_000)]
        evals: usize,
    },
    /// Capacity: fit one fixed set of self-play samples for many epochs.
    Capacity {
        /// Chunk folders (the newest samples first, up to --samples).
        #[arg(long, num_args = 1.., required = true)]
        chunks: Vec<PathBuf>,
        /// Samples in the fixed set.
        #[arg(long, default_value_t = 100_000)]
        samples: usize,
        /// Passes over it.
        #[arg(long, default_value_t = 50)]
        epochs: usize,
        #[command(flatten)]
        layout: NnueLayoutArgs,
        /// Target blend, as `[nnue] lambda`.
        #[arg(long, default_value_t = 0.5)]
        lambda: f32,
        /// Samples per step.
        #[arg(long, default_value_t = 1024)]
        batch_size: usize,
        /// Adam's learning rate.
        #[arg(long, default_value_t = 0.001)]
        learning_rate: f64,
        /// The rate at the last step, reached linearly (default: the
        /// rate stays fixed).
        #[arg(long)]
        lr_end: Option<f64>,
        /// Seed of the weights and the batch order.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Start from this net (an NNUE checkpoint file or model folder;
        /// its layout must be the fit's) instead of a fresh one.
        #[arg(long)]
        init: Option<PathBuf>,
        /// A held-out set: its loss is reported after each epoch too.
        #[arg(long)]
        set: Option<PathBuf>,
        /// Writes the fitted net as a model folder here.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// Runs `shashki nnue-diagnose`.
pub fn run(args: Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match args.command {
        Command::MakeSet {
            pdn,
            chunks,
            positions,
            depth,
            search,
            seed,
            out: path,
        } => {
            let tables = search.tables()?;
            let eval = search.eval()?;
            let plan = SetPlan {
                pdn: &pdn,
                chunks: &chunks,
                count: positions,
                seed,
                labeller: Labeller {
                    eval: eval.as_ref(),
                    depth,
                    selectivity: Selectivity::NONE,
                    tablebases: tables.as_deref(),
                },
                eval_name: &search.eval,
                threads: search.threads,
            };
            report::make_set(&plan, &path, &mut out, &mut std::io::stderr())?;
        }
        Command::Agreement {
            set,
            depth,
            search,
            labels,
        } => {
            let tables = labels.tables()?;
            let eval = labels.eval()?;
            let labeller = Labeller {
                eval: eval.as_ref(),
                depth,
                selectivity: search,
                tablebases: tables.as_deref(),
            };
            report::agreement(&set, &labeller, labels.threads, &mut out)?;
        }
        Command::Loss { set, models } => report::loss(&set, &models, &mut out)?,
        Command::Noise { chunks, set } => report::noise(&chunks, set.as_deref(), &mut out)?,
        Command::Speed {
            ft,
            stacks,
            depth,
            rounds,
            evals,
        } => report::speed(&ft, &stacks, depth, rounds, evals, &mut out)?,
        Command::Capacity {
            chunks,
            samples,
            epochs,
            layout,
            lambda,
            batch_size,
            learning_rate,
            lr_end,
            seed,
            init,
            set,
            out: save_to,
        } => {
            let init = init
                .map(|path| shashki_nnue::load_training_net(&path))
                .transpose()?;
            let fit = CapacityFit {
                arch: layout.architecture()?,
                lambda,
                epochs,
                batch_size,
                learning_rate,
                learning_rate_end: lr_end.unwrap_or(learning_rate),
                seed,
                init,
            };
            report::capacity(
                &chunks,
                samples,
                &fit,
                set.as_deref(),
                save_to.as_deref(),
                &mut out,
            )?;
        }
    }
    Ok(())
}
