//! Output layer stacks chosen by game phase (Stockfish's layer stacks,
//! GuiNN's phase nets): the accumulator is shared, the dense layers after
//! it come in several copies (*buckets*) and each position runs the copy
//! of its phase. More weights where positions differ in kind, at the cost
//! of one bucket lookup per evaluation.
//!
//! | layout | buckets | bucket of a position |
//! |---|---|---|
//! | `single` (default) | 1 | 0 |
//! | `phase4` | 4 | 0 no king, > 16 pieces; 1 no king, 9-16; 2 a king, > 8; 3 <= 8 pieces |
//! | `pieces8` | 8 | `(pieces - 1) / 3` (1-3 pieces 0, ..., 22-24 pieces 7) |

use serde::{Deserialize, Serialize};
use shashki_rules::Position;
use std::fmt;
use std::str::FromStr;

/// Most buckets of any layout.
pub const MAX_STACKS: usize = 8;

/// How the dense layers are stacked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stacks {
    /// One set of dense layers (the layout of format version 1).
    #[default]
    Single,
    /// Four buckets by men-only / kings and piece count.
    Phase4,
    /// Eight buckets by piece count.
    Pieces8,
}

impl Stacks {
    /// Every layout, in documentation order.
    pub const ALL: [Stacks; 3] = [Stacks::Single, Stacks::Phase4, Stacks::Pieces8];

    /// Number of buckets.
    pub fn count(self) -> usize {
        match self {
            Stacks::Single => 1,
            Stacks::Phase4 => 4,
            Stacks::Pieces8 => 8,
        }
    }

    /// Whether this is the default single stack (not written to files).
    pub fn is_single(&self) -> bool {
        *self == Stacks::Single
    }

    /// The bucket `pos` is evaluated with.
    #[inline]
    pub fn bucket(self, pos: &Position) -> usize {
        let pieces = (pos.white() | pos.black()).count_ones() as usize;
        match self {
            Stacks::Single => 0,
            Stacks::Phase4 => match (pos.kings() != 0, pieces) {
                (_, 0..=8) => 3,
                (true, _) => 2,
                (false, 17..) => 0,
                (false, _) => 1,
            },
            Stacks::Pieces8 => (pieces.max(1) - 1) / 3,
        }
    }

    /// The name in configs and `model.json`.
    pub fn name(self) -> &'static str {
        match self {
            Stacks::Single => "single",
            Stacks::Phase4 => "phase4",
            Stacks::Pieces8 => "pieces8",
        }
    }
}

impl fmt::Display for Stacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Stacks {
    type Err = String;

    fn from_str(s: &str) -> Result<Stacks, String> {
        Stacks::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| format!("unknown output stacks {s:?} (single, phase4, pieces8)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_the_phase() {
        let start = Position::startpos();
        assert_eq!(Stacks::Single.bucket(&start), 0);
        assert_eq!(Stacks::Phase4.bucket(&start), 0);
        assert_eq!(Stacks::Pieces8.bucket(&start), 7);
        let kings = Position::from_fen("W:WKa1,c1,e1,g1,a3,c3,e3,g3,b2:Bb8,d8,f8").unwrap();
        assert_eq!(Stacks::Phase4.bucket(&kings), 2);
        let men = Position::from_fen("W:Wa1,c1,e1,g1,a3,c3,e3,g3,b2:Bb8,d8,f8").unwrap();
        assert_eq!(Stacks::Phase4.bucket(&men), 1);
        let ending = Position::from_fen("W:WKa1,c3:Bh8").unwrap();
        assert_eq!(Stacks::Phase4.bucket(&ending), 3);
        assert_eq!(Stacks::Pieces8.bucket(&ending), 0);
        for s in Stacks::ALL {
            assert_eq!(s.name().parse::<Stacks>().unwrap(), s);
            assert!(s.count() <= MAX_STACKS);
        }
        assert!("wide".parse::<Stacks>().unwrap_err().contains("phase4"));
    }
}
