//! Unbalanced opening books: positions that a deep search scores inside a
//! band of advantage for one side, played as colour-swapped pairs so that
//! fewer games are drawn and a difference in strength shows sooner (the
//! idea of Stefan Pohl's UHO books for Stockfish testing).
//!
//! Making one has an expensive part and a cheap one, so that the band can
//! be chosen by measurement after the searching is done:
//!
//! 1. [`candidates`]: every distinct position of the first plies from the
//!    standard start, and positions of recorded games and self-play chunks.
//! 2. [`scoring`]: a cheap search screens every candidate (positions it
//!    finds won or lost, or far outside the window of interest, go no
//!    further); a deep search scores the survivors. Both append each result
//!    to the [`pool`], a journal that an interrupted run resumes from
//!    without searching a position again.
//! 3. [`select`]: the pool's positions whose deep score lies in a band,
//!    written as a book that `match --openings` reads, each line named by
//!    its score, depth and source; a held-out split by position keeps the
//!    books for testing apart from the starts for self-play.
//!
//! A position's identity is the position itself (side to move included) or
//! its colour-flipped twin, whichever sorts first ([`book_key`]): played as
//! a colour-swapped pair, a position and its twin are the same two games.

pub mod candidates;
pub mod pool;
pub mod scoring;
pub mod select;

use shashki_rules::Position;
use shashki_rules::splitmix::mix64;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use thiserror::Error;

/// Why a book could not be made.
#[derive(Debug, Error)]
pub enum BookError {
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// An input file holds something that is not what it should be.
    #[error("{}: {reason}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where in the file.
        reason: String,
    },
    /// The engine could not be made or could not score a position.
    #[error("engine: {0}")]
    Engine(String),
}

impl BookError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> BookError {
        BookError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A position's identity in a book: the position or its colour-flipped
/// twin ([`Position::flipped`]), whichever has the smaller hash (then the
/// smaller masks, should two hashes ever meet).
pub fn book_key(position: &Position) -> Position {
    let twin = position.flipped();
    let order = |p: &Position| (p.hash(), p.white(), p.black(), p.kings());
    if order(&twin) < order(position) {
        twin
    } else {
        *position
    }
}

/// Which held-out part a position belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Books for testing (matches, rating, the gate).
    Test,
    /// Starts for self-play and training.
    Train,
}

impl Part {
    /// The part of `position`: a function of the position alone (no seed,
    /// no pool), so every book made from any pool agrees on it and a test
    /// book never shares a position with a self-play start. `test_share`
    /// (0 to 1) of all positions are test positions.
    pub fn of(position: &Position, test_share: f64) -> Part {
        // The hash mixed once more, so the split does not follow any one
        // Zobrist key bit; 2^-53 steps are finer than any share asked for.
        let unit =
            (mix64(book_key(position).hash() ^ SPLIT_SALT) >> 11) as f64 / (1u64 << 53) as f64;
        if unit < test_share {
            Part::Test
        } else {
            Part::Train
        }
    }
}

/// Keeps the split apart from other uses of the same hash.
const SPLIT_SALT: u64 = 0x626f_6f6b_2d73_706c; // "book-spl"

impl FromStr for Part {
    type Err = String;

    fn from_str(text: &str) -> Result<Part, String> {
        match text {
            "test" => Ok(Part::Test),
            "train" => Ok(Part::Train),
            other => Err(format!("unknown part {other:?}: expected test or train")),
        }
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Part::Test => "test",
            Part::Train => "train",
        })
    }
}

/// Plies from the start of a game, both ends included: `6` or `2..=6`
/// (`2..7`, Rust's half-open form, means the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlyRange {
    /// The first ply taken.
    pub first: u32,
    /// The last ply taken.
    pub last: u32,
}

impl PlyRange {
    /// True if `ply` is in the range.
    pub fn contains(&self, ply: u32) -> bool {
        (self.first..=self.last).contains(&ply)
    }
}

impl FromStr for PlyRange {
    type Err = String;

