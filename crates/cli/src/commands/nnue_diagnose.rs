//! `shashki nnue-diagnose`: why an NNUE run stops improving (issue 24).
//! Argument handling only; the measurements are in
//! `shashki_train::diagnose`.

use crate::label_search::LabelSearchArgs;
use crate::nnue_layout::NnueLayoutArgs;
use anyhow::{Context, Result, bail};
use shashki_nnue::{QuantNet, load_engine_net, save_model};
use shashki_selfplay::{Sample, list_chunks, read_chunk};
use shashki_train::diagnose::capacity::CapacityFit;
use shashki_train::diagnose::held_out::{HeldOutMeta, HeldOutSet};
use shashki_train::diagnose::label::Labeller;
use shashki_train::diagnose::loss::{
    PHASES, evaluate_set, hand_expected_score, quant_expected_score, table_header,
};
use shashki_train::diagnose::noise::{measure_noise, targets_vs_labels};
use shashki_train::diagnose::sources::{chunk_positions, draw, pdn_positions};
use std::path::{Path, PathBuf};
use std::time::Instant;

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
        /// Seed of the weights and the batch order.
        #[arg(long, default_value_t = 1)]
        seed: u64,
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
    match args.command {
        Command::MakeSet {
            pdn,
            chunks,
            positions,
            depth,
            search,
            seed,
            out,
        } => make_set(&pdn, &chunks, positions, depth, &search, seed, &out),
        Command::Loss { set, models } => loss(&set, &models),
        Command::Noise { chunks, set } => noise(&chunks, set.as_deref()),
        Command::Speed {
            ft,
            stacks,
            depth,
            rounds,
            evals,
        } => speed(&ft, &stacks, depth, rounds, evals),
        Command::Capacity {
            chunks,
            samples,
            epochs,
            layout,
            lambda,
            batch_size,
            learning_rate,
            seed,
            set,
            out,
        } => {
            let fit = CapacityFit {
                arch: layout.architecture()?,
                lambda,
                epochs,
                batch_size,
                learning_rate,
                seed,
            };
            capacity(&chunks, samples, &fit, set.as_deref(), out.as_deref())
        }
    }
}

