//! The sequential probability ratio test used for gating, as fishtest runs
//! it: a generalized SPRT whose log-likelihood ratio is the normal
//! approximation of Michel Van den Bergh ("GSPRT approximation").
//!
//! Results come as pentanomial counts of game pairs (each opening played
//! with colours swapped), which models the correlation inside a pair, or as
//! plain W/D/L counts (trinomial) when games are not paired.
//!
//! With a per-unit score distribution of mean `mu` and variance `var` over
//! `N` units (pairs or games), and the expected scores `s0`, `s1` of the two
//! hypotheses:
//!
//! `LLR = N/2 * ln( (var + (mu - s0)^2) / (var + (mu - s1)^2) )`
//!
//! This is fishtest's `LLR_alt` (`server/fishtest/stats/LLRcalc.py` of
//! official-stockfish/fishtest) for logistic bounds. For normalized bounds
//! (`nElo`, see [`crate::score`]) it is `LLR_normalized_alt`: with
//! `nt = (mu - 1/2) / sigma` over the standard deviation `sigma` of one
//! game's score (`sqrt(2 var)` for pairs) and `nt_i = nElo_i / (800 / ln 10)`,
//! over `G` games (`2N` for pairs):
//!
//! `LLR = G/2 * ln( (1 + (nt - nt0)^2) / (1 + (nt - nt1)^2) )`
//!
//! Every empty count is 1e-3 first (as fishtest does), so the variance is
//! never zero. The bounds are Wald's: accept H1 at `ln((1-beta)/alpha)`,
//! accept H0 at `ln(beta/(1-alpha))`.

use crate::score::{Moments, NELO_PER_T, Pentanomial, Wdl, expected_score};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The Elo unit in which `elo0` and `elo1` are given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    /// Logistic Elo: a difference `d` is an expected score of
    /// `1 / (1 + 10^(-d/400))`. Draw-rate dependent as a test bound, but
    /// the usual unit of ratings.
    #[default]
    Logistic,
    /// Normalized Elo (fishtest's "nElo"): the score excess divided by its
    /// standard deviation per game, scaled by `800 / ln 10`; independent of
    /// the draw rate.
    Normalized,
}

impl EloModel {
    /// The unit's name as written on the command line and in configs.
    pub fn name(self) -> &'static str {
        match self {
            EloModel::Logistic => "logistic",
            EloModel::Normalized => "normalized",
        }
    }
}

impl fmt::Display for EloModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for EloModel {
    type Err = String;

    fn from_str(text: &str) -> Result<EloModel, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "logistic" => Ok(EloModel::Logistic),
            "normalized" | "nelo" => Ok(EloModel::Normalized),
            other => Err(format!(
                "unknown Elo model {other:?}: expected logistic or normalized"
            )),
        }
    }
}

/// The settings of a test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtConfig {
    /// Elo difference of the null hypothesis (the candidate is not better).
    pub elo0: f64,
    /// Elo difference of the alternative (the candidate is better by this).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds (false promotion).
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds (missed improvement).
    pub beta: f64,
    /// The unit of `elo0` and `elo1`.
    #[serde(default)]
    pub model: EloModel,
}

impl Default for SprtConfig {
    /// `[0, 30]` logistic Elo at 5 % / 5 %: a cheap gate for self-play
    /// training, where real gains per generation are large.
    fn default() -> Self {
        SprtConfig {
            elo0: 0.0,
            elo1: 30.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        }
    }
}

/// What the test says now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtDecision {
    /// Not enough evidence yet: keep playing.
    Continue,
    /// The LLR reached the lower bound: the candidate is not `elo1` better.
    AcceptH0,
    /// The LLR reached the upper bound: the candidate is better.
    AcceptH1,
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::Continue => "continue",
            SprtDecision::AcceptH0 => "H0 accepted (not stronger)",
            SprtDecision::AcceptH1 => "H1 accepted (stronger)",
        })
    }
}

/// Games before an SPRT may decide unless told otherwise (the gate's and
/// `match --sprt`'s default): without a minimum the normal approximation can
/// stop on a handful of identical pairs, whose empirical variance is tiny
/// (fishtest avoids this by testing in batches).
pub const DEFAULT_MIN_GAMES: u64 = 40;

