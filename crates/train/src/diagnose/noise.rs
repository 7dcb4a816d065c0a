//! Label noise of the self-play targets: how the depth-N search score a
//! sample stores agrees with its game's result, and (on a held-out set
//! drawn from chunks) how each blend of the two agrees with a deeper label.

use super::held_out::HeldOutSet;
use super::loss::{LossStats, PHASES, phase_of};
use shashki_selfplay::Sample;
use shashki_selfplay::sample::FLAG_TREE;
use std::fmt::Write;

/// Calibration buckets of the stored score.
pub const SCORE_BUCKETS: usize = 10;

/// How the stored scores of self-play samples agree with the results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NoiseReport {
    /// Samples looked at.
    pub samples: usize,
    /// Won, drawn, lost games (side to move's view).
    pub results: [usize; 3],
    /// The stored score as a predictor of the result.
    pub score_vs_result: LossStats,
    /// The same by phase ([`PHASES`]).
    pub phases: [LossStats; 4],
    /// Per score bucket (`[0, 0.1)`, ...): samples and the sum of results.
    pub calibration: [(usize, f64); SCORE_BUCKETS],
}

pub use crate::nnue_targets::sample_score;

/// The game result of a sample as an expected score.
pub fn sample_result(s: &Sample) -> f32 {
    (f32::from(s.result) + 1.0) / 2.0
}

/// Measures `samples` (tree samples have no game result: left out).
pub fn measure_noise(samples: &[Sample]) -> NoiseReport {
    let mut report = NoiseReport::default();
    for s in samples.iter().filter(|s| s.flags & FLAG_TREE == 0) {
        let (score, result) = (sample_score(s), sample_result(s));
        report.samples += 1;
        let outcome = match s.result.signum() {
            1 => 0,
            0 => 1,
            _ => 2,
        };
        report.results[outcome] += 1;
        report.score_vs_result.add(score, result);
        report.phases[phase_of(&s.position)].add(score, result);
        let bucket = ((score * SCORE_BUCKETS as f32) as usize).min(SCORE_BUCKETS - 1);
        report.calibration[bucket].0 += 1;
        report.calibration[bucket].1 += f64::from(result);
    }
    report
}

impl NoiseReport {
    /// The report as text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let n = self.samples.max(1) as f64;
        let [w, d, l] = self.results;
        let _ = writeln!(
            out,
            "{} samples; results (side to move): {:.1}% won, {:.1}% drawn, {:.1}% lost",
            self.samples,
            100.0 * w as f64 / n,
            100.0 * d as f64 / n,
            100.0 * l as f64 / n
        );
        let _ = writeln!(
            out,
            "stored score vs game result: {:>6} {:>8} {:>7}  (count, mse, sign agreement on decisive games)",
            "n", "mse", "sign"
        );
        let _ = writeln!(out, "  {:<22} {}", "all", self.score_vs_result);
        for (name, stats) in PHASES.iter().zip(&self.phases) {
            let _ = writeln!(out, "  {name:<22} {stats}");
        }
        let _ = writeln!(out, "calibration: stored score bucket -> mean game result");
        for (i, (count, sum)) in self.calibration.iter().enumerate() {
            if *count > 0 {
                let _ = writeln!(
                    out,
                    "  [{:.1}, {:.1}) {:>7} samples  mean result {:.3}",
                    i as f64 / SCORE_BUCKETS as f64,
                    (i + 1) as f64 / SCORE_BUCKETS as f64,
                    count,
                    sum / *count as f64
                );
            }
        }
        out
    }
}

/// On a held-out set drawn from chunks: the loss against the deep label of
/// the training target `lambda * score + (1 - lambda) * result`, for each
/// `lambda` given. Entries without a stored sample are skipped.
pub fn targets_vs_labels(set: &HeldOutSet, lambdas: &[f32]) -> Vec<(f32, LossStats)> {
    lambdas
        .iter()
        .map(|&lambda| {
            let mut stats = LossStats::default();
            for e in &set.positions {
                if let (Some(score), Some(result)) = (e.sample_score, e.sample_result) {
                    stats.add(lambda * score + (1.0 - lambda) * result, e.label);
                }
            }
            (lambda, stats)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_rules::{DrawState, Position};

    fn sample(score: f32, result: i8) -> Sample {
        let pos = Position::startpos();
        let mut s = Sample::new(pos, DrawState::default());
        s.root_wdl = [score, 0.0, 1.0 - score];
        s.result = result;
        s
    }

    #[test]
    fn scores_that_foretell_results_measure_as_low_noise() {
        let good = [sample(0.9, 1), sample(0.1, -1), sample(0.5, 0)];
        let report = measure_noise(&good);
        assert_eq!(report.samples, 3);
        assert_eq!(report.results, [1, 1, 1]);
        assert!((report.score_vs_result.mse() - 0.02 / 3.0).abs() < 1e-6);
        assert_eq!(report.score_vs_result.agree, 2);
        assert_eq!(report.calibration[9], (1, 1.0));
        let bad = [sample(0.9, -1), sample(0.1, 1)];
        let report = measure_noise(&bad);
        assert_eq!(report.score_vs_result.agree, 0);
        assert!(report.score_vs_result.mse() > 0.8);
        assert!(report.render().contains("2 samples"));
    }
}
