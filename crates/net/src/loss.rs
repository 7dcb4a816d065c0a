//! Training targets and losses: what the learner feeds the network and
//! what it minimises.
//!
//! - Policy: cross-entropy between a target distribution over the 1024
//!   policy indices and the softmax of the logits restricted to the legal
//!   indices (illegal logits are pushed to -1e9 before the softmax).
//! - Value: cross-entropy between a W/D/L target distribution and the
//!   softmax of the W/D/L logits.
//! - Plies left (if the head exists): squared error on `plies / 100`.

use crate::encoding::{
    BOARD, INPUT_LEN, INPUT_PLANES, POLICY_LEN, encode_input, encode_policy_target,
};
use crate::output::{NetOutput, PLIES_LEFT_SCALE};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use serde::{Deserialize, Serialize};
use shashki_rules::{DrawState, Move, Position};

/// Logit offset that removes illegal moves from the policy softmax.
const ILLEGAL_LOGIT_OFFSET: f32 = 1e9;

/// A training batch on a device.
#[derive(Clone, Debug)]
pub struct TrainBatch {
    /// Encoded positions `[n, 7, 8, 8]`.
    pub inputs: Tensor<4>,
    /// Target distribution over the policy indices `[n, 1024]` (sums to 1
    /// per row, 0 at illegal indices).
    pub policy_target: Tensor<2>,
    /// 1 at the legal indices, 0 elsewhere `[n, 1024]`.
    pub legal_mask: Tensor<2>,
    /// W/D/L target distribution `[n, 3]`, side to move's view.
    pub wdl_target: Tensor<2>,
    /// Plies left divided by [`PLIES_LEFT_SCALE`] `[n, 1]`.
    pub plies_left_target: Tensor<2>,
}

/// Relative weights of the loss terms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LossWeights {
    /// Weight of the policy cross-entropy.
    pub policy: f32,
    /// Weight of the W/D/L cross-entropy.
    pub value: f32,
    /// Weight of the plies-left squared error (ignored without the head).
    pub plies_left: f32,
}

impl Default for LossWeights {
    fn default() -> Self {
        LossWeights {
            policy: 1.0,
            value: 1.0,
            plies_left: 0.1,
        }
    }
}

/// The loss terms of one batch (each a one-element tensor, batch mean).
#[derive(Clone, Debug)]
pub struct Losses {
    /// Weighted sum: what to call `backward` on.
    pub total: Tensor<1>,
    /// Policy cross-entropy.
    pub policy: Tensor<1>,
    /// W/D/L cross-entropy.
    pub value: Tensor<1>,
    /// Plies-left squared error, if the head exists.
    pub plies_left: Option<Tensor<1>>,
}

/// Computes the losses of `output` (the network run on `batch.inputs`).
pub fn compute_losses(output: &NetOutput, batch: &TrainBatch, weights: &LossWeights) -> Losses {
    let masked = output.policy.clone() + (batch.legal_mask.clone() - 1.0) * ILLEGAL_LOGIT_OFFSET;
    let policy = -(batch.policy_target.clone() * log_softmax(masked, 1))
        .sum_dim(1)
        .mean();
    let value = -(batch.wdl_target.clone() * log_softmax(output.wdl.clone(), 1))
        .sum_dim(1)
        .mean();
    let plies_left = output.plies_left.as_ref().map(|pred| {
        let diff = pred.clone() - batch.plies_left_target.clone();
        (diff.clone() * diff).mean()
    });
    let mut total = policy.clone() * weights.policy + value.clone() * weights.value;
    if let Some(plies) = &plies_left {
        total = total + plies.clone() * weights.plies_left;
    }
    Losses {
        total,
        policy,
        value,
        plies_left,
    }
}

/// Encodes one training sample into caller-provided slices: the input
/// (`INPUT_LEN`), the policy target and legal mask (`POLICY_LEN` each).
/// `move_probabilities` has one entry per move of `moves` (e.g. visit shares).
pub fn encode_sample(
    position: &Position,
    draw_state: DrawState,
    moves: &[Move],
    move_probabilities: &[f32],
    input: &mut [f32],
    policy_target: &mut [f32],
    legal_mask: &mut [f32],
) {
    encode_input(position, draw_state, input);
    encode_policy_target(
        moves,
        position.side_to_move(),
        move_probabilities,
        policy_target,
        legal_mask,
    );
}

/// Host buffers for a training batch, filled sample by sample and then
/// turned into a [`TrainBatch`]. `clear` keeps the capacity.
#[derive(Clone, Debug, Default)]
pub struct SampleBatch {
    inputs: Vec<f32>,
    policy: Vec<f32>,
    mask: Vec<f32>,
    wdl: Vec<f32>,
    plies_left: Vec<f32>,
}

impl SampleBatch {
    /// Buffers with room for `n` samples.
    pub fn with_capacity(n: usize) -> SampleBatch {
        SampleBatch {
            inputs: Vec::with_capacity(n * INPUT_LEN),
            policy: Vec::with_capacity(n * POLICY_LEN),
            mask: Vec::with_capacity(n * POLICY_LEN),
            wdl: Vec::with_capacity(n * 3),
            plies_left: Vec::with_capacity(n),
        }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.wdl.len() / 3
    }

    /// True if no sample was pushed.
    pub fn is_empty(&self) -> bool {
        self.wdl.is_empty()
    }

    /// Forgets the samples, keeping the capacity.
    pub fn clear(&mut self) {
        self.inputs.clear();
        self.policy.clear();
        self.mask.clear();
        self.wdl.clear();
        self.plies_left.clear();
    }

    /// Adds one sample: the position and its draw state, the legal moves
    /// with their target probabilities, the W/D/L target (side to move's
    /// view) and the plies left until the game ended.
    pub fn push(
        &mut self,
        position: &Position,
        draw_state: DrawState,
        moves: &[Move],
        move_probabilities: &[f32],
        wdl: [f32; 3],
        plies_left: f32,
    ) {
        let start = self.inputs.len();
        self.inputs.resize(start + INPUT_LEN, 0.0);
        let policy_start = self.policy.len();
        self.policy.resize(policy_start + POLICY_LEN, 0.0);
        self.mask.resize(policy_start + POLICY_LEN, 0.0);
        encode_sample(
            position,
            draw_state,
            moves,
            move_probabilities,
            &mut self.inputs[start..],
            &mut self.policy[policy_start..],
            &mut self.mask[policy_start..],
        );
        self.wdl.extend_from_slice(&wdl);
        self.plies_left.push(plies_left / PLIES_LEFT_SCALE);
    }

    /// The batch as device tensors.
    pub fn to_tensors(&self, device: &Device) -> TrainBatch {
        let n = self.len();
        let t2 = |data: &[f32], width: usize| {
            Tensor::<2>::from_data(TensorData::new(data.to_vec(), [n, width]), device)
        };
        TrainBatch {
            inputs: Tensor::from_data(
                TensorData::new(self.inputs.clone(), [n, INPUT_PLANES, BOARD, BOARD]),
                device,
            ),
            policy_target: t2(&self.policy, POLICY_LEN),
            legal_mask: t2(&self.mask, POLICY_LEN),
            wdl_target: t2(&self.wdl, 3),
            plies_left_target: t2(&self.plies_left, 1),
        }
    }
}
