//! Compile-time tables for the 32-square layout: neighbours, rays, shifts.

use crate::square::Square;

/// The four diagonal directions. Up (towards rank 8) increases the index.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Direction {
    /// file - 1, rank + 1
    UpLeft = 0,
    /// file + 1, rank + 1
    UpRight = 1,
    /// file - 1, rank - 1
    DownLeft = 2,
    /// file + 1, rank - 1
    DownRight = 3,
}

impl Direction {
    /// All four directions.
    pub const ALL: [Direction; 4] = [
        Direction::UpLeft,
        Direction::UpRight,
        Direction::DownLeft,
        Direction::DownRight,
    ];

    const fn steps(self) -> (i8, i8) {
        match self {
            Direction::UpLeft => (-1, 1),
            Direction::UpRight => (1, 1),
            Direction::DownLeft => (-1, -1),
            Direction::DownRight => (1, -1),
        }
    }

    /// True for the two directions that increase the square index.
    #[inline(always)]
    pub const fn is_up(self) -> bool {
        (self as u8) < 2
    }
}

/// Marker for "no square" in [`NEIGHBOUR`].
pub const NONE: u8 = 32;

/// Squares on ranks 1, 3, 5, 7 (index ranks 0, 2, 4, 6).
pub const EVEN_RANKS: u32 = 0x0F0F_0F0F;
/// Squares on ranks 2, 4, 6, 8.
pub const ODD_RANKS: u32 = 0xF0F0_F0F0;
/// Squares on file a.
pub const FILE_A: u32 = 0x0101_0101;
/// Squares on file h.
pub const FILE_H: u32 = 0x8080_8080;
/// Rank 8: where White's men promote.
pub const RANK_8: u32 = 0xF000_0000;
/// Rank 1: where Black's men promote.
pub const RANK_1: u32 = 0x0000_000F;
/// The main diagonal a1-h8 ("bolshak").
pub const MAIN_DIAGONAL: u32 = {
    let mut mask = 0u32;
    let mut i = 0;
    while i < 8 {
        mask |= 1 << (4 * i + i / 2);
        i += 1;
    }
    mask
};

/// `NEIGHBOUR[sq][dir]`: the adjacent square in that direction, or [`NONE`].
pub const NEIGHBOUR: [[u8; 4]; 32] = {
    let mut table = [[NONE; 4]; 32];
    let mut sq = 0;
    while sq < 32 {
        let s = Square::ALL[sq];
        let mut d = 0;
        while d < 4 {
            let (df, dr) = Direction::ALL[d].steps();
            let f = s.file() as i8 + df;
            let r = s.rank() as i8 + dr;
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                table[sq][d] = 4 * r as u8 + f as u8 / 2;
            }
            d += 1;
        }
        sq += 1;
    }
    table
};

/// `RAY[sq][dir]`: every square from `sq` (exclusive) to the edge in that direction.
pub const RAY: [[u32; 4]; 32] = {
    let mut table = [[0u32; 4]; 32];
    let mut sq = 0;
    while sq < 32 {
        let mut d = 0;
        while d < 4 {
            let mut mask = 0u32;
            let mut cur = NEIGHBOUR[sq][d];
            while cur != NONE {
                mask |= 1 << cur;
                cur = NEIGHBOUR[cur as usize][d];
            }
            table[sq][d] = mask;
            d += 1;
        }
        sq += 1;
    }
    table
};

/// The nearest square of `mask` seen from a square in `dir`: `mask` must be a
/// non-empty subset of one ray in that direction.
#[inline(always)]
pub fn nearest(mask: u32, dir: Direction) -> u8 {
    debug_assert!(mask != 0);
    if dir.is_up() {
        mask.trailing_zeros() as u8
    } else {
        31 - mask.leading_zeros() as u8
    }
}

/// The empty squares a sliding piece on `sq` reaches in `dir`, and the first
/// occupied square that stops it (or [`NONE`]).
#[inline(always)]
pub fn slide(sq: u8, dir: Direction, occupied: u32) -> (u32, u8) {
    let ray = RAY[sq as usize][dir as usize];
    let blockers = ray & occupied;
    if blockers == 0 {
        (ray, NONE)
    } else {
        let first = nearest(blockers, dir);
        (
            ray & !RAY[first as usize][dir as usize] & !(1u32 << first),
            first,
        )
    }
}

/// Shifts every square of `b` one step in `dir` (squares leaving the board vanish).
#[inline(always)]
pub const fn shift(b: u32, dir: Direction) -> u32 {
    match dir {
        Direction::UpLeft => ((b & EVEN_RANKS & !FILE_A) << 3) | ((b & ODD_RANKS) << 4),
        Direction::UpRight => ((b & EVEN_RANKS) << 4) | ((b & ODD_RANKS & !FILE_H) << 5),
        Direction::DownLeft => ((b & EVEN_RANKS & !FILE_A) >> 5) | ((b & ODD_RANKS) >> 4),
        Direction::DownRight => ((b & EVEN_RANKS) >> 4) | ((b & ODD_RANKS & !FILE_H) >> 3),
    }
}

/// Squares in the rightmost column of the layout (files g and h).
const COLUMN_GH: u32 = 0x8888_8888;
/// Squares in the leftmost column of the layout (files a and b).
const COLUMN_AB: u32 = 0x1111_1111;

/// Shifts every square of `b` two steps in `dir` (a man's jump). Unlike one
/// step, two steps are the same index offset from every rank.
#[inline(always)]
pub const fn jump_shift(b: u32, dir: Direction) -> u32 {
    match dir {
        Direction::UpLeft => (b & !COLUMN_AB) << 7,
        Direction::UpRight => (b & !COLUMN_GH) << 9,
        Direction::DownLeft => (b & !COLUMN_AB) >> 9,
        Direction::DownRight => (b & !COLUMN_GH) >> 7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_agree_with_neighbour_table() {
        for sq in 0..32u8 {
            for dir in Direction::ALL {
                let n = NEIGHBOUR[sq as usize][dir as usize];
                let expected = if n == NONE { 0 } else { 1u32 << n };
                assert_eq!(shift(1 << sq, dir), expected, "square {sq} dir {dir:?}");
            }
        }
    }

    #[test]
    fn jump_shift_is_two_single_shifts() {
        for sq in 0..32u8 {
            for dir in Direction::ALL {
                let bit = 1u32 << sq;
                assert_eq!(jump_shift(bit, dir), shift(shift(bit, dir), dir));
            }
        }
    }

    #[test]
    fn main_diagonal_is_a1_to_h8() {
        let names: Vec<String> = crate::square::Squares(MAIN_DIAGONAL)
            .map(|s| s.to_string())
            .collect();
        assert_eq!(names, ["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"]);
    }
}
