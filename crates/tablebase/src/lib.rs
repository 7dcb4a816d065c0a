//! # shashki-tablebase
//!
//! Endgame tablebases for Russian checkers, exact under the official draw
//! rules: a probe with a position and its draw counters gives the result
//! the arbiter ([`shashki_rules::Game`]) would reach with best play, the
//! counting rules 7.2.4-7.2.8 and rule 2 included. Threefold repetition is
//! left to the caller, as everywhere.
//!
//! - [`generate()`]: retrograde analysis per material signature, all
//!   signatures up to N pieces, parallel (rayon), resumable, each file
//!   written atomically with a header and a checksum ([`format`](mod@format)).
//! - [`Tablebases`]: loaded once, `Send + Sync`, O(1) probes
//!   ([`Tablebases::probe`]) and best moves ([`Tablebases::best_moves`]).
//! - [`Material`]: the signatures (men and kings per side, seen from the
//!   side to move), one table each; [`Indexer`]: a signature's positions
//!   to and from table indices.
//!
//! Each entry stores, for the side to move, win/draw/loss when the counts of
//! this signature start afresh, and the distance in half-moves to the next
//! capture, promotion or end of the game (the "DTZ": every counting rule
//! restarts there). A probe with counters compares that distance with the
//! half-moves the counting rules still allow ([`counting`]); where 7.2.7
//! can run, the table holds one entry per remaining main-diagonal count.
//! See `docs/TABLEBASES.md`.

pub mod counting;
pub mod format;
mod generate;
mod index;
pub mod material;
mod probe;

pub use counting::{Counting, Unsupported, check_supported};
pub use format::{FORMAT_VERSION, RULES_VERSION, TableError};
pub use generate::{GenerateError, Progress, TableReport, generate, verify};
pub use index::Indexer;
pub use material::{Material, Side};
pub use probe::{Probe, Table, Tablebases, Wdl};

/// Largest distance an entry stores exactly; longer ones read as this.
pub const MAX_STORED_DISTANCE: u32 = 126;

/// One table entry: `0` draw; `1..=127` a win for the side to move in that
/// many half-moves to the next capture, promotion or end of the game;
/// `128 + d` a loss in `d`. Distances saturate at 127 (only "cursed" wins,
/// beyond every counting limit, come near it).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
#[repr(transparent)]
pub struct Entry(pub u8);

impl Entry {
    /// A draw whatever the counters.
    pub const DRAW: Entry = Entry(0);

    /// A win in `d >= 1` half-moves.
    pub fn win(d: u32) -> Entry {
        Entry(d.clamp(1, 127) as u8)
    }

    /// A loss in `d` half-moves (0: no legal move now).
    pub fn loss(d: u32) -> Entry {
        Entry(128 + d.min(127) as u8)
    }

    /// Win, draw or loss when no count stops it, and the distance.
    #[inline]
    pub fn decode(self) -> (Wdl, u32) {
        match self.0 {
            0 => (Wdl::Draw, 0),
            1..=127 => (Wdl::Win, u32::from(self.0)),
            _ => (Wdl::Loss, u32::from(self.0 - 128)),
        }
    }
}
