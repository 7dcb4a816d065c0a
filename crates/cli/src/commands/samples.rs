//! `shashki samples`: the samples of chunk files as the Rust chunk reader
//! reads them, one JSON line each (what the Python package's reader is
//! checked against, and a way to look into a run's data).

use anyhow::{Context, Result};
use serde_json::json;
use shashki_selfplay::{Sample, list_chunks, read_chunk};
use std::io::Write;
use std::path::PathBuf;

/// Options of `shashki samples`.
#[derive(clap::Args)]
pub struct Args {
    /// Chunk files (`.shzc`) or folders of them, read in the order given
    /// (a folder's chunks oldest first).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// One sample as a JSON line: the position (FEN and masks), its draw
/// state, the labels and the policy entries (absolute squares).
fn line(sample: &Sample, net_step: u64) -> serde_json::Value {
    let p = &sample.position;
    let policy: Vec<_> = sample
        .policy()
        .iter()
        .map(|e| json!([e.from, e.to, e.prob]))
        .collect();
    json!({
        "fen": p.to_fen(),
        "white": p.white(),
        "black": p.black(),
        "kings": p.kings(),
        "repetitions": sample.draw_state.repetitions,
        "plies_to_draw": sample.draw_state.plies_to_draw,
        "result": sample.result,
        "flags": sample.flags,
        "plies_left": sample.plies_left,
        "ply": sample.ply,
        "legal_moves": sample.legal_moves,
        "root_wdl": sample.root_wdl,
        "policy": policy,
        "net_step": net_step,
    })
}

/// Runs `shashki samples`.
pub fn run(args: Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    for path in &args.paths {
        let files = if path.is_dir() {
            list_chunks(path).with_context(|| path.display().to_string())?
        } else {
            vec![path.clone()]
        };
        for file in files {
            let chunk = read_chunk(&file)?;
            let samples = chunk
                .samples()
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            for sample in &samples {
                writeln!(out, "{}", line(sample, chunk.header.net_step))?;
            }
        }
    }
    Ok(())
}
