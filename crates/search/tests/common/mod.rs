//! What the search crate's integration tests share: tables made in a
//! temporary folder, and the generator that samples their positions.

use shashki_rules::DrawRules;
use shashki_search::tablebase::Tablebases;

/// Tables of up to `pieces` pieces, generated in a temporary folder named
/// by `tag` and the process (removed once loaded).
pub fn generate_tables(pieces: u8, tag: &str) -> Tablebases {
    let dir = std::env::temp_dir().join(format!("shashki-{tag}-tb{pieces}-{}", std::process::id()));
    let tb = shashki_tablebase::generate(&dir, pieces, &DrawRules::default(), &mut |_| {})
        .expect("generate");
    let _ = std::fs::remove_dir_all(&dir);
    tb
}

/// A seeded stream of 31-bit numbers (Knuth's 64-bit linear congruential
/// generator, its high bits): the samples stay the same from run to run.
pub fn sampler(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    }
}
