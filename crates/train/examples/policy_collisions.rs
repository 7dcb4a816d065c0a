//! How often two legal moves of a self-play position share a policy index
//! (docs/MODEL.md reports it): reads every chunk in a directory.
//!
//! `cargo run --release -p shashki-train --example policy_collisions -- runs/default/data`

use shashki_net::CollisionStats;
use shashki_selfplay::chunk::{list_chunks, read_chunk};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: policy_collisions DIR (a directory of sample chunks)");
        return ExitCode::FAILURE;
    };
    let chunks = match list_chunks(&dir) {
        Ok(chunks) => chunks,
        Err(e) => {
            eprintln!("error: cannot list {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    };
    let mut stats = CollisionStats::default();
    for path in &chunks {
        match read_chunk(path)
            .map_err(|e| e.to_string())
            .and_then(|c| c.samples())
        {
            Ok(samples) => {
                for sample in samples {
                    stats.add(&sample.position, sample.position.legal_moves().as_slice());
                }
            }
            Err(e) => eprintln!("skipping {}: {e}", path.display()),
        }
    }
    println!(
        "{} chunks, {} positions, {} with a shared index ({:.4} %); {} of {} moves collide ({:.4} %)",
        chunks.len(),
        stats.positions,
        stats.positions_with_collision,
        100.0 * stats.position_share(),
        stats.colliding_moves,
        stats.moves,
        100.0 * stats.move_share()
    );
    ExitCode::SUCCESS
}
