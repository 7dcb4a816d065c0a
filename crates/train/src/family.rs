//! What the generation loop of [`crate::train`] needs of an engine family,
//! so one loop (run directory, replay window, checkpoints, tensorboard,
//! gating, resume) trains both: the MCTS policy/value network
//! ([`MctsFamily`], learner [`Learner`]) and the alpha-beta engine's NNUE
//! ([`crate::nnue_family::NnueFamily`]).
//!
//! The learner's side ([`Trainee`]: start, resume, step, name the losses)
//! is all that `shashki learn` needs; the self-play side ([`Family`]) is
//! what `shashki train` adds.

use crate::checkpoints::CheckpointFile;
use crate::config::RunConfig;
use crate::errors::RunError;
use crate::net_learner::{Learner, StepReport};
use crate::observer::Observer;
use crate::run_dir::RunDir;
use crate::seeds::net_seed;
use shashki_net::{Checkpoint, Device, InferenceKernels, NetError, NetEvaluator};
use shashki_selfplay::{ChunkSink, FinishedGame, Sample, SelfPlayStats, SelfPlayer};
use std::path::Path;

/// A network being trained, as the loop sees it.
pub trait Trainee: Sized {
    /// What it saves.
    type Checkpoint: CheckpointFile;
    /// A fresh (seeded) network: the start of a run.
    fn fresh(config: &RunConfig, device: &Device) -> Result<Self, RunError>;
    /// Continues from `checkpoint` (read from `path`); fails if its
    /// architecture is not the configuration's.
    fn resume(
        config: &RunConfig,
        checkpoint: &Self::Checkpoint,
        path: &Path,
        device: &Device,
    ) -> Result<Self, RunError>;
    /// Training steps taken.
    fn step(&self) -> u64;
    /// One optimiser step on `samples`.
    fn train_on(&mut self, samples: &[Sample]) -> Result<StepReport, RunError>;
    /// A learner for a refit (`[refit]`): this one's weights, or fresh ones
    /// from `seed` when `fresh`, with a new optimizer, at this one's step.
    /// The families that do not refit refuse (the configuration check
    /// refuses them first).
    fn refit_start(
        &self,
        config: &RunConfig,
        fresh: bool,
        seed: u64,
        device: &Device,
    ) -> Result<Self, RunError> {
        let _ = (config, fresh, seed, device);
        Err(RunError::Mismatch(
            "[refit]: this engine family does not refit".into(),
        ))
    }
    /// One optimiser step on `samples` at `learning_rate` (a refit's rate,
    /// not the run's schedule; every sample kept).
    fn train_at(&mut self, samples: &[Sample], learning_rate: f64) -> Result<StepReport, RunError> {
        let _ = (samples, learning_rate);
        Err(RunError::Mismatch(
            "[refit]: this engine family does not refit".into(),
        ))
    }
    /// Its weights, step and optimiser state.
    fn checkpoint(&self) -> Result<Self::Checkpoint, RunError>;
    /// The tensorboard scalars of a step: its losses under this family's
    /// names, and its training settings.
    fn step_scalars(report: &StepReport) -> Vec<(&'static str, f64)>;
    /// The loss columns of the generation line, from the means of the
    /// reports' `total`, `policy` and `value`.
    fn loss_line(means: [f32; 3]) -> String;
}

/// An engine family: how its self-play plays a round of games with the
/// learner's network, and what it does with a saved checkpoint.
pub trait Family {
    /// The checkpoint type of its runs.
    type Checkpoint: CheckpointFile;
    /// Its learner.
    type Learner: Trainee<Checkpoint = Self::Checkpoint>;
    /// Plays `games` games with the learner's network (or `best` when the
    /// run gates), writing them to `sink`; `last` leaves no game unfinished.
    fn play(
        &mut self,
        learner: &Self::Learner,
        best: Option<&Self::Checkpoint>,
        games: usize,
        last: bool,
        sink: &mut ChunkSink,
        observer: &mut dyn Observer,
    ) -> Result<SelfPlayStats, RunError>;
    /// Plays `games` games with the network of `checkpoint` (a published
    /// one: concurrent self-play holds no learner), as [`Family::play`].
    fn play_checkpoint(
        &mut self,
        checkpoint: &Self::Checkpoint,
        games: usize,
        last: bool,
        sink: &mut ChunkSink,
        observer: &mut dyn Observer,
    ) -> Result<SelfPlayStats, RunError>;
    /// Called after a generation's checkpoint is saved (and again when it
    /// is promoted): the NNUE family exports its model folder here.
    fn saved(
        &mut self,
        _checkpoint: &Self::Checkpoint,
        _run: &RunDir,
        _promoted: bool,
    ) -> Result<(), RunError> {
        Ok(())
    }
}

impl Trainee for Learner {
    type Checkpoint = Checkpoint;

    fn fresh(config: &RunConfig, device: &Device) -> Result<Learner, RunError> {
        Ok(Learner::new(
            &config.net,
            &config.train,
            net_seed(config.run.seed),
            device,
        )?)
    }

    fn resume(
        config: &RunConfig,
        checkpoint: &Checkpoint,
        path: &Path,
        device: &Device,
    ) -> Result<Learner, RunError> {
        if checkpoint.config != config.net {
            return Err(RunError::Net(NetError::ArchitectureMismatch {
                path: path.to_path_buf(),
                expected: config.net.to_json(),
                found: checkpoint.config.to_json(),
            }));
        }
        Ok(Learner::from_checkpoint(checkpoint, &config.train, device)?)
    }

    fn step(&self) -> u64 {
        Learner::step(self)
    }

    fn train_on(&mut self, samples: &[Sample]) -> Result<StepReport, RunError> {
        Ok(Learner::train_on(self, samples)?)
    }

