//! Checkpoint files: architecture, weights, training step and (optionally)
//! the optimiser state, in one checksummed file written atomically.
//!
//! Layout (little endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `SHKZCKPT` |
//! | 4 | format version (u32, [`CHECKPOINT_FORMAT_VERSION`]) |
//! | 4 | header length `H` (u32) |
//! | `H` | header, UTF-8 JSON ([`CheckpointHeader`]) |
//! | `weights_len` | the weights as a safetensors buffer (stable names) |
//! | `optimizer_len` | optimiser state bytes (burn's burnpack), may be empty |
//! | 4 | CRC32 of every byte before it |

use crate::config::NetConfig;
use crate::encoding::{ENCODING_VERSION, POLICY_LAYOUT_VERSION};
use crate::error::NetError;
use crate::inference::InferenceNet;
use crate::kernels::InferenceKernels;
use crate::kinds::check_tensors;
use crate::model::Net;
use crate::weights::{NamedTensor, check_finite, from_safetensors, to_safetensors};
use burn::tensor::Device;
use serde::{Deserialize, Serialize};
use shashki_atomic::write_atomic;
use std::path::Path;

/// First bytes of every checkpoint.
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"SHKZCKPT";
/// Version of the checkpoint layout.
pub const CHECKPOINT_FORMAT_VERSION: u32 = 1;
/// Headers longer than this are taken as corruption.
const MAX_HEADER_LEN: usize = 1 << 20;
/// Magic, format version and header length.
const PREFIX_LEN: usize = 16;

/// The JSON header of a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointHeader {
    /// Input encoding version the weights were trained for.
    pub encoding_version: u32,
    /// Policy layout version the weights were trained for.
    pub policy_layout_version: u32,
    /// Architecture.
    pub config: NetConfig,
    /// Training steps taken so far.
    pub step: u64,
    /// Length of the weights section.
    pub weights_len: u64,
    /// Length of the optimiser section (0 when absent).
    pub optimizer_len: u64,
}

/// A checkpoint in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// Architecture.
    pub config: NetConfig,
    /// Training steps taken so far.
    pub step: u64,
    /// Weights and batch norm statistics (stable names, exported layouts).
    pub tensors: Vec<NamedTensor>,
    /// Optimiser state from [`optimizer_to_bytes`](crate::optimizer_to_bytes), if saved.
    pub optimizer: Option<Vec<u8>>,
}

impl Checkpoint {
    /// Captures `net` at training step `step`.
    pub fn from_net(
        net: &Net,
        step: u64,
        optimizer: Option<Vec<u8>>,
    ) -> Result<Checkpoint, NetError> {
        Ok(Checkpoint {
            config: net.config().clone(),
            step,
            tensors: net.to_tensors()?,
            optimizer,
        })
    }

    /// The trainable network on `device` (an autodiff device to train).
    pub fn net(&self, device: &Device) -> Result<Net, NetError> {
        Net::from_tensors(&self.config, self.tensors.clone(), device)
    }

    /// The folded inference network on `device`.
    pub fn inference_net(&self, device: &Device) -> Result<InferenceNet, NetError> {
        InferenceNet::from_tensors(&self.config, self.tensors.clone(), device)
    }

    /// The folded inference network on `device`, its host forward pass run
    /// by `kernels` where they apply ([`InferenceNet::from_tensors_with`]).
    pub fn inference_net_with(
        &self,
        device: &Device,
        kernels: InferenceKernels,
    ) -> Result<InferenceNet, NetError> {
        InferenceNet::from_tensors_with(&self.config, self.tensors.clone(), device, kernels)
    }

    /// The file's bytes; fails if a weight is NaN or infinite.
    pub fn to_bytes(&self) -> Result<Vec<u8>, NetError> {
        // A diverged network is not worth keeping: refuse it here rather
        // than find it unloadable at the next resume.
        for tensor in &self.tensors {
            check_finite(tensor)?;
        }
        let weights = to_safetensors(&self.tensors, None)?;
        let optimizer = self.optimizer.as_deref().unwrap_or(&[]);
        let header = CheckpointHeader {
            encoding_version: ENCODING_VERSION,
            policy_layout_version: POLICY_LAYOUT_VERSION,
            config: self.config.clone(),
            step: self.step,
            weights_len: weights.len() as u64,
            optimizer_len: optimizer.len() as u64,
        };
        let header = serde_json::to_vec(&header).expect("header serialises");
        let mut bytes =
            Vec::with_capacity(PREFIX_LEN + header.len() + weights.len() + optimizer.len() + 4);
        bytes.extend_from_slice(CHECKPOINT_MAGIC);
        bytes.extend_from_slice(&CHECKPOINT_FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&header);
        bytes.extend_from_slice(&weights);
        bytes.extend_from_slice(optimizer);
        let crc = crc32fast::hash(&bytes);
        bytes.extend_from_slice(&crc.to_le_bytes());
        Ok(bytes)
    }

