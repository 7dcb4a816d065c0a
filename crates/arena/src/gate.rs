//! Gating: is the candidate network stronger than the current best? Either
//! an SPRT on game pairs (LLR reported after every pair, with a minimum and
//! a maximum number of games) or a fixed number of games with a score
//! threshold. The training loop calls [`gate`]; a pass promotes the
//! candidate.

use crate::matches::{Control, MatchReport, MatchSettings, run_match};
use crate::player::PlayerFactory;
use crate::score::PairingSummary;
use crate::sprt::{EloModel, Sprt, SprtConfig, SprtDecision};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How the gate decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum GateMethod {
    /// Sequential probability ratio test on game pairs.
    #[default]
    Sprt,
    /// A fixed number of games; pass if the candidate's score reaches the
    /// threshold.
    Fixed,
}

/// Gate settings (a `[gate]` table in a training config; every key has a
/// default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GateConfig {
    /// `sprt` or `fixed`.
    pub method: GateMethod,
    /// SPRT: Elo of H0 (candidate not better).
    pub elo0: f64,
    /// SPRT: Elo of H1 (candidate better by this).
    pub elo1: f64,
    /// SPRT: false-promotion probability.
    pub alpha: f64,
    /// SPRT: missed-improvement probability.
    pub beta: f64,
    /// SPRT: unit of `elo0`/`elo1` (`logistic` or `normalized`).
    pub model: EloModel,
    /// SPRT: no decision before this many games.
    pub min_games: u64,
    /// SPRT: at most this many games (then H0: no promotion).
    pub max_games: u64,
    /// Fixed: number of games.
    pub games: u64,
    /// Fixed: the candidate's score (points per game) needed to pass.
    pub threshold: f64,
    /// Games at once (0: one per CPU core; network players want many, so
    /// their batches fill).
    pub concurrency: usize,
    /// Adjudication length in half-moves.
    pub max_plies: u32,
    /// Opening book file; `None`: the built-in book.
    pub openings: Option<PathBuf>,
    /// Seed of the ballot and the players.
    pub seed: u64,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            method: GateMethod::Sprt,
            elo0: 0.0,
            elo1: 30.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
            min_games: 40,
            max_games: 400,
            games: 200,
            threshold: 0.55,
            concurrency: 0,
            max_plies: crate::matches::DEFAULT_MAX_PLIES,
            openings: None,
            seed: 1,
        }
    }
}

impl GateConfig {
    /// The SPRT part of the settings.
    pub fn sprt(&self) -> SprtConfig {
        SprtConfig {
            elo0: self.elo0,
            elo1: self.elo1,
            alpha: self.alpha,
            beta: self.beta,
            model: self.model,
        }
    }

    /// Checks the settings.
    pub fn validate(&self) -> Result<(), String> {
        match self.method {
            GateMethod::Sprt => {
                self.sprt().validate()?;
                if self.max_games < 2 || self.min_games > self.max_games {
                    return Err(format!(
                        "gate: need 2 <= max_games and min_games <= max_games, got min {} max {}",
                        self.min_games, self.max_games
                    ));
                }
            }
            GateMethod::Fixed => {
                if self.games == 0 || !(0.0..=1.0).contains(&self.threshold) {
                    return Err(format!(
                        "gate: fixed needs games > 0 and threshold in [0, 1], got {} and {}",
                        self.games, self.threshold
                    ));
                }
            }
        }
        Ok(())
    }

    /// The match settings the gate plays with.
    pub fn match_settings(&self) -> Result<MatchSettings, String> {
        let games = match self.method {
            GateMethod::Sprt => self.max_games,
            GateMethod::Fixed => self.games,
        } as usize;
        MatchSettings::with_options(
            games,
            self.openings.as_deref(),
            self.seed,
            self.concurrency,
            self.max_plies,
            "Shashki Zero gating",
        )
        .map_err(|e| e.to_string())
    }
}

/// What the gate found.
#[derive(Clone, Debug)]
pub struct GateOutcome {
    /// True: promote the candidate.
    pub passed: bool,
    /// Results from the candidate's view.
    pub summary: PairingSummary,
    /// Final LLR (SPRT only).
    pub llr: Option<f64>,
    /// LLR bounds (SPRT only).
    pub bounds: Option<(f64, f64)>,
    /// One line saying why.
    pub verdict: String,
    /// Every game.
    pub report: MatchReport,
}

/// Plays `candidate` against `best` under `config`; `log` receives a status
/// line after every pair (games, W/D/L, pentanomial, LLR and its bounds)
/// and the verdict.
pub fn gate(
    candidate: &PlayerFactory,
    best: &PlayerFactory,
    config: &GateConfig,
    log: &mut dyn FnMut(&str),
) -> Result<GateOutcome, String> {
    config.validate()?;
    let settings = config.match_settings()?;
    match config.method {
        GateMethod::Sprt => {
            let mut sprt = Sprt::new(config.sprt(), config.min_games, config.max_games);
            let mut decision = SprtDecision::Continue;
            let report = run_match(candidate, best, &settings, &mut |pair, _| {
                sprt.add_pair(pair[0].points_for_first(), pair[1].points_for_first());
                log(&format!(
                    "gate {}: {}",
                    candidate.name(),
                    sprt.status_line()
                ));
                decision = sprt.decision();
                if decision == SprtDecision::Continue {
                    Control::Continue
                } else {
                    Control::Stop
                }
            });
            if decision == SprtDecision::Continue {
                // Every pair was played without reaching a bound.
                decision = SprtDecision::AcceptH0;
            }
            let passed = decision == SprtDecision::AcceptH1;
            let llr = sprt.llr();
            let verdict = format!(
                "SPRT [{}, {}] {}: LLR {:.3} after {} games -> {}",
                config.elo0,
                config.elo1,
                match config.model {
                    EloModel::Logistic => "logistic Elo",
                    EloModel::Normalized => "normalized Elo",
                },
                llr,
                sprt.wdl.games(),
                if passed {
                    "promote"
                } else {
                    "keep the current best"
                }
            );
            log(&verdict);
            Ok(GateOutcome {
                passed,
                summary: report.summary,
                llr: Some(llr),
                bounds: Some(config.sprt().bounds()),
                verdict,
                report,
            })
        }
        GateMethod::Fixed => {
            let report = run_match(candidate, best, &settings, &mut |_, summary| {
                log(&format!(
                    "gate {}: games {} {} score {:.3}",
                    candidate.name(),
                    summary.wdl.games(),
                    summary.wdl,
                    summary.wdl.score()
                ));
                Control::Continue
            });
            let score = report.summary.wdl.score();
            let passed = score >= config.threshold;
            let verdict = format!(
                "fixed {} games: score {:.3} vs threshold {:.3} -> {}",
                report.summary.wdl.games(),
                score,
                config.threshold,
                if passed {
                    "promote"
                } else {
                    "keep the current best"
                }
            );
            log(&verdict);
            Ok(GateOutcome {
                passed,
                summary: report.summary,
                llr: None,
                bounds: None,
                verdict,
                report,
            })
        }
    }
}
