//! A move (quiet or capture) and the fixed-capacity list that holds them.

use crate::square::{Square, Squares};
use std::fmt;
use std::mem::MaybeUninit;

/// Longest landing-square path: the start plus one landing per captured piece
/// (at most 12 enemy pieces exist), with room to spare.
pub const MAX_PATH: usize = 16;

/// Capacity of a [`MoveList`]. Quiet moves are bounded by 12 pieces x 13
/// squares; distinct captures (start, end, captured set) stay far below too.
pub const MAX_MOVES: usize = 256;

/// One legal move: its path of landing squares (start first), the pieces it
/// captures, and whether the moving man is promoted.
///
/// Two capture paths with the same start, end and captured set are the same
/// move (rule 9); the generator keeps the first path found for notation.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    captured: u32,
    path: [u8; MAX_PATH],
    len: u8,
    promotes: bool,
}

impl Move {
    /// A quiet (non-capturing) move.
    #[inline(always)]
    pub(crate) fn quiet(from: u8, to: u8, promotes: bool) -> Move {
        let mut path = [0u8; MAX_PATH];
        path[0] = from;
        path[1] = to;
        Move {
            captured: 0,
            path,
            len: 2,
            promotes,
        }
    }

    /// A capture from its landing path.
    #[inline(always)]
    pub(crate) fn capture(path: &[u8], captured: u32, promotes: bool) -> Move {
        let mut buf = [0u8; MAX_PATH];
        buf[..path.len()].copy_from_slice(path);
        Move {
            captured,
            path: buf,
            len: path.len() as u8,
            promotes,
        }
    }

    /// Start square.
    #[inline(always)]
    pub fn from(&self) -> Square {
        Square::from_index(self.path[0])
    }

    /// Final square.
    #[inline(always)]
    pub fn to(&self) -> Square {
        Square::from_index(self.path[self.len as usize - 1])
    }

    /// Mask of the captured pieces (empty for a quiet move).
    #[inline(always)]
    pub fn captured(&self) -> u32 {
        self.captured
    }

    /// The captured squares, lowest index first.
    pub fn captured_squares(&self) -> Squares {
        Squares(self.captured)
    }

    /// Number of captured pieces.
    pub fn capture_count(&self) -> u32 {
        self.captured.count_ones()
    }

    /// True if the move captures.
    #[inline(always)]
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// True if a man becomes a king with this move (also mid-capture).
    #[inline(always)]
    pub fn promotes(&self) -> bool {
        self.promotes
    }

    /// The landing squares, start first: `[c3, d4]` or `[a3, c5, e7, g5]`.
    pub fn path(&self) -> impl ExactSizeIterator<Item = Square> + '_ {
        self.path[..self.len as usize]
            .iter()
            .map(|&i| Square::from_index(i))
    }

    /// The identity of a move under rule 9: (start, end, captured set).
    pub fn key(&self) -> (Square, Square, u32) {
        (self.from(), self.to(), self.captured)
    }

    /// Raw path indices (crate-internal fast access).
    #[inline(always)]
    pub(crate) fn path_indices(&self) -> &[u8] {
        &self.path[..self.len as usize]
    }
}

/// Long notation: `c3-d4` for a quiet move, `a3:c5:e7:g5` for a capture.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if self.is_capture() { ':' } else { '-' };
        for (i, sq) in self.path().enumerate() {
            if i > 0 {
                write!(f, "{sep}")?;
            }
            write!(f, "{sq}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self})")
    }
}

/// A fixed-capacity list of moves: generation never allocates, and an empty
/// list costs nothing to create (the storage starts uninitialised).
pub struct MoveList {
    moves: [MaybeUninit<Move>; MAX_MOVES],
    len: usize,
}

impl Clone for MoveList {
    fn clone(&self) -> Self {
        let mut copy = MoveList::new();
        copy.moves[..self.len].copy_from_slice(&self.moves[..self.len]);
        copy.len = self.len;
        copy
    }
}

impl Default for MoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl MoveList {
    /// An empty list.
    #[inline(always)]
    pub fn new() -> MoveList {
        MoveList {
            moves: [const { MaybeUninit::uninit() }; MAX_MOVES],
            len: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, mv: Move) {
        // MAX_MOVES is above any reachable count; never write out of bounds.
        debug_assert!(self.len < MAX_MOVES, "move list overflow");
        if self.len < MAX_MOVES {
            self.moves[self.len] = MaybeUninit::new(mv);
            self.len += 1;
        }
    }

    /// Number of moves.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if there are no moves.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: the first `len` entries were written by `push`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [Move] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    /// Sorts by long notation (the order `shashki moves` prints).
    pub fn sort_by_notation(&mut self) {
        self.as_mut_slice().sort_by_cached_key(|m| m.to_string());
    }

    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    pub(crate) fn get(&self, i: usize) -> &Move {
        &self.as_slice()[i]
    }
}

impl std::ops::Index<usize> for MoveList {
    type Output = Move;
    fn index(&self, i: usize) -> &Move {
        &self.as_slice()[i]
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
