//! SplitMix64 (Steele, Lea and Flood 2014; the finaliser is Stafford's
//! "Mix13"): the one 64-bit mixer of the workspace, for Zobrist keys, hash
//! keys and derived seeds. Not a source of randomness for play: that is
//! `rand_chacha`, seeded through these mixes.

/// The generator's increment: 2^64 divided by the golden ratio, odd.
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The finaliser alone: a bijection of `u64` in which every input bit
/// changes every output bit with probability near 1/2.
#[inline]
pub const fn mix64(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The output of a SplitMix64 generator whose state is `state`: the state
/// advanced by [`GOLDEN_GAMMA`], then mixed. As a hash of one word it
/// spreads small numbers (0, 1, 2, ...) over the whole range.
#[inline]
pub const fn splitmix64(state: u64) -> u64 {
    mix64(state.wrapping_add(GOLDEN_GAMMA))
}

/// A SplitMix64 generator: a reproducible stream from one `u64` seed.
#[derive(Clone, Copy, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// The stream of `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next number of the stream.
    #[inline]
    pub const fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        mix64(self.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_of_seed_zero_matches_the_reference() {
        // The first outputs of the reference implementation
        // (prng.di.unimi.it/splitmix64.c) seeded with 0.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
        assert_eq!(splitmix64(GOLDEN_GAMMA), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn the_finaliser_is_a_bijection_on_a_sample() {
        let outputs: std::collections::HashSet<u64> = (0..10_000u64).map(mix64).collect();
        assert_eq!(outputs.len(), 10_000);
        assert_eq!(mix64(0), 0);
    }
}