impl SprtConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), String> {
        let in_range = |p: f64| p > 0.0 && p < 0.5;
        if !in_range(self.alpha) || !in_range(self.beta) {
            return Err(format!(
                "SPRT alpha and beta must lie in (0, 0.5), got alpha {} beta {}",
                self.alpha, self.beta
            ));
        }
        if !self.elo0.is_finite() || !self.elo1.is_finite() || self.elo1 <= self.elo0 {
            return Err(format!(
                "SPRT needs finite elo0 < elo1, got elo0 {} elo1 {}",
                self.elo0, self.elo1
            ));
        }
        Ok(())
    }

    /// `(lower, upper)` LLR bounds: at or below `lower` H0 is accepted, at or
    /// above `upper` H1 is accepted.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision for a given LLR.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }

    /// LLR of paired results (pentanomial counts from the candidate's view).
    pub fn llr_pentanomial(&self, p: &Pentanomial) -> f64 {
        self.llr(&p.0, true)
    }

    /// LLR of unpaired games (W/D/L from the candidate's view).
    pub fn llr_trinomial(&self, wdl: &Wdl) -> f64 {
        self.llr(&wdl.counts(), false)
    }

    /// The GSPRT normal approximation over counts of evenly spaced scores
    /// `0, 1/(k-1), ..., 1`. `paired` says the units are pairs of games.
    fn llr(&self, counts: &[u64], paired: bool) -> f64 {
        let Some(Moments {
            units: n,
            mean: mu,
            var,
            ..
        }) = Moments::regularized(counts)
        else {
            return 0.0;
        };
        match self.model {
            EloModel::Logistic => {
                let s0 = expected_score(self.elo0);
                let s1 = expected_score(self.elo1);
                n / 2.0 * ((var + (mu - s0).powi(2)) / (var + (mu - s1).powi(2))).ln()
            }
            EloModel::Normalized => {
                // Standard deviation of one game's score, and the number of games.
                let (sigma_game, games) = if paired {
                    ((2.0 * var).sqrt(), 2.0 * n)
                } else {
                    (var.sqrt(), n)
                };
                let nt0 = self.elo0 / NELO_PER_T;
                let nt1 = self.elo1 / NELO_PER_T;
                let nt = (mu - 0.5) / sigma_game;
                games / 2.0 * ((1.0 + (nt - nt0).powi(2)) / (1.0 + (nt - nt1).powi(2))).ln()
            }
        }
    }
}

/// A running test over game pairs (with a trinomial fallback for games
/// whose partner is missing), with a minimum and maximum number of games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// The settings.
    pub config: SprtConfig,
    /// Complete pairs, from the candidate's view.
    pub pentanomial: Pentanomial,
    /// All games, from the candidate's view.
    pub wdl: Wdl,
    /// No decision before this many games.
    pub min_games: u64,
    /// At this many games the test stops; if H1 was not reached by then the
    /// result is H0 (the conservative choice for promotion).
    pub max_games: u64,
}

impl Sprt {
    /// A fresh test.
    pub fn new(config: SprtConfig, min_games: u64, max_games: u64) -> Sprt {
        Sprt {
            config,
            pentanomial: Pentanomial::default(),
            wdl: Wdl::default(),
            min_games,
            max_games,
        }
    }

    /// Records a complete pair (the candidate's points in each game).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        self.pentanomial.add_pair(first, second);
        self.wdl.add_points(first);
        self.wdl.add_points(second);
    }

    /// Records an unpaired game (the candidate's points).
    pub fn add_game(&mut self, points: f64) {
        self.wdl.add_points(points);
    }

    /// The current LLR: pentanomial when every game is in a pair, else the
    /// trinomial LLR over all games.
    pub fn llr(&self) -> f64 {
        if self.pentanomial.pairs() * 2 == self.wdl.games() {
            self.config.llr_pentanomial(&self.pentanomial)
        } else {
            self.config.llr_trinomial(&self.wdl)
        }
    }

    /// The decision, honouring the game limits: nothing before `min_games`,
    /// and at `max_games` a test still undecided ends in H0 (no promotion
    /// without proof).
    pub fn decision(&self) -> SprtDecision {
        let games = self.wdl.games();
        if games < self.min_games {
            return SprtDecision::Continue;
        }
        match self.config.decide(self.llr()) {
            SprtDecision::Continue if games >= self.max_games => SprtDecision::AcceptH0,
            d => d,
        }
    }

    /// Where the test stands: its settings, LLR, bounds, games and decision.
    pub fn status(&self) -> SprtStatus {
        let (lower, upper) = self.config.bounds();
        SprtStatus {
            config: self.config,
            llr: self.llr(),
            lower,
            upper,
            games: self.wdl.games(),
            decision: self.decision(),
        }
    }

    /// One status line: games, W/D/L, pentanomial, LLR and bounds.
    pub fn status_line(&self) -> String {
        let (lower, upper) = self.config.bounds();
        format!(
            "games {} {} penta {} LLR {:.3} [{:.3}, {:.3}]",
            self.wdl.games(),
            self.wdl,
            self.pentanomial,
            self.llr(),
            lower,
            upper
        )
    }
}

