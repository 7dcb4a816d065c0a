//! The transposition table: a fixed-size array of slots indexed by the low
//! bits of the key, shared by all search threads (Lazy SMP) without locks.
//!
//! A slot is two atomic words, `data` and `key ^ data`: a torn write (two
//! threads storing at once) fails the check and reads as empty, so a probe
//! never returns another position's entry (up to 64-bit key collisions). The
//! best move is stored as its index in the node's generated move list,
//! which is deterministic for a position.
//!
//! Every entry carries the number of the search that stored it. A search
//! either starts from an empty table ([`TranspositionTable::forget`]: the
//! numbers so far become invisible, O(1), so fixed-depth searches stay
//! deterministic without wiping megabytes before every move) or keeps what
//! the previous searches of the game found ([`TranspositionTable::age`]:
//! their entries still answer probes, but any result of the new search may
//! replace them).

use std::sync::atomic::{AtomicU64, Ordering};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Index of the best (or refuting) move in the node's move list.
    pub best_move: Option<u8>,
    /// The score, mate scores relative to this node (see `Searcher`).
    pub score: i32,
    /// The remaining depth the score was searched to.
    pub depth: u8,
    /// How the score bounds the true value.
    pub bound: Bound,
}

struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// A bounded table of [`Entry`]; its size never grows after creation.
pub struct TranspositionTable {
    slots: Vec<Slot>,
    mask: usize,
    /// The current search's number.
    generation: u8,
    /// The oldest search whose entries still count; older ones are empty.
    oldest: u8,
}

impl Entry {
    fn pack(self, generation: u8) -> u64 {
        let bound = match self.bound {
            Bound::Exact => 1u64,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let mv = self.best_move.map_or(0, |i| u64::from(i) + 1);
        u64::from(self.score.clamp(-32_767, 32_767) as i16 as u16)
            | u64::from(self.depth) << 16
            | bound << 24
            | mv << 32
            | u64::from(generation) << 48
    }

    fn unpack(data: u64) -> (Entry, u8) {
        let bound = match (data >> 24) & 3 {
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => Bound::Exact,
        };
        let mv = ((data >> 32) & 0x1FF) as u16;
        let entry = Entry {
            best_move: mv.checked_sub(1).map(|i| i as u8),
            score: i32::from(data as u16 as i16),
            depth: (data >> 16) as u8,
            bound,
        };
        (entry, (data >> 48) as u8)
    }
}

impl TranspositionTable {
    /// A table of at most `megabytes` MiB (at least one slot), rounded down to
    /// a power-of-two number of slots.
    pub fn new(megabytes: usize) -> TranspositionTable {
        let slot_size = std::mem::size_of::<Slot>();
        let wanted = (megabytes.max(1) << 20) / slot_size;
        let len = if wanted.is_power_of_two() {
            wanted
        } else {
            (wanted.next_power_of_two() / 2).max(1)
        };
        TranspositionTable {
            slots: (0..len)
                .map(|_| Slot {
                    check: AtomicU64::new(0),
                    data: AtomicU64::new(0),
                })
                .collect(),
            mask: len - 1,
            generation: 1,
            oldest: 1,
        }
    }

    /// Number of slots.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Empties the table for a new search (a new search starts from a clean
    /// table, which keeps fixed-depth searches deterministic).
    pub fn forget(&mut self) {
        self.next_generation();
        self.oldest = self.generation;
    }

    /// Starts a new search that keeps the entries of the earlier ones (the
    /// moves before in the same game): they answer probes until a result of
    /// this search replaces them, whatever its depth.
    pub fn age(&mut self) {
        self.next_generation();
    }

