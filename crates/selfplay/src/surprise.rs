//! Surprise weighting (KataGo's, for a value target): a game's samples are
//! written to its chunk as often as their weight says, so the learner sees
//! more of the positions where the search's score departed from what the
//! playing net expected of them statically. A share of each game's weight
//! is spread evenly and the rest in proportion to each sample's surprise,
//! the weights averaging one per game; a weight of 1.6 writes the sample
//! once and a second time with probability 0.6, drawn from the game's own
//! stream (so a run stays reproducible from its seed). Exact (tablebase)
//! samples keep a weight of one.

use crate::sample::{FLAG_EXACT, Sample};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The surprise of a sample: how far its search's expected score lies
/// from `static_score`, the playing net's own expected score of the
/// position (both from the side to move's view, in [0, 1]).
pub fn surprise(sample: &Sample, static_score: f32) -> f32 {
    let [w, d, _] = sample.root_wdl;
    (w + 0.5 * d - static_score).abs()
}

/// The samples of one game, each repeated as its weight says: `share` of
/// the weight goes by surprise (`surprises[i]` belongs to `samples[i]`),
/// `1 - share` evenly. `share = 0` returns the samples as they are and
/// draws nothing from `rng`.
pub fn weight_by_surprise(
    samples: Vec<Sample>,
    surprises: &[f32],
    share: f32,
    rng: &mut ChaCha8Rng,
) -> Vec<Sample> {
    debug_assert_eq!(samples.len(), surprises.len());
    let weighed = |s: &&Sample| s.flags & FLAG_EXACT == 0;
    let count = samples.iter().filter(weighed).count();
    let total: f32 = samples
        .iter()
        .zip(surprises)
        .filter(|(s, _)| weighed(s))
        .map(|(_, x)| x)
        .sum();
    if share <= 0.0 || count == 0 || total <= 0.0 {
        return samples;
    }
    let mean = total / count as f32;
    let mut out = Vec::with_capacity(samples.len() * 2);
    for (sample, &x) in samples.into_iter().zip(surprises) {
        let weight = if sample.flags & FLAG_EXACT != 0 {
            1.0
        } else {
            (1.0 - share) + share * x / mean
        };
        let copies = weight.floor() as usize + usize::from(rng.random::<f32>() < weight.fract());
        out.extend(std::iter::repeat_n(sample, copies));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use shashki_rules::{DrawState, Position};

    fn scored(expected: f32, ply: u16) -> Sample {
        let mut s = Sample::new(Position::startpos(), DrawState::default());
        s.root_wdl = [expected, 0.0, 1.0 - expected];
        s.ply = ply;
        s
    }

    #[test]
    fn surprising_samples_are_written_more_often_and_the_mean_weight_stays_one() {
        // One sample in ten surprises the net (0.5 away), the rest barely.
        let samples: Vec<Sample> = (0..1000).map(|i| scored(0.5, i)).collect();
        let surprises: Vec<f32> = (0..1000)
            .map(|i| if i % 10 == 0 { 0.5 } else { 0.01 })
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let out = weight_by_surprise(samples, &surprises, 0.5, &mut rng);
        let surprising = out.iter().filter(|s| s.ply % 10 == 0).count();
        // Weights: 0.5 + 0.5 * 0.5 / 0.059 = 4.74 and 0.5 + 0.5 * 0.01 / 0.059 = 0.58.
        assert!((440..=510).contains(&surprising), "{surprising}");
        assert!((900..=1100).contains(&out.len()), "{}", out.len());
    }

    #[test]
    fn no_share_no_change_and_exact_samples_keep_one_copy() {
        let samples: Vec<Sample> = (0..20).map(|i| scored(0.9, i)).collect();
        let surprises = vec![0.3; 20];
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let before = rng.clone();
        let out = weight_by_surprise(samples.clone(), &surprises, 0.0, &mut rng);
        assert_eq!(out, samples);
        assert_eq!(rng, before, "nothing drawn when off");
        let mut exact = samples;
        for s in &mut exact {
            s.flags = FLAG_EXACT;
        }
        let out = weight_by_surprise(exact.clone(), &surprises, 1.0, &mut rng);
        assert_eq!(out, exact);
        assert!((surprise(&scored(0.9, 0), 0.6) - 0.3).abs() < 1e-6);
    }
}
