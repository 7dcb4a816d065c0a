//! The transposition table: a fixed-size array of entries indexed by the low
//! bits of the key, replaced when a new result is at least as deep or belongs
//! to another position.
//!
//! Every entry carries the number of the search that stored it; starting a
//! new search bumps the number, which empties the table in O(1) (old entries
//! are invisible), so fixed-depth searches stay deterministic without
//! wiping megabytes before every move.

use shashki_rules::Move;

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true value is at least the score (a beta cut-off).
    Lower,
    /// The true value is at most the score (no move raised alpha).
    Upper,
}

/// One stored search result.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The full key, to tell colliding positions apart.
    pub key: u64,
    /// The best (or refuting) move found, tried first next time.
    pub best_move: Option<Move>,
    /// The score, mate scores relative to this node (see `Searcher`).
    pub score: i32,
    /// The remaining depth the score was searched to.
    pub depth: u8,
    /// How the score bounds the true value.
    pub bound: Bound,
    /// The search that stored it (set by the table).
    pub generation: u32,
}

/// A bounded table of [`Entry`]; its size never grows after creation.
pub struct TranspositionTable {
    entries: Vec<Entry>,
    mask: usize,
    /// The current search; entries of other searches count as empty.
    generation: u32,
}

/// A slot nobody wrote (generation 0 is never current).
const EMPTY: Entry = Entry {
    key: 0,
    best_move: None,
    score: 0,
    depth: 0,
    bound: Bound::Exact,
    generation: 0,
};

impl TranspositionTable {
    /// A table of at most `megabytes` MiB (at least one entry), rounded down to
    /// a power-of-two number of entries.
    pub fn new(megabytes: usize) -> TranspositionTable {
        let entry_size = std::mem::size_of::<Entry>();
        let wanted = (megabytes.max(1) << 20) / entry_size;
        let len = if wanted.is_power_of_two() {
            wanted
        } else {
            (wanted.next_power_of_two() / 2).max(1)
        };
        TranspositionTable {
            entries: vec![EMPTY; len],
            mask: len - 1,
            generation: 1,
        }
    }

    /// Number of slots.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.entries.len()
    }

    /// Empties the table for a new search (a new search starts from a clean
    /// table, which keeps fixed-depth searches deterministic).
    pub fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // After 2^32 searches the numbers come round: wipe for real.
            self.entries.fill(EMPTY);
            self.generation = 1;
        }
    }

    /// The entry stored for `key` in this search, if its slot holds it.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let entry = self.entries[key as usize & self.mask];
        (entry.key == key && entry.generation == self.generation).then_some(entry)
    }

    /// Stores a result, keeping a deeper result of the same position.
    #[inline]
    pub fn store(&mut self, mut entry: Entry) {
        entry.generation = self.generation;
        let slot = &mut self.entries[entry.key as usize & self.mask];
        let keep_old =
            slot.generation == self.generation && slot.key == entry.key && slot.depth > entry.depth;
        if !keep_old {
            *slot = entry;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_is_bounded_and_replacement_prefers_depth() {
        let mut tt = TranspositionTable::new(1);
        assert!(tt.capacity() * std::mem::size_of::<Entry>() <= 1 << 20);
        assert!(tt.capacity().is_power_of_two());
        let entry = |key, depth, score| Entry {
            key,
            best_move: None,
            score,
            depth,
            bound: Bound::Exact,
            generation: 0,
        };
        tt.store(entry(42, 5, 10));
        tt.store(entry(42, 3, 20));
        assert_eq!(tt.probe(42).unwrap().score, 10, "shallower result kept out");
        tt.store(entry(42, 5, 30));
        assert_eq!(tt.probe(42).unwrap().score, 30);
        // A colliding key replaces the slot; the old key is then gone.
        let other = 42 + tt.capacity() as u64;
        tt.store(entry(other, 1, 40));
        assert!(tt.probe(42).is_none());
        assert_eq!(tt.probe(other).unwrap().score, 40);
        tt.clear();
        assert!(tt.probe(other).is_none());
        // After a clear, a shallow result may replace the old deep one.
        tt.store(entry(other, 0, 50));
        assert_eq!(tt.probe(other).unwrap().score, 50);
    }
}
