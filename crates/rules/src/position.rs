//! The bitboard position: copy-make, hashing, basic queries.

use crate::bitboard::{RANK_1, RANK_8};
use crate::moves::Move;
use crate::square::{Square, Squares};
use crate::zobrist;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Color {
    /// Moves first, starts on ranks 1-3.
    White,
    /// Starts on ranks 6-8.
    Black,
}

impl Color {
    /// The other side.
    #[inline(always)]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// The rank where this side's men are promoted.
    #[inline(always)]
    pub const fn promotion_rank(self) -> u32 {
        match self {
            Color::White => RANK_8,
            Color::Black => RANK_1,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "White",
            Color::Black => "Black",
        })
    }
}

/// What stands on a square.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Whose piece.
    pub color: Color,
    /// A king (damka) rather than a man.
    pub king: bool,
}

/// A position: one mask per colour, a kings mask, the side to move, and the
/// Zobrist hash kept up to date by [`Position::make_move`]. 24 bytes, `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    white: u32,
    black: u32,
    kings: u32,
    side: Color,
    hash: u64,
}

/// The standard start position.
pub const START_FEN: &str =
    "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8";

impl Position {
    /// The standard start position (White to move).
    pub fn startpos() -> Position {
        Position::from_masks(0x0000_0FFF, 0xFFF0_0000, 0, Color::White)
            .expect("start position is valid")
    }

