//! `shashki moves`: the legal moves of one FEN, or of every FEN on stdin.

use anyhow::Result;
use shashki_rules::{Move, Position};
use std::io::{BufRead, Write};

/// Options of `shashki moves`.
#[derive(clap::Args)]
pub struct Args {
    /// The position (PDN FEN). Without it, FENs are read from standard input,
    /// one per line, and each gets one output line.
    #[arg(long)]
    fen: Option<String>,
}

fn sorted_moves(pos: &Position) -> Vec<String> {
    let mut moves = pos.legal_moves();
    moves.sort_by_notation();
    moves.iter().map(Move::to_string).collect()
}

/// Runs `shashki moves`.
pub fn run(args: Args) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if let Some(fen) = args.fen {
        let pos = Position::from_fen(&fen)?;
        for mv in sorted_moves(&pos) {
            writeln!(out, "{mv}")?;
        }
        return Ok(());
    }
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        match Position::from_fen(&line) {
            Ok(pos) => writeln!(out, "{}", sorted_moves(&pos).join(" "))?,
            Err(err) => writeln!(out, "error: {err}")?,
        }
    }
    Ok(())
}
