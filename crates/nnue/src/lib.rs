//! # shashki-nnue
//!
//! An efficiently updatable network (NNUE) for the alpha-beta engine:
//!
//! - [`features`]: the sparse inputs (`stm-piece-square`, 4 x 32 per
//!   perspective) and what a move changes.
//! - [`FloatNet`]: the float weights and their forward pass (what training
//!   produces); [`QuantNet`]: the integer network (i16 accumulator, i8
//!   dense weights, clipped ReLU) and its plain integer reference.
//! - [`Stacks`]: output layer stacks chosen by game phase.
//! - [`speed`]: nodes per second of each layout against the hand evaluation.
//! - [`Kernels`]: scalar and AVX2 integer kernels with identical results;
//!   [`dense`]: the hidden layers laid out for them.
//! - [`NnueEval`]: the search's [`StaticEval`](shashki_search::alphabeta::StaticEval)
//!   with a lazily updated accumulator stack.
//! - [`save_model`] / [`load_quantized`] / [`load_float`]: the model folder
//!   (`model.json` + float and quantized safetensors, checksummed);
//!   [`load_engine_net`] also takes a training checkpoint;
//!   [`export_nnue_onnx`] / [`check_nnue_onnx`]: the float net as `model.onnx`.
//! - [`NnueCheckpoint`]: a training checkpoint (float weights, step,
//!   optimiser state) in one checksummed file.
//! - [`train`]: the same float architecture in burn, for training (the
//!   only module that uses burn; inference is plain Rust).
//! - [`NnueError`]: the crate's one error type.

pub mod accumulator;
pub mod aligned;
pub mod checkpoint;
pub mod dense;
pub mod error;
pub mod eval_cache;
pub mod features;
pub mod file;
pub mod layers;
pub mod network;
pub mod onnx;
pub mod quant;
pub mod simd;
pub mod speed;
pub mod stacks;
pub mod train;
pub mod widen;

pub use accumulator::NnueEval;
pub use checkpoint::NnueCheckpoint;
pub use error::NnueError;
pub use file::{
    NnueModelJson, load_float, load_quantized, load_quantized_bytes, read_model_json, save_model,
};
pub use layers::{FT_MAX, FT_MULTIPLE, HIDDEN_MAX, HIDDEN_MULTIPLE, LAYERS, Layer, LayerId};
pub use network::{Architecture, EVAL_CP_PER_UNIT, FloatNet};
pub use onnx::{NNUE_ONNX_FILE, check_nnue_onnx, export_nnue_onnx};
pub use quant::QuantNet;
pub use simd::Kernels;
pub use stacks::Stacks;

use std::path::Path;
use std::sync::Arc;

/// Whether `path` names a checkpoint file rather than a model folder (or
/// the folder's `model.json`).
fn is_checkpoint_file(path: &Path) -> bool {
    path.is_file()
        && path
            .file_name()
            .is_none_or(|name| name != file::MODEL_JSON_FILE)
}

/// The engine's integer network from a model folder (or its `model.json`)
/// or a training checkpoint file. A checkpoint's float weights are
/// quantized as [`save_model`] would, so a checkpoint plays exactly like
/// its export: a run's checkpoints can be rated without exporting each.
pub fn load_engine_net(path: &Path) -> Result<QuantNet, NnueError> {
    if is_checkpoint_file(path) {
        Ok(QuantNet::quantize(&NnueCheckpoint::load(path)?.net))
    } else {
        load_quantized(path)
    }
}

/// The float network of a training checkpoint file or a model folder
/// (what a learner continues from).
pub fn load_training_net(path: &Path) -> Result<FloatNet, NnueError> {
    if is_checkpoint_file(path) {
        Ok(NnueCheckpoint::load(path)?.net)
    } else {
        Ok(load_float(path)?.0)
    }
}

/// Training steps behind the network at `path` (a checkpoint file or a
/// model folder).
pub fn training_step(path: &Path) -> Result<u64, NnueError> {
    if is_checkpoint_file(path) {
        Ok(NnueCheckpoint::load(path)?.step)
    } else {
        Ok(read_model_json(path)?.training_step)
    }
}

/// Loads a model folder or checkpoint as a ready evaluator for the
/// alpha-beta engine.
pub fn load_evaluator(path: &Path) -> Result<NnueEval, NnueError> {
    let net = load_engine_net(path)?;
    Ok(NnueEval::new(
        Arc::new(net),
        format!("nnue {}", path.display()),
    ))
}
