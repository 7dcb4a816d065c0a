//! # shashki-nnue
//!
//! An efficiently updatable network (NNUE) for the alpha-beta engine:
//!
//! - [`features`]: the sparse inputs (`stm-piece-square`, 4 x 32 per
//!   perspective) and what a move changes.
//! - [`FloatNet`]: the float weights and their forward pass (what training
//!   produces); [`QuantNet`]: the integer network (i16 accumulator, i8
//!   dense weights, clipped ReLU) and its plain integer reference.
//! - [`Kernels`]: scalar and AVX2 integer kernels with identical results.
//! - [`NnueEval`]: the search's [`StaticEval`](shashki_search::alphabeta::StaticEval)
//!   with a lazily updated accumulator stack.
//! - [`save_model`] / [`load_quantized`] / [`load_float`]: the model folder
//!   (`model.json` + float and quantized safetensors, checksummed).
//! - [`NnueCheckpoint`]: a training checkpoint (float weights, step,
//!   optimiser state) in one checksummed file.
//! - [`train`]: the same float architecture in burn, for training (the
//!   only module that uses burn; inference is plain Rust).

pub mod accumulator;
pub mod checkpoint;
pub mod error;
pub mod features;
pub mod file;
pub mod network;
pub mod quant;
pub mod simd;
pub mod train;

pub use accumulator::NnueEval;
pub use checkpoint::NnueCheckpoint;
pub use error::NnueError;
pub use file::{NnueModelJson, load_float, load_quantized, read_model_json, save_model};
pub use network::{Architecture, EVAL_CP_PER_UNIT, FloatNet};
pub use quant::QuantNet;
pub use simd::Kernels;

use std::path::Path;
use std::sync::Arc;

/// Loads a model folder as a ready evaluator for the alpha-beta engine.
pub fn load_evaluator(path: &Path) -> Result<NnueEval, NnueError> {
    let net = load_quantized(path)?;
    Ok(NnueEval::new(
        Arc::new(net),
        format!("nnue {}", path.display()),
    ))
}
