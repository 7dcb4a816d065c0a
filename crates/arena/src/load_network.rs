//! Loading a network player's evaluator: a checkpoint file (`runs/a/ckpt-120`)
//! or an exported model folder (`models/NAME`, with `model.safetensors` and
//! `model.json`), folded for inference on the named device and run by the
//! chosen [`InferenceKernels`].

use shashki_net::{
    Checkpoint, InferenceKernels, NetEvaluator, device_from_name, load_checkpoint_or_model,
};
use shashki_search::Evaluator;
use std::path::Path;
use std::sync::Arc;

/// Preferred batch reported by loaded networks (the match's batching
/// service sets its own target).
const PREFERRED_BATCH: usize = 64;

/// The checkpoint at `path`, or the exported model if `path` is a folder.
pub fn load_checkpoint(path: &Path) -> Result<Checkpoint, String> {
    load_checkpoint_or_model(path).map_err(|e| e.to_string())
}

/// Training steps recorded in the checkpoint or model at `path`.
pub fn checkpoint_steps(path: &Path) -> Result<u64, String> {
    Ok(load_checkpoint(path)?.step)
}

/// Loads the network at `path` onto `device` as an evaluator run by
/// `kernels` (where they apply: the hand-written ones run `diag32` nets on
/// the CPU).
pub fn load_evaluator(
    path: &Path,
    device: &str,
    kernels: InferenceKernels,
) -> Result<Arc<dyn Evaluator>, String> {
    let checkpoint = load_checkpoint(path)?;
    let device = device_from_name(device).map_err(|e| e.to_string())?;
    let net = checkpoint
        .inference_net_with(&device, kernels)
        .map_err(|e| e.to_string())?;
    Ok(Arc::new(NetEvaluator::new(net, PREFERRED_BATCH)))
}
