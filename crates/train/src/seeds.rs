//! Every seed of a run, derived from `[run] seed` by pure functions, so a
//! run is reproducible from its seed and a resumed run draws what an
//! uninterrupted one would.

/// Mixed with the run's seed to seed a fresh network (either family).
const NET_SALT: u64 = 0x4E37;
/// Mixed with the run's seed before the step to seed a batch draw.
const BATCH_SALT: u64 = 0xB47C_11E5;
/// Mixed with the run's seed before a refit's number.
const REFIT_SALT: u64 = 0x2EF1_7000;

/// SplitMix64-style mixing of two numbers into a seed.
pub fn mix(a: u64, b: u64) -> u64 {
    use shashki_rules::splitmix::{GOLDEN_GAMMA, splitmix64};
    splitmix64(a.wrapping_add(b.wrapping_mul(GOLDEN_GAMMA)))
}

/// The seed of the fresh network a run starts from.
pub fn net_seed(run_seed: u64) -> u64 {
    mix(run_seed, NET_SALT)
}

/// The seed of the batch drawn at `step`.
pub fn batch_seed(run_seed: u64, step: u64) -> u64 {
    mix(run_seed ^ BATCH_SALT, step)
}

/// The seed of the `number`-th refit (1-based): its fresh weights, if it
/// starts from fresh ones, and the base of its batch draws.
pub fn refit_seed(run_seed: u64, number: u64) -> u64 {
    mix(run_seed ^ REFIT_SALT, number)
}

/// The seed of self-play in the `session`-th start of a run (each restart
/// plays new games rather than repeating the first session's).
pub fn session_seed(run_seed: u64, session: u64) -> u64 {
    mix(run_seed, session)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_is_splitmix64() {
        // The first output of SplitMix64 seeded with 0.
        assert_eq!(mix(0, 0), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn seeds_are_pinned() {
        // Changing these changes every run's numbers: checkpoints of a run
        // would no longer match a rerun from its seed.
        assert_eq!(net_seed(7), 0xCDA0_08F9_2202_3554);
        assert_eq!(batch_seed(7, 3), 0x0060_48F2_F400_9221);
        assert_eq!(session_seed(7, 1), 0x044C_3CD7_F43C_661C);
    }

    #[test]
    fn every_step_and_run_draws_its_own_batch() {
        let seeds: std::collections::HashSet<u64> = (0..2)
            .flat_map(|run| (0..1000).map(move |step| batch_seed(run, step)))
            .collect();
        assert_eq!(seeds.len(), 2000);
    }
}
