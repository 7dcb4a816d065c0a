//! # shashki-net
//!
//! The policy/value network of Shashki Zero, in burn:
//!
//! - [`encoding`]: positions as input planes (side to move's view) and moves
//!   as policy indices (`from * 32 + to`), versioned.
//! - [`Net`]: the trainable residual network (any burn device), of either
//!   [`NetKind`]: the 8x8 ResNet or the 32-square diagonal net ([`diag`]);
//!   [`InferenceNet`]: the same with batch norm folded, for inference.
//! - [`NetEvaluator`]: the search's [`Evaluator`](shashki_search::Evaluator)
//!   with real batching.
//! - [`compute_losses`], [`SampleBatch`], [`train_step`]: what the learner needs.
//! - [`Checkpoint`]: weights, architecture, step and optimiser state in one
//!   checksummed file; [`export_model`] / [`import_model`]: the
//!   `model.safetensors` + `model.json` folder for other front ends.
//!
//! The CPU backend is burn's `flex` ([`device_from_name`]`("cpu")`); the
//! `wgpu` feature adds GPUs. `docs/MODEL.md` documents every format.

mod atomic;
pub mod checkpoint;
pub mod config;
pub mod device;
pub mod diag;
mod diag_inference;
pub mod encoding;
pub mod error;
pub mod evaluator;
pub mod export;
pub mod inference;
pub mod loss;
pub mod model;
pub mod playouts;
pub mod training;
pub mod weights;

pub use checkpoint::{CHECKPOINT_FORMAT_VERSION, Checkpoint, CheckpointHeader};
pub use config::{NetConfig, NetKind};
pub use device::{available_devices, device_from_name};
pub use encoding::{
    CollisionStats, ENCODING_VERSION, INPUT_LEN, POLICY_LAYOUT_VERSION, POLICY_LEN,
    count_collisions, decode_policy, encode_input, encode_policy_target, policy_index,
};
pub use error::NetError;
pub use evaluator::{EvaluatorConfig, NetEvaluator, wdl_softmax};
pub use export::{
    MODEL_JSON_FILE, ModelJson, WEIGHTS_FILE, export_model, import_model, load_checkpoint_or_model,
    sha256_hex,
};
pub use inference::{HostOutput, InferenceNet};
pub use loss::{LossWeights, Losses, SampleBatch, TrainBatch, compute_losses, encode_sample};
pub use model::{BoardNet, Net, NetOutput, PLIES_LEFT_SCALE, parameter_count};
pub use playouts::random_positions;
pub use training::{LossValues, adam, optimizer_from_bytes, optimizer_to_bytes, train_step};
pub use weights::NamedTensor;

/// Re-exported so users need not depend on burn for the device type.
pub use burn::tensor::Device;
