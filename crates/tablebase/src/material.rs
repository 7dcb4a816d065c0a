//! Material signatures: how many men and kings each side has, seen from the
//! side to move. Every table holds the positions of one signature with its
//! "us" side to move; the other side to move is the colour-flipped table.

use shashki_rules::{Color, Position};
use std::fmt;

/// Men and kings of one side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Side {
    /// Men.
    pub men: u8,
    /// Kings.
    pub kings: u8,
}

impl Side {
    /// Pieces in all.
    pub fn pieces(self) -> u8 {
        self.men + self.kings
    }
}

/// A material signature: the side to move ("us") and the other ("them").
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Material {
    /// The side to move.
    pub us: Side,
    /// The other side.
    pub them: Side,
}

impl Material {
    /// The signature of `pos`, seen from its side to move.
    pub fn of(pos: &Position) -> Material {
        let side = |c: Color| {
            let pieces = pos.pieces(c);
            Side {
                men: (pieces & !pos.kings()).count_ones() as u8,
                kings: (pieces & pos.kings()).count_ones() as u8,
            }
        };
        let stm = pos.side_to_move();
        Material {
            us: side(stm),
            them: side(stm.opponent()),
        }
    }

    /// The same material with the other side to move.
    pub fn swapped(self) -> Material {
        Material {
            us: self.them,
            them: self.us,
        }
    }

    /// Pieces on the board.
    pub fn pieces(self) -> u8 {
        self.us.pieces() + self.them.pieces()
    }

    /// Men on the board.
    pub fn men(self) -> u8 {
        self.us.men + self.them.men
    }

    /// Four bytes: our men, our kings, their men, their kings (file header).
    pub fn to_bytes(self) -> [u8; 4] {
        [self.us.men, self.us.kings, self.them.men, self.them.kings]
    }

    /// The inverse of [`Material::to_bytes`].
    pub fn from_bytes(b: [u8; 4]) -> Material {
        Material {
            us: Side {
                men: b[0],
                kings: b[1],
            },
            them: Side {
                men: b[2],
                kings: b[3],
            },
        }
    }

    /// The table's file name, e.g. `2K1M-1K0M.stb` (side to move first).
    pub fn file_name(self) -> String {
        format!("{self}.stb")
    }

    /// Every signature with at least one piece a side and at most
    /// `max_pieces` in all, in generation order: fewer pieces first (a
    /// capture leads there), then fewer men (a promotion leads there).
    pub fn all_up_to(max_pieces: u8) -> Vec<Material> {
        let mut sides = Vec::new();
        for pieces in 1..max_pieces {
            for kings in 0..=pieces {
                sides.push(Side {
                    men: pieces - kings,
                    kings,
                });
            }
        }
        let mut all: Vec<Material> = sides
            .iter()
            .flat_map(|&us| sides.iter().map(move |&them| Material { us, them }))
            .filter(|m| m.pieces() <= max_pieces)
            .collect();
        all.sort_by_key(|m| (m.pieces(), m.men(), *m));
        all
    }

    /// The signatures up to `max_pieces` grouped in pairs that are generated
    /// together (a signature and its swap, which its moves lead to), in
    /// generation order. A symmetric signature is a pair of one.
    pub fn pairs_up_to(max_pieces: u8) -> Vec<Vec<Material>> {
        let mut pairs: Vec<Vec<Material>> = Vec::new();
        for m in Material::all_up_to(max_pieces) {
            if m.swapped() == m {
                pairs.push(vec![m]);
            } else if m < m.swapped() {
                pairs.push(vec![m, m.swapped()]);
            }
        }
        pairs
    }
}

/// `2K1M-1K0M`: our kings and men, then theirs.
impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}K{}M-{}K{}M",
            self.us.kings, self.us.men, self.them.kings, self.them.men
        )
    }
}
