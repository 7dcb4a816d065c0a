//! The learner: the network on an autodiff device, its optimiser, and one
//! training step on a minibatch of self-play samples.
//!
//! Loss: policy cross-entropy (full searches only: playout cap
//! randomisation's fast searches give no policy target) + W/D/L
//! cross-entropy + the plies-left term of the net crate, with L2 weight decay
//! in the optimiser and optional gradient-norm clipping.

use crate::config::{OptimizerKind, TrainSection};
use burn::optim::decay::WeightDecayConfig;
use burn::optim::grad_clipping::GradientClippingConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamConfig, ModuleOptimizer, SgdConfig};
use shashki_net::{
    Checkpoint, Device, InferenceKernels, InferenceNet, LossValues, LossWeights, Net, NetConfig,
    NetError, NetEvaluator, SampleBatch, optimizer_from_bytes, optimizer_to_bytes, train_step,
};
use shashki_selfplay::Sample;

/// The result of one training step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepReport {
    /// The step number after this step (1 after the first).
    pub step: u64,
    /// Learning rate used.
    pub learning_rate: f64,
    /// Weighted total loss.
    pub total: f32,
    /// Policy cross-entropy, averaged over the full-search samples only.
    pub policy: f32,
    /// W/D/L cross-entropy.
    pub value: f32,
    /// Plies-left loss, if the net has the head.
    pub plies_left: Option<f32>,
    /// Share of the batch with a policy target.
    pub full_search_share: f32,
}

/// A network being trained.
pub struct Learner {
    train: TrainSection,
    /// The autodiff device training runs on.
    device: Device,
    net: Option<Net>,
    optimizer: Option<ModuleOptimizer>,
    step: u64,
    batch: SampleBatch,
}

/// The optimiser the settings ask for.
pub fn build_optimizer(train: &TrainSection) -> ModuleOptimizer {
    let decay =
        (train.weight_decay > 0.0).then(|| WeightDecayConfig::new(train.weight_decay as f32));
    let clip =
        (train.grad_clip_norm > 0.0).then_some(GradientClippingConfig::Norm(train.grad_clip_norm));
    match train.optimizer {
        OptimizerKind::Sgd => SgdConfig::new()
            .with_weight_decay(decay)
            .with_momentum((train.momentum > 0.0).then(|| {
                MomentumConfig::new()
                    .with_momentum(train.momentum)
                    .with_dampening(0.0)
            }))
            .with_gradient_clipping(clip)
            .init(),
        OptimizerKind::Adam => AdamConfig::new()
            .with_weight_decay(decay)
            .with_grad_clipping(clip)
            .init(),
    }
}

impl Learner {
    /// A fresh network (initialised from `seed`) on `device` (autodiff is
    /// enabled here).
    pub fn new(
        net: &NetConfig,
        train: &TrainSection,
        seed: u64,
        device: &Device,
    ) -> Result<Learner, NetError> {
        let device = device.clone().autodiff();
        let net = Net::init(net, seed, &device)?;
        Ok(Learner {
            train: train.clone(),
            device,
            net: Some(net),
            optimizer: Some(build_optimizer(train)),
            step: 0,
            batch: SampleBatch::with_capacity(train.batch_size),
        })
    }

    /// Continues from a checkpoint: weights, step and (if saved) optimiser
    /// state. A checkpoint without optimiser state starts a fresh optimiser.
    pub fn from_checkpoint(
        checkpoint: &Checkpoint,
        train: &TrainSection,
        device: &Device,
    ) -> Result<Learner, NetError> {
        let device = device.clone().autodiff();
        let net = checkpoint.net(&device)?;
        let mut optimizer = build_optimizer(train);
        if let Some(bytes) = &checkpoint.optimizer {
            optimizer = optimizer_from_bytes(optimizer, bytes)?;
        }
        Ok(Learner {
            train: train.clone(),
            device,
            net: Some(net),
            optimizer: Some(optimizer),
            step: checkpoint.step,
            batch: SampleBatch::with_capacity(train.batch_size),
        })
    }

    /// Training steps taken.
    pub fn step(&self) -> u64 {
        self.step
    }

    fn net(&self) -> &Net {
        self.net
            .as_ref()
            .expect("the learner always holds its net between steps")
    }

    /// One optimiser step on `samples`.
    pub fn train_on(&mut self, samples: &[Sample]) -> Result<StepReport, NetError> {
        let full = fill_batch(&mut self.batch, samples);
        let n = samples.len().max(1);
        let full_share = full as f32 / n as f32;
        // Fast-search samples have an all-zero policy target; scale the
        // policy term so it is the mean over the samples that have one.
        let policy_scale = if full > 0 {
            n as f32 / full as f32
        } else {
            0.0
        };
        let weights = LossWeights {
            policy: self.train.policy_loss_weight * policy_scale,
            value: self.train.value_loss_weight,
            ..LossWeights::default()
        };
        let learning_rate = self.train.learning_rate_at(self.step);
        let tensors = self.batch.to_tensors(&self.device);
        let net = self.net.take().expect("net present");
        let mut optimizer = self.optimizer.take().expect("optimizer present");
        let outcome = train_step(
            net.clone(),
            &mut optimizer,
            &tensors,
            learning_rate,
            &weights,
        );
        self.optimizer = Some(optimizer);
        let (net, values): (Net, LossValues) = match outcome {
            Ok(ok) => ok,
            Err(e) => {
                // Keep the old weights so the learner stays usable.
                self.net = Some(net);
                return Err(e);
            }
        };
        self.net = Some(net);
        self.step += 1;
        Ok(StepReport {
            step: self.step,
            learning_rate,
            total: values.total,
            policy: values.policy * policy_scale,
            value: values.value,
            plies_left: values.plies_left,
            full_search_share: full_share,
        })
    }

    /// A checkpoint of the current weights, step and optimiser state.
    pub fn checkpoint(&self) -> Result<Checkpoint, NetError> {
        let optimizer = optimizer_to_bytes(self.optimizer.as_ref().expect("optimizer present"))?;
        Checkpoint::from_net(self.net(), self.step, Some(optimizer))
    }

    /// An evaluator with the current weights on `device` (inference: batch
    /// norm folded, no autodiff), run by `kernels` where they apply.
    pub fn evaluator(
        &self,
        device: &Device,
        preferred_batch: usize,
        kernels: InferenceKernels,
    ) -> Result<NetEvaluator, NetError> {
        let device = device.clone().without_autodiff();
        let inference = InferenceNet::from_net_with(self.net(), &device, kernels)?;
        Ok(NetEvaluator::new(inference, preferred_batch))
    }
}

/// Encodes samples into `batch`; returns how many have a policy target
/// ([`Sample::move_probabilities`] over the legal moves, regenerated from
/// the position for the legal-move mask).
pub fn fill_batch(batch: &mut SampleBatch, samples: &[Sample]) -> usize {
    batch.clear();
    let mut full = 0;
    let mut probs: Vec<f32> = Vec::with_capacity(64);
    for s in samples {
        let moves = s.position.legal_moves();
        s.move_probabilities(moves.as_slice(), &mut probs);
        full += usize::from(s.has_policy_target());
        let wdl = match s.result {
            1 => [1.0, 0.0, 0.0],
            -1 => [0.0, 0.0, 1.0],
            _ => [0.0, 1.0, 0.0],
        };
        batch.push(
            &s.position,
            s.draw_state,
            moves.as_slice(),
            &probs,
            wdl,
            s.plies_left as f32,
        );
    }
    full
}
