//! Gating: is the candidate network stronger than the current best? Either
//! an SPRT on game pairs (LLR reported after every pair, with a minimum and
//! a maximum number of games) or a fixed number of games with a score
//! threshold. The training loop gates its checkpoints with
//! [`gate_checkpoints`] (through the gate trait of shashki-train, which the
//! binary implements with it); a pass promotes the candidate.

use crate::factory::PlayerFactory;
use crate::journal::Journal;
use crate::matches::{Control, MatchReport, MatchSettings};
use crate::rating_run::{PairWatch, play_pairing};
use crate::score::PairingSummary;
use crate::spec::AbSearch;
use crate::spec::{MctsSettings, PlayerKind, PlayerSpec};
use crate::sprt::{DEFAULT_MIN_GAMES, EloModel, Sprt, SprtConfig, SprtDecision};
use serde::{Deserialize, Serialize};
use shashki_search::SearchLimits;
use shashki_search::alphabeta::Selectivity;
use std::path::{Path, PathBuf};

/// The PDN `Event` of gating games.
pub const GATING_EVENT: &str = "Shashki Zero gating";

/// The largest Elo difference [`GateOutcome::elo`] reports: a 100 % score
/// has an infinite estimate, and the training logs sum these.
pub const ELO_CAP: f64 = 800.0;

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
    /// Opening book (a file or `builtin:NAME`); `None`: the default book,
    /// the unbalanced one.
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
            min_games: DEFAULT_MIN_GAMES,
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
            GATING_EVENT,
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

impl GateOutcome {
    /// The candidate's Elo difference estimate, within [`ELO_CAP`].
    pub fn elo(&self) -> f64 {
        let elo = self.summary.elo().elo;
        if elo.is_finite() {
            elo
        } else {
            elo.signum() * ELO_CAP
        }
    }
}

/// Plays `candidate` against `best` under `config`; `log` receives a status
/// line after every pair (games, W/D/L, pentanomial, LLR and its bounds),
/// the pairing's figures ([`PairingFigures`](crate::PairingFigures)) and
/// the verdict.
pub fn gate(
    candidate: &PlayerFactory,
    best: &PlayerFactory,
    config: &GateConfig,
    log: &mut dyn FnMut(&str),
) -> Result<GateOutcome, String> {
    config.validate()?;
    let settings = config.match_settings()?;
    let name = candidate.name();
    let (passed, verdict, report) = match config.method {
        GateMethod::Sprt => {
            let sprt = Sprt::new(config.sprt(), config.min_games, config.max_games);
            let report = play(candidate, best, &settings, Some(sprt), &mut |_, _, sprt| {
                if let Some(sprt) = sprt {
                    log(&format!("gate {name}: {}", sprt.status_line()));
                }
                Control::Continue
            })?;
            let status = report.sprt.ok_or("the gate's SPRT did not run")?;
            // Every pair played without reaching a bound keeps the best.
            let passed = status.decision == SprtDecision::AcceptH1;
            let verdict = format!(
                "SPRT [{}, {}] {} Elo: LLR {:.3} after {} games -> {}",
                config.elo0,
                config.elo1,
                config.model,
                status.llr,
                status.games,
                decision_word(passed)
            );
            (passed, verdict, report)
        }
        GateMethod::Fixed => {
            let report = play(candidate, best, &settings, None, &mut |_, summary, _| {
                log(&format!(
                    "gate {name}: games {} {} score {:.3}",
                    summary.wdl.games(),
                    summary.wdl,
                    summary.wdl.score()
                ));
                Control::Continue
            })?;
            let score = report.summary.wdl.score();
            let passed = score >= config.threshold;
            let verdict = format!(
                "fixed {} games: score {:.3} vs threshold {:.3} -> {}",
                report.summary.wdl.games(),
                score,
                config.threshold,
                decision_word(passed)
            );
            (passed, verdict, report)
        }
    };
    log(&report.figures().to_string());
    log(&verdict);
    Ok(GateOutcome {
        passed,
        summary: report.summary,
        llr: report.sprt.map(|s| s.llr),
        bounds: report.sprt.map(|s| (s.lower, s.upper)),
        verdict,
        report,
    })
}

/// How the two checkpoints of a training run's gate play.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckpointPlayers {
    /// MCTS with each network loaded on `device`, the evaluations of all
    /// games batched (target `batch`).
    Network {
        /// Device name (`cpu`, or a GPU name with the `wgpu` feature).
        device: String,
        /// Simulations and algorithm (no noise).
        search: MctsSettings,
        /// Target batch of the batching service.
        batch: usize,
    },
    /// Alpha-beta with each NNUE checkpoint (quantized on loading, as its
    /// export would be) at `depth`, on one thread.
    Nnue {
        /// Search depth.
        depth: u32,
    },
}

