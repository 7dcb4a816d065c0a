//! The training loop's gate (the `Gatekeeper` trait of shashki-train),
//! played by the arena: the run's `[gating]` settings become arena gate
//! settings, and the arena's outcome the training loop's verdict.

use shashki_arena::{CheckpointPlayers, EloModel, GateConfig, GateMethod, MctsSettings};
use shashki_train::config::{EngineFamily, GateMethodKind};
use shashki_train::seeds::mix;
use shashki_train::{GateVerdict, Gatekeeper, RunConfig};
use std::path::{Path, PathBuf};

/// How a run's checkpoints play in its gate and its ratings: MCTS at the
/// gate's simulations (no noise), or alpha-beta with the NNUE at the gate's
/// depth; `device` runs an MCTS net.
pub(crate) fn checkpoint_players(run: &RunConfig, device: &str) -> CheckpointPlayers {
    match run.run.engine {
        EngineFamily::Mcts => CheckpointPlayers::Network {
            device: device.to_string(),
            search: MctsSettings {
                simulations: Some(run.gating.simulations),
                algorithm: run.search.algorithm,
                ..MctsSettings::default()
            },
            batch: run.selfplay.batch_size,
        },
        EngineFamily::Nnue => CheckpointPlayers::Nnue {
            depth: run.nnue.gate_depth,
        },
    }
}

/// Gates with arena matches on `device`; the games are saved as PDN in
/// `pdn_dir` (`<run-dir>/gating/`).
pub(crate) struct ArenaGate {
    pub(crate) device: String,
    pub(crate) pdn_dir: PathBuf,
    /// Gates played so far: each gets its own seed.
    pub(crate) gates: u64,
}

impl Gatekeeper for ArenaGate {
    fn gate(
        &mut self,
        run: &RunConfig,
        candidate: &Path,
        best: &Path,
        log: &mut dyn FnMut(&str),
    ) -> Result<GateVerdict, String> {
        self.gates += 1;
        let g = &run.gating;
        let config = GateConfig {
            method: match g.method {
                GateMethodKind::Sprt => GateMethod::Sprt,
                GateMethodKind::Fixed => GateMethod::Fixed,
            },
            elo0: g.elo0,
            elo1: g.elo1,
            alpha: g.alpha,
            beta: g.beta,
            model: EloModel::Logistic,
            min_games: g.min_games.into(),
            max_games: g.max_games.into(),
            games: g.games.into(),
            threshold: g.threshold,
            concurrency: g.concurrency,
            max_plies: run.max_plies(),
            openings: None,
            seed: mix(run.run.seed, self.gates),
        };
        let players = checkpoint_players(run, &self.device);
        let outcome = shashki_arena::gate_checkpoints(
            candidate,
            best,
            &players,
            &config,
            &self.pdn_dir,
            log,
        )?;
        Ok(GateVerdict {
            passed: outcome.passed,
            games: outcome.summary.wdl.games(),
            score: outcome.summary.wdl.score(),
            elo: outcome.elo(),
            llr: outcome.llr,
            line: outcome.verdict,
        })
    }
}
