//! What an NNUE sample is trained towards, and which samples are trained
//! on (issue 36's "cleaner targets"):
//!
//! - the target: `lambda * score + (1 - lambda) * result` (Stockfish's
//!   trainer), with `lambda` on a linear schedule over the training steps
//!   ([`TargetRules::lambda_at`]); a tree sample (off the game line) has
//!   no game result and trains on its score alone; an exact (tablebase)
//!   label is its own score and result;
//! - early-ply skipping: samples before `min_sample_ply` are not trained on;
//! - win/draw/loss filtering (nnue-pytorch's `wld_filtered`): a sample is
//!   kept with the probability of its game result under a win-rate model
//!   of its score, so scores the result contradicts are mostly dropped.
//!   The model ([`WinRateModel`], Stockfish's form) is fitted by maximum
//!   likelihood to the (score, result) pairs the learner has seen
//!   ([`WinRateFit`]).

use crate::config::NnueSection;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use shashki_selfplay::Sample;
use shashki_selfplay::sample::{FLAG_EXACT, FLAG_TREE};

/// Centi-men per logit unit of a stored score (`score_to_wdl`'s scale).
const CP_PER_UNIT: f64 = 200.0;
/// Stored scores are read back as centi-men within this bound.
const CP_LIMIT: f64 = 2000.0;
/// Width of a score bucket of the fit's histogram, in centi-men.
const BUCKET_CP: f64 = 10.0;
/// Buckets of the histogram (`-CP_LIMIT ..= CP_LIMIT`).
const BUCKETS: usize = (2.0 * CP_LIMIT / BUCKET_CP) as usize + 1;

/// The expected score the search stored (`W + D/2` of its root W/D/L).
pub fn sample_score(sample: &Sample) -> f32 {
    let [w, d, _] = sample.root_wdl;
    (w + 0.5 * d).clamp(0.0, 1.0)
}

/// The stored score back in centi-men (`score_to_wdl`'s inverse), within
/// +-2000 (certain scores land on the bound).
pub fn sample_cp(sample: &Sample) -> f64 {
    let s = f64::from(sample_score(sample)).clamp(1e-9, 1.0 - 1e-9);
    (CP_PER_UNIT * (s / (1.0 - s)).ln()).clamp(-CP_LIMIT, CP_LIMIT)
}

/// Stockfish's win-rate model: at a score of `x` centi-men the side to
/// move wins with `1 / (1 + exp((a - x) / b))` and loses with
/// `1 / (1 + exp((a + x) / b))`; the rest is the draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WinRateModel {
    /// The score at which a win is as likely as not, centi-men.
    pub a: f64,
    /// The spread, centi-men.
    pub b: f64,
}

impl WinRateModel {
    /// Win, draw and loss probabilities at `cp`.
    pub fn wdl(&self, cp: f64) -> [f64; 3] {
        let win = 1.0 / (1.0 + ((self.a - cp) / self.b).exp());
        let loss = 1.0 / (1.0 + ((self.a + cp) / self.b).exp());
        [win, (1.0 - win - loss).max(0.0), loss]
    }

    /// The probability of game result `result` (+1, 0, -1 from the side to
    /// move's view) at `cp`: the chance the WDL filter keeps the sample.
    pub fn result_probability(&self, cp: f64, result: i8) -> f64 {
        let [w, d, l] = self.wdl(cp);
        match result {
            1 => w,
            -1 => l,
            _ => d,
        }
    }
}

/// (score, result) counts of the samples seen, and the win-rate model
/// that fits them best.
#[derive(Clone, Debug)]
pub struct WinRateFit {
    /// `counts[bucket][result + 1]`.
    counts: Vec<[u64; 3]>,
    total: u64,
}

impl Default for WinRateFit {
    fn default() -> Self {
        WinRateFit {
            counts: vec![[0; 3]; BUCKETS],
            total: 0,
        }
    }
}

impl WinRateFit {
    /// Counts a sample (tree samples have no game result and are not counted).
    pub fn add(&mut self, sample: &Sample) {
        if sample.flags & FLAG_TREE != 0 {
            return;
        }
        let bucket = ((sample_cp(sample) + CP_LIMIT) / BUCKET_CP).round() as usize;
        self.counts[bucket.min(BUCKETS - 1)][(sample.result + 1) as usize] += 1;
        self.total += 1;
    }

    /// Samples counted.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Log-likelihood of the counts under `model`.
    fn log_likelihood(&self, model: &WinRateModel) -> f64 {
        let mut sum = 0.0;
        for (i, counts) in self.counts.iter().enumerate() {
            if counts.iter().all(|&c| c == 0) {
                continue;
            }
            let cp = i as f64 * BUCKET_CP - CP_LIMIT;
            // `wdl` is [win, draw, loss]; the counts are indexed by result + 1,
            // [loss, draw, win].
            for (p, &c) in model.wdl(cp).iter().zip(counts.iter().rev()) {
                sum += c as f64 * p.max(1e-12).ln();
            }
        }
        sum
    }

