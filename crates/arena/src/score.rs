//! Score summaries of a pairing: wins/draws/losses, score, pentanomial
//! counts of game pairs, and the Elo difference with a 95 % interval in two
//! units.
//!
//! *Logistic* Elo: a difference `d` means an expected score of
//! `1 / (1 + 10^(-d / 400))`. Its interval is the normal interval of the
//! mean score mapped through that curve.
//!
//! *Normalized* Elo (fishtest's nElo, `server/fishtest/stats/LLRcalc.py` and
//! the raw-statistics page `templates/tests_stats.mak` of
//! official-stockfish/fishtest): the score excess over one standard
//! deviation of a game's score, scaled so that small differences without
//! draws equal logistic Elo. It does not depend on the draw rate, and the
//! games a test needs to see a difference go as `1 / nElo^2`, so it is the
//! figure that compares books and time controls. With the counts
//! regularized as fishtest does (an empty category counts `1e-3`), their
//! total `N` (pairs or games), the mean `mu` and the variance `var` of a
//! unit's score (a pair's score is the mean of its two games, in `[0, 1]`),
//! and its skewness `g1` and excess kurtosis `g2`:
//!
//! - `t = (mu - 1/2) / sqrt(var)`, with the variance of its estimate
//!   `var_t = max(0, 1 - t g1 + t^2 (g2 + 2) / 4)` per unit;
//! - the 95 % interval of `t` is `t +- 1.95996 sqrt(var_t / N)`;
//! - `nElo = 800 / ln 10 * t / sqrt(2)` for pairs (the standard deviation
//!   of one game's score is `sqrt(2 var)`), `800 / ln 10 * t` for unpaired
//!   games; the bounds alike.
//!
//! A sample with one outcome only (a sweep, all draws) has no variance: its
//! nElo is `+-inf` (0 for the middle outcome) with an unbounded interval.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The two-sided 95 % quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// `800 / ln 10`: normalized Elo per unit of `t` (score excess over the
/// standard deviation of a game's score); fishtest's `nelo_divided_by_nt`.
pub const NELO_PER_T: f64 = 347.435_585_522_601_46;

/// The count given to an empty category before the statistics of normalized
/// Elo and the SPRT (fishtest's `LLRcalc.regularize`), so the variance
/// is never zero.
pub const REGULARIZATION: f64 = 1e-3;

/// Expected score for a logistic Elo difference `elo`.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Logistic Elo difference for an expected score in `[0, 1]`; infinite at
/// 0 and 1.
pub fn logistic_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// An Elo difference with its 95 % interval (bounds may be infinite when a
/// side scored 0 % or 100 %).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloInterval {
    /// The point estimate.
    pub elo: f64,
    /// Lower end of the 95 % interval.
    pub lower: f64,
    /// Upper end of the 95 % interval.
    pub upper: f64,
}

impl EloInterval {
    /// No games: estimate 0, unbounded.
    pub fn unknown() -> EloInterval {
        EloInterval {
            elo: 0.0,
            lower: f64::NEG_INFINITY,
            upper: f64::INFINITY,
        }
    }

    /// Normalized Elo with its 95 % interval from counts of evenly spaced
    /// scores `0, 1/(k-1), ..., 1` (L/D/W games, or pairs scoring 0 to 2
    /// points); `paired` says the units are game pairs. The formulas are in
    /// the module documentation.
    fn normalized(counts: &[u64], paired: bool) -> EloInterval {
        let Some(m) = Moments::regularized(counts) else {
            return EloInterval::unknown();
        };
        let outcomes = counts.iter().filter(|&&c| c > 0).count();
        if outcomes == 1 {
            // One outcome only (a sweep, all draws): no variance to measure
            // the excess against; the regularized figures would be
            // thousands of nElo wide. The direction alone is known.
            let side = m.mean - 0.5;
            return EloInterval {
                elo: if side.abs() < 1e-6 {
                    0.0
                } else {
                    side.signum() * f64::INFINITY
                },
                ..EloInterval::unknown()
            };
        }
        let t = (m.mean - 0.5) / m.var.sqrt();
        let var_t = (1.0 - t * m.skewness + 0.25 * t * t * (m.excess_kurtosis + 2.0)).max(0.0);
        let half = Z95 * (var_t / m.units).sqrt();
        let scale = if paired {
            NELO_PER_T / std::f64::consts::SQRT_2
        } else {
            NELO_PER_T
        };
        EloInterval {
            elo: scale * t,
            lower: scale * (t - half),
            upper: scale * (t + half),
        }
    }