    fn next_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // After 255 searches the numbers come round: wipe for real.
            for slot in &mut self.slots {
                *slot.check.get_mut() = 0;
                *slot.data.get_mut() = 0;
            }
            self.generation = 1;
            self.oldest = 1;
        }
    }

    /// The entry stored for `key` by a search that still counts, if its slot
    /// holds it, with whether this search stored it.
    #[inline]
    fn lookup(&self, key: u64) -> Option<(Entry, bool)> {
        let slot = &self.slots[key as usize & self.mask];
        let data = slot.data.load(Ordering::Relaxed);
        let check = slot.check.load(Ordering::Relaxed);
        if check ^ data != key {
            return None;
        }
        let (entry, generation) = Entry::unpack(data);
        (self.oldest..=self.generation)
            .contains(&generation)
            .then_some((entry, generation == self.generation))
    }

    /// Starts loading `key`'s slot into the cache: a node asks for it before
    /// generating its moves, so the load (most of a probe's cost) overlaps
    /// that work. Changes nothing a search computes.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let slot: *const Slot = &self.slots[key as usize & self.mask];
            // SAFETY: a prefetch reads nothing and never faults; SSE is
            // part of every x86_64 CPU.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
    }

    /// The entry stored for `key`, if its slot holds one that still counts.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.lookup(key).map(|(entry, _)| entry)
    }

    /// Stores a result, keeping a deeper result of the same position from
    /// this search (an earlier search's gives way).
    #[inline]
    pub fn store(&self, key: u64, entry: Entry) {
        let slot = &self.slots[key as usize & self.mask];
        if let Some((old, current)) = self.lookup(key)
            && current
            && old.depth > entry.depth
        {
            return;
        }
        let data = entry.pack(self.generation);
        slot.data.store(data, Ordering::Relaxed);
        slot.check.store(key ^ data, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored result of `depth` and `score` (the move and bound do not
    /// matter to the replacement rules).
    fn entry(depth: u8, score: i32) -> Entry {
        Entry {
            best_move: Some(3),
            score,
            depth,
            bound: Bound::Lower,
        }
    }

    #[test]
    fn size_is_bounded_and_replacement_prefers_depth() {
        let mut tt = TranspositionTable::new(1);
        assert!(tt.capacity() * std::mem::size_of::<Slot>() <= 1 << 20);
        assert!(tt.capacity().is_power_of_two());
        tt.store(42, entry(5, 10));
        tt.store(42, entry(3, 20));
        assert_eq!(
            tt.probe(42).unwrap(),
            entry(5, 10),
            "shallower result kept out"
        );
        tt.store(42, entry(5, -30));
        assert_eq!(tt.probe(42).unwrap().score, -30);
        // A colliding key replaces the slot; the old key is then gone.
        let other = 42 + tt.capacity() as u64;
        tt.store(other, entry(1, 40));
        assert!(tt.probe(42).is_none());
        assert_eq!(tt.probe(other).unwrap().score, 40);
        tt.forget();
        assert!(tt.probe(other).is_none());
        // After a clear, a shallow result may replace the old deep one.
        tt.store(other, entry(0, 50));
        assert_eq!(tt.probe(other).unwrap().score, 50);
    }

    #[test]
    fn entries_round_trip_through_the_packing() {
        for best_move in [None, Some(0), Some(255)] {
            for score in [0, 1, -1, 29_990, -29_990] {
                for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
                    let entry = Entry {
                        best_move,
                        score,
                        depth: 200,
                        bound,
                    };
                    assert_eq!(Entry::unpack(entry.pack(7)), (entry, 7));
                }
            }
        }
    }

    #[test]
    fn an_aged_table_keeps_earlier_entries_until_this_search_replaces_them() {
        let mut tt = TranspositionTable::new(1);
        tt.store(7, entry(9, 10));
        tt.age();
        assert_eq!(tt.probe(7), Some(entry(9, 10)), "kept for the next move");
        tt.store(7, entry(2, 20));
        assert_eq!(
            tt.probe(7),
            Some(entry(2, 20)),
            "an older deep entry gives way"
        );
        tt.store(7, entry(1, 30));
        assert_eq!(
            tt.probe(7),
            Some(entry(2, 20)),
            "this search's deeper entry stays"
        );
        tt.age();
        tt.forget();
        assert_eq!(tt.probe(7), None, "forget hides every earlier search");
    }

    #[test]
    fn wrapped_generations_wipe_the_table() {
        let mut tt = TranspositionTable::new(1);
        let entry = Entry {
            best_move: None,
            score: 1,
            depth: 1,
            bound: Bound::Exact,
        };
        tt.store(9, entry);
        for _ in 0..255 {
            tt.age();
        }
        // The generation is back at 1, where the entry was stored: the wipe
        // must have removed it.
        assert!(tt.probe(9).is_none());
    }
}