    fn from_str(text: &str) -> Result<PlyRange, String> {
        let (low, high) = parse_range::<u32>(text)?;
        let last = match high {
            Bound::Included(h) => h,
            Bound::Excluded(h) if h > low => h - 1,
            Bound::Excluded(_) => return Err(format!("empty ply range {text:?}")),
        };
        if last < low {
            return Err(format!("empty ply range {text:?}"));
        }
        Ok(PlyRange { first: low, last })
    }
}

impl fmt::Display for PlyRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..={}", self.first, self.last)
    }
}

/// A band of scores in centi-men (a man is 100): `80..160` takes 80 up to
/// but not including 160, `80..=160` includes 160.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreBand {
    /// The lowest score in the band.
    pub low: i32,
    /// The highest score in the band.
    pub high: i32,
}

impl ScoreBand {
    /// True if `score` is in the band.
    pub fn contains(&self, score: i32) -> bool {
        (self.low..=self.high).contains(&score)
    }
}

impl FromStr for ScoreBand {
    type Err = String;

    fn from_str(text: &str) -> Result<ScoreBand, String> {
        let (low, high) = parse_range::<i32>(text)?;
        let high = match high {
            Bound::Included(h) => h,
            Bound::Excluded(h) => h - 1,
        };
        if high < low {
            return Err(format!("empty score band {text:?}"));
        }
        Ok(ScoreBand { low, high })
    }
}

impl fmt::Display for ScoreBand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..={}", self.low, self.high)
    }
}

enum Bound<T> {
    Included(T),
    Excluded(T),
}

/// `A..B`, `A..=B` or a single `A` (meaning `A..=A`).
fn parse_range<T: FromStr + Copy>(text: &str) -> Result<(T, Bound<T>), String>
where
    T::Err: fmt::Display,
{
    let number = |t: &str| {
        t.trim()
            .parse::<T>()
            .map_err(|e| format!("bad range {text:?}: {t:?}: {e} (expected A..B, A..=B or A)"))
    };
    if let Some((low, high)) = text.split_once("..=") {
        Ok((number(low)?, Bound::Included(number(high)?)))
    } else if let Some((low, high)) = text.split_once("..") {
        Ok((number(low)?, Bound::Excluded(number(high)?)))
    } else {
        let n = number(text)?;
        Ok((n, Bound::Included(n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_both_rust_forms_and_single_values() {
        assert_eq!(
            "2..=6".parse::<PlyRange>(),
            Ok(PlyRange { first: 2, last: 6 })
        );
        assert_eq!(
            "2..7".parse::<PlyRange>(),
            Ok(PlyRange { first: 2, last: 6 })
        );
        assert_eq!("8".parse::<PlyRange>(), Ok(PlyRange { first: 8, last: 8 }));
        assert!("6..2".parse::<PlyRange>().is_err());
        assert!("3..3".parse::<PlyRange>().is_err());
        assert!("x..4".parse::<PlyRange>().unwrap_err().contains("x..4"));
        let band: ScoreBand = "80..160".parse().unwrap();
        assert!(band.contains(80) && band.contains(159) && !band.contains(160));
        assert_eq!(
            "-20..=20".parse::<ScoreBand>(),
            Ok(ScoreBand { low: -20, high: 20 })
        );
    }

    #[test]
    fn the_split_is_by_position_and_about_the_share_asked() {
        let positions: Vec<Position> = candidates::line_candidates(PlyRange { first: 4, last: 4 })
            .iter()
            .map(|o| o.position())
            .collect();
        let test = positions
            .iter()
            .filter(|p| Part::of(p, 0.5) == Part::Test)
            .count();
        let share = test as f64 / positions.len() as f64;
        assert!(
            (0.45..0.55).contains(&share),
            "{test} of {}",
            positions.len()
        );
        // A position and its colour-flipped twin are in the same part;
        // every position is in exactly one.
        for p in &positions {
            assert_eq!(Part::of(p, 0.5), Part::of(&p.flipped(), 0.5));
            assert_eq!(Part::of(p, 0.0), Part::Train);
            assert_eq!(Part::of(p, 1.0), Part::Test);
        }
    }
}
