//! Positions as network input, and moves as policy indices.
//!
//! Everything is seen from the side to move: when Black is to move the board
//! is rotated by 180 degrees and the colours are swapped (what
//! [`Position::flipped`] does), so square index `s` becomes `31 - s` and the
//! side to move always plays "up" the board. Dark squares stay dark.
//!
//! Input: [`INPUT_PLANES`] planes of 8x8 (rank-major: cell = 8 * rank + file,
//! rank 0 is the side to move's back rank), see [`Plane`]. Policy: one logit
//! per (from, to) pair of relative squares, index `from * 32 + to`
//! ([`POLICY_LEN`] = 1024). `docs/MODEL.md` is the full description.

use shashki_rules::{Color, DrawState, MAX_MOVES, Move, Position, Square};

/// Version of the input encoding; bumped whenever a plane changes meaning.
pub const ENCODING_VERSION: u32 = 1;
/// Version of the policy layout (`from * 32 + to`, side-relative squares).
pub const POLICY_LAYOUT_VERSION: u32 = 1;
/// Board height and width of the input grid.
pub const BOARD: usize = 8;
/// Cells of one plane.
pub const PLANE_LEN: usize = BOARD * BOARD;
/// Number of input planes.
pub const INPUT_PLANES: usize = 7;
/// Floats of one encoded position.
pub const INPUT_LEN: usize = INPUT_PLANES * PLANE_LEN;
/// Number of policy outputs: 32 start squares x 32 end squares.
pub const POLICY_LEN: usize = 32 * 32;
/// Draw counters at or beyond this many plies encode as 0 closeness.
pub const PLIES_TO_DRAW_HORIZON: f32 = 128.0;

/// The input planes, in order.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(usize)]
pub enum Plane {
    /// 1 where the side to move has a man.
    OwnMen = 0,
    /// 1 where the side to move has a king.
    OwnKings = 1,
    /// 1 where the opponent has a man.
    EnemyMen = 2,
    /// 1 where the opponent has a king.
    EnemyKings = 3,
    /// Earlier occurrences of this position, `min(repetitions - 1, 2) / 2`,
    /// on every cell (0, 0.5 or 1).
    Repetitions = 4,
    /// Closeness of a counting draw: `1 - min(plies_to_draw, 128) / 128`
    /// on every cell while a count runs, 0 when none runs.
    DrawCount = 5,
    /// 1 on every cell: tells the board from the convolutions' zero padding.
    Ones = 6,
}

impl Plane {
    /// Plane names in order (used in `model.json`).
    pub const NAMES: [&'static str; INPUT_PLANES] = [
        "own_men",
        "own_kings",
        "enemy_men",
        "enemy_kings",
        "repetitions",
        "draw_count",
        "ones",
    ];
}

/// `CELL_OF_SQUARE[s]`: the grid cell (8 * rank + file) of square index `s`.
pub const CELL_OF_SQUARE: [usize; 32] = {
    let mut cells = [0usize; 32];
    let mut s = 0;
    while s < 32 {
        let rank = s / 4;
        let file = 2 * (s % 4) + rank % 2;
        cells[s] = rank * BOARD + file;
        s += 1;
    }
    cells
};

/// A square's index as seen by `side` (Black sees the board rotated).
#[inline(always)]
pub fn relative_square(square: Square, side: Color) -> usize {
    match side {
        Color::White => square.index(),
        Color::Black => 31 - square.index(),
    }
}

/// The policy index of `mv` played by `side`: `from * 32 + to` in relative squares.
#[inline(always)]
pub fn policy_index(mv: &Move, side: Color) -> usize {
    relative_square(mv.from(), side) * 32 + relative_square(mv.to(), side)
}

/// Draw-rule plane values for a draw state: (repetitions, draw count).
#[inline]
pub fn draw_plane_values(draw_state: DrawState) -> (f32, f32) {
    let repetitions = f32::from(draw_state.repetitions.saturating_sub(1).min(2)) / 2.0;
    let count = match draw_state.plies_to_draw {
        Some(plies) => 1.0 - f32::from(plies).min(PLIES_TO_DRAW_HORIZON) / PLIES_TO_DRAW_HORIZON,
        None => 0.0,
    };
    (repetitions, count)
}

