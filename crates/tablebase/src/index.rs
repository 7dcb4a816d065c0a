//! Perfect-ish indexing of one signature's positions (side to move = White
//! after colour flipping): each piece group is a combination, ranked in
//! colex order. White men take the 28 squares below rank 8, Black men the
//! 28 above rank 1 (an index where the two overlap is unused), then White
//! kings and Black kings take what is still free, so no other index is
//! wasted.

use crate::material::Material;
use shashki_rules::bitboard::{RANK_1, RANK_8};
use shashki_rules::{Color, Position};

/// Binomial coefficients C(n, k) for n <= 32, k <= 8.
const BINOM: [[u64; 9]; 33] = {
    let mut t = [[0u64; 9]; 33];
    let mut n = 0;
    while n <= 32 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= 8 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

#[inline(always)]
fn binom(n: u32, k: u8) -> u64 {
    BINOM[n as usize][k as usize]
}

/// Colex rank of the set bits of `set` (already compressed to 0..n).
#[inline(always)]
fn rank(mut set: u32) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while set != 0 {
        r += binom(set.trailing_zeros(), i);
        set &= set - 1;
        i += 1;
    }
    r
}

/// The `k`-element set of colex rank `r`.
fn unrank(mut r: u64, k: u8) -> u32 {
    let mut set = 0;
    for i in (1..=k).rev() {
        let mut c = i as u32 - 1;
        while binom(c + 1, i) <= r {
            c += 1;
        }
        r -= binom(c, i);
        set |= 1 << c;
    }
    set
}

/// Compresses the squares of `set` (a subset of `domain`) to their order
/// among the squares of `domain`.
#[inline(always)]
fn compress(mut set: u32, domain: u32) -> u32 {
    let mut out = 0;
    while set != 0 {
        let sq = set.trailing_zeros();
        out |= 1 << (domain & ((1u32 << sq) - 1)).count_ones();
        set &= set - 1;
    }
    out
}

/// The inverse of [`compress`].
fn expand(mut set: u32, domain: u32) -> u32 {
    let mut out = 0;
    while set != 0 {
        let nth = set.trailing_zeros();
        let mut d = domain;
        for _ in 0..nth {
            d &= d - 1;
        }
        out |= d & d.wrapping_neg();
        set &= set - 1;
    }
    out
}

/// The index of one signature's positions.
#[derive(Clone, Copy, Debug)]
pub struct Indexer {
    material: Material,
    /// Sizes of the four groups: White men, Black men, White kings, Black kings.
    sizes: [u64; 4],
}

impl Indexer {
    /// The indexer of `material` (us = White, to move).
    pub fn new(material: Material) -> Indexer {
        let men = u32::from(material.men());
        let sizes = [
            binom(28, material.us.men),
            binom(28, material.them.men),
            binom(32 - men, material.us.kings),
            binom(32 - men - u32::from(material.us.kings), material.them.kings),
        ];
        Indexer { material, sizes }
    }

    /// Number of indices (some unused).
    pub fn len(&self) -> u64 {
        self.sizes.iter().product()
    }

    /// Never empty: every group has at least one placement.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The index of `pos`, which must have this material with White to move.
    #[inline]
    pub fn index(&self, pos: &Position) -> u64 {
        debug_assert_eq!(pos.side_to_move(), Color::White);
        debug_assert_eq!(Material::of(pos), self.material);
        let kings = pos.kings();
        let (wm, bm) = (pos.white() & !kings, pos.black() & !kings);
        let (wk, bk) = (pos.white() & kings, pos.black() & kings);
        let free = !(wm | bm);
        let ranks = [
            rank(compress(wm, !RANK_8)),
            rank(compress(bm, !RANK_1)),
            rank(compress(wk, free)),
            rank(compress(bk, free & !wk)),
        ];
        let mut idx = 0;
        for (r, size) in ranks.iter().zip(self.sizes) {
            idx = idx * size + r;
        }
        idx
    }

    /// The position (White to move) of `idx`, or `None` for an unused index.
    pub fn position(&self, mut idx: u64) -> Option<Position> {
        let mut ranks = [0u64; 4];
        for g in (0..4).rev() {
            ranks[g] = idx % self.sizes[g];
            idx /= self.sizes[g];
        }
        let m = self.material;
        let wm = expand(unrank(ranks[0], m.us.men), !RANK_8);
        let bm = expand(unrank(ranks[1], m.them.men), !RANK_1);
        if wm & bm != 0 {
            return None;
        }
        let free = !(wm | bm);
        let wk = expand(unrank(ranks[2], m.us.kings), free);
        let bk = expand(unrank(ranks[3], m.them.kings), free & !wk);
        Position::from_masks(wm | wk, bm | bk, wk | bk, Color::White).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material::Side;

    #[test]
    fn every_used_index_round_trips() {
        let m = Material {
            us: Side { men: 1, kings: 1 },
            them: Side { men: 2, kings: 0 },
        };
        let ix = Indexer::new(m);
        let mut used = 0;
        for i in 0..ix.len() {
            if let Some(pos) = ix.position(i) {
                assert_eq!(Material::of(&pos), m);
                assert_eq!(ix.index(&pos), i);
                used += 1;
            }
        }
        // 28 * C(28,2) men placements minus those where the White man stands
        // on one of the 24 squares both may use and a Black man (27 pairs
        // hold that square) stands there too; then the king on 29 squares.
        let men = 28 * 378 - 24 * 27;
        assert_eq!(used, men * 29);
    }
}