    /// Builds a position from masks. Fails if the colours overlap, kings stand
    /// on empty squares, or a man stands on its own promotion rank.
    pub fn from_masks(white: u32, black: u32, kings: u32, side: Color) -> Result<Position, String> {
        if white & black != 0 {
            return Err("a square holds both a white and a black piece".into());
        }
        if kings & !(white | black) != 0 {
            return Err("a king is marked on an empty square".into());
        }
        if white & !kings & RANK_8 != 0 {
            return Err("a white man stands on rank 8 (it would be a king)".into());
        }
        if black & !kings & RANK_1 != 0 {
            return Err("a black man stands on rank 1 (it would be a king)".into());
        }
        let mut pos = Position {
            white,
            black,
            kings,
            side,
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// White's pieces.
    #[inline(always)]
    pub fn white(&self) -> u32 {
        self.white
    }

    /// Black's pieces.
    #[inline(always)]
    pub fn black(&self) -> u32 {
        self.black
    }

    /// All kings (both colours).
    #[inline(always)]
    pub fn kings(&self) -> u32 {
        self.kings
    }

    /// All men (both colours).
    #[inline(always)]
    pub fn men(&self) -> u32 {
        (self.white | self.black) & !self.kings
    }

    /// Pieces of one colour.
    #[inline(always)]
    pub fn pieces(&self, color: Color) -> u32 {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// All occupied squares.
    #[inline(always)]
    pub fn occupied(&self) -> u32 {
        self.white | self.black
    }

    /// Empty squares.
    #[inline(always)]
    pub fn empty(&self) -> u32 {
        !(self.white | self.black)
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The 64-bit Zobrist hash (kept incrementally).
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The piece on a square, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let bit = sq.bit();
        let king = self.kings & bit != 0;
        if self.white & bit != 0 {
            Some(Piece {
                color: Color::White,
                king,
            })
        } else if self.black & bit != 0 {
            Some(Piece {
                color: Color::Black,
                king,
            })
        } else {
            None
        }
    }

    /// Recomputes the hash from scratch (to check the incremental one).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for sq in Squares(self.white) {
            h ^= zobrist::PIECE[zobrist::kind(false, self.kings & sq.bit() != 0)][sq.index()];
        }
        for sq in Squares(self.black) {
            h ^= zobrist::PIECE[zobrist::kind(true, self.kings & sq.bit() != 0)][sq.index()];
        }
        if self.side == Color::Black {
            h ^= zobrist::BLACK_TO_MOVE;
        }
        h
    }

    /// The position after `mv`, which must be legal here (copy-make).
    #[inline]
    pub fn make_move(&self, mv: &Move) -> Position {
        let path = mv.path_indices();
        let from = path[0] as usize;
        let to = path[path.len() - 1] as usize;
        let from_bit = 1u32 << from;
        let to_bit = 1u32 << to;
        let black = self.side == Color::Black;
        let was_king = self.kings & from_bit != 0;
        let is_king = was_king || mv.promotes();
        let captured = mv.captured();

        let mut hash = self.hash ^ zobrist::BLACK_TO_MOVE;
        hash ^= zobrist::PIECE[zobrist::kind(black, was_king)][from];
        hash ^= zobrist::PIECE[zobrist::kind(black, is_king)][to];
        let mut rest = captured;
        while rest != 0 {
            let sq = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            hash ^= zobrist::PIECE[zobrist::kind(!black, self.kings & (1 << sq) != 0)][sq];
        }

        // `from == to` is possible (a capture that circles back), so clear
        // before setting rather than toggling.
        let mut kings = self.kings & !captured & !from_bit;
        if is_king {
            kings |= to_bit;
        }
        let (mut white, mut black_bb) = (self.white, self.black);
        if black {
            black_bb = (black_bb & !from_bit) | to_bit;
            white &= !captured;
        } else {
            white = (white & !from_bit) | to_bit;
            black_bb &= !captured;
        }
        Position {
            white,
            black: black_bb,
            kings,
            side: self.side.opponent(),
            hash,
        }
    }

    /// The position after the quiet move `from`-`to` of the side to move
    /// (legal here); what [`Position::make_move`] does for a quiet move,
    /// without a [`Move`] (perft's fast path).
    #[inline(always)]
    pub(crate) fn make_quiet(&self, from: u8, to: u8, promotes: bool) -> Position {
        let (from, to) = (from as usize, to as usize);
        let from_bit = 1u32 << from;
        let to_bit = 1u32 << to;
        let black = self.side == Color::Black;
        let was_king = self.kings & from_bit != 0;
        let is_king = was_king || promotes;
        let hash = self.hash
            ^ zobrist::BLACK_TO_MOVE
            ^ zobrist::PIECE[zobrist::kind(black, was_king)][from]
            ^ zobrist::PIECE[zobrist::kind(black, is_king)][to];
        let kings = (self.kings & !from_bit) | if is_king { to_bit } else { 0 };
        let moved = from_bit | to_bit;
        let (white, black_bb) = if black {
            (self.white, self.black ^ moved)
        } else {
            (self.white ^ moved, self.black)
        };
        Position {
            white,
            black: black_bb,
            kings,
            side: self.side.opponent(),
            hash,
        }
    }

    /// The same position seen from the other side: the board rotated by 180
    /// degrees and the colours swapped (dark squares stay dark).
    pub fn flipped(&self) -> Position {
        let white = self.black.reverse_bits();
        let black = self.white.reverse_bits();
        let kings = self.kings.reverse_bits();
        Position::from_masks(white, black, kings, self.side.opponent())
            .expect("flip keeps validity")
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

/// A Unicode board, White at the bottom: ⛀ white man, ⛁ white king,
/// ⛂ black man, ⛃ black king, · empty dark square.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8u8).rev() {
            write!(f, "{} ", rank + 1)?;
            for file in 0..8u8 {
                let cell = match Square::from_coords(file, rank) {
                    None => ' ',
                    Some(sq) => match self.piece_at(sq) {
                        None => '·',
                        Some(Piece {
                            color: Color::White,
                            king: false,
                        }) => '⛀',
                        Some(Piece {
                            color: Color::White,
                            king: true,
                        }) => '⛁',
                        Some(Piece {
                            color: Color::Black,
                            king: false,
                        }) => '⛂',
                        Some(Piece {
                            color: Color::Black,
                            king: true,
                        }) => '⛃',
                    },
                };
                write!(f, "{cell} ")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  a b c d e f g h")?;
        write!(f, "{} to move", self.side)
    }
}
