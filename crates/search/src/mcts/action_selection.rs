//! Which child a descent follows: PUCT (AlphaZero) and the deterministic
//! Gumbel rule below the root, as plain functions of the children's numbers.
//!
//! Values are from the point of view of the player choosing (the parent's
//! side to move), in [-1, 1]. Ties go to the lowest index (the move
//! generator's order), which keeps the search deterministic.

/// What PUCT needs to know about one child.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctChild {
    /// Prior probability of the move.
    pub prior: f32,
    /// Visits, in-flight descents included; 0 means never tried.
    pub visits: f32,
    /// Mean value for the chooser (virtual loss included); ignored when
    /// `visits` is 0, where first-play urgency applies.
    pub q: f32,
}

/// AlphaZero's exploration rate `c(s) = c_init + ln((N(s) + c_base + 1) / c_base)`.
#[inline]
pub fn exploration_rate(c_init: f32, c_base: f32, parent_visits: f32) -> f32 {
    c_init + ((parent_visits + c_base + 1.0) / c_base).ln()
}

/// First-play urgency: the value assumed for an untried child, the parent's
/// value lowered by `reduction * sqrt(prior mass of the tried children)`
/// (Leela Chess Zero's rule: the more of the policy is explored, the less
/// promising the rest).
#[inline]
pub fn first_play_urgency(parent_value: f32, reduction: f32, visited_prior_mass: f32) -> f32 {
    parent_value - reduction * visited_prior_mass.max(0.0).sqrt()
}

/// The PUCT score `Q + c * P * sqrt(N) / (1 + n)`.
#[inline]
pub fn puct_score(q: f32, prior: f32, visits: f32, c_sqrt_parent: f32) -> f32 {
    q + c_sqrt_parent * prior / (1.0 + visits)
}

/// Parameters of one PUCT choice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctParams {
    /// `c_init`.
    pub c_init: f32,
    /// `c_base`.
    pub c_base: f32,
    /// First-play-urgency reduction.
    pub fpu_reduction: f32,
    /// The parent's visits, in-flight descents included.
    pub parent_visits: f32,
    /// The parent's mean value for its side to move.
    pub parent_value: f32,
}

/// The index of the child with the highest PUCT score (0 for no children).
pub fn puct_select<I>(children: I, params: &PuctParams) -> usize
where
    I: Iterator<Item = PuctChild> + Clone,
{
    let visited_mass: f32 = children
        .clone()
        .filter(|c| c.visits > 0.0)
        .map(|c| c.prior)
        .sum();
    let fpu = first_play_urgency(params.parent_value, params.fpu_reduction, visited_mass);
    let c = exploration_rate(params.c_init, params.c_base, params.parent_visits);
    let c_sqrt = c * params.parent_visits.max(1.0).sqrt();
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for (i, child) in children.enumerate() {
        let q = if child.visits > 0.0 { child.q } else { fpu };
        let score = puct_score(q, child.prior, child.visits, c_sqrt);
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best
}

/// Gumbel AlphaZero's selection below the root: the child whose share of
/// visits lags furthest behind the improved policy,
/// `argmax_a pi'(a) - N(a) / (1 + sum_b N(b))`.
pub fn gumbel_interior_select(improved_policy: &[f32], visits: &[f32]) -> usize {
    debug_assert_eq!(improved_policy.len(), visits.len());
    let total: f32 = visits.iter().sum();
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for (i, (&p, &n)) in improved_policy.iter().zip(visits).enumerate() {
        let score = p - n / (1.0 + total);
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(parent_visits: f32) -> PuctParams {
        PuctParams {
            c_init: 1.25,
            c_base: 19652.0,
            fpu_reduction: 0.0,
            parent_visits,
            parent_value: 0.0,
        }
    }

    #[test]
    fn exploration_rate_grows_with_visits() {
        let c0 = exploration_rate(1.25, 19652.0, 0.0);
        assert!((c0 - (1.25 + (19653.0f32 / 19652.0).ln())).abs() < 1e-6);
        let big = exploration_rate(1.25, 19652.0, 19652.0 * 10.0);
        assert!((big - (1.25 + (19652.0f32 * 11.0 + 1.0).ln() - 19652.0f32.ln())).abs() < 1e-4);
        assert!(big > c0 + 2.0);
    }

    #[test]
    fn first_visit_follows_the_prior() {
        let children = [0.2, 0.5, 0.3].map(|prior| PuctChild {
            prior,
            visits: 0.0,
            q: 0.0,
        });
        assert_eq!(puct_select(children.iter().copied(), &params(1.0)), 1);
    }

    #[test]
    fn exploitation_against_exploration() {
        // A well-visited strong child against an untried one with a big prior.
        let children = [
            PuctChild {
                prior: 0.5,
                visits: 10.0,
                q: 0.9,
            },
            PuctChild {
                prior: 0.5,
                visits: 0.0,
                q: 0.0,
            },
        ];
        // FPU value 0, exploration: 0.5 * c * sqrt(11) ~ 2.07 > 0.9 + 0.19.
        assert_eq!(puct_select(children.iter().copied(), &params(11.0)), 1);
        // With a harsh FPU reduction the untried child waits.
        let harsh = PuctParams {
            fpu_reduction: 3.0,
            ..params(11.0)
        };
        assert_eq!(puct_select(children.iter().copied(), &harsh), 0);
    }

    #[test]
    fn fpu_uses_visited_mass() {
        assert_eq!(first_play_urgency(0.5, 0.25, 0.0), 0.5);
        assert!((first_play_urgency(0.5, 0.25, 0.64) - 0.3).abs() < 1e-6);
    }

    #[test]
    fn ties_go_to_the_first() {
        let children = [PuctChild {
            prior: 0.5,
            visits: 0.0,
            q: 0.0,
        }; 4];
        assert_eq!(puct_select(children.iter().copied(), &params(1.0)), 0);
        assert_eq!(gumbel_interior_select(&[0.25; 4], &[0.0; 4]), 0);
    }

    #[test]
    fn gumbel_interior_tracks_the_policy() {
        // pi' = (0.6, 0.4): visits should follow 3:2.
        let pi = [0.6, 0.4];
        let mut visits = [0.0f32; 2];
        for _ in 0..10 {
            let a = gumbel_interior_select(&pi, &visits);
            visits[a] += 1.0;
        }
        assert_eq!(visits, [6.0, 4.0]);
    }
}