/// A test's state for reports: its settings, the LLR and its bounds, the
/// games it counted and its decision (`Continue` when a match ran out of
/// games first).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    /// The settings.
    pub config: SprtConfig,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// H0 is accepted at or below this LLR.
    pub lower: f64,
    /// H1 is accepted at or above this LLR.
    pub upper: f64,
    /// Games counted.
    pub games: u64,
    /// The decision.
    pub decision: SprtDecision,
}

impl fmt::Display for SprtStatus {
    /// `SPRT [0, 10] normalized Elo, alpha 0.05 beta 0.05: LLR 2.96 [-2.94,
    /// 2.94] after 120 games: H1 accepted (stronger)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.config;
        write!(
            f,
            "SPRT [{}, {}] {} Elo, alpha {} beta {}: LLR {:.3} [{:.3}, {:.3}] after {} games: ",
            c.elo0, c.elo1, c.model, c.alpha, c.beta, self.llr, self.lower, self.upper, self.games
        )?;
        match self.decision {
            SprtDecision::Continue => f.write_str("no decision (the games ran out first)"),
            decided => write!(f, "{decided}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Plays one simulated game: the candidate's points when its expected
    /// score is `s`, with a fixed draw probability.
    fn game(rng: &mut ChaCha8Rng, s: f64, draw: f64) -> f64 {
        let win = s - draw / 2.0;
        let u: f64 = rng.random();
        if u < win {
            1.0
        } else if u < win + draw {
            0.5
        } else {
            0.0
        }
    }

    /// Games before any decision in these simulations: without a minimum the
    /// normal approximation can stop on a handful of identical pairs (tiny
    /// empirical variance), as fishtest avoids by testing in batches.
    const MIN_GAMES: u64 = 20;

    /// Runs one SPRT to its end on simulated pairs. The true strength is an
    /// expected score of `expected_score(true_elo)` per game; the opening of
    /// each pair moves it up in one game and down in the other, as real
    /// openings favour one colour.
    fn run_paired(rng: &mut ChaCha8Rng, config: SprtConfig, true_elo: f64) -> (SprtDecision, u64) {
        let s = expected_score(true_elo);
        let mut sprt = Sprt::new(config, MIN_GAMES, u64::MAX);
        loop {
            let bias = rng.random_range(-0.15..0.15);
            let first = game(rng, (s + bias).clamp(0.2, 0.8), 0.35);
            let second = game(rng, (s - bias).clamp(0.2, 0.8), 0.35);
            sprt.add_pair(first, second);
            let d = sprt.decision();
            if d != SprtDecision::Continue {
                return (d, sprt.wdl.games());
            }
        }
    }

    fn run_unpaired(rng: &mut ChaCha8Rng, config: SprtConfig, true_elo: f64) -> SprtDecision {
        let s = expected_score(true_elo);
        let mut sprt = Sprt::new(config, MIN_GAMES, u64::MAX);
        loop {
            sprt.add_game(game(rng, s, 0.35));
            let d = sprt.decision();
            if d != SprtDecision::Continue {
                return d;
            }
        }
    }

    const RUNS: usize = 300;

    fn config() -> SprtConfig {
        SprtConfig {
            elo0: 0.0,
            elo1: 40.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        }
    }

    /// Binomial tolerance: the observed error rate may exceed the nominal one
    /// by at most 3 standard deviations of a 300-run estimate.
    fn max_error(rate: f64) -> f64 {
        rate + 3.0 * (rate * (1.0 - rate) / RUNS as f64).sqrt()
    }

    #[test]
    fn bounds_are_walds() {
        let (lower, upper) = config().bounds();
        assert!((upper - 19f64.ln()).abs() < 1e-12);
        assert!((lower + 19f64.ln()).abs() < 1e-12);
        assert_eq!(config().decide(3.0), SprtDecision::AcceptH1);
        assert_eq!(config().decide(-3.0), SprtDecision::AcceptH0);
        assert_eq!(config().decide(0.0), SprtDecision::Continue);
    }

    #[test]
    fn llr_matches_the_formula_and_its_sign() {
        // 100 pairs: mean 0.6 per game.
        let p = Pentanomial([5, 15, 35, 25, 20]);
        let c = config();
        let n = 100.0;
        let scores = [0.0, 0.25, 0.5, 0.75, 1.0];
        let mu: f64 = p.0.iter().zip(scores).map(|(&k, s)| k as f64 / n * s).sum();
        let var: f64 =
            p.0.iter()
                .zip(scores)
                .map(|(&k, s)| k as f64 / n * (s - mu).powi(2))
                .sum();
        let s0 = 0.5;
        let s1 = expected_score(40.0);
        let expected = n / 2.0 * ((var + (mu - s0).powi(2)) / (var + (mu - s1).powi(2))).ln();
        assert!((c.llr_pentanomial(&p) - expected).abs() < 1e-3);
        assert!(c.llr_pentanomial(&p) > 0.0);
        assert!(c.llr_pentanomial(&p.flipped()) < 0.0);
        assert_eq!(c.llr_pentanomial(&Pentanomial::default()), 0.0);
    }

    /// Hand-computed (python3) with the formulas of the module docs, the
    /// empty categories counted 1e-3 as fishtest's `regularize` does:
    /// `[3, 12, 40, 30, 15]` has mu 0.605, var 0.060225 over 100 pairs;
    /// `[0, 4, 19, 7, 0]` mu 0.5249983, var 0.0223069 over 30.002 pairs;
    /// `+30 =50 -20` mu 0.55, var 0.1225 over 100 games.
    #[test]
    fn llr_matches_hand_computed_values() {
        let bounds = |elo0, elo1, model| SprtConfig {
            elo0,
            elo1,
            model,
            ..config()
        };
        let logistic = bounds(0.0, 10.0, EloModel::Logistic);
        let normalized = bounds(0.0, 10.0, EloModel::Normalized);
        let wide = Pentanomial([3, 12, 40, 30, 15]);
        let issue = Pentanomial([0, 4, 19, 7, 0]);
        let games = Wdl::new(30, 50, 20);
        let cases = [
            (logistic.llr_pentanomial(&wide), 2.015_022_906_318_268),
            (normalized.llr_pentanomial(&wide), 1.531_300_360_454_266_3),
            (logistic.llr_pentanomial(&issue), 0.338_938_197_449_377),
            (normalized.llr_pentanomial(&issue), 0.177_590_797_672_709_47),
            (logistic.llr_trinomial(&games), 0.495_134_448_145_945_1),
            (normalized.llr_trinomial(&games), 0.363_679_158_247_990_85),
            (
                bounds(-5.0, 5.0, EloModel::Logistic).llr_pentanomial(&wide),
                2.119_433_235_773_376_3,
            ),
        ];
        for (i, (got, want)) in cases.into_iter().enumerate() {
            assert!((got - want).abs() < 1e-9, "case {i}: {got} vs {want}");
        }
        // Wald's bounds at 5 % / 5 %: +-ln 19 = +-2.944439; none of these
        // decides, and a run of them does.
        assert_eq!(logistic.decide(2.015), SprtDecision::Continue);
        let mut test = Sprt::new(logistic, 0, u64::MAX);
        for (k, &count) in wide.0.iter().enumerate() {
            for _ in 0..count * 2 {
                let pair = [(0.0, 0.0), (0.5, 0.0), (0.5, 0.5), (1.0, 0.5), (1.0, 1.0)][k];
                test.add_pair(pair.0, pair.1);
            }
        }
        // 200 pairs of the same shape: twice the LLR, 4.030 >= 2.944.
        assert!((test.llr() - 2.0 * 2.015_022_906_318_268).abs() < 1e-6);
        let status = test.status();
        assert_eq!(status.decision, SprtDecision::AcceptH1);
        assert_eq!(status.games, 400);
        assert!((status.upper - 19f64.ln()).abs() < 1e-12);
        assert!(
            status
                .to_string()
                .ends_with("after 400 games: H1 accepted (stronger)")
        );
    }

    #[test]
    fn elo_models_parse_and_print() {
        assert_eq!("normalized".parse::<EloModel>(), Ok(EloModel::Normalized));
        assert_eq!("Logistic".parse::<EloModel>(), Ok(EloModel::Logistic));
        assert!("bayes".parse::<EloModel>().is_err());
        assert_eq!(EloModel::Normalized.to_string(), "normalized");
    }

    #[test]
    fn paired_sprt_error_rates_are_near_alpha_and_beta() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let c = config();
        let mut false_accepts = 0;
        let mut false_rejects = 0;
        let mut games_h0 = 0;
        for _ in 0..RUNS {
            let (d, g) = run_paired(&mut rng, c, c.elo0);
            games_h0 += g;
            if d == SprtDecision::AcceptH1 {
                false_accepts += 1;
            }
            if run_paired(&mut rng, c, c.elo1).0 == SprtDecision::AcceptH0 {
                false_rejects += 1;
            }
        }
        let alpha_hat = false_accepts as f64 / RUNS as f64;
        let beta_hat = false_rejects as f64 / RUNS as f64;
        eprintln!(
            "paired: alpha observed {alpha_hat}, beta observed {beta_hat}, mean games at H0 {}",
            games_h0 / RUNS as u64
        );
        assert!(
            alpha_hat <= max_error(c.alpha),
            "alpha observed {alpha_hat}"
        );
        assert!(beta_hat <= max_error(c.beta), "beta observed {beta_hat}");
        // "Near": the test is not so conservative that it never errs.
        assert!(false_accepts + false_rejects > 0);
        // And it decides in a sensible number of games.
        assert!(games_h0 / RUNS as u64 > 50);
    }

    #[test]
    fn paired_sprt_accepts_clear_cases() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let c = config();
        let mut strong = 0;
        let mut weak = 0;
        for _ in 0..100 {
            if run_paired(&mut rng, c, 120.0).0 == SprtDecision::AcceptH1 {
                strong += 1;
            }
            if run_paired(&mut rng, c, -80.0).0 == SprtDecision::AcceptH0 {
                weak += 1;
            }
        }
        assert_eq!((strong, weak), (100, 100));
    }

