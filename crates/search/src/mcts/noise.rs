//! Root randomness: Dirichlet noise (AlphaZero) and Gumbel samples (Gumbel
//! AlphaZero), drawn from the caller's RNG.

use rand::Rng;
use rand_distr::{Distribution, Gamma, Gumbel};

/// Fills `out` with one Dirichlet(alpha, ..., alpha) sample (normalised
/// Gamma draws). Falls back to uniform if every draw underflows.
pub fn dirichlet<R: Rng + ?Sized>(rng: &mut R, alpha: f32, out: &mut [f32]) {
    if out.is_empty() {
        return;
    }
    let gamma = Gamma::new(f64::from(alpha), 1.0).expect("alpha > 0 is validated in the config");
    let mut sum = 0.0f64;
    for o in out.iter_mut() {
        let draw: f64 = gamma.sample(rng);
        sum += draw;
        *o = draw as f32;
    }
    if sum > 0.0 && sum.is_finite() {
        for o in out.iter_mut() {
            *o = (f64::from(*o) / sum) as f32;
        }
    } else {
        out.fill(1.0 / out.len() as f32);
    }
}

/// Mixes noise into priors: `p <- (1 - fraction) * p + fraction * noise`.
pub fn mix_noise(priors: &mut [f32], noise: &[f32], fraction: f32) {
    for (p, &n) in priors.iter_mut().zip(noise) {
        *p = (1.0 - fraction) * *p + fraction * n;
    }
}

/// Fills `out` with standard Gumbel samples times `scale` (zeros, without
/// touching the RNG, when `scale` is 0). Samples are clamped to a finite
/// range so a freak draw cannot turn into infinity.
pub fn gumbel<R: Rng + ?Sized>(rng: &mut R, scale: f32, out: &mut [f32]) {
    if scale == 0.0 {
        out.fill(0.0);
        return;
    }
    let dist = Gumbel::new(0.0f32, 1.0).expect("standard Gumbel");
    for o in out.iter_mut() {
        *o = scale * dist.sample(rng).clamp(-50.0, 50.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn dirichlet_is_a_reproducible_distribution() {
        let mut a = [0.0; 7];
        let mut b = [0.0; 7];
        dirichlet(&mut ChaCha8Rng::seed_from_u64(5), 0.3, &mut a);
        dirichlet(&mut ChaCha8Rng::seed_from_u64(5), 0.3, &mut b);
        assert_eq!(a, b);
        assert!((a.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(a.iter().all(|&x| x >= 0.0));
        let mut c = [0.0; 7];
        dirichlet(&mut ChaCha8Rng::seed_from_u64(6), 0.3, &mut c);
        assert_ne!(a, c);
    }

    #[test]
    fn mixing_keeps_a_distribution() {
        let mut p = [0.5, 0.5, 0.0];
        mix_noise(&mut p, &[0.0, 0.0, 1.0], 0.25);
        assert_eq!(p, [0.375, 0.375, 0.25]);
    }

    #[test]
    fn gumbel_scale_zero_is_deterministic() {
        let mut g = [1.0; 4];
        gumbel(&mut ChaCha8Rng::seed_from_u64(1), 0.0, &mut g);
        assert_eq!(g, [0.0; 4]);
    }
}