/// Writes the [`INPUT_LEN`] floats of one position into `out` (every value
/// is overwritten, so a reused buffer needs no clearing).
///
/// # Panics
/// If `out.len() != INPUT_LEN` (a caller bug, not bad input).
pub fn encode_input(position: &Position, draw_state: DrawState, out: &mut [f32]) {
    assert_eq!(out.len(), INPUT_LEN, "input slice must hold one position");
    let (own, enemy, kings) = match position.side_to_move() {
        Color::White => (position.white(), position.black(), position.kings()),
        // The 180-degree rotation of a 32-square mask is its bit reversal.
        Color::Black => (
            position.black().reverse_bits(),
            position.white().reverse_bits(),
            position.kings().reverse_bits(),
        ),
    };
    out[..4 * PLANE_LEN].fill(0.0);
    let boards = [own & !kings, own & kings, enemy & !kings, enemy & kings];
    for (plane, mut mask) in boards.into_iter().enumerate() {
        let base = plane * PLANE_LEN;
        while mask != 0 {
            let s = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            out[base + CELL_OF_SQUARE[s]] = 1.0;
        }
    }
    let (repetitions, count) = draw_plane_values(draw_state);
    let plane = |p: Plane| p as usize * PLANE_LEN..(p as usize + 1) * PLANE_LEN;
    out[plane(Plane::Repetitions)].fill(repetitions);
    out[plane(Plane::DrawCount)].fill(count);
    out[plane(Plane::Ones)].fill(1.0);
}

/// Turns the network's [`POLICY_LEN`] logits into priors over `moves`
/// (written to `priors`, cleared first, in the order of `moves`): a softmax
/// over the legal moves' indices only; moves that share an index split that
/// index's probability equally. Sums to 1 unless `moves` is empty.
pub fn decode_policy(logits: &[f32], moves: &[Move], side: Color, priors: &mut Vec<f32>) {
    debug_assert_eq!(logits.len(), POLICY_LEN);
    priors.clear();
    let n = moves.len().min(MAX_MOVES);
    if n == 0 {
        return;
    }
    let mut indices = [0u16; MAX_MOVES];
    let mut max = f32::NEG_INFINITY;
    for (slot, mv) in indices.iter_mut().zip(&moves[..n]) {
        let index = policy_index(mv, side);
        *slot = index as u16;
        max = max.max(logits[index]);
    }
    let indices = &indices[..n];
    let mut total = 0.0f32;
    for &index in indices {
        // Moves sharing an index each take exp(logit) / sharers, so the index
        // as a whole counts once in the normaliser.
        let sharers = indices.iter().filter(|&&other| other == index).count();
        let weight = (logits[index as usize] - max).exp() / sharers as f32;
        priors.push(weight);
        total += weight;
    }
    let scale = 1.0 / total;
    for p in priors.iter_mut() {
        *p *= scale;
    }
}

/// Writes a training policy target: `probabilities[i]` (one per move, e.g.
/// visit shares) is added to the move's index in `target`, and `mask` gets
/// 1 at every legal index, 0 elsewhere. Both slices are [`POLICY_LEN`] long
/// and fully overwritten.
pub fn encode_policy_target(
    moves: &[Move],
    side: Color,
    probabilities: &[f32],
    target: &mut [f32],
    mask: &mut [f32],
) {
    assert_eq!(target.len(), POLICY_LEN, "policy target slice size");
    assert_eq!(mask.len(), POLICY_LEN, "policy mask slice size");
    assert_eq!(moves.len(), probabilities.len(), "one probability per move");
    target.fill(0.0);
    mask.fill(0.0);
    for (mv, &p) in moves.iter().zip(probabilities) {
        let index = policy_index(mv, side);
        target[index] += p;
        mask[index] = 1.0;
    }
}

/// How often legal moves share a policy index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollisionStats {
    /// Positions looked at.
    pub positions: u64,
    /// Positions where at least two legal moves share an index.
    pub positions_with_collision: u64,
    /// Legal moves looked at.
    pub moves: u64,
    /// Moves whose index is shared with another legal move.
    pub colliding_moves: u64,
}

