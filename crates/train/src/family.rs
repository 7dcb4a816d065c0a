//! What the generation loop of [`crate::train`] needs of an engine family,
//! so one loop (run directory, replay window, checkpoints, tensorboard,
//! gating, resume) trains both: the MCTS policy/value network
//! ([`MctsFamily`]) and the alpha-beta engine's NNUE
//! ([`crate::nnue_family::NnueFamily`]).

use crate::checkpoints::CheckpointFile;
use crate::config::RunConfig;
use crate::learner::{Learner, StepReport};
use crate::pipeline::{Observer, RunError, mix};
use crate::run_dir::RunDir;
use shashki_net::{Checkpoint, Device, NetError, NetEvaluator};
use shashki_selfplay::{ChunkSink, FinishedGame, Sample, SelfPlayStats, SelfPlayer};
use std::path::Path;

/// A network being trained, as the loop sees it.
pub trait Trainee {
    /// What it saves.
    type Checkpoint: CheckpointFile;
    /// Training steps taken.
    fn step(&self) -> u64;
    /// One optimiser step on `samples`.
    fn train_on(&mut self, samples: &[Sample]) -> Result<StepReport, RunError>;
    /// Its weights, step and optimiser state.
    fn checkpoint(&self) -> Result<Self::Checkpoint, RunError>;
}

/// An engine family: how to start or resume its learner and how its
/// self-play plays a round of games.
pub trait Family {
    /// The checkpoint type of its runs.
    type Checkpoint: CheckpointFile;
    /// Its learner.
    type Learner: Trainee<Checkpoint = Self::Checkpoint>;
    /// A fresh (seeded) network: the start of a run.
    fn fresh(&self, config: &RunConfig) -> Result<Self::Learner, RunError>;
    /// Continues from `checkpoint` (read from `path`); fails if its
    /// architecture is not the configuration's.
    fn resume(
        &self,
        config: &RunConfig,
        checkpoint: &Self::Checkpoint,
        path: &Path,
    ) -> Result<Self::Learner, RunError>;
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
    /// The label of the loss columns in the generation line.
    fn loss_line(&self, losses: [f32; 3]) -> String {
        let [t, p, v] = losses;
        format!("loss {t:.3} (policy {p:.3}, value {v:.3})")
    }
}

impl Trainee for Learner {
    type Checkpoint = Checkpoint;
    fn step(&self) -> u64 {
        Learner::step(self)
    }
    fn train_on(&mut self, samples: &[Sample]) -> Result<StepReport, RunError> {
        Ok(Learner::train_on(self, samples)?)
    }
    fn checkpoint(&self) -> Result<Checkpoint, RunError> {
        Ok(Learner::checkpoint(self)?)
    }
}

/// The MCTS family: a policy/value network, Gumbel/PUCT self-play.
pub struct MctsFamily {
    /// The self-play engine (games carry over between rounds).
    pub player: SelfPlayer,
    /// The compute device.
    pub device: Device,
}

impl Family for MctsFamily {
    type Checkpoint = Checkpoint;
    type Learner = Learner;

    fn fresh(&self, config: &RunConfig) -> Result<Learner, RunError> {
        Ok(Learner::new(
            &config.net,
            &config.train,
            mix(config.run.seed, 0x4E37),
            &self.device,
        )?)
    }

    fn resume(
        &self,
        config: &RunConfig,
        checkpoint: &Checkpoint,
        path: &Path,
    ) -> Result<Learner, RunError> {
        if checkpoint.config != config.net {
            return Err(RunError::Net(NetError::ArchitectureMismatch {
                path: path.to_path_buf(),
                expected: config.net.to_json(),
                found: checkpoint.config.to_json(),
            }));
        }
        Ok(Learner::from_checkpoint(
            checkpoint,
            &config.train,
            &self.device,
        )?)
    }

    fn play(
        &mut self,
        learner: &Learner,
        best: Option<&Checkpoint>,
        games: usize,
        last: bool,
        sink: &mut ChunkSink,
        observer: &mut dyn Observer,
    ) -> Result<SelfPlayStats, RunError> {
        let batch = self.player_batch();
        let evaluator = match best {
            Some(ckpt) => NetEvaluator::new(ckpt.inference_net(&self.device)?, batch),
            None => learner.evaluator(&self.device, batch)?,
        };
        play_round(&mut self.player, &evaluator, games, last, sink, observer)
    }
}

impl MctsFamily {
    fn player_batch(&self) -> usize {
        self.player.batch_size()
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
