//! Zobrist keys, generated at compile time (splitmix64) so every build and
//! every program agrees on them.

use crate::splitmix::{SplitMix64, splitmix64};

/// `PIECE[kind][square]` with kind 0 = white man, 1 = white king,
/// 2 = black man, 3 = black king.
pub const PIECE: [[u64; 32]; 4] = {
    let mut keys = [[0u64; 32]; 4];
    let mut rng = SplitMix64::new(0x5348_4153_484B_4930); // "SHASHKI0"
    let mut kind = 0;
    while kind < 4 {
        let mut sq = 0;
        while sq < 32 {
            keys[kind][sq] = rng.next_u64();
            sq += 1;
        }
        kind += 1;
    }
    keys
};

/// XORed in when Black is to move.
pub const BLACK_TO_MOVE: u64 = splitmix64(0x5349_4445_544F_4D56);

/// Index into [`PIECE`] for a piece of this colour and kind.
#[inline(always)]
pub const fn kind(black: bool, king: bool) -> usize {
    (black as usize) * 2 + king as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_stay_those_every_hash_was_made_with() {
        assert_eq!(PIECE[0][0], 0x73A2_18EF_292E_6187);
        assert_eq!(PIECE[3][31], 0x1E85_EDCA_6B24_26C3);
        assert_eq!(BLACK_TO_MOVE, 0x8A64_32D7_BA8D_DD57);
    }
}
