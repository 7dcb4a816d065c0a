//! The feature layout: which sparse inputs are active in a position, seen
//! from one side (a *perspective*), and which change with a move.
//!
//! Layout `stm-piece-square` version 1: 4 piece kinds x 32 squares = 128
//! features. Kind 0 is the perspective's own men, 1 its kings, 2 the
//! opponent's men, 3 its kings; the square is the square's index (a1 = 0 ...
//! h8 = 31, see `shashki_rules::Square`) for White's perspective and the
//! square rotated by 180 degrees (`31 - index`) for Black's, so each side
//! sees its own men moving up the board. Feature = `32 * kind + square`.
//!
//! The network keeps one accumulator per perspective and reads the side to
//! move's first, so one set of weights serves both colours (the position and
//! its colour-flipped twin give the same output).
//!
//! The draw-rule counters are not inputs: the search applies the draw rules
//! exactly along every searched line, which is where they decide games.

use shashki_rules::{Color, Move, Position, Squares};

/// Name of this feature layout (written to and checked in `model.json`).
pub const FEATURE_LAYOUT: &str = "stm-piece-square";
/// Version of the feature layout.
pub const FEATURE_LAYOUT_VERSION: u32 = 1;
/// Number of sparse input features per perspective.
pub const NUM_FEATURES: usize = 128;
/// Most features active at once in one perspective (12 pieces a side).
pub const MAX_ACTIVE: usize = 24;
/// Most features a move removes: the moving piece plus 12 captured ones.
pub const MAX_REMOVED: usize = 13;

/// A piece on a square, in absolute terms (not yet seen from a perspective).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceSquare {
    /// Whose piece.
    pub color: Color,
    /// A king rather than a man.
    pub king: bool,
    /// Square index 0..32.
    pub square: u8,
}

impl PieceSquare {
    /// Its feature index seen from `perspective`.
    #[inline(always)]
    pub fn feature(self, perspective: Color) -> usize {
        let own = self.color == perspective;
        let kind = match (own, self.king) {
            (true, false) => 0,
            (true, true) => 1,
            (false, false) => 2,
            (false, true) => 3,
        };
        let square = match perspective {
            Color::White => self.square,
            Color::Black => 31 - self.square,
        };
        32 * kind + usize::from(square)
    }
}

/// The perspectives in accumulator order: index 0 is White's, 1 Black's.
pub const PERSPECTIVES: [Color; 2] = [Color::White, Color::Black];

/// Index of a perspective's accumulator.
#[inline(always)]
pub fn perspective_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Every piece of `pos`, in absolute terms.
pub fn pieces(pos: &Position) -> impl Iterator<Item = PieceSquare> + '_ {
    let side = |color: Color| {
        let kings = pos.kings();
        Squares(pos.pieces(color)).map(move |sq| PieceSquare {
            color,
            king: kings & sq.bit() != 0,
            square: sq.index() as u8,
        })
    };
    side(Color::White).chain(side(Color::Black))
}

/// The active features of `pos` seen from `perspective`, ascending.
pub fn active_features(pos: &Position, perspective: Color) -> Vec<usize> {
    let mut features: Vec<usize> = pieces(pos).map(|p| p.feature(perspective)).collect();
    features.sort_unstable();
    features
}

/// What a move changes on the board: pieces removed and the piece added,
/// kept compact (the search records one per node it enters, most of which
/// are never evaluated): the mover before and after, and the captured
/// squares with which of them held kings.
#[derive(Clone, Copy, Debug)]
pub struct MoveDelta {
    moving: PieceSquare,
    added: PieceSquare,
    captured: u32,
    captured_kings: u32,
}

impl MoveDelta {
    /// The change made by `mv`, legal in `before`. A capture that ends on
    /// its own start square removes and adds the same feature, which cancels.
    #[inline]
    pub fn new(before: &Position, mv: &Move) -> MoveDelta {
        let color = before.side_to_move();
        let was_king = before.kings() & mv.from().bit() != 0;
        MoveDelta {
            moving: PieceSquare {
                color,
                king: was_king,
                square: mv.from().index() as u8,
            },
            added: PieceSquare {
                color,
                king: was_king || mv.promotes(),
                square: mv.to().index() as u8,
            },
            captured: mv.captured(),
            captured_kings: mv.captured() & before.kings(),
        }
    }

    /// Whether no piece is captured (one feature out, one in).
    #[inline]
    pub fn is_quiet(&self) -> bool {
        self.captured == 0
    }

    /// The piece taken off its start square.
    #[inline]
    pub fn moving(&self) -> PieceSquare {
        self.moving
    }

    /// The pieces taken off the board: the mover's old square first, then
    /// the captured pieces (at most [`MAX_REMOVED`] in all).
    pub fn removed(&self) -> impl Iterator<Item = PieceSquare> + '_ {
        let opponent = self.moving.color.opponent();
        std::iter::once(self.moving).chain(Squares(self.captured).map(move |sq| PieceSquare {
            color: opponent,
            king: self.captured_kings & sq.bit() != 0,
            square: sq.index() as u8,
        }))
    }

    /// The piece put on the board (the mover on its new square).
    #[inline]
    pub fn added(&self) -> PieceSquare {
        self.added
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_features_mirror_between_perspectives() {
        let pos = Position::startpos();
        let white = active_features(&pos, Color::White);
        let black = active_features(&pos, Color::Black);
        assert_eq!(white.len(), 24);
        // Both sides see their 12 men on squares 0..12 and the opponent's on 20..32.
        let expected: Vec<usize> = (0..12).chain(64 + 20..64 + 32).collect();
        assert_eq!(white, expected);
        assert_eq!(black, expected);
    }

    #[test]
    fn flipped_position_swaps_perspectives() {
        let pos = Position::from_fen("W:Wa1,Kc3,e5:Bb8,Kd6,h4").unwrap();
        let flipped = pos.flipped();
        assert_eq!(
            active_features(&pos, Color::White),
            active_features(&flipped, Color::Black)
        );
        assert_eq!(
            active_features(&pos, Color::Black),
            active_features(&flipped, Color::White)
        );
    }
}