    /// The maximum-likelihood model: a grid over `a` in 0..=1500 and `b`
    /// in 10..=1500 centi-men, refined twice around its best point.
    /// `None` with nothing counted.
    pub fn fit(&self) -> Option<WinRateModel> {
        if self.total == 0 {
            return None;
        }
        let (mut a_lo, mut a_hi, mut b_lo, mut b_hi) = (0.0, 1500.0, 10.0, 1500.0);
        let mut best = WinRateModel { a: 0.0, b: 200.0 };
        const STEPS: usize = 40;
        for _ in 0..3 {
            let mut best_ll = f64::NEG_INFINITY;
            for i in 0..=STEPS {
                for j in 0..=STEPS {
                    let model = WinRateModel {
                        a: a_lo + (a_hi - a_lo) * i as f64 / STEPS as f64,
                        b: b_lo + (b_hi - b_lo) * j as f64 / STEPS as f64,
                    };
                    let ll = self.log_likelihood(&model);
                    if ll > best_ll {
                        (best, best_ll) = (model, ll);
                    }
                }
            }
            let (da, db) = ((a_hi - a_lo) / STEPS as f64, (b_hi - b_lo) / STEPS as f64);
            (a_lo, a_hi) = ((best.a - 2.0 * da).max(0.0), best.a + 2.0 * da);
            (b_lo, b_hi) = ((best.b - 2.0 * db).max(1.0), best.b + 2.0 * db);
        }
        Some(best)
    }
}

/// The target and filter settings of `[nnue]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetRules {
    /// Lambda at step 0.
    pub lambda: f64,
    /// Lambda at `lambda_steps` and after.
    pub lambda_end: f64,
    /// Steps of the schedule (0: constant `lambda`).
    pub lambda_steps: u64,
    /// Samples before this ply are skipped.
    pub min_sample_ply: u32,
    /// Win/draw/loss filtering on.
    pub wdl_filter: bool,
    /// Samples fitted before the filter starts.
    pub wdl_filter_min_samples: u64,
}

impl TargetRules {
    /// The rules `[nnue]` sets.
    pub fn from_config(nnue: &NnueSection) -> TargetRules {
        TargetRules {
            lambda: nnue.lambda,
            lambda_end: nnue.lambda_end,
            lambda_steps: nnue.lambda_steps,
            min_sample_ply: nnue.min_sample_ply,
            wdl_filter: nnue.wdl_filter,
            wdl_filter_min_samples: nnue.wdl_filter_min_samples,
        }
    }

    /// Lambda at training step `step`: linear from `lambda` to
    /// `lambda_end` over `lambda_steps`, then `lambda_end`.
    pub fn lambda_at(&self, step: u64) -> f64 {
        if self.lambda_steps == 0 {
            return self.lambda;
        }
        let t = step.min(self.lambda_steps) as f64 / self.lambda_steps as f64;
        self.lambda + (self.lambda_end - self.lambda) * t
    }

    /// True unless the sample is skipped by ply, or dropped by the WDL
    /// filter under `model` (drawing from `rng` only for filtered samples).
    pub fn keeps(
        &self,
        sample: &Sample,
        model: Option<&WinRateModel>,
        rng: &mut ChaCha8Rng,
    ) -> bool {
        if u32::from(sample.ply) < self.min_sample_ply {
            return false;
        }
        match model {
            // Tree samples have no result to contradict; exact labels agree.
            Some(m) if self.wdl_filter && sample.flags & (FLAG_TREE | FLAG_EXACT) == 0 => {
                rng.random::<f64>() < m.result_probability(sample_cp(sample), sample.result)
            }
            _ => true,
        }
    }
}

