//! Which moves another thread is searching right now: simplified ABDADA
//! (after Tom Kerrigan). With more than one thread, a node searches its
//! first move at once and defers the later moves another thread is already
//! inside to the end of its list, so the threads spread over the tree
//! instead of searching the same subtrees side by side (plain Lazy SMP
//! leaves that to chance).
//!
//! The table is lossy by design: a slot holds one key, a collision only
//! makes a move look free (or busy) when it is not, which costs duplicated
//! work or a later visit, never a wrong score.

use shashki_rules::splitmix::splitmix64;
use std::sync::atomic::{AtomicU64, Ordering};

/// Slots in the table (a power of two): far more than the nodes two
/// threads are inside at once.
const SLOTS: usize = 1 << 14;

/// Nodes shallower than this share nothing: near the leaves, marking and
/// checking cost more than the duplicated work they save.
pub const MIN_DEPTH: i32 = 3;

/// The moves threads are inside, by [`move_key`].
pub struct BusyMoves {
    slots: Box<[AtomicU64]>,
}

impl Default for BusyMoves {
    fn default() -> Self {
        BusyMoves {
            slots: (0..SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

impl BusyMoves {
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[(key >> 32) as usize & (SLOTS - 1)]
    }

    /// Whether some thread is searching the move with this key.
    pub fn is_busy(&self, key: u64) -> bool {
        self.slot(key).load(Ordering::Relaxed) == key
    }

    /// Marks the move as being searched by this thread.
    pub fn enter(&self, key: u64) {
        self.slot(key).store(key, Ordering::Relaxed);
    }

    /// Clears the mark, unless another move has taken the slot since.
    pub fn leave(&self, key: u64) {
        let _ = self
            .slot(key)
            .compare_exchange(key, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

/// The key of move number `index` (in the node's generated list, which is
/// the same in every thread) of the node with table key `node`; never 0.
pub fn move_key(node: u64, index: usize) -> u64 {
    splitmix64(node ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_busy_between_enter_and_leave_only() {
        let busy = BusyMoves::default();
        let (a, b) = (move_key(42, 0), move_key(42, 1));
        assert_ne!(a, b);
        assert!(!busy.is_busy(a));
        busy.enter(a);
        assert!(busy.is_busy(a));
        assert!(!busy.is_busy(b));
        busy.leave(a);
        assert!(!busy.is_busy(a));
    }

    #[test]
    fn leaving_does_not_clear_a_move_that_took_the_slot_since() {
        let busy = BusyMoves::default();
        let a = move_key(7, 3);
        // A key with the same slot bits and different low bits.
        let b = a ^ 2;
        busy.enter(a);
        busy.enter(b);
        busy.leave(a);
        assert!(busy.is_busy(b));
        assert!(!busy.is_busy(a));
    }
}