fn make_set(
    pdn: &[PathBuf],
    chunks: &[PathBuf],
    count: usize,
    depth: u32,
    search: &LabelSearchArgs,
    seed: u64,
    out: &Path,
) -> Result<()> {
    if pdn.is_empty() && chunks.is_empty() {
        bail!("no positions to draw from: give --pdn FILE... and/or --chunks DIR...");
    }
    let mut candidates = Vec::new();
    for path in pdn {
        candidates.extend(pdn_positions(path)?);
    }
    for dir in chunks {
        candidates.extend(chunk_positions(dir)?);
    }
    let found = candidates.len();
    let drawn = draw(candidates, count, seed);
    eprintln!(
        "{} distinct quiet positions drawn of {found}; labelling at depth {depth} with {}",
        drawn.len(),
        search.eval
    );
    let tables = search.tables()?;
    let eval_box = search.eval()?;
    let labeller = Labeller {
        eval: eval_box.as_ref(),
        depth,
        tablebases: tables.as_deref(),
    };
    let start = Instant::now();
    let step = (drawn.len() / 20).max(1);
    let labelled = labeller.label_all(&drawn, search.threads, &|done, total| {
        if done % step == 0 || done == total {
            eprintln!(
                "  {done}/{total} labelled ({:.0} s)",
                start.elapsed().as_secs_f64()
            );
        }
    })?;
    let sources = pdn
        .iter()
        .chain(chunks)
        .map(|p| p.display().to_string())
        .collect();
    let meta = HeldOutMeta {
        depth,
        eval: search.eval.clone(),
        tablebase_pieces: tables.as_ref().map_or(0, |t| t.max_pieces()),
        seed,
        sources,
    };
    let set = HeldOutSet::new(meta, labelled);
    set.save(out)?;
    let tb = set
        .positions
        .iter()
        .filter(|p| p.source == shashki_train::diagnose::held_out::LabelSource::Tablebase)
        .count();
    println!(
        "wrote {} positions ({tb} labelled by the tablebases) to {} in {:.0} s",
        set.positions.len(),
        out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn loss(set_path: &Path, models: &[PathBuf]) -> Result<()> {
    let set = HeldOutSet::load(set_path)?;
    println!(
        "{}: {} positions, labels by depth {} ({}), tablebases up to {} pieces",
        set_path.display(),
        set.positions.len(),
        set.meta.depth,
        set.meta.eval,
        set.meta.tablebase_pieces
    );
    println!("{}", table_header());
    println!("{}", evaluate_set("constant 1/2", &set, |_| 0.5));
    println!(
        "{}",
        evaluate_set("hand eval (200 cp/unit)", &set, hand_expected_score)
    );
    let mut phase_lines = Vec::new();
    for path in models {
        let net: QuantNet = load_engine_net(path).with_context(|| path.display().to_string())?;
        let step = shashki_nnue::training_step(path).unwrap_or(0);
        let name = format!("{} (step {step})", path.display());
        let report = evaluate_set(&name, &set, |p| quant_expected_score(&net, p));
        println!("{report}");
        phase_lines.push(report);
    }
    if !phase_lines.is_empty() {
        println!("by phase (count, mse, sign), one column per model in the order above:");
        for (i, phase) in PHASES.iter().enumerate() {
            let cells: Vec<String> = phase_lines
                .iter()
                .map(|r| format!("{}", r.phases[i]))
                .collect();
            println!("  {phase:<16} {}", cells.join(" | "));
        }
    }
    Ok(())
}

/// Every sample of the chunk folders, newest chunks first.
fn read_samples(dirs: &[PathBuf], limit: usize) -> Result<Vec<Sample>> {
    let mut paths = Vec::new();
    for dir in dirs {
        paths.extend(list_chunks(dir).with_context(|| dir.display().to_string())?);
    }
    paths.sort_by(|a, b| b.file_name().cmp(&a.file_name()));
    let mut samples = Vec::new();
    for path in paths {
        if samples.len() >= limit {
            break;
        }
        let chunk = read_chunk(&path)?;
        samples.extend(
            chunk
                .samples()
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
        );
    }
    samples.truncate(limit);
    Ok(samples)
}

fn noise(chunks: &[PathBuf], set: Option<&Path>) -> Result<()> {
    let samples = read_samples(chunks, usize::MAX)?;
    if samples.is_empty() {
        bail!("no samples in the chunk folders given");
    }
    print!("{}", measure_noise(&samples).render());
    if let Some(path) = set {
        let set = HeldOutSet::load(path)?;
        println!(
            "training target lambda*score + (1-lambda)*result against the depth-{} labels of {}:",
            set.meta.depth,
            path.display()
        );
        for (lambda, stats) in targets_vs_labels(&set, &[0.0, 0.25, 0.5, 0.75, 1.0]) {
            println!("  lambda {lambda:.2}  {stats}");
        }
    }
    Ok(())
}

fn capacity(
    chunks: &[PathBuf],
    count: usize,
    fit: &CapacityFit,
    set: Option<&Path>,
    out: Option<&Path>,
) -> Result<()> {
    let samples = read_samples(chunks, count)?;
    if samples.is_empty() {
        bail!("no samples in the chunk folders given");
    }
    let set = set.map(HeldOutSet::load).transpose()?;
    println!(
        "fitting ft {} hidden {:?} stacks {} to {} samples, {} epochs, batch {}, lr {}",
        fit.arch.ft,
        fit.arch.hidden,
        fit.arch.stacks,
        samples.len(),
        fit.epochs,
        fit.batch_size,
        fit.learning_rate
    );
    let start = Instant::now();
    let net = fit.run(&samples, |e, net| {
        let held = set.as_ref().map_or(String::new(), |set| {
            let q = QuantNet::quantize(net);
            let r = evaluate_set("", set, |p| quant_expected_score(&q, p));
            format!(
                "  held-out mse {:.4} sign {:.1}%",
                r.all.mse(),
                100.0 * r.all.sign_agreement()
            )
        });
        println!(
            "epoch {:>4}  train {:.5}  full-set {:.5}{held}  ({:.0} s)",
            e.epoch,
            e.train,
            e.full,
            start.elapsed().as_secs_f64()
        );
        true
    })?;
    if let Some(dir) = out {
        save_model(&net, 0, dir)?;
        println!("wrote the fitted net to {}", dir.display());
    }
    Ok(())
}

fn speed(
    widths: &[usize],
    stacks: &[shashki_nnue::Stacks],
    depth: u32,
    rounds: usize,
    evals: usize,
) -> Result<()> {
    use shashki_nnue::speed::{Contender, eval_cost, search_speed, speed_positions};
    let mut contenders = vec![Contender::hand()];
    for &ft in widths {
        for &stacks in stacks {
            let arch = shashki_nnue::Architecture {
                ft,
                stacks,
                ..shashki_nnue::Architecture::default()
            };
            contenders.push(Contender::layout(&arch)?);
        }
    }
    let names: Vec<&str> = speed_positions().iter().map(|(n, _)| *n).collect();
    println!("nodes per second, depth {depth}, best of {rounds} interleaved rounds, 1 thread:");
    println!("| eval | {} | ratio to hand |", names.join(" | "));
    println!("|---|{}---|", "---:|".repeat(names.len()));
    let nps = search_speed(&contenders, depth, rounds);
    for (contender, row) in contenders.iter().zip(&nps) {
        let cells: Vec<String> = row.iter().map(|v| format!("{:.2} M", v / 1e6)).collect();
        let ratios: Vec<String> = row
            .iter()
            .zip(&nps[0])
            .map(|(v, h)| format!("{:.2}x", v / h))
            .collect();
        println!(
            "| {} | {} | {} |",
            contender.name,
            cells.join(" | "),
            ratios.join(" / ")
        );
    }
    println!("\nincremental evaluation (push, evaluate, pop), ns, best of {rounds}:");
    println!("| layout | kernels | ns/eval | checksum |");
    println!("|---|---|---:|---:|");
    for contender in &contenders[1..] {
        let net = contender.net.as_ref().expect("layouts have nets");
        for kernels in shashki_nnue::Kernels::available() {
            let (ns, sum) = eval_cost(net, kernels, evals, rounds);
            println!("| {} | {kernels:?} | {ns:.0} | {sum} |", contender.name);
        }
    }
    Ok(())
}
