//! Where held-out positions come from: the games of PDN files and the
//! samples of self-play chunk folders, quiet positions only (no capture
//! due, the game not over), as the NNUE family samples them, each position
//! once, drawn by a seeded shuffle.

use super::FileError;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use shashki_rules::{DrawRules, Position, read_pdn};
use shashki_selfplay::{list_chunks, read_chunk};
use std::collections::HashSet;
use std::path::Path;

/// A position to label, with the self-play sample's own targets when it
/// came from a chunk.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// The position.
    pub position: Position,
    /// The sample's search score as an expected score (`W + D/2`).
    pub sample_score: Option<f32>,
    /// The sample's game result (1, 1/2, 0 for the side to move).
    pub sample_result: Option<f32>,
}

/// Whether the NNUE family would sample `pos`: a side to move with a
/// legal move and no capture due.
pub fn is_quiet(pos: &Position) -> bool {
    let moves = pos.legal_moves();
    !moves.is_empty() && !moves.iter().any(|m| m.is_capture())
}

/// The quiet positions of every game in the PDN file `path`.
pub fn pdn_positions(path: &Path) -> Result<Vec<Candidate>, FileError> {
    let text = std::fs::read_to_string(path).map_err(|e| FileError::io(path, e))?;
    let mut out = Vec::new();
    for (i, game) in read_pdn(&text).into_iter().enumerate() {
        let game = game.map_err(|e| FileError::Format {
            path: path.to_path_buf(),
            reason: format!("game {}: {e}", i + 1),
        })?;
        let replayed = game
            .replay(DrawRules::default())
            .map_err(|e| FileError::Format {
                path: path.to_path_buf(),
                reason: format!("game {}: {e}", i + 1),
            })?;
        for ply in 0..=replayed.ply() {
            let pos = *replayed.position_at(ply).expect("ply within the game");
            if is_quiet(&pos) {
                out.push(Candidate {
                    position: pos,
                    sample_score: None,
                    sample_result: None,
                });
            }
        }
    }
    Ok(out)
}

/// The quiet samples of the chunk files in `dir`, with their stored
/// search score and game result.
pub fn chunk_positions(dir: &Path) -> Result<Vec<Candidate>, FileError> {
    let mut out = Vec::new();
    for path in list_chunks(dir).map_err(|e| FileError::io(dir, e))? {
        let chunk = read_chunk(&path).map_err(|e| FileError::Format {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        let samples = chunk.samples().map_err(|reason| FileError::Format {
            path: path.clone(),
            reason,
        })?;
        for s in samples.iter().filter(|s| is_quiet(&s.position)) {
            let [w, d, _] = s.root_wdl;
            out.push(Candidate {
                position: s.position,
                sample_score: Some((w + 0.5 * d).clamp(0.0, 1.0)),
                sample_result: Some((f32::from(s.result) + 1.0) / 2.0),
            });
        }
    }
    Ok(out)
}

/// Up to `count` distinct positions of `candidates`, in a shuffled order
/// fixed by `seed` (the first occurrence of a position keeps its targets).
pub fn draw(mut candidates: Vec<Candidate>, count: usize, seed: u64) -> Vec<Candidate> {
    let mut seen = HashSet::new();
    candidates.retain(|c| seen.insert(c.position));
    candidates.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    candidates.truncate(count);
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_positions_are_not_quiet_and_draw_dedupes_reproducibly() {
        assert!(is_quiet(&Position::startpos()));
        // White's man on c3 must take d4.
        let capture = Position::from_fen("W:Wc3:Bd4,h8").unwrap();
        assert!(!is_quiet(&capture));
        let stuck = Position::from_fen("W:Wa1:Bb2,c3").unwrap();
        assert!(!is_quiet(&stuck));

        let fens = ["W:Wc3:Bh8", "W:Wc3:Bh8", "B:Wc3:Bh8", "W:We3:Bh8"];
        let candidates: Vec<Candidate> = fens
            .iter()
            .map(|f| Candidate {
                position: Position::from_fen(f).unwrap(),
                sample_score: None,
                sample_result: None,
            })
            .collect();
        let a = draw(candidates.clone(), 10, 5);
        assert_eq!(a.len(), 3);
        assert_eq!(a, draw(candidates.clone(), 10, 5));
        assert_eq!(draw(candidates, 2, 5), a[..2].to_vec());
    }
}
