//! Score summaries of a pairing: wins/draws/losses, score, logistic Elo
//! difference with a 95 % interval, and pentanomial counts of game pairs.
//!
//! Elo here is always *logistic* Elo: a difference `d` means an expected
//! score of `1 / (1 + 10^(-d / 400))`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The two-sided 95 % quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

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

    /// Half the width of the interval (the "+-" figure), infinite if a bound is.
    pub fn half_width(&self) -> f64 {
        (self.upper - self.lower) / 2.0
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
            return EloInterval {
                elo: 0.0,
                lower: f64::NEG_INFINITY,
                upper: f64::INFINITY,
            };
        }
        let mean = self.score();
        let second = (self.wins as f64 + self.draws as f64 / 4.0) / n;
        let variance = (second - mean * mean).max(0.0);
        EloInterval::from_score(mean, (variance / n).sqrt(), n)
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
            return EloInterval {
                elo: 0.0,
                lower: f64::NEG_INFINITY,
                upper: f64::INFINITY,
            };
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

    /// A one-paragraph human-readable summary naming the players.
    pub fn describe(&self, first: &str, second: &str) -> String {
        let w = &self.wdl;
        let e = self.elo();
        let mut s = format!(
            "{first} vs {second}: {} games, {w} (W/D/L), score {:.1}/{} = {:.1}%, draws {:.1}%\nElo difference {first} - {second}: {} (95% interval)",
            w.games(),
            w.points(),
            w.games(),
            100.0 * w.score(),
            100.0 * w.draw_ratio(),
            e,
        );
        if self.pentanomial.pairs() > 0 {
            s.push_str(&format!(
                "\nPentanomial (pairs scoring 0, 0.5, 1, 1.5, 2 for {first}): {}",
                self.pentanomial
            ));
        }
        s
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
}
