//! `shashki perft`: leaf counts of the move tree, with timing.

use anyhow::{Context, Result};
use rayon::prelude::*;
use shashki_rules::perft::{perft, perft_make_all};
use shashki_rules::{PathMode, Position};
use std::time::Instant;

/// Options of `shashki perft`.
#[derive(clap::Args)]
pub struct Args {
    /// Deepest depth to count (every depth from 1 up is printed).
    #[arg(long, default_value_t = 7)]
    depth: u32,
    /// Start position (PDN FEN); the standard start by default.
    #[arg(long)]
    fen: Option<String>,
    /// Print the count below each root move at the deepest depth.
    #[arg(long)]
    divide: bool,
    /// Count every distinct capture path instead of one move per
    /// (start, end, captured set).
    #[arg(long)]
    paths: bool,
    /// Make every move down to the leaves instead of counting the last ply
    /// (the cost a search pays per node).
    #[arg(long, conflicts_with = "paths")]
    make_all: bool,
    /// Split the root moves over this many threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

/// Runs `shashki perft`.
pub fn run(args: Args) -> Result<()> {
    let pos = match &args.fen {
        Some(fen) => Position::from_fen(fen)?,
        None => Position::startpos(),
    };
    let mode = if args.paths {
        PathMode::AllPaths
    } else {
        PathMode::Distinct
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.max(1))
        .build()
        .context("cannot start the thread pool")?;
    let count = |pos: &Position, depth: u32| {
        if args.make_all {
            perft_make_all(pos, depth)
        } else {
            perft(pos, depth, mode)
        }
    };
    // Depth 0 counts the position itself (1 node); otherwise start at 1.
    for depth in args.depth.min(1)..=args.depth {
        let start = Instant::now();
        let nodes = if args.threads > 1 && depth > 1 {
            let moves = pos.legal_moves();
            pool.install(|| {
                moves
                    .as_slice()
                    .par_iter()
                    .map(|mv| count(&pos.make_move(mv), depth - 1))
                    .sum()
            })
        } else {
            count(&pos, depth)
        };
        let secs = start.elapsed().as_secs_f64();
        println!(
            "depth {depth} nodes {nodes} time {secs:.3} nps {:.0}",
            nodes as f64 / secs.max(1e-9)
        );
    }
    if args.divide {
        let mut rows = shashki_rules::perft::divide(&pos, args.depth, mode);
        rows.sort();
        for (mv, nodes) in rows {
            println!("{mv} {nodes}");
        }
    }
    Ok(())
}