    /// Interval from the mean score per game and its standard error over
    /// `units` independent units (games or pairs). When every unit scored
    /// all or nothing the normal interval would have zero width, so the
    /// exact binomial (Clopper-Pearson) bound `0.025^(1/units)` is used for
    /// the finite end instead.
    fn from_score(mean: f64, std_error: f64, units: f64) -> EloInterval {
        let mut lower = mean - Z95 * std_error;
        let mut upper = mean + Z95 * std_error;
        if std_error == 0.0 && units > 0.0 {
            let bound = 0.025f64.powf(1.0 / units);
            if mean >= 1.0 {
                lower = bound;
            } else if mean <= 0.0 {
                upper = 1.0 - bound;
            }
        }
        EloInterval {
            elo: logistic_elo(mean),
            lower: logistic_elo(lower),
            upper: logistic_elo(upper),
        }
    }
}

impl fmt::Display for EloInterval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} [{}, {}]",
            format_elo(self.elo),
            format_elo(self.lower),
            format_elo(self.upper)
        )
    }
}

/// Formats an Elo value with a sign, `+inf`/`-inf` for infinities.
pub fn format_elo(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    } else if elo.is_nan() {
        "nan".into()
    } else {
        format!("{elo:+.1}")
    }
}

/// Wins, draws and losses from one player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Wdl {
    /// Counts from the values given.
    pub fn new(wins: u64, draws: u64, losses: u64) -> Wdl {
        Wdl {
            wins,
            draws,
            losses,
        }
    }

    /// Adds one game scored `points` (1, 0.5 or 0) for this player.
    pub fn add_points(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points > 0.25 {
            self.draws += 1;
        } else {
            self.losses += 1;
        }
    }

    /// The same results from the opponent's point of view.
    pub fn flipped(&self) -> Wdl {
        Wdl::new(self.losses, self.draws, self.wins)
    }

    /// Number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points: a win is 1, a draw 1/2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Points per game in `[0, 1]`; 0.5 when no game was played.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            0.5
        } else {
            self.points() / n as f64
        }
    }

    /// Fraction of drawn games.
    pub fn draw_ratio(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            0.0
        } else {
            self.draws as f64 / n as f64
        }
    }

    /// Logistic Elo difference with a 95 % interval from the trinomial
    /// variance of a game's score (games taken as independent).
    pub fn elo(&self) -> EloInterval {
        let n = self.games() as f64;
        if n == 0.0 {
            return EloInterval::unknown();
        }
        let mean = self.score();
        let second = (self.wins as f64 + self.draws as f64 / 4.0) / n;
        let variance = (second - mean * mean).max(0.0);
        EloInterval::from_score(mean, (variance / n).sqrt(), n)
    }

    /// Normalized Elo with a 95 % interval, games taken as independent.
    pub fn normalized_elo(&self) -> EloInterval {
        EloInterval::normalized(&self.counts(), false)
    }

    /// The counts in score order: losses, draws, wins.
    pub fn counts(&self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }
}

impl std::ops::AddAssign for Wdl {
    fn add_assign(&mut self, other: Wdl) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "+{} ={} -{}", self.wins, self.draws, self.losses)
    }
}

/// Pentanomial counts of game pairs (the same opening played with colours
/// swapped): index `k` counts pairs in which the player scored `k / 2`
/// points out of 2 (LL, LD, LW+DD, DW, WW).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Adds a pair from the points (1, 0.5 or 0) of each of its two games.
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let halves = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[halves] += 1;
    }

    /// The same counts from the opponent's point of view.
    pub fn flipped(&self) -> Pentanomial {
        let mut c = self.0;
        c.reverse();
        Pentanomial(c)
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Mean points per game in `[0, 1]`; 0.5 when empty.
    pub fn score(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.5;
        }
        let halves: u64 = self.0.iter().enumerate().map(|(k, c)| k as u64 * c).sum();
        halves as f64 / (4.0 * n as f64)
    }

    /// Logistic Elo difference with a 95 % interval from the variance of the
    /// pair scores, which accounts for the openings' colour bias.
    pub fn elo(&self) -> EloInterval {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return EloInterval::unknown();
        }
        let mean = self.score();
        let variance: f64 = self
            .0
            .iter()
            .enumerate()
            .map(|(k, &c)| c as f64 / n * (k as f64 / 4.0 - mean).powi(2))
            .sum();
        EloInterval::from_score(mean, (variance / n).sqrt(), n)
    }

    /// Normalized Elo with a 95 % interval from the pairs.
    pub fn normalized_elo(&self) -> EloInterval {
        EloInterval::normalized(&self.0, true)
    }
}