/// The training target of `sample` at weight `lambda` of the score.
pub fn target(sample: &Sample, lambda: f32) -> f32 {
    let score = sample_score(sample);
    if sample.flags & FLAG_TREE != 0 {
        return score;
    }
    let result = (sample.result as f32 + 1.0) / 2.0;
    lambda * score + (1.0 - lambda) * result
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use shashki_rules::{DrawState, Position};
    use shashki_selfplay::score_to_wdl;

    fn sample(cp: i32, result: i8, ply: u16, flags: u8) -> Sample {
        let mut s = Sample::new(Position::startpos(), DrawState::default());
        s.root_wdl = score_to_wdl(cp);
        s.result = result;
        s.ply = ply;
        s.flags = flags;
        s
    }

    #[test]
    fn lambda_follows_its_schedule_by_step() {
        let rules = TargetRules {
            lambda: 1.0,
            lambda_end: 0.7,
            lambda_steps: 1000,
            min_sample_ply: 0,
            wdl_filter: false,
            wdl_filter_min_samples: 0,
        };
        for (step, expected) in [(0, 1.0), (500, 0.85), (1000, 0.7), (5000, 0.7)] {
            assert!((rules.lambda_at(step) - expected).abs() < 1e-12, "{step}");
        }
        let constant = TargetRules {
            lambda_steps: 0,
            ..rules
        };
        assert_eq!(constant.lambda_at(123_456), 1.0);
    }

    #[test]
    fn targets_blend_score_and_result_except_tree_samples() {
        let s = sample(200, -1, 30, 0);
        let score = 1.0 / (1.0 + (-1.0f32).exp());
        assert!((target(&s, 0.5) - 0.5 * score).abs() < 1e-6);
        assert!((target(&s, 1.0) - score).abs() < 1e-6);
        let tree = sample(200, 0, 30, FLAG_TREE);
        assert!((target(&tree, 0.0) - score).abs() < 1e-6);
        let mut exact = sample(0, 1, 30, FLAG_EXACT);
        exact.root_wdl = [1.0, 0.0, 0.0];
        assert_eq!(target(&exact, 0.3), 1.0);
    }

    #[test]
    fn early_plies_are_skipped() {
        let rules = TargetRules {
            lambda: 0.5,
            lambda_end: 0.5,
            lambda_steps: 0,
            min_sample_ply: 16,
            wdl_filter: false,
            wdl_filter_min_samples: 0,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert!(!rules.keeps(&sample(0, 0, 15, 0), None, &mut rng));
        assert!(rules.keeps(&sample(0, 0, 16, 0), None, &mut rng));
    }

    #[test]
    fn the_filter_drops_a_contradicting_sample_with_the_model_probability() {
        let model = WinRateModel { a: 300.0, b: 100.0 };
        // A +400 score in a lost game: by hand, loss = 1 / (1 + e^((300 + 400) / 100))
        // = 1 / (1 + e^7) = 0.000911; win = 1 / (1 + e^-1) = 0.731.
        let [w, _, l] = model.wdl(400.0);
        assert!((l - 0.000_911_0).abs() < 1e-6, "{l}");
        assert!((w - 0.731_058_6).abs() < 1e-6, "{w}");
        // A +100 score in a lost game: loss = 1 / (1 + e^4) = 0.017986.
        let contradicting = sample(100, -1, 40, 0);
        let cp = sample_cp(&contradicting);
        assert!((cp - 100.0).abs() < 1e-3, "{cp}");
        let p = model.result_probability(cp, -1);
        assert!((p - 0.017_986).abs() < 1e-5, "{p}");
        let rules = TargetRules {
            lambda: 0.5,
            lambda_end: 0.5,
            lambda_steps: 0,
            min_sample_ply: 0,
            wdl_filter: true,
            wdl_filter_min_samples: 0,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let trials = 200_000;
        let kept = (0..trials)
            .filter(|_| rules.keeps(&contradicting, Some(&model), &mut rng))
            .count();
        let share = kept as f64 / trials as f64;
        // Binomial standard deviation: sqrt(p (1 - p) / n) = 0.0003.
        assert!((share - p).abs() < 0.0015, "kept {share}, expected {p}");
        // A consistent sample (+100, won): win = 1 / (1 + e^2) = 0.1192, a
        // draw 1 - 0.1192 - 0.0180 = 0.8628.
        let drawn = sample(100, 0, 40, 0);
        let kept = (0..trials)
            .filter(|_| rules.keeps(&drawn, Some(&model), &mut rng))
            .count() as f64
            / trials as f64;
        assert!((kept - 0.8628).abs() < 0.005, "{kept}");
        // Tree and exact samples are never filtered.
        for flags in [FLAG_TREE, FLAG_EXACT] {
            assert!((0..100).all(|_| rules.keeps(
                &sample(100, -1, 40, flags),
                Some(&model),
                &mut rng
            )));
        }
    }

    #[test]
    fn the_fit_recovers_the_model_that_made_the_results() {
        let truth = WinRateModel { a: 250.0, b: 120.0 };
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut fit = WinRateFit::default();
        for _ in 0..200_000 {
            let cp = rng.random_range(-800..=800);
            let [w, d, _] = truth.wdl(cp as f64);
            let u = rng.random::<f64>();
            let result = if u < w {
                1
            } else if u < w + d {
                0
            } else {
                -1
            };
            fit.add(&sample(cp, result, 40, 0));
        }
        assert_eq!(fit.total(), 200_000);
        let model = fit.fit().unwrap();
        assert!((model.a - truth.a).abs() < 15.0, "{model:?}");
        assert!((model.b - truth.b).abs() < 10.0, "{model:?}");
        assert!(WinRateFit::default().fit().is_none());
    }
}
