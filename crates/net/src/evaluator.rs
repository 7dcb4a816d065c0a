//! [`NetEvaluator`]: the network behind the search's [`Evaluator`] trait.
//!
//! One call encodes the whole batch into one input buffer (no per-position
//! allocation), runs one forward pass, copies the logits back and turns them
//! into priors over each position's legal moves (masked softmax) and W/D/L
//! probabilities (softmax).

use crate::config::NetConfig;
use crate::device::device_from_name;
use crate::encoding::{INPUT_LEN, POLICY_LEN, decode_policy, encode_input};
use crate::error::NetError;
use crate::inference::InferenceNet;
use crate::model::Net;
use crate::output::HostOutput;
use crate::output::PLIES_LEFT_SCALE;
use burn::tensor::Device;
use serde::{Deserialize, Serialize};
use shashki_search::{EvalRequest, Evaluation, Evaluator, Wdl};

/// How an evaluator runs (not part of the architecture).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvaluatorConfig {
    /// Batch size a batching service should try to fill.
    pub preferred_batch: usize,
    /// Compute device: `cpu`, or `wgpu` / `wgpu:N` with the `wgpu` feature.
    pub device: String,
}

impl Default for EvaluatorConfig {
    fn default() -> Self {
        EvaluatorConfig {
            preferred_batch: 64,
            device: "cpu".into(),
        }
    }
}

/// The network as an [`Evaluator`].
#[derive(Clone, Debug)]
pub struct NetEvaluator {
    net: InferenceNet,
    preferred_batch: usize,
}

impl NetEvaluator {
    /// Wraps a folded network.
    pub fn new(net: InferenceNet, preferred_batch: usize) -> NetEvaluator {
        NetEvaluator {
            net,
            preferred_batch: preferred_batch.max(1),
        }
    }

    /// Folds `net` onto `device` and wraps it.
    pub fn from_net(
        net: &Net,
        device: &Device,
        preferred_batch: usize,
    ) -> Result<NetEvaluator, NetError> {
        Ok(NetEvaluator::new(
            InferenceNet::from_net(net, device)?,
            preferred_batch,
        ))
    }

    /// Folds `net` onto the device named in `config`.
    pub fn with_config(net: &Net, config: &EvaluatorConfig) -> Result<NetEvaluator, NetError> {
        let device = device_from_name(&config.device)?;
        NetEvaluator::from_net(net, &device, config.preferred_batch)
    }

    /// The folded network.
    pub fn net(&self) -> &InferenceNet {
        &self.net
    }

    /// The architecture.
    pub fn config(&self) -> &NetConfig {
        self.net.config()
    }

    /// Encodes a batch into one buffer of `batch.len() * INPUT_LEN` floats.
    pub fn encode_batch(batch: &[EvalRequest<'_>]) -> Vec<f32> {
        let mut inputs = vec![0.0f32; batch.len() * INPUT_LEN];
        for (request, slot) in batch.iter().zip(inputs.chunks_exact_mut(INPUT_LEN)) {
            encode_input(request.position, request.draw_state, slot);
        }
        inputs
    }

    /// Turns the host outputs into one [`Evaluation`] per request, reusing
    /// the capacity of `out[i].priors`.
    pub fn decode_batch(batch: &[EvalRequest<'_>], raw: &HostOutput, out: &mut [Evaluation]) {
        for (i, (request, eval)) in batch.iter().zip(out.iter_mut()).enumerate() {
            let logits = &raw.policy[i * POLICY_LEN..(i + 1) * POLICY_LEN];
            let side = request.position.side_to_move();
            decode_policy(logits, request.moves, side, &mut eval.priors);
            eval.wdl = wdl_softmax(&raw.wdl[i * 3..i * 3 + 3]);
            eval.plies_left = raw
                .plies_left
                .as_ref()
                .map(|p| p[i].max(0.0) * PLIES_LEFT_SCALE);
        }
    }

    /// [`Evaluator::evaluate`] with device errors returned instead of panicking.
    pub fn try_evaluate(
        &self,
        batch: &[EvalRequest<'_>],
        out: &mut [Evaluation],
    ) -> Result<(), NetError> {
        assert_eq!(batch.len(), out.len(), "one evaluation slot per request");
        if batch.is_empty() {
            return Ok(());
        }
        let inputs = NetEvaluator::encode_batch(batch);
        let raw = self.net.forward_host(inputs, batch.len())?;
        NetEvaluator::decode_batch(batch, &raw, out);
        Ok(())
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        if let Err(err) = self.try_evaluate(batch, out) {
            // The trait has no error path; a failing device is not recoverable here.
            panic!("network evaluation failed: {err}");
        }
    }

    fn preferred_batch(&self) -> usize {
        self.preferred_batch
    }
}

/// Softmax of three W/D/L logits.
pub fn wdl_softmax(logits: &[f32]) -> Wdl {
    let max = logits[0].max(logits[1]).max(logits[2]);
    let e = [
        (logits[0] - max).exp(),
        (logits[1] - max).exp(),
        (logits[2] - max).exp(),
    ];
    let sum = e[0] + e[1] + e[2];
    Wdl {
        win: e[0] / sum,
        draw: e[1] / sum,
        loss: e[2] / sum,
    }
}