impl CheckpointPlayers {
    /// The gating player of the checkpoint at `path`, named after its file.
    pub fn player(&self, path: &Path) -> Result<PlayerFactory, String> {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        match self {
            CheckpointPlayers::Network {
                device,
                search,
                batch,
            } => {
                // Gating belongs to training: burn's folded net, as self-play.
                let evaluator = crate::load_network::load_evaluator(
                    path,
                    device,
                    shashki_net::InferenceKernels::Burn,
                )?;
                Ok(PlayerFactory::with_evaluator(
                    &name, evaluator, *search, *batch,
                ))
            }
            &CheckpointPlayers::Nnue { depth } => {
                let kind = PlayerKind::Nnue {
                    path: path.to_path_buf(),
                    limits: SearchLimits {
                        depth: Some(depth),
                        ..SearchLimits::default()
                    },
                    // Full width at the gate's depth, as the recipes were
                    // measured (issue 52 leaves training's searches alone).
                    search: AbSearch {
                        selectivity: Selectivity::NONE,
                        ..AbSearch::default()
                    },
                };
                PlayerFactory::new(PlayerSpec { name, kind }).map_err(|e| e.to_string())
            }
        }
    }
}

/// A training run's gate: the checkpoint at `candidate` against the one at
/// `best` under `config` ([`gate`]), every game saved as PDN in `pdn_dir`
/// (`CANDIDATE-vs-BEST.pdn`; a file that cannot be written is a warning in
/// `log`, not a failed gate).
pub fn gate_checkpoints(
    candidate: &Path,
    best: &Path,
    players: &CheckpointPlayers,
    config: &GateConfig,
    pdn_dir: &Path,
    log: &mut dyn FnMut(&str),
) -> Result<GateOutcome, String> {
    let candidate = players.player(candidate)?;
    let best = players.player(best)?;
    let outcome = gate(&candidate, &best, config, log)?;
    let pdn = pdn_dir.join(format!("{}-vs-{}.pdn", candidate.name(), best.name()));
    if let Err(e) =
        std::fs::create_dir_all(pdn_dir).and_then(|()| outcome.report.write_pdn(&pdn, GATING_EVENT))
    {
        log(&format!(
            "warning: gating games not saved to {}: {e}",
            pdn.display()
        ));
    }
    Ok(outcome)
}

/// The gate's games: one pairing as every match plays it, kept in memory.
fn play(
    candidate: &PlayerFactory,
    best: &PlayerFactory,
    settings: &MatchSettings,
    sprt: Option<Sprt>,
    watch: &mut PairWatch<'_>,
) -> Result<MatchReport, String> {
    let mut journal = Journal::in_memory(&settings.event);
    play_pairing(candidate, best, settings, sprt, &mut journal, watch).map_err(|e| e.to_string())
}

fn decision_word(passed: bool) -> &'static str {
    if passed {
        "promote"
    } else {
        "keep the current best"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(spec: &str) -> PlayerFactory {
        PlayerFactory::new(spec.parse().unwrap()).unwrap()
    }

    #[test]
    fn the_sprt_gate_stops_at_its_decision_and_logs_the_figures() {
        let config = GateConfig {
            elo1: 50.0,
            max_games: 200,
            concurrency: 2,
            ..GateConfig::default()
        };
        let mut lines = Vec::new();
        let outcome = gate(
            &player("ab:depth=3"),
            &player("random"),
            &config,
            &mut |line| lines.push(line.to_string()),
        )
        .unwrap();
        // Random loses every pair; at the 40-game minimum the LLR of 20
        // pairs [0, 0, 0, 0, 20] is 3.09 >= ln 19.
        assert!(outcome.passed, "{lines:?}");
        assert_eq!(outcome.summary.wdl.games(), 40);
        assert_eq!(outcome.report.games.len(), 40);
        assert!(outcome.llr.unwrap() >= outcome.bounds.unwrap().1);
        let text = lines.join("\n");
        assert!(text.contains("Openings: "), "{text}");
        assert!(text.contains(", normalized "), "{text}");
        assert!(
            text.contains("H1 accepted (stronger)") && text.ends_with("after 40 games -> promote"),
            "{text}"
        );
    }
}
