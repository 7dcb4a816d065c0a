//! The evaluations of positions already seen, per evaluator: a quiet leaf
//! of the alpha-beta search is reached again through other move orders
//! (quiet moves commute) and in the next iteration, and its value depends
//! on the position alone. A hit skips the accumulator update and the dense
//! layers. Exact: an entry holds the whole position, not a hash of it.

use shashki_rules::{Color, Position};

/// Entries (16 bytes each): 256 KiB, half of this machine's L2 per core.
const ENTRIES: usize = 1 << 14;

#[derive(Clone, Copy)]
struct Entry {
    white: u32,
    black: u32,
    kings: u32,
    /// `2 * value + side to move` (White 0); values are centi-men, far
    /// inside `i32 / 2`.
    packed: i32,
}

/// No position has a square that is both White's and Black's.
const EMPTY: Entry = Entry {
    white: u32::MAX,
    black: u32::MAX,
    kings: 0,
    packed: 0,
};

/// A direct-mapped table from position to evaluation.
pub struct EvalCache {
    entries: Vec<Entry>,
}

impl Default for EvalCache {
    fn default() -> EvalCache {
        EvalCache {
            entries: vec![EMPTY; ENTRIES],
        }
    }
}

fn side_bit(pos: &Position) -> i32 {
    match pos.side_to_move() {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn slot(pos: &Position) -> usize {
    let men = u64::from(pos.white()) | u64::from(pos.black()) << 32;
    let rest = u64::from(pos.kings()) << 1 | side_bit(pos) as u64;
    let mixed = men.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ rest.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (mixed >> (64 - ENTRIES.trailing_zeros())) as usize
}

impl EvalCache {
    /// The stored value of `pos`, if any.
    #[inline]
    pub fn get(&self, pos: &Position) -> Option<i32> {
        let e = &self.entries[slot(pos)];
        let hit = e.white == pos.white()
            && e.black == pos.black()
            && e.kings == pos.kings()
            && e.packed & 1 == side_bit(pos);
        hit.then_some(e.packed >> 1)
    }

    /// Stores `value` for `pos`, replacing whatever shared its slot.
    #[inline]
    pub fn put(&mut self, pos: &Position, value: i32) {
        self.entries[slot(pos)] = Entry {
            white: pos.white(),
            black: pos.black(),
            kings: pos.kings(),
            packed: value << 1 | side_bit(pos),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_and_its_other_side_to_move_are_apart() {
        let mut cache = EvalCache::default();
        let pos = Position::from_fen("W:Wa1,c3,Ke5:Bb8,h6").unwrap();
        let other = Position::from_fen("B:Wa1,c3,Ke5:Bb8,h6").unwrap();
        assert_eq!(cache.get(&pos), None);
        cache.put(&pos, -37);
        assert_eq!(cache.get(&pos), Some(-37));
        assert_eq!(cache.get(&other), None);
        cache.put(&other, 12);
        assert_eq!(cache.get(&other), Some(12));
        let man = Position::from_fen("W:Wa1,c3,e5:Bb8,h6").unwrap();
        assert_eq!(cache.get(&man), None, "a king is not a man");
    }
}