/// Moments of a score distribution given as counts of evenly spaced scores
/// `0, 1/(k-1), ..., 1`, each empty category counted as [`REGULARIZATION`]
/// (fishtest's `results_to_pdf` and `stats_ex`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Moments {
    /// The total of the regularized counts.
    pub units: f64,
    /// Mean score of a unit.
    pub mean: f64,
    /// Variance of a unit's score.
    pub var: f64,
    /// Skewness (third central moment over `var^1.5`).
    pub skewness: f64,
    /// Excess kurtosis (fourth central moment over `var^2`, minus 3).
    pub excess_kurtosis: f64,
}

impl Moments {
    /// The moments of `counts`; `None` when every count is zero.
    pub fn regularized(counts: &[u64]) -> Option<Moments> {
        if counts.len() < 2 || counts.iter().all(|&c| c == 0) {
            return None;
        }
        let counts: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0 { REGULARIZATION } else { c as f64 })
            .collect();
        let units: f64 = counts.iter().sum();
        let last = (counts.len() - 1) as f64;
        let moment = |center: f64, power: i32| -> f64 {
            counts
                .iter()
                .enumerate()
                .map(|(i, c)| c / units * (i as f64 / last - center).powi(power))
                .sum()
        };
        let mean = moment(0.0, 1);
        let var = moment(mean, 2);
        Some(Moments {
            units,
            mean,
            var,
            skewness: moment(mean, 3) / var.powf(1.5),
            excess_kurtosis: moment(mean, 4) / (var * var) - 3.0,
        })
    }
}

impl std::ops::AddAssign for Pentanomial {
    fn add_assign(&mut self, other: Pentanomial) {
        for k in 0..5 {
            self.0[k] += other.0[k];
        }
    }
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        write!(f, "[{}, {}, {}, {}, {}]", c[0], c[1], c[2], c[3], c[4])
    }
}

/// Summary of one pairing from the first player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PairingSummary {
    /// Game results.
    pub wdl: Wdl,
    /// Results of complete game pairs.
    pub pentanomial: Pentanomial,
}

impl PairingSummary {
    /// The Elo difference: from the pairs when there are any (the better
    /// estimate of the error), else from the games.
    pub fn elo(&self) -> EloInterval {
        if self.pentanomial.pairs() > 0 {
            self.pentanomial.elo()
        } else {
            self.wdl.elo()
        }
    }

