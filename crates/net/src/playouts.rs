//! Seeded random-playout positions: the shared input of the net's
//! benchmarks, GPU check and tests, reproducible from the seed.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::Position;

/// `count` positions from seeded random playouts (a game restarts at its
/// end or after 160 plies), the start position excluded.
pub fn random_positions(seed: u64, count: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(count);
    let mut pos = Position::startpos();
    let mut ply = 0;
    while out.len() < count {
        let moves = pos.legal_moves();
        if moves.is_empty() || ply >= 160 {
            pos = Position::startpos();
            ply = 0;
            continue;
        }
        pos = pos.make_move(&moves[rng.random_range(0..moves.len())]);
        ply += 1;
        out.push(pos);
    }
    out
}
