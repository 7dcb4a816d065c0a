//! `shashki relabel`: deeper labels for the self-play samples a cheap
//! screen picks (issue 36). Argument handling only; the work is
//! `shashki_train::relabel`.

use crate::disk_floor::FloorArgs;
use crate::label_search::LabelSearchArgs;
use crate::signals::stop_on_signals;
use anyhow::{Result, anyhow};
use shashki_train::relabel::{RelabelSettings, Shard, relabel};
use std::path::PathBuf;
use std::time::Instant;

/// Relabel the samples of a chunk folder where the static evaluation and
/// a cheap screen disagree, by a deep alpha-beta search (or the
/// tablebases), into a new chunk folder the NNUE learner reads.
/// Parallel, resumable after any kill (a journal in --out), atomic.
#[derive(clap::Args)]
pub struct Args {
    /// The chunk folder to read (never modified).
    #[arg(long)]
    chunks: PathBuf,
    /// The chunk folder to write: each input chunk under its own name,
    /// relabelled samples flagged; the journal lives here too.
    #[arg(long)]
    out: PathBuf,
    /// Depth of the relabelling search.
    #[arg(long, default_value_t = 13)]
    depth: u32,
    /// The screen: 0 compares the static value with the sample's stored
    /// search score (free); N > 0 with a search of N plies.
    #[arg(long, default_value_t = 0)]
    screen_depth: u32,
    /// A sample is relabelled when its static value and the screen differ
    /// by more than this many centi-men.
    #[arg(long, default_value_t = 100)]
    margin: i32,
    /// The evaluation of the screen and the search, the tables, and the
    /// positions searched at once (one single-threaded search each).
    #[command(flatten)]
    search: LabelSearchArgs,
    /// This process's share `I/N` of the chunks, when N processes or
    /// machines share the work (each keeps its own journal in --out).
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// Deep searches to run at most in this call (the rest waits for the
    /// next call).
    #[arg(long)]
    budget: Option<u64>,
    #[command(flatten)]
    floor: FloorArgs,
}

/// Runs `shashki relabel`.
pub fn run(args: Args) -> Result<()> {
    let shard = Shard::parse(&args.shard).map_err(|e| anyhow!(e))?;
    let tables = args.search.tables()?;
    let eval = args.search.eval()?;
    let settings = RelabelSettings {
        eval: eval.as_ref(),
        depth: args.depth,
        screen_depth: args.screen_depth,
        margin: args.margin,
        tablebases: tables.as_deref(),
        threads: args.search.threads,
        shard,
        budget: args.budget,
    };
    let stop = stop_on_signals()?;
    let watch = args.floor.watch(&args.out, false, &stop);
    let start = Instant::now();
    let report = relabel(&args.chunks, &args.out, &settings, &stop, &mut |line| {
        eprintln!("[{:>6.0} s] {line}", start.elapsed().as_secs_f64())
    })?;
    let state = if report.stopped {
        "stopped early: run the same command again to finish"
    } else {
        "all done"
    };
    println!(
        "relabel: {} chunks ({} written before, {} now), {} samples screened, {} candidates, \
         {} labels from the journal, {} new at depth {} in {:.1} s: {state}",
        report.chunks,
        report.chunks_done_before,
        report.chunks_written,
        report.screened,
        report.candidates,
        report.from_journal,
        report.relabelled,
        args.depth,
        start.elapsed().as_secs_f64()
    );
    Ok(watch.finish()?)
}
