//! # shashki-net
//!
//! The policy/value network of Shashki Zero, in burn:
//!
//! - [`encoding`]: positions as input planes (side to move's view) and moves
//!   as policy indices (`from * 32 + to`), versioned.
//! - [`desc`]: the layers of a network, described once ([`ModelDesc`]);
//!   [`kinds`]: the table of [`NetKind`]s, and the tensor names, shapes,
//!   checks and parameter counts that follow from a description.
//! - The kinds, one file each: [`board`] (the 8x8 ResNet) and [`diag`] (the
//!   32-square diagonal net), each giving its activation layout, its
//!   convolution (trainable and folded), pooling and policy read-out
//!   (`layout`'s traits).
//! - [`Net`] ([`model`]): the trainable network of either kind, a
//!   [`tower`] generic over the kind's convolution (any burn device);
//!   [`InferenceNet`] ([`inference`]): the same with batch norm folded
//!   (`fold`, `folded`), for inference. `layers` turns burn layers into
//!   named host tensors and back; [`output`] is what both forms return.
//! - [`NetEvaluator`]: the search's [`Evaluator`](shashki_search::Evaluator)
//!   with real batching.
//! - [`compute_losses`], [`SampleBatch`], [`train_step`]: what the learner
//!   needs; [`rows_norm`]: the diagonal net's training batch norm without
//!   burn's transposing copies.
//! - [`Checkpoint`]: weights, architecture, step and optimiser state in one
//!   checksummed file; [`export_model`] / [`import_model`]: the
//!   `model.safetensors` + `model.json` folder for other front ends;
//!   [`export_onnx`] / [`check_onnx`]: the same net as `model.onnx`
//!   ([`onnx`]);
//!   [`weights`]: named host tensors, their sources and safetensors.
//!
//! The CPU backend is burn's `flex` ([`device_from_name`]`("cpu")`); the
//! `wgpu` feature adds GPUs. `docs/MODEL.md` documents every format.

pub mod board;
pub mod checkpoint;
pub mod config;
pub mod desc;
pub mod device;
pub mod diag;
pub mod encoding;
pub mod error;
pub mod evaluator;
pub mod export;
mod fold;
mod folded;
pub mod inference;
pub mod kernels;
pub mod kinds;
mod layers;
mod layout;
pub mod loss;
pub mod model;
pub mod onnx;
pub mod output;
pub mod playouts;
pub mod rows_norm;
pub mod tower;
pub mod training;
pub mod weights;

pub use board::BoardNet;
pub use checkpoint::{CHECKPOINT_FORMAT_VERSION, Checkpoint, CheckpointHeader};
pub use config::{NetConfig, NetKind};
pub use desc::ModelDesc;
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
pub use inference::InferenceNet;
pub use kernels::{InferenceKernels, KernelNet};
pub use kinds::parameter_count;
pub use loss::{LossWeights, Losses, SampleBatch, TrainBatch, compute_losses, encode_sample};
pub use model::Net;
pub use onnx::{ONNX_FILE, OnnxSummary, check_onnx, export_onnx};
pub use output::{HostOutput, NetOutput, PLIES_LEFT_SCALE};
pub use playouts::random_positions;
pub use rows_norm::set_reference_batch_norm;
pub use training::{LossValues, adam, optimizer_from_bytes, optimizer_to_bytes, train_step};
pub use weights::NamedTensor;

/// Re-exported so users need not depend on burn for the device type.
pub use burn::tensor::Device;
