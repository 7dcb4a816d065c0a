//! Each `shashki nnue-diagnose` measurement end to end: read its inputs,
//! run it, write its report (tables to `out`, progress to `log`). The
//! command only reads the options.

use super::capacity::{CapacityFit, fit_inputs};
use super::held_out::{HeldOutMeta, HeldOutSet, LabelSource, Labelled};
use super::label::Labeller;
use super::loss::{
    LossStats, PHASES, evaluate_set, hand_expected_score, quant_expected_score, table_header,
};
use super::noise::{measure_noise, targets_vs_labels};
use super::sources::{Candidate, chunk_positions, draw, pdn_positions};
use crate::errors::FileError;
use shashki_nnue::speed::{Contender, eval_cost, search_speed, speed_positions};
use shashki_nnue::{
    Architecture, Kernels, NnueError, QuantNet, Stacks, load_engine_net, save_model,
};
use shashki_rules::Position;
use shashki_selfplay::{Sample, list_chunks, read_chunk};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Why a measurement could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DiagnoseError {
    /// A file that could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// A network that could not be read, built or saved.
    #[error(transparent)]
    Nnue(#[from] NnueError),
    /// The labelling threads could not start.
    #[error("the labelling threads: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
    /// Writing the report.
    #[error("writing the report: {0}")]
    Report(#[from] std::io::Error),
    /// Nothing to measure.
    #[error("{0}")]
    NoInput(String),
}

/// A held-out set to make: where its positions come from and how they are
/// labelled.
pub struct SetPlan<'a> {
    /// PDN files to draw positions from.
    pub pdn: &'a [PathBuf],
    /// Chunk folders to draw positions from.
    pub chunks: &'a [PathBuf],
    /// Positions in the set.
    pub count: usize,
    /// Seed of the draw.
    pub seed: u64,
    /// The labelling search.
    pub labeller: Labeller<'a>,
    /// Its evaluation's name (`hand`, a model path), kept in the set.
    pub eval_name: &'a str,
    /// Positions labelled at once.
    pub threads: usize,
}

/// Makes the held-out set of `plan` and saves it to `path`.
pub fn make_set(
    plan: &SetPlan<'_>,
    path: &Path,
    out: &mut dyn Write,
    log: &mut (dyn Write + Send),
) -> Result<(), DiagnoseError> {
    if plan.pdn.is_empty() && plan.chunks.is_empty() {
        return Err(DiagnoseError::NoInput(
            "no positions to draw from: give --pdn FILE... and/or --chunks DIR...".into(),
        ));
    }
    let mut candidates = Vec::new();
    for file in plan.pdn {
        candidates.extend(pdn_positions(file)?);
    }
    for dir in plan.chunks {
        candidates.extend(chunk_positions(dir)?);
    }
    let found = candidates.len();
    let drawn = draw(candidates, plan.count, plan.seed);
    let depth = plan.labeller.depth;
    writeln!(
        log,
        "{} distinct quiet positions drawn of {found}; labelling at depth {depth} with {}",
        drawn.len(),
        plan.eval_name
    )?;
    let start = Instant::now();
    let step = (drawn.len() / 20).max(1);
    let log = std::sync::Mutex::new(log);
    let (labelled, _) = plan
        .labeller
        .label_all(&drawn, plan.threads, &|done, total| {
            if done % step == 0 || done == total {
                let seconds = start.elapsed().as_secs_f64();
                let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
                let _ = writeln!(log, "  {done}/{total} labelled ({seconds:.0} s)");
            }
        })?;
    let meta = HeldOutMeta {
        depth,
        eval: plan.eval_name.to_string(),
        tablebase_pieces: plan.labeller.tablebases.map_or(0, |t| t.max_pieces()),
        seed: plan.seed,
        sources: plan
            .pdn
            .iter()
            .chain(plan.chunks)
            .map(|p| p.display().to_string())
            .collect(),
    };
    let set = HeldOutSet::new(meta, labelled);
    set.save(path)?;
    let by_tables = set
        .positions
        .iter()
        .filter(|p| p.source == LabelSource::Tablebase)
        .count();
    writeln!(
        out,
        "wrote {} positions ({by_tables} labelled by the tablebases) to {} in {:.0} s",
        set.positions.len(),
        path.display(),
        start.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// Each model's loss and sign agreement on the set at `set_path`, beside a
/// constant and the hand evaluation, then by phase.
pub fn loss(set_path: &Path, models: &[PathBuf], out: &mut dyn Write) -> Result<(), DiagnoseError> {
    let set = HeldOutSet::load(set_path)?;
    writeln!(
        out,
        "{}: {} positions, labels by depth {} ({}), tablebases up to {} pieces",
        set_path.display(),
        set.positions.len(),
        set.meta.depth,
        set.meta.eval,
        set.meta.tablebase_pieces
    )?;
    writeln!(out, "{}", table_header())?;
    writeln!(out, "{}", evaluate_set("constant 1/2", &set, |_| 0.5))?;
    let hand = evaluate_set("hand eval (200 cp/unit)", &set, hand_expected_score);
    writeln!(out, "{hand}")?;
    let mut reports = Vec::new();
    for path in models {
        let net: QuantNet = load_engine_net(path)?;
        let step = shashki_nnue::training_step(path).unwrap_or(0);
        let name = format!("{} (step {step})", path.display());
        let report = evaluate_set(&name, &set, |p| quant_expected_score(&net, p));
        writeln!(out, "{report}")?;
        reports.push(report);
    }
    if !reports.is_empty() {
        writeln!(
            out,
            "by phase (count, mse, sign), one column per model in the order above:"
        )?;
        for (i, phase) in PHASES.iter().enumerate() {
            let cells: Vec<String> = reports.iter().map(|r| r.phases[i].to_string()).collect();
            writeln!(out, "  {phase:<16} {}", cells.join(" | "))?;
        }
    }
    Ok(())
}

/// How far the labels of `labeller`'s search agree with the set's deeper
/// ones: the set's search-labelled positions labelled again (those of the
/// tables are exact in both), with the nodes and the time it took. Tells
/// which self-play search gives the best labels for its cost.
pub fn agreement(
    set_path: &Path,
    labeller: &Labeller<'_>,
    threads: usize,
    out: &mut dyn Write,
) -> Result<(), DiagnoseError> {
    let set = HeldOutSet::load(set_path)?;
    let searched: Vec<&Labelled> = set
        .positions
        .iter()
        .filter(|p| p.source == LabelSource::Search)
        .collect();
    let candidates: Vec<Candidate> = searched
        .iter()
        .map(|p| Candidate {
            position: p.position(),
            sample_score: None,
            sample_result: None,
        })
        .collect();
    let start = Instant::now();
    let (labels, nodes) = labeller.label_all(&candidates, threads, &|_, _| {})?;
    let seconds = start.elapsed().as_secs_f64();
    let mut stats = LossStats::default();
    for (label, deep) in labels.iter().zip(&searched) {
        stats.add(label.label, deep.label);
    }
    writeln!(
        out,
        "{}: {} positions labelled by depth {} ({}); again at depth {}, search {}:",
        set_path.display(),
        searched.len(),
        set.meta.depth,
        set.meta.eval,
        labeller.depth,
        labeller.selectivity
    )?;
    writeln!(
        out,
        "  mse {:.5}, sign {:.1} %, {:.0} nodes a label, {:.2} ms a label on {threads} threads",
        stats.mse(),
        100.0 * stats.sign_agreement(),
        nodes as f64 / searched.len().max(1) as f64,
        1000.0 * seconds / searched.len().max(1) as f64
    )?;
    Ok(())
}

/// Up to `limit` samples of the chunk folders, newest chunks first.
pub fn read_samples(dirs: &[PathBuf], limit: usize) -> Result<Vec<Sample>, FileError> {
    let mut paths = Vec::new();
    for dir in dirs {
        paths.extend(list_chunks(dir).map_err(|e| FileError::io(dir, e))?);
    }
    paths.sort_by(|a, b| b.file_name().cmp(&a.file_name()));
    let mut samples = Vec::new();
    for path in paths {
        if samples.len() >= limit {
            break;
        }
        let chunk = read_chunk(&path).map_err(|e| FileError::format(&path, e))?;
        samples.extend(chunk.samples().map_err(|e| FileError::format(&path, e))?);
    }
    samples.truncate(limit);
    Ok(samples)
}

/// The positions and targets (at `lambda`) of up to `limit` samples of
/// the chunk folders, newest chunks first, read a chunk at a time (a
/// run's whole history fits where its samples would not).
fn fit_inputs_of(
    dirs: &[PathBuf],
    limit: usize,
    lambda: f32,
) -> Result<(Vec<Position>, Vec<f32>), DiagnoseError> {
    let mut paths = Vec::new();
    for dir in dirs {
        paths.extend(list_chunks(dir).map_err(|e| FileError::io(dir, e))?);
    }
    paths.sort_by(|a, b| b.file_name().cmp(&a.file_name()));
    let (mut positions, mut targets) = (Vec::new(), Vec::new());
    for path in paths {
        if positions.len() >= limit {
            break;
        }
        let chunk = read_chunk(&path).map_err(|e| FileError::format(&path, e))?;
        let samples = chunk.samples().map_err(|e| FileError::format(&path, e))?;
        let (p, t) = fit_inputs(&samples, lambda);
        positions.extend(p);
        targets.extend(t);
    }
    positions.truncate(limit);
    targets.truncate(limit);
    if positions.is_empty() {
        return Err(DiagnoseError::NoInput(
            "no samples in the chunk folders given".into(),
        ));
    }
    Ok((positions, targets))
}

fn samples_of(chunks: &[PathBuf], limit: usize) -> Result<Vec<Sample>, DiagnoseError> {
    let samples = read_samples(chunks, limit)?;
    if samples.is_empty() {
        return Err(DiagnoseError::NoInput(
            "no samples in the chunk folders given".into(),
        ));
    }
    Ok(samples)
}

/// How the stored scores of the chunk folders agree with the results, and
/// with the labels of the set at `set`.
pub fn noise(
    chunks: &[PathBuf],
    set: Option<&Path>,
    out: &mut dyn Write,
) -> Result<(), DiagnoseError> {
    let samples = samples_of(chunks, usize::MAX)?;
    write!(out, "{}", measure_noise(&samples).render())?;
    if let Some(path) = set {
        let set = HeldOutSet::load(path)?;
        writeln!(
            out,
            "training target lambda*score + (1-lambda)*result against the depth-{} labels of {}:",
            set.meta.depth,
            path.display()
        )?;
        for (lambda, stats) in targets_vs_labels(&set, &[0.0, 0.25, 0.5, 0.75, 1.0]) {
            writeln!(out, "  lambda {lambda:.2}  {stats}")?;
        }
    }
    Ok(())
}

/// Fits `fit`'s layout to `count` samples of the chunk folders (the
/// newest first), epoch by epoch, with the held-out loss of the set at
/// `set`; saves the fitted net to `save_to`.
pub fn capacity(
    chunks: &[PathBuf],
    count: usize,
    fit: &CapacityFit,
    set: Option<&Path>,
    save_to: Option<&Path>,
    out: &mut dyn Write,
) -> Result<(), DiagnoseError> {
    let (positions, targets) = fit_inputs_of(chunks, count, fit.lambda)?;
    let set = set.map(HeldOutSet::load).transpose()?;
    writeln!(
        out,
        "fitting ft {} hidden {:?} stacks {} ({}) to {} samples, {} epochs, batch {}, lr {} -> {}",
        fit.arch.ft,
        fit.arch.hidden,
        fit.arch.stacks,
        if fit.init.is_some() {
            "from the given net"
        } else {
            "fresh"
        },
        positions.len(),
        fit.epochs,
        fit.batch_size,
        fit.learning_rate,
        fit.learning_rate_end
    )?;
    let start = Instant::now();
    let mut written = Ok(());
    let net = fit.run(&positions, &targets, |e, net| {
        let held = set.as_ref().map_or(String::new(), |set| {
            let q = QuantNet::quantize(net);
            let r = evaluate_set("", set, |p| quant_expected_score(&q, p));
            format!(
                "  held-out mse {:.4} sign {:.1}%",
                r.all.mse(),
                100.0 * r.all.sign_agreement()
            )
        });
        written = writeln!(
            out,
            "epoch {:>4}  train {:.5}  full-set {:.5}{held}  ({:.0} s)",
            e.epoch,
            e.train,
            e.full,
            start.elapsed().as_secs_f64()
        );
        written.is_ok()
    })?;
    written?;
    if let Some(dir) = save_to {
        save_model(&net, 0, dir)?;
        writeln!(out, "wrote the fitted net to {}", dir.display())?;
    }
    Ok(())
}

/// Search speed (nodes per second) of the hand evaluation and of each
/// layout (`widths` x `stacks`), and the cost of one incremental
/// evaluation per kernel set.
pub fn speed(
    widths: &[usize],
    stacks: &[Stacks],
    depth: u32,
    rounds: usize,
    evals: usize,
    out: &mut dyn Write,
) -> Result<(), DiagnoseError> {
    let mut contenders = vec![Contender::hand()];
    for &ft in widths {
        for &stacks in stacks {
            let arch = Architecture {
                ft,
                stacks,
                ..Architecture::default()
            };
            contenders.push(Contender::layout(&arch)?);
        }
    }
    let names: Vec<&str> = speed_positions().iter().map(|(n, _)| *n).collect();
    writeln!(
        out,
        "nodes per second, depth {depth}, best of {rounds} interleaved rounds, 1 thread:"
    )?;
    writeln!(out, "| eval | {} | ratio to hand |", names.join(" | "))?;
    writeln!(out, "|---|{}---|", "---:|".repeat(names.len()))?;
    let nps = search_speed(&contenders, depth, rounds);
    for (contender, row) in contenders.iter().zip(&nps) {
        let cells: Vec<String> = row.iter().map(|v| format!("{:.2} M", v / 1e6)).collect();
        let ratios: Vec<String> = row
            .iter()
            .zip(&nps[0])
            .map(|(v, h)| format!("{:.2}x", v / h))
            .collect();
        writeln!(
            out,
            "| {} | {} | {} |",
            contender.name,
            cells.join(" | "),
            ratios.join(" / ")
        )?;
    }
    writeln!(
        out,
        "\nincremental evaluation (push, evaluate, pop), ns, best of {rounds}:"
    )?;
    writeln!(out, "| layout | kernels | ns/eval | checksum |")?;
    writeln!(out, "|---|---|---:|---:|")?;
    for contender in &contenders[1..] {
        let net = contender.net.as_ref().expect("layouts have nets");
        for kernels in Kernels::available() {
            let (ns, sum) = eval_cost(net, kernels, evals, rounds);
            writeln!(
                out,
                "| {} | {kernels:?} | {ns:.0} | {sum} |",
                contender.name
            )?;
        }
    }
    Ok(())
}