    #[test]
    fn trinomial_sprt_error_rates_are_near_alpha_and_beta() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let c = config();
        let mut false_accepts = 0;
        let mut false_rejects = 0;
        for _ in 0..RUNS {
            if run_unpaired(&mut rng, c, c.elo0) == SprtDecision::AcceptH1 {
                false_accepts += 1;
            }
            if run_unpaired(&mut rng, c, c.elo1) == SprtDecision::AcceptH0 {
                false_rejects += 1;
            }
        }
        eprintln!(
            "trinomial: alpha observed {}, beta observed {}",
            false_accepts as f64 / RUNS as f64,
            false_rejects as f64 / RUNS as f64
        );
        assert!(false_accepts as f64 / RUNS as f64 <= max_error(c.alpha));
        assert!(false_rejects as f64 / RUNS as f64 <= max_error(c.beta));
    }

    #[test]
    fn normalized_model_decides_correctly() {
        // nElo 0 vs 60 on paired games; true strength well above elo1 in nElo.
        let c = SprtConfig {
            elo0: 0.0,
            elo1: 60.0,
            model: EloModel::Normalized,
            ..config()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut right = 0;
        for _ in 0..50 {
            if run_paired(&mut rng, c, 150.0).0 == SprtDecision::AcceptH1 {
                right += 1;
            }
            if run_paired(&mut rng, c, -50.0).0 == SprtDecision::AcceptH0 {
                right += 1;
            }
        }
        assert!(right >= 97, "{right} of 100 right");
    }

    #[test]
    fn limits_on_games_are_honoured() {
        let mut s = Sprt::new(config(), 10, 20);
        for _ in 0..4 {
            s.add_pair(1.0, 1.0);
        }
        assert_eq!(s.decision(), SprtDecision::Continue, "below min_games");
        let mut s = Sprt::new(config(), 0, 20);
        for _ in 0..10 {
            s.add_pair(1.0, 0.0);
        }
        assert_eq!(s.wdl.games(), 20);
        assert_eq!(
            s.decision(),
            SprtDecision::AcceptH0,
            "undecided at max_games"
        );
        // An odd game switches to the trinomial LLR.
        s.add_game(1.0);
        assert!((s.llr() - s.config.llr_trinomial(&s.wdl)).abs() < 1e-12);
    }

    #[test]
    fn bad_settings_are_rejected() {
        let mut c = config();
        c.alpha = 0.0;
        assert!(c.validate().is_err());
        let c = SprtConfig {
            elo0: 5.0,
            elo1: 5.0,
            ..config()
        };
        assert!(c.validate().is_err());
        assert!(config().validate().is_ok());
    }
}
