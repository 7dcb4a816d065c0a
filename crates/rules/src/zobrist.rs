//! Zobrist keys, generated at compile time (splitmix64) so every build and
//! every program agrees on them.

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// `PIECE[kind][square]` with kind 0 = white man, 1 = white king,
/// 2 = black man, 3 = black king.
pub const PIECE: [[u64; 32]; 4] = {
    let mut keys = [[0u64; 32]; 4];
    let mut state = 0x5348_4153_484B_4930; // "SHASHKI0"
    let mut kind = 0;
    while kind < 4 {
        let mut sq = 0;
        while sq < 32 {
            let (next, key) = splitmix64(state);
            state = next;
            keys[kind][sq] = key;
            sq += 1;
        }
        kind += 1;
    }
    keys
};

/// XORed in when Black is to move.
pub const BLACK_TO_MOVE: u64 = splitmix64(0x5349_4445_544F_4D56).1;

/// Index into [`PIECE`] for a piece of this colour and kind.
#[inline(always)]
pub const fn kind(black: bool, king: bool) -> usize {
    (black as usize) * 2 + king as usize
}