    /// Parses checkpoint bytes; `path` names the file in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Checkpoint, NetError> {
        let fail = |reason: String| NetError::format(path, reason);
        if bytes.len() < CHECKPOINT_MAGIC.len() || &bytes[..8] != CHECKPOINT_MAGIC {
            return Err(fail(
                "not a Shashki Zero checkpoint (the file does not start with SHKZCKPT)".into(),
            ));
        }
        if bytes.len() < PREFIX_LEN + 4 {
            return Err(fail(format!(
                "truncated: only {} bytes, not even a header",
                bytes.len()
            )));
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let format = u32_at(8);
        if format != CHECKPOINT_FORMAT_VERSION {
            return Err(NetError::VersionMismatch {
                path: path.into(),
                what: "checkpoint format",
                found: format.into(),
                expected: CHECKPOINT_FORMAT_VERSION.into(),
            });
        }
        let header_len = u32_at(12) as usize;
        if header_len > MAX_HEADER_LEN {
            return Err(fail(format!(
                "corrupt: header length {header_len} is implausible"
            )));
        }
        let header_end = PREFIX_LEN + header_len;
        if bytes.len() < header_end + 4 {
            return Err(fail(format!(
                "truncated: {} bytes, the header alone needs {}",
                bytes.len(),
                header_end + 4
            )));
        }
        let header: CheckpointHeader = serde_json::from_slice(&bytes[PREFIX_LEN..header_end])
            .map_err(|e| fail(format!("corrupt header: {e}")))?;
        let expected_len = (header_end as u64)
            .checked_add(header.weights_len)
            .and_then(|n| n.checked_add(header.optimizer_len))
            .and_then(|n| n.checked_add(4))
            .ok_or_else(|| fail("corrupt header: section lengths overflow".into()))?;
        if (bytes.len() as u64) < expected_len {
            return Err(fail(format!(
                "truncated: {} bytes, the header announces {expected_len}",
                bytes.len()
            )));
        }
        if (bytes.len() as u64) > expected_len {
            return Err(fail(format!(
                "corrupt: {} bytes, the header announces {expected_len}",
                bytes.len()
            )));
        }
        let body_end = bytes.len() - 4;
        let stored_crc = u32_at(body_end);
        let crc = crc32fast::hash(&bytes[..body_end]);
        if crc != stored_crc {
            return Err(fail(format!(
                "checksum mismatch (stored {stored_crc:08x}, computed {crc:08x}): the file is corrupt"
            )));
        }
        if header.encoding_version != ENCODING_VERSION {
            return Err(NetError::VersionMismatch {
                path: path.into(),
                what: "input encoding",
                found: header.encoding_version.into(),
                expected: ENCODING_VERSION.into(),
            });
        }
        if header.policy_layout_version != POLICY_LAYOUT_VERSION {
            return Err(NetError::VersionMismatch {
                path: path.into(),
                what: "policy layout",
                found: header.policy_layout_version.into(),
                expected: POLICY_LAYOUT_VERSION.into(),
            });
        }
        header
            .config
            .validate()
            .map_err(|e| fail(format!("header: {e}")))?;
        let weights_end = header_end + header.weights_len as usize;
        let tensors = from_safetensors(&bytes[header_end..weights_end], path)?;
        let tensors = check_tensors(&header.config, tensors).map_err(|e| fail(e.to_string()))?;
        let optimizer = (header.optimizer_len > 0).then(|| bytes[weights_end..body_end].to_vec());
        Ok(Checkpoint {
            config: header.config,
            step: header.step,
            tensors,
            optimizer,
        })
    }

    /// Writes the checkpoint to `path` atomically (temporary file, fsync, rename).
    pub fn save(&self, path: &Path) -> Result<(), NetError> {
        write_atomic(path, &self.to_bytes()?).map_err(|e| NetError::io(path, e))
    }

    /// Reads a checkpoint of any architecture.
    pub fn load(path: &Path) -> Result<Checkpoint, NetError> {
        let bytes = std::fs::read(path).map_err(|e| NetError::io(path, e))?;
        Checkpoint::from_bytes(&bytes, path)
    }

    /// Reads a checkpoint that must hold the architecture `expected`.
    pub fn load_expecting(path: &Path, expected: &NetConfig) -> Result<Checkpoint, NetError> {
        let checkpoint = Checkpoint::load(path)?;
        if &checkpoint.config != expected {
            return Err(NetError::ArchitectureMismatch {
                path: path.into(),
                expected: expected.to_json(),
                found: checkpoint.config.to_json(),
            });
        }
        Ok(checkpoint)
    }
}
