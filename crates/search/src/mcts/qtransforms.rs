//! Completed Q-values for Gumbel search (mctx's
//! `qtransform_completed_by_mix_value`).
//!
//! Unvisited children get the node's *mixed value*: its raw evaluation
//! blended with the prior-weighted mean Q of the visited children. The
//! completed values are mapped to [0, 1] and scaled by
//! `sigma(q) = (c_visit + max_b N(b)) * c_scale * q`, so they can be added
//! to logits.

/// Knobs of the transform (from [`SearchConfig`](super::SearchConfig)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QTransform {
    /// `c_visit`.
    pub c_visit: f32,
    /// `c_scale`.
    pub c_scale: f32,
    /// Min-max rescale to [0, 1] (else `(q + 1) / 2`).
    pub rescale_values: bool,
}

/// The node's value for unvisited children: `(v + sum_b N(b) * q_mix) /
/// (1 + sum_b N(b))`, `q_mix` the prior-weighted mean Q of the visited
/// children, `v` the raw evaluation. All values for the node's mover.
pub fn mixed_value(raw_value: f32, priors: &[f32], q: &[f32], visits: &[f32]) -> f32 {
    let mut total_visits = 0.0f32;
    let mut visited_prior = 0.0f32;
    let mut weighted_q = 0.0f32;
    for ((&p, &q), &n) in priors.iter().zip(q).zip(visits) {
        total_visits += n;
        if n > 0.0 {
            let p = p.max(f32::MIN_POSITIVE);
            visited_prior += p;
            weighted_q += p * q;
        }
    }
    if visited_prior <= 0.0 {
        return raw_value;
    }
    (raw_value + total_visits * weighted_q / visited_prior) / (total_visits + 1.0)
}

/// Writes `sigma(completed Q)` for each child into `out`.
///
/// `q[a]` is ignored where `visits[a]` is 0 (the mixed value is used).
pub fn completed_sigma_q(
    transform: &QTransform,
    raw_value: f32,
    priors: &[f32],
    q: &[f32],
    visits: &[f32],
    out: &mut [f32],
) {
    let value = mixed_value(raw_value, priors, q, visits);
    let mut lo = f32::INFINITY;
    let mut hi = f32::NEG_INFINITY;
    let mut max_visits = 0.0f32;
    for ((o, &q), &n) in out.iter_mut().zip(q).zip(visits) {
        *o = if n > 0.0 { q } else { value };
        lo = lo.min(*o);
        hi = hi.max(*o);
        max_visits = max_visits.max(n);
    }
    let scale = (transform.c_visit + max_visits) * transform.c_scale;
    if transform.rescale_values {
        let span = (hi - lo).max(1e-8);
        for o in out.iter_mut() {
            *o = scale * (*o - lo) / span;
        }
    } else {
        for o in out.iter_mut() {
            *o = scale * (*o + 1.0) * 0.5;
        }
    }
}

/// `softmax(logits + sigma_q)` from priors (logits = ln prior), written into
/// `out`: the Gumbel improved policy. Computed as `p * exp(sigma - max)`
/// normalised, which is the same without a logarithm per move.
pub fn improved_policy(priors: &[f32], sigma_q: &[f32], out: &mut [f32]) {
    let max = sigma_q.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for ((o, &p), &s) in out.iter_mut().zip(priors).zip(sigma_q) {
        *o = p.max(0.0) * (s - max).exp();
        sum += *o;
    }
    if sum > 0.0 && sum.is_finite() {
        let inv = 1.0 / sum;
        for o in out.iter_mut() {
            *o *= inv;
        }
    } else {
        // Unusable priors (the search normalises them, so only a caller
        // of this function can cause it): stay a distribution.
        let n = out.len() as f32;
        out.iter_mut().for_each(|o| *o = 1.0 / n);
    }
}

/// The logit of a probability (floored so a zero prior stays finite).
#[inline]
pub fn logit(p: f32) -> f32 {
    p.max(1e-30).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: QTransform = QTransform {
        c_visit: 50.0,
        c_scale: 0.1,
        rescale_values: true,
    };

    #[test]
    fn mixed_value_without_visits_is_the_raw_value() {
        assert_eq!(mixed_value(0.3, &[0.5, 0.5], &[0.0, 0.0], &[0.0, 0.0]), 0.3);
    }

    #[test]
    fn mixed_value_blends() {
        // Visited: child 0 (prior 0.25, q 1.0, 3 visits). (0.2 + 3 * 1.0) / 4.
        let v = mixed_value(0.2, &[0.25, 0.75], &[1.0, -1.0], &[3.0, 0.0]);
        assert!((v - 0.8).abs() < 1e-6);
        // Two visited: weights by prior among visited.
        let v = mixed_value(0.0, &[0.25, 0.75], &[1.0, -1.0], &[1.0, 1.0]);
        assert!((v - 2.0 * (0.25 - 0.75) / 3.0).abs() < 1e-6);
    }

    #[test]
    fn completed_q_rescales_and_scales() {
        let mut out = [0.0; 3];
        // Child 2 unvisited: completed with the mixed value.
        completed_sigma_q(
            &T,
            0.0,
            &[0.3, 0.3, 0.4],
            &[1.0, -1.0, 0.0],
            &[2.0, 2.0, 0.0],
            &mut out,
        );
        let scale = (50.0 + 2.0) * 0.1;
        assert!((out[0] - scale).abs() < 1e-5);
        assert!(out[1].abs() < 1e-6);
        // mixed = (0 + 4 * 0) / 5 = 0 -> halfway.
        assert!((out[2] - scale * 0.5).abs() < 1e-5);
        let linear = QTransform {
            rescale_values: false,
            ..T
        };
        completed_sigma_q(
            &linear,
            0.0,
            &[0.5, 0.5],
            &[0.5, 0.0],
            &[1.0, 0.0],
            &mut out[..2],
        );
        let scale = 51.0 * 0.1;
        assert!((out[0] - scale * 0.75).abs() < 1e-5);
    }

    #[test]
    fn improved_policy_is_a_distribution_that_favours_q() {
        let mut out = [0.0; 3];
        improved_policy(&[0.2, 0.5, 0.3], &[0.0, 0.0, 0.0], &mut out);
        assert!((out[1] - 0.5).abs() < 1e-6);
        improved_policy(&[0.2, 0.5, 0.3], &[5.0, 0.0, 0.0], &mut out);
        assert!((out.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(out[0] > 0.9);
    }
}