    fn checkpoint(&self) -> Result<Checkpoint, RunError> {
        Ok(Learner::checkpoint(self)?)
    }

    fn step_scalars(report: &StepReport) -> Vec<(&'static str, f64)> {
        let mut values = vec![
            ("loss/total", report.total as f64),
            ("loss/policy", report.policy as f64),
            ("loss/value", report.value as f64),
            ("train/learning_rate", report.learning_rate),
            ("train/full_search_share", report.full_search_share as f64),
        ];
        if let Some(p) = report.plies_left {
            values.push(("loss/plies_left", p as f64));
        }
        values
    }

    fn loss_line(means: [f32; 3]) -> String {
        let [t, p, v] = means;
        format!("loss {t:.3} (policy {p:.3}, value {v:.3})")
    }
}

/// The MCTS family: a policy/value network, Gumbel/PUCT self-play.
pub struct MctsFamily {
    /// The self-play engine (games carry over between rounds).
    pub player: SelfPlayer,
    /// The compute device.
    pub device: Device,
    /// How self-play runs the network (`[run] kernels`).
    pub kernels: InferenceKernels,
}

impl Family for MctsFamily {
    type Checkpoint = Checkpoint;
    type Learner = Learner;

    fn play(
        &mut self,
        learner: &Learner,
        best: Option<&Checkpoint>,
        games: usize,
        last: bool,
        sink: &mut ChunkSink,
        observer: &mut dyn Observer,
    ) -> Result<SelfPlayStats, RunError> {
        if let Some(ckpt) = best {
            return self.play_checkpoint(ckpt, games, last, sink, observer);
        }
        let batch = self.player.batch_size();
        let evaluator = learner.evaluator(&self.device, batch, self.kernels)?;
        play_round(&mut self.player, &evaluator, games, last, sink, observer)
    }

    fn play_checkpoint(
        &mut self,
        checkpoint: &Checkpoint,
        games: usize,
        last: bool,
        sink: &mut ChunkSink,
        observer: &mut dyn Observer,
    ) -> Result<SelfPlayStats, RunError> {
        let net = checkpoint.inference_net_with(&self.device, self.kernels)?;
        let evaluator = NetEvaluator::new(net, self.player.batch_size());
        play_round(&mut self.player, &evaluator, games, last, sink, observer)
    }
}

/// Plays one round of `games` self-play games, writing each game to `sink`
/// as it ends; a `last` round drains the games in flight instead of starting
/// new ones beyond `games`.
pub(crate) fn play_round(
    player: &mut SelfPlayer,
    evaluator: &NetEvaluator,
    games: usize,
    last: bool,
    sink: &mut ChunkSink,
    observer: &mut dyn Observer,
) -> Result<SelfPlayStats, RunError> {
    let mut writer = GameWriter::new(sink, observer, games);
    let stats = if last {
        player.play_last(evaluator, games, |g| writer.push(g))?
    } else {
        player.play(evaluator, games, |g| writer.push(g))?
    };
    writer.finish()?;
    Ok(stats)
}

/// Writes finished games to a sink, reporting progress; the first write
/// error is kept and returned at the end (self-play goes on meanwhile).
pub(crate) struct GameWriter<'a> {
    sink: &'a mut ChunkSink,
    observer: &'a mut dyn Observer,
    total: usize,
    done: usize,
    error: Option<shashki_selfplay::ChunkError>,
}

impl<'a> GameWriter<'a> {
    pub(crate) fn new(
        sink: &'a mut ChunkSink,
        observer: &'a mut dyn Observer,
        total: usize,
    ) -> GameWriter<'a> {
        GameWriter {
            sink,
            observer,
            total,
            done: 0,
            error: None,
        }
    }

    pub(crate) fn push(&mut self, game: FinishedGame) {
        self.done += 1;
        self.observer.selfplay_progress(self.done, self.total);
        if let Err(e) = self.sink.push(&game)
            && self.error.is_none()
        {
            self.error = Some(e);
        }
    }

    pub(crate) fn finish(self) -> Result<(), RunError> {
        if let Some(e) = self.error {
            return Err(e.into());
        }
        self.sink.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue_family::NnueLearner;

    fn report(plies_left: Option<f32>) -> StepReport {
        StepReport {
            step: 4,
            learning_rate: 0.02,
            total: 2.5,
            policy: 1.5,
            value: 0.75,
            plies_left,
            full_search_share: 0.25,
        }
    }

    fn tags<L: Trainee>(report: &StepReport) -> Vec<&'static str> {
        L::step_scalars(report)
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }

    #[test]
    fn the_mcts_learner_names_policy_value_and_plies_left() {
        assert_eq!(
            Learner::step_scalars(&report(Some(0.5))),
            [
                ("loss/total", 2.5),
                ("loss/policy", 1.5),
                ("loss/value", 0.75),
                ("train/learning_rate", 0.02),
                ("train/full_search_share", 0.25),
                ("loss/plies_left", 0.5),
            ]
        );
        assert!(!tags::<Learner>(&report(None)).contains(&"loss/plies_left"));
        assert_eq!(
            Learner::loss_line([2.5, 1.5, 0.75]),
            "loss 2.500 (policy 1.500, value 0.750)"
        );
    }

    #[test]
    fn the_nnue_learner_names_its_one_loss() {
        let nnue = report(None);
        assert_eq!(
            NnueLearner::step_scalars(&nnue),
            [
                ("loss/total", 2.5),
                ("loss/expected_score_mse", 2.5),
                ("train/learning_rate", 0.02),
            ]
        );
        assert_eq!(
            NnueLearner::loss_line([0.125, 0.0, 0.125]),
            "loss 0.1250 (expected-score MSE)"
        );
    }
}
