//! Perft: counting the leaves of the move tree, the standard check of a move
//! generator's correctness and speed.

use crate::movegen::PathMode;
use crate::moves::MoveList;
use crate::position::Position;

/// Leaf count at `depth`. With [`PathMode::Distinct`] the last ply is
/// bulk-counted (moves counted, not made), and the quiet moves of the ply
/// before it are made straight from the bitboards.
pub fn perft(pos: &Position, depth: u32, mode: PathMode) -> u64 {
    if depth == 0 {
        return 1;
    }
    if mode == PathMode::Distinct {
        match depth {
            1 => return pos.count_moves() as u64,
            2 => return pos.count_replies(),
            _ => {}
        }
    }
    let mut list = MoveList::new();
    pos.generate(&mut list, mode);
    if depth == 1 {
        return list.len() as u64;
    }
    list.iter()
        .map(|mv| perft(&pos.make_move(mv), depth - 1, mode))
        .sum()
}

/// Leaf count at `depth`, making every move including the last ply's (the
/// cost a search pays per node).
pub fn perft_make_all(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.generate(&mut list, PathMode::Distinct);
    if depth == 1 {
        for mv in &list {
            // Keep the made position observable so the work is not elided.
            std::hint::black_box(pos.make_move(mv));
        }
        return list.len() as u64;
    }
    list.iter()
        .map(|mv| perft_make_all(&pos.make_move(mv), depth - 1))
        .sum()
}

/// Per-move leaf counts at `depth` (the `--divide` view), in generation order.
pub fn divide(pos: &Position, depth: u32, mode: PathMode) -> Vec<(String, u64)> {
    let mut list = MoveList::new();
    pos.generate(&mut list, mode);
    list.iter()
        .map(|mv| {
            (
                mv.to_string(),
                perft(&pos.make_move(mv), depth.saturating_sub(1), mode),
            )
        })
        .collect()
}
