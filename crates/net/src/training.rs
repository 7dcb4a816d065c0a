//! One optimiser step, and the optimiser state as bytes for checkpoints.
//!
//! The learner owns its loop; this is the piece every loop needs: forward on
//! an autodiff device, [`compute_losses`], backward, Adam step.

use crate::error::NetError;
use crate::layers::host;
use crate::loss::{LossWeights, TrainBatch, compute_losses};
use crate::model::Net;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::{Bytes, Tensor};

/// The loss terms of one step as plain numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossValues {
    /// Weighted total.
    pub total: f32,
    /// Policy cross-entropy.
    pub policy: f32,
    /// W/D/L cross-entropy.
    pub value: f32,
    /// Plies-left squared error, if the head exists.
    pub plies_left: Option<f32>,
}

/// Adam with burn's defaults (beta 0.9/0.999, epsilon 1e-5, no weight decay).
pub fn adam() -> ModuleOptimizer {
    AdamConfig::new().init()
}

fn scalar(t: Tensor<1>) -> Result<f32, NetError> {
    host(t)?
        .first()
        .copied()
        .ok_or_else(|| NetError::Tensor("empty loss tensor".into()))
}

/// One training step: `net` must live on an autodiff device (and `batch`
/// on the same device). Returns the updated network and the losses
/// measured before the update.
pub fn train_step(
    net: Net,
    optimizer: &mut ModuleOptimizer,
    batch: &TrainBatch,
    learning_rate: f64,
    weights: &LossWeights,
) -> Result<(Net, LossValues), NetError> {
    let output = net.forward(batch.inputs.clone());
    let losses = compute_losses(&output, batch, weights);
    let values = LossValues {
        total: scalar(losses.total.clone())?,
        policy: scalar(losses.policy.clone())?,
        value: scalar(losses.value.clone())?,
        plies_left: losses.plies_left.clone().map(scalar).transpose()?,
    };
    let grads = GradientsParams::from_grads(losses.total.backward(), &net);
    let net = optimizer.step(learning_rate, net, grads);
    Ok((net, values))
}

/// The optimiser state (Adam moments, step counts) as bytes, for
/// [`Checkpoint::optimizer`](crate::Checkpoint). burn lists the tensors in
/// hash-map order, new in every process; they are rewritten sorted by name,
/// so equal states give equal bytes (and equal checkpoint files).
pub fn optimizer_to_bytes(optimizer: &ModuleOptimizer) -> Result<Vec<u8>, NetError> {
    let error = |e: &dyn std::fmt::Display| {
        NetError::Tensor(format!("cannot serialise the optimizer state: {e}"))
    };
    let bytes = optimizer.into_bytes().map_err(|e| error(&e))?;
    let reader = burn_pack::Reader::from_bytes(bytes).map_err(|e| error(&e))?;
    let scalars = reader.scalars().clone();
    let metadata = reader.metadata().clone();
    let mut tensors = reader.into_tensors().map_err(|e| error(&e))?;
    tensors.sort_by(|a, b| a.name.cmp(&b.name));
    let mut writer = burn_pack::Writer::new(tensors);
    for (key, value) in &scalars {
        writer = writer.with_scalar(key, *value);
    }
    for (key, value) in &metadata {
        writer = writer.with_metadata(key, value);
    }
    Ok(writer.into_bytes().map_err(|e| error(&e))?.to_vec())
}

/// Restores an optimiser state saved by [`optimizer_to_bytes`] into
/// `optimizer` (a fresh one of the same kind). The network's parameter ids
/// are fixed by its architecture, so the state finds its parameters again.
pub fn optimizer_from_bytes(
    optimizer: ModuleOptimizer,
    bytes: &[u8],
) -> Result<ModuleOptimizer, NetError> {
    optimizer
        .from_bytes(Bytes::from_bytes_vec(bytes.to_vec()))
        .map_err(|e| NetError::Tensor(format!("cannot read the optimizer state: {e}")))
}
