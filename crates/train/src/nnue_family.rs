//! The NNUE family of `shashki train` (`[run] engine = "nnue"`): self-play
//! by the alpha-beta engine with the current network (quantized, as the
//! engine runs it), learning on the float network in burn, a checkpoint per
//! generation and the quantized model folder exported beside it.
//!
//! Target of a sample (Stockfish's trainer): the expected score
//! `lambda * score + (1 - lambda) * result`, where `score` is the search's
//! expected score (`W + D/2` of the sample's root W/D/L, which alpha-beta
//! self-play fills from its score) and `result` is 1, 1/2 or 0 for a won,
//! drawn or lost game; the loss is the mean squared error of
//! `sigmoid(output)` against it. With `[nnue] label_model` the score is a
//! policy/value network's value of the position instead (the fast net
//! learns the big net's judgment). The lambda schedule, early-ply skipping
//! and win/draw/loss filtering are [`crate::nnue_targets`]'s.

use crate::checkpoints::CheckpointFile;
use crate::config::{RunConfig, TrainSection};
use crate::errors::RunError;
use crate::family::{Family, GameWriter, Trainee};
use crate::net_learner::{StepReport, build_optimizer};
use crate::nnue_targets::{TargetRules, WinRateFit, WinRateModel};
use crate::observer::Observer;
use crate::run_dir::RunDir;
use crate::seeds::net_seed;
use burn::optim::ModuleOptimizer;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shashki_net::{
    Device, NetEvaluator, load_checkpoint_or_model, optimizer_from_bytes, optimizer_to_bytes,
};
use shashki_nnue::train::{NnueBatch, NnueModel, train_step};
use shashki_nnue::{Architecture, FloatNet, NnueCheckpoint, NnueEval, QuantNet, save_model};
use shashki_rules::MoveList;
use shashki_search::{EvalRequest, Evaluation};
use shashki_selfplay::{
    AbDataOptions, AbSelfPlayLimits, AbSelfPlayer, ChunkSink, MultiPv, Sample, SelfPlayStats,
    TreeSamples,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Folder (in the run directory) of the newest network as a model folder:
/// `shashki analyse --engine nnue:runs/<name>/model` plays it.
pub const MODEL_DIR: &str = "model";
/// Folder of the newest promoted network (gating runs).
pub const BEST_MODEL_DIR: &str = "best-model";

pub use crate::nnue_targets::target;

/// Steps between two refits of the WDL filter's win-rate model.
const WDL_REFIT_STEPS: u64 = 50;

/// Stream of the WDL filter's draws (with the run seed and the step).
const WDL_FILTER_STREAM: u64 = 0x5744_4C46;

/// The NNUE float network in burn, its optimiser and step.
pub struct NnueLearner {
    arch: Architecture,
    train: TrainSection,
    rules: TargetRules,
    seed: u64,
    /// The (score, result) pairs trained on, and the model fitted to them.
    fit: WinRateFit,
    win_rate: Option<WinRateModel>,
    device: Device,
    model: Option<NnueModel>,
    optimizer: Option<ModuleOptimizer>,
    step: u64,
}

impl NnueLearner {
    /// A learner starting from `net` at `step` (with a saved optimiser state
    /// if given) on `device` (autodiff is enabled here).
    pub fn new(
        net: &FloatNet,
        step: u64,
        optimizer: Option<&[u8]>,
        config: &RunConfig,
        device: &Device,
    ) -> Result<NnueLearner, RunError> {
        let device = device.clone().autodiff();
        let mut opt = build_optimizer(&config.train);
        if let Some(bytes) = optimizer {
            opt = optimizer_from_bytes(opt, bytes)?;
        }
        Ok(NnueLearner {
            arch: net.arch.clone(),
            train: config.train.clone(),
            rules: TargetRules::from_config(&config.nnue),
            seed: config.run.seed,
            fit: WinRateFit::default(),
            win_rate: None,
            model: Some(NnueModel::from_float(net, &device)),
            device,
            optimizer: Some(opt),
            step,
        })
    }

    /// The samples of a batch that are trained on: early plies skipped,
    /// and with the WDL filter on, each kept with the probability of its
    /// result under the win-rate model fitted so far (none is dropped
    /// before `wdl_filter_min_samples` are counted; the draws come from
    /// the run seed and the step). A batch that would lose every sample
    /// keeps them all.
    fn kept(&mut self, samples: &[Sample]) -> Vec<Sample> {
        if self.rules.wdl_filter {
            samples.iter().for_each(|s| self.fit.add(s));
            if self.fit.total() >= self.rules.wdl_filter_min_samples
                && (self.win_rate.is_none() || self.step.is_multiple_of(WDL_REFIT_STEPS))
            {
                self.win_rate = self.fit.fit();
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ WDL_FILTER_STREAM);
        rng.set_stream(self.step);
        let kept: Vec<Sample> = samples
            .iter()
            .filter(|s| self.rules.keeps(s, self.win_rate.as_ref(), &mut rng))
            .copied()
            .collect();
        if kept.is_empty() {
            samples.to_vec()
        } else {
            kept
        }
    }

    /// The win-rate model the WDL filter uses now (none before it is fitted).
    pub fn win_rate_model(&self) -> Option<WinRateModel> {
        self.win_rate
    }

    /// The current float weights.
    pub fn float_net(&self) -> FloatNet {
        self.model
            .as_ref()
            .expect("the learner holds its model between steps")
            .to_float(&self.arch)
    }
}

impl Trainee for NnueLearner {
    type Checkpoint = NnueCheckpoint;

    fn fresh(config: &RunConfig, device: &Device) -> Result<NnueLearner, RunError> {
        NnueLearner::new(&fresh_net(config)?, 0, None, config, device)
    }

    fn resume(
        config: &RunConfig,
        checkpoint: &NnueCheckpoint,
        path: &Path,
        device: &Device,
    ) -> Result<NnueLearner, RunError> {
        let arch = architecture(config)?;
        if checkpoint.net.arch != arch {
            return Err(RunError::Mismatch(format!(
                "{}: the checkpoint's NNUE architecture {:?} is not [nnue]'s {:?}",
                path.display(),
                checkpoint.net.arch,
                arch
            )));
        }
        NnueLearner::new(
            &checkpoint.net,
            checkpoint.step(),
            checkpoint.optimizer.as_deref(),
            config,
            device,
        )
    }

    fn step(&self) -> u64 {
        self.step
    }

    fn train_on(&mut self, samples: &[Sample]) -> Result<StepReport, RunError> {
        let samples = self.kept(samples);
        let learning_rate = self.train.learning_rate_at(self.step);
        self.train_at(&samples, learning_rate)
    }

    fn refit_start(
        &self,
        config: &RunConfig,
        fresh: bool,
        seed: u64,
        device: &Device,
    ) -> Result<NnueLearner, RunError> {
        let net = if fresh {
            FloatNet::random(&self.arch, seed)?
        } else {
            self.float_net()
        };
        let mut learner = NnueLearner::new(&net, self.step, None, config, device)?;
        // The WDL filter's counts go on with the refitted net.
        learner.fit = self.fit.clone();
        learner.win_rate = self.win_rate;
        Ok(learner)
    }

    fn train_at(&mut self, samples: &[Sample], learning_rate: f64) -> Result<StepReport, RunError> {
        let lambda = self.rules.lambda_at(self.step) as f32;
        let positions: Vec<_> = samples.iter().map(|s| s.position).collect();
        let targets: Vec<f32> = samples.iter().map(|s| target(s, lambda)).collect();
        let batch = NnueBatch::for_stacks(self.arch.stacks, &positions, &targets, &self.device);
        let model = self.model.take().expect("model present");
        let optimizer = self.optimizer.as_mut().expect("optimizer present");
        let (model, loss) = train_step(model, optimizer, &batch, learning_rate);
        self.model = Some(model);
        self.step += 1;
        Ok(StepReport {
            step: self.step,
            learning_rate,
            // The fields the command line's progress bar reads; the loss is
            // named by `step_scalars` and `loss_line` below.
            total: loss,
            policy: 0.0,
            value: loss,
            plies_left: None,
            full_search_share: 1.0,
        })
    }

    /// The one loss term is the expected-score MSE (`total` of the report);
    /// there is no policy head and no playout-cap share to log.
    fn step_scalars(report: &StepReport) -> Vec<(&'static str, f64)> {
        vec![
            ("loss/total", report.total as f64),
            ("loss/expected_score_mse", report.total as f64),
            ("train/learning_rate", report.learning_rate),
        ]
    }

    fn loss_line(means: [f32; 3]) -> String {
        format!("loss {:.4} (expected-score MSE)", means[0])
    }

    fn checkpoint(&self) -> Result<NnueCheckpoint, RunError> {
        let optimizer = optimizer_to_bytes(self.optimizer.as_ref().expect("optimizer present"))?;
        Ok(NnueCheckpoint {
            net: self.float_net(),
            step: self.step,
            optimizer: Some(optimizer),
        })
    }
}

/// The NNUE family: alpha-beta self-play, the burn learner above.
pub struct NnueFamily {
    player: AbSelfPlayer,
    /// `[nnue] label_model`: the network whose value labels the samples.
    labeller: Option<NetEvaluator>,
}

impl NnueFamily {
    /// Self-play from `config` with games seeded by `seed`, stopping when
    /// `stop` is set.
    pub fn new(
        config: &RunConfig,
        seed: u64,
        stop: Arc<AtomicBool>,
    ) -> Result<NnueFamily, RunError> {
        let limits = AbSelfPlayLimits {
            depth: config.nnue.depth,
            nodes: config.nnue.nodes,
            skip_captures: config.nnue.skip_captures,
            selectivity: config.nnue.search,
        };
        let rules = config.game_rules();
        let mut player = AbSelfPlayer::new(config.selfplay.clone(), limits, rules, seed)?;
        player.set_stop(stop);
        player.set_data_options(data_options(config))?;
        let labeller = match &config.nnue.label_model {
            Some(path) => {
                let checkpoint = load_checkpoint_or_model(Path::new(path))?;
                let net = checkpoint.inference_net(&Device::flex())?;
                Some(NetEvaluator::new(net, LABEL_BATCH))
            }
            None => None,
        };
        Ok(NnueFamily { player, labeller })
    }
}

/// The self-play data options `[nnue]` sets.
pub fn data_options(config: &RunConfig) -> AbDataOptions {
    let n = &config.nnue;
    AbDataOptions {
        multipv: MultiPv {
            moves: n.random_multipv_moves,
            plies: n.random_multipv_plies,
            margin: n.random_multipv_margin,
        },
        tree: TreeSamples {
            rate: n.tree_sample_rate as f32,
            max_plies: n.tree_sample_plies,
            depth: n.tree_sample_depth,
        },
        exact_labels: n.exact_labels,
        tablebase_search: n.tablebase_search,
        drawish_scale: n.drawish_scale,
        surprise_weight: n.surprise_weight as f32,
    }
}

/// Positions per network call when labelling.
const LABEL_BATCH: usize = 256;

/// Replaces each sample's root W/D/L (the search's score) by `net`'s
/// value of its position and draw state.
fn label_samples(net: &NetEvaluator, samples: &mut [Sample]) -> Result<(), RunError> {
    let moves: Vec<MoveList> = samples.iter().map(|s| s.position.legal_moves()).collect();
    let requests: Vec<EvalRequest<'_>> = samples
        .iter()
        .zip(&moves)
        .map(|(s, moves)| EvalRequest {
            position: &s.position,
            draw_state: s.draw_state,
            moves: moves.as_slice(),
        })
        .collect();
    let mut values = vec![Evaluation::default(); requests.len()];
    for (batch, out) in requests
        .chunks(LABEL_BATCH)
        .zip(values.chunks_mut(LABEL_BATCH))
    {
        net.try_evaluate(batch, out)?;
    }
    for (sample, value) in samples.iter_mut().zip(values) {
        sample.root_wdl = [value.wdl.win, value.wdl.draw, value.wdl.loss];
    }
    Ok(())
}

fn architecture(config: &RunConfig) -> Result<Architecture, RunError> {
    config.nnue_architecture().map_err(|message| {
        RunError::Config(crate::ConfigError::Invalid {
            path: PathBuf::from("config.toml"),
            message,
        })
    })
}

impl Family for NnueFamily {
    type Checkpoint = NnueCheckpoint;
    type Learner = NnueLearner;

    fn play(
        &mut self,
        learner: &NnueLearner,
        best: Option<&NnueCheckpoint>,
        games: usize,
        _last: bool,
        sink: &mut ChunkSink,
        observer: &mut dyn Observer,
    ) -> Result<SelfPlayStats, RunError> {
        match best {
            Some(ckpt) => self.play_net(&ckpt.net, games, sink, observer),
            None => self.play_net(&learner.float_net(), games, sink, observer),
        }
    }

    fn play_checkpoint(
        &mut self,
        checkpoint: &NnueCheckpoint,
        games: usize,
        _last: bool,
        sink: &mut ChunkSink,
        observer: &mut dyn Observer,
    ) -> Result<SelfPlayStats, RunError> {
        self.play_net(&checkpoint.net, games, sink, observer)
    }

    fn saved(
        &mut self,
        checkpoint: &NnueCheckpoint,
        run: &RunDir,
        promoted: bool,
    ) -> Result<(), RunError> {
        export_model(checkpoint, run, promoted)
    }
}

impl NnueFamily {
    /// Plays `games` games with `net` (quantized, as the engine runs it),
    /// writing them to `sink`.
    pub fn play_net(
        &mut self,
        net: &FloatNet,
        games: usize,
        sink: &mut ChunkSink,
        observer: &mut dyn Observer,
    ) -> Result<SelfPlayStats, RunError> {
        let eval = NnueEval::new(Arc::new(QuantNet::quantize(net)), "nnue self-play");
        let mut writer = GameWriter::new(sink, observer, games);
        let mut label_error = None;
        let labeller = self.labeller.as_ref();
        let stats = self.player.play(&eval, games, |mut game| {
            if let Some(net) = labeller
                && let Err(e) = label_samples(net, &mut game.samples)
            {
                label_error.get_or_insert(e);
            }
            writer.push(game)
        })?;
        writer.finish()?;
        match label_error {
            Some(e) => Err(e),
            None => Ok(stats),
        }
    }
}

/// The fresh (seeded) float network of an NNUE run.
pub fn fresh_net(config: &RunConfig) -> Result<FloatNet, RunError> {
    Ok(FloatNet::random(
        &architecture(config)?,
        net_seed(config.run.seed),
    )?)
}

/// Exports `checkpoint` as the run's model folder (`best-model/` when
/// `promoted`), which `--engine nnue:PATH` plays.
pub fn export_model(
    checkpoint: &NnueCheckpoint,
    run: &RunDir,
    promoted: bool,
) -> Result<(), RunError> {
    let dir = run
        .root()
        .join(if promoted { BEST_MODEL_DIR } else { MODEL_DIR });
    save_model(&checkpoint.net, checkpoint.step, &dir)?;
    Ok(())
}
