//! Squares of the 32 dark squares and their names.
//!
//! Layout: index = 4 * rank + file / 2, with rank 0 = rank "1" (White's side)
//! and file 0 = "a". So a1 = 0, c1 = 1, e1 = 2, g1 = 3, b2 = 4, ..., h8 = 31.
//! Moving "up" (towards Black) always increases the index, which lets the
//! move generator find the nearest piece on a ray with one bit scan.

use std::fmt;

/// One of the 32 playable (dark) squares, 0..32 in the layout above.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

impl Square {
    /// All 32 squares in index order.
    pub const ALL: [Square; 32] = {
        let mut all = [Square(0); 32];
        let mut i = 0;
        while i < 32 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square with this index, or `None` if `index >= 32`.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 32 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square with this index; the caller guarantees `index < 32`.
    #[inline(always)]
    pub(crate) const fn from_index(index: u8) -> Square {
        debug_assert!(index < 32);
        Square(index)
    }

    /// Index 0..32.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Single-bit mask of this square.
    #[inline(always)]
    pub const fn bit(self) -> u32 {
        1u32 << self.0
    }

    /// Rank 0..8 (0 is rank "1", White's back rank).
    pub const fn rank(self) -> u8 {
        self.0 / 4
    }

    /// File 0..8 (0 is file "a").
    pub const fn file(self) -> u8 {
        2 * (self.0 % 4) + (self.rank() % 2)
    }

    /// The dark square at (file, rank), or `None` if off the board or light.
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 && (file + rank).is_multiple_of(2) {
            Some(Square(4 * rank + file / 2))
        } else {
            None
        }
    }

    /// The square rotated by 180 degrees (a1 <-> h8): the view of the other side.
    pub const fn rotated(self) -> Square {
        Square(31 - self.0)
    }

    /// Number in the numeric PDN notation (1 = b8 ... 32 = g1).
    pub const fn number(self) -> u8 {
        let row_from_top = 7 - self.rank();
        4 * row_from_top + self.0 % 4 + 1
    }

    /// The square with numeric PDN number `n` (1..=32).
    pub const fn from_number(n: u8) -> Option<Square> {
        if n == 0 || n > 32 {
            return None;
        }
        let row_from_top = (n - 1) / 4;
        Some(Square(4 * (7 - row_from_top) + (n - 1) % 4))
    }

    /// Parses `c3` style (algebraic) or `1`..`32` (numeric) square names.
    pub fn parse(text: &str) -> Option<Square> {
        let bytes = text.as_bytes();
        if bytes.len() == 2 && bytes[0].is_ascii_lowercase() && bytes[1].is_ascii_digit() {
            let file = bytes[0].wrapping_sub(b'a');
            let rank = bytes[1].wrapping_sub(b'1');
            return Square::from_coords(file, rank);
        }
        if !bytes.is_empty() && bytes.len() <= 2 && bytes.iter().all(u8::is_ascii_digit) {
            return text.parse::<u8>().ok().and_then(Square::from_number);
        }
        None
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file()) as char,
            (b'1' + self.rank()) as char
        )
    }
}

/// Iterates over the squares of a 32-bit mask, lowest index first.
#[derive(Clone, Copy)]
pub struct Squares(pub u32);

impl Iterator for Squares {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let index = self.0.trailing_zeros() as u8;
            self.0 &= self.0 - 1;
            Some(Square(index))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers() {
        assert_eq!(Square::parse("a1").unwrap().index(), 0);
        assert_eq!(Square::parse("h8").unwrap().index(), 31);
        assert_eq!(Square::parse("b2").unwrap().index(), 4);
        assert_eq!(Square::parse("b8").unwrap().number(), 1);
        assert_eq!(Square::parse("a7").unwrap().number(), 5);
        assert_eq!(Square::parse("a1").unwrap().number(), 29);
        assert_eq!(Square::parse("g1").unwrap().number(), 32);
        assert_eq!(Square::parse("32").unwrap().to_string(), "g1");
        assert_eq!(Square::parse("1").unwrap().to_string(), "b8");
        assert!(Square::parse("a2").is_none());
        assert!(Square::parse("i1").is_none());
        assert!(Square::parse("33").is_none());
        assert!(Square::parse("0").is_none());
        for sq in Square::ALL {
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
            assert_eq!(Square::from_number(sq.number()), Some(sq));
            assert_eq!(Square::from_coords(sq.file(), sq.rank()), Some(sq));
            assert_eq!(sq.rotated().file(), 7 - sq.file());
            assert_eq!(sq.rotated().rank(), 7 - sq.rank());
        }
    }
}