impl CollisionStats {
    /// Adds one position's legal moves to the counts.
    pub fn add(&mut self, position: &Position, moves: &[Move]) {
        let side = position.side_to_move();
        let mut colliding = 0u64;
        for (i, mv) in moves.iter().enumerate() {
            let index = policy_index(mv, side);
            if moves
                .iter()
                .enumerate()
                .any(|(j, other)| j != i && policy_index(other, side) == index)
            {
                colliding += 1;
            }
        }
        self.positions += 1;
        self.moves += moves.len() as u64;
        self.colliding_moves += colliding;
        if colliding > 0 {
            self.positions_with_collision += 1;
        }
    }

    /// Share of positions with at least one collision.
    pub fn position_share(&self) -> f64 {
        self.positions_with_collision as f64 / (self.positions.max(1)) as f64
    }

    /// Share of moves that collide.
    pub fn move_share(&self) -> f64 {
        self.colliding_moves as f64 / (self.moves.max(1)) as f64
    }
}

/// Collision statistics over the given positions.
pub fn count_collisions<'a>(positions: impl IntoIterator<Item = &'a Position>) -> CollisionStats {
    let mut stats = CollisionStats::default();
    for position in positions {
        let moves = position.legal_moves();
        stats.add(position, moves.as_slice());
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_the_dark_squares() {
        for sq in Square::ALL {
            let cell = CELL_OF_SQUARE[sq.index()];
            assert_eq!(cell / 8, sq.rank() as usize);
            assert_eq!(cell % 8, sq.file() as usize);
            assert_eq!((cell / 8 + cell % 8) % 2, 0, "{sq} is dark");
        }
    }

    #[test]
    fn start_position_planes() {
        let mut buf = vec![f32::NAN; INPUT_LEN];
        encode_input(&Position::startpos(), DrawState::default(), &mut buf);
        let plane = |p: Plane| &buf[p as usize * PLANE_LEN..(p as usize + 1) * PLANE_LEN];
        assert_eq!(plane(Plane::OwnMen).iter().sum::<f32>(), 12.0);
        assert_eq!(plane(Plane::EnemyMen).iter().sum::<f32>(), 12.0);
        assert_eq!(plane(Plane::OwnKings).iter().sum::<f32>(), 0.0);
        // a1 (cell 0) is White's; h8 (cell 63) is Black's.
        assert_eq!(plane(Plane::OwnMen)[0], 1.0);
        assert_eq!(plane(Plane::EnemyMen)[63], 1.0);
        assert!(plane(Plane::Ones).iter().all(|&v| v == 1.0));
        assert!(plane(Plane::Repetitions).iter().all(|&v| v == 0.0));
        assert!(plane(Plane::DrawCount).iter().all(|&v| v == 0.0));
    }

    #[test]
    fn draw_planes_scale() {
        let values = |repetitions, plies_to_draw| {
            draw_plane_values(DrawState {
                repetitions,
                plies_to_draw,
            })
        };
        assert_eq!(values(1, None), (0.0, 0.0));
        assert_eq!(values(2, Some(64)), (0.5, 0.5));
        assert_eq!(values(3, Some(0)), (1.0, 1.0));
        assert_eq!(values(9, Some(500)), (1.0, 0.0));
    }

    #[test]
    fn policy_index_of_black_is_rotated() {
        let pos = Position::from_fen("B:Wa1:Bh8").unwrap();
        let moves = pos.legal_moves();
        // h8-g7 seen rotated is a1-b2: relative 0 -> 4.
        let mv = moves.iter().find(|m| m.to_string() == "h8-g7").unwrap();
        assert_eq!(policy_index(mv, Color::Black), 4);
    }

    #[test]
    fn collisions_split_the_prior() {
        // A king on c1 (behind its own man... any loop) is hard to set up by
        // hand; check the arithmetic on two moves that share an index by
        // using the same move twice.
        let pos = Position::startpos();
        let moves = pos.legal_moves();
        let first = moves[0];
        let twice = [first, first, moves[1]];
        let mut logits = vec![0.0f32; POLICY_LEN];
        logits[policy_index(&first, Color::White)] = 1.0f32.ln() + 2.0f32.ln();
        let mut priors = Vec::new();
        decode_policy(&logits, &twice, Color::White, &mut priors);
        // Index of `first` has weight 2, the other index weight 1.
        assert!((priors[0] - 1.0 / 3.0).abs() < 1e-6);
        assert!((priors[1] - 1.0 / 3.0).abs() < 1e-6);
        assert!((priors[2] - 1.0 / 3.0).abs() < 1e-6);
    }
}