    /// Normalized Elo: from the pairs when there are any, else from the games.
    pub fn normalized_elo(&self) -> EloInterval {
        if self.pentanomial.pairs() > 0 {
            self.pentanomial.normalized_elo()
        } else {
            self.wdl.normalized_elo()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_and_score_are_inverse() {
        for elo in [-600.0, -100.0, 0.0, 35.0, 400.0] {
            assert!((logistic_elo(expected_score(elo)) - elo).abs() < 1e-9);
        }
        assert!((expected_score(400.0) - 10.0 / 11.0).abs() < 1e-12);
        assert_eq!(logistic_elo(1.0), f64::INFINITY);
    }

    #[test]
    fn wdl_score_and_interval() {
        let w = Wdl::new(60, 20, 20);
        assert_eq!(w.games(), 100);
        assert!((w.score() - 0.7).abs() < 1e-12);
        let e = w.elo();
        assert!((e.elo - logistic_elo(0.7)).abs() < 1e-9);
        // variance = E[x^2] - mean^2 = (0.6 + 0.05) - 0.49 = 0.16, se = 0.04
        assert!((e.upper - logistic_elo(0.7 + Z95 * 0.04)).abs() < 1e-9);
        assert!((e.lower - logistic_elo(0.7 - Z95 * 0.04)).abs() < 1e-9);
        assert_eq!(w.flipped().score(), 0.3);
    }

    #[test]
    fn pentanomial_counts_pairs() {
        let mut p = Pentanomial::default();
        p.add_pair(1.0, 0.0); // 1 point of 2
        p.add_pair(0.5, 0.5); // 1 point
        p.add_pair(1.0, 1.0); // 2 points
        p.add_pair(0.5, 0.0); // half a point
        assert_eq!(p.0, [0, 1, 2, 0, 1]);
        assert_eq!(p.pairs(), 4);
        assert!((p.score() - 4.5 / 8.0).abs() < 1e-12);
        assert_eq!(p.flipped().0, [1, 0, 2, 1, 0]);
        let all_draws = Pentanomial([0, 0, 10, 0, 0]);
        let e = all_draws.elo();
        assert_eq!((e.elo, e.lower, e.upper), (0.0, 0.0, 0.0));
        // A clean sweep: infinite estimate, finite exact lower bound.
        let sweep = Wdl::new(10, 0, 0).elo();
        assert_eq!((sweep.elo, sweep.upper), (f64::INFINITY, f64::INFINITY));
        assert!((sweep.lower - logistic_elo(0.025f64.powf(0.1))).abs() < 1e-9);
        assert!(sweep.lower > 100.0 && sweep.lower < 1000.0);
        let lost = Pentanomial([20, 0, 0, 0, 0]).elo();
        assert_eq!(lost.lower, f64::NEG_INFINITY);
        assert!(lost.upper.is_finite() && lost.upper < 0.0);
    }

    /// Hand-computed with fishtest's formulas (python3, independently of
    /// this code): regularize, then over units of score `i / (k - 1)`:
    /// `mu`, `var`, skewness `g1`, excess kurtosis `g2`;
    /// `t = (mu - 0.5) / sqrt(var)`,
    /// `var_t = 1 - t g1 + t^2 (g2 + 2) / 4`, bounds `t +- 1.959964 sqrt(var_t / N)`,
    /// times `800 / ln 10` (over `sqrt 2` for pairs).
    #[test]
    fn normalized_elo_matches_hand_computed_values() {
        let close = |e: EloInterval, (elo, lower, upper): (f64, f64, f64)| {
            assert!(
                (e.elo - elo).abs() < 1e-6
                    && (e.lower - lower).abs() < 1e-6
                    && (e.upper - upper).abs() < 1e-6,
                "{e:?} vs {elo} [{lower}, {upper}]"
            );
        };
        // 100 pairs [3, 12, 40, 30, 15]: mu 0.605, var 0.060225,
        // g1 -0.1567016, g2 -0.3096845, t 0.4278623.
        let p = Pentanomial([3, 12, 40, 30, 15]);
        close(
            p.normalized_elo(),
            (
                105.113_910_976_284,
                53.603_233_490_206_854,
                156.624_588_462_361_12,
            ),
        );
        // Negative from the other side, the same width.
        let f = p.flipped().normalized_elo();
        assert!((f.elo + 105.113_910_976_284).abs() < 1e-6);
        assert!((f.upper + 53.603_233_490_206_854).abs() < 1e-6);
        // Issue 34's depth 11 against 10: [0, 4, 19, 7, 0] (the empty ends
        // count 1e-3, N = 30.002): mu 0.5249983, var 0.0223069.
        close(
            Pentanomial([0, 4, 19, 7, 0]).normalized_elo(),
            (
                41.119_787_819_731_926,
                -47.600_363_254_006_46,
                129.839_938_893_470_3,
            ),
        );
        // 100 unpaired games +30 =50 -20: mu 0.55, var 0.1225.
        close(
            Wdl::new(30, 50, 20).normalized_elo(),
            (
                49.633_655_074_657_4,
                -19.318_355_204_325_82,
                118.585_665_353_640_62,
            ),
        );
        // The summary takes the pairs when there are any.
        let summary = PairingSummary {
            wdl: Wdl::new(30, 50, 20),
            pentanomial: Pentanomial([3, 12, 40, 30, 15]),
        };
        assert_eq!(summary.normalized_elo(), p.normalized_elo());
        let unpaired = PairingSummary {
            wdl: Wdl::new(30, 50, 20),
            ..PairingSummary::default()
        };
        assert_eq!(
            unpaired.normalized_elo(),
            Wdl::new(30, 50, 20).normalized_elo()
        );
        // Nothing played: no estimate.
        let none = Pentanomial::default().normalized_elo();
        assert_eq!((none.lower, none.upper), (f64::NEG_INFINITY, f64::INFINITY));
    }

    #[test]
    fn moments_are_regularized_as_fishtest_does() {
        let m = Moments::regularized(&[0, 4, 19, 7, 0]).unwrap();
        assert!((m.units - 30.002).abs() < 1e-12);
        assert!((m.mean - 0.524_998_333_444_437).abs() < 1e-12);
        assert!((m.var - 0.022_306_887_871_364_31).abs() < 1e-12);
        assert!((m.skewness + 0.037_858_526_064_857_984).abs() < 1e-9);
        assert!((m.excess_kurtosis + 0.256_928_858_821_471_1).abs() < 1e-9);
        assert_eq!(Moments::regularized(&[0, 0, 0]), None);
        // One outcome only: no variance, the direction alone.
        let draws = Pentanomial([0, 0, 10, 0, 0]).normalized_elo();
        assert_eq!(draws.elo, 0.0);
        assert_eq!(
            (draws.lower, draws.upper),
            (f64::NEG_INFINITY, f64::INFINITY)
        );
        assert_eq!(
            Pentanomial([0, 0, 0, 0, 4]).normalized_elo().elo,
            f64::INFINITY
        );
        assert_eq!(Wdl::new(0, 0, 7).normalized_elo().elo, f64::NEG_INFINITY);
    }
}
