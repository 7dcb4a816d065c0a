//! Sequential halving at the Gumbel root (mctx's `seq_halving`).
//!
//! The budget of `n` simulations is split into `ceil(log2 m)` phases; in each
//! phase every action still considered gets the same number of visits, then
//! the better half (by `g + logits + sigma(q)`) survives. The schedule is a
//! table: before simulation `i`, only actions visited exactly
//! `sequence[i]` times may be chosen, so the halving needs no explicit state.

/// The visit count an action must have to be eligible for simulation
/// `index` (0-based), for `m` considered actions and a budget of `n`
/// simulations. Computed phase by phase (O(log m)), so a huge budget costs
/// nothing; indices past `n` continue the last phase.
pub fn considered_visit(m: usize, n: usize, index: usize) -> u32 {
    if m <= 1 {
        return index as u32;
    }
    let log2m = (m as f64).log2().ceil() as usize;
    let mut considered = m;
    let mut visits = 0usize;
    let mut start = 0usize;
    loop {
        let extra = (n / (log2m * considered)).max(1);
        let len = extra * considered;
        if index < start + len {
            return (visits + (index - start) / considered) as u32;
        }
        start += len;
        visits += extra;
        considered = (considered / 2).max(2);
    }
}

/// The whole schedule: [`considered_visit`] for every simulation of `n`.
pub fn considered_visit_sequence(m: usize, n: usize, out: &mut Vec<u32>) {
    out.clear();
    out.extend((0..n).map(|i| considered_visit(m, n, i)));
}

/// The score of a root action for sequential halving: `g + logit + sigma_q`
/// where its visit count equals `considered_visit`, minus infinity elsewhere.
/// Logits should be shifted so their maximum is 0 (done by the caller).
#[inline]
pub fn score_considered(
    considered_visit: u32,
    visits: u32,
    gumbel: f32,
    logit: f32,
    sigma_q: f32,
) -> f32 {
    if visits != considered_visit {
        return f32::NEG_INFINITY;
    }
    (gumbel + logit + sigma_q).max(-1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(m: usize, n: usize) -> Vec<u32> {
        let mut out = Vec::new();
        considered_visit_sequence(m, n, &mut out);
        out
    }

    #[test]
    fn matches_mctx() {
        // Values from mctx's seq_halving_test / by hand.
        assert_eq!(seq(1, 4), vec![0, 1, 2, 3]);
        assert_eq!(seq(2, 6), vec![0, 0, 1, 1, 2, 2]);
        // m = 4, n = 16: log2 = 2; 16/(2*4) = 2 rounds of 4, then 16/(2*2) = 4 rounds of 2.
        assert_eq!(
            seq(4, 16),
            vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
        );
        // m = 16, n = 8: not even one round; the first 8 actions by score.
        assert_eq!(seq(16, 8), vec![0; 8]);
        // m = 4, n = 8: one round of 4, then pairs.
        assert_eq!(seq(4, 8), vec![0, 0, 0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn sequences_never_decrease() {
        // All considered actions keep equal visits, so the table never drops.
        for m in 1..20 {
            for n in 1..70 {
                let s = seq(m, n);
                assert_eq!(s.len(), n);
                for w in s.windows(2) {
                    assert!(w[1] >= w[0], "m={m} n={n}: {s:?}");
                }
            }
        }
    }

    #[test]
    fn huge_budgets_cost_nothing() {
        let n = u32::MAX as usize;
        assert_eq!(considered_visit(16, n, 0), 0);
        assert_eq!(considered_visit(16, n, 15), 0);
        // The first phase gives each of 16 actions n / (4 * 16) visits.
        assert_eq!(considered_visit(16, n, 16), 1);
    }

    #[test]
    fn score_masks_other_visit_counts() {
        assert_eq!(score_considered(1, 0, 0.5, -1.0, 2.0), f32::NEG_INFINITY);
        assert_eq!(score_considered(1, 1, 0.5, -1.0, 2.0), 1.5);
    }
}
