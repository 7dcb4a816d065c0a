//! Training checkpoints of an NNUE run: one file holding the float
//! weights, the training step and the optimiser state, so a run resumes
//! exactly where it stopped. (The model folder of [`crate::save_model`] is
//! the export for engines; a checkpoint is what the learner continues from.)
//!
//! # File layout, version 1 (little-endian)
//!
//! | offset | type | field |
//! |-------:|------|-------|
//! | 0  | 8 bytes | magic `SHZNNCK\0` |
//! | 8  | u32 | format version ([`CHECKPOINT_VERSION`]) |
//! | 12 | u32 | header length `h` |
//! | 16 | `h` bytes | header JSON ([`CheckpointHeader`]) |
//! | 16 + h | | float weights (safetensors, as `model.safetensors`) |
//! | ... | | optimiser state (burn's bytes; may be empty) |
//! | end - 32 | 32 bytes | SHA-256 of everything before it |

use crate::error::NnueError;
use crate::features::{FEATURE_LAYOUT, FEATURE_LAYOUT_VERSION, NUM_FEATURES};
use crate::file::{LayoutSpec, float_from_safetensors, float_safetensors};
use crate::network::{Architecture, FloatNet};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The first 8 bytes of every NNUE checkpoint.
pub const CHECKPOINT_MAGIC: [u8; 8] = *b"SHZNNCK\0";
/// The newest checkpoint format version: 2 for nets with output stacks;
/// single-stack nets are still written as version 1 (readable by every
/// earlier build). Both are read.
pub const CHECKPOINT_VERSION: u32 = 2;

/// The JSON header of a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointHeader {
    /// The input features the weights were trained for.
    pub feature_layout: LayoutSpec,
    /// Layer sizes.
    pub architecture: Architecture,
    /// Training steps behind the weights.
    pub step: u64,
    /// Bytes of the float weights.
    pub weights_len: u64,
    /// Bytes of the optimiser state (0: none saved).
    pub optimizer_len: u64,
}

/// A training checkpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct NnueCheckpoint {
    /// The float weights (architecture included).
    pub net: FloatNet,
    /// Training steps behind them.
    pub step: u64,
    /// burn's optimiser state, if saved.
    pub optimizer: Option<Vec<u8>>,
}

fn current_layout() -> LayoutSpec {
    LayoutSpec {
        name: FEATURE_LAYOUT.to_string(),
        version: FEATURE_LAYOUT_VERSION,
        features: NUM_FEATURES,
    }
}

impl NnueCheckpoint {
    /// The bytes of the file.
    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        let weights = float_safetensors(&self.net)?;
        let optimizer = self.optimizer.as_deref().unwrap_or(&[]);
        let header = CheckpointHeader {
            feature_layout: current_layout(),
            architecture: self.net.arch.clone(),
            step: self.step,
            weights_len: weights.len() as u64,
            optimizer_len: optimizer.len() as u64,
        };
        let json = serde_json::to_vec(&header).expect("checkpoint header serialises");
        let mut bytes = Vec::with_capacity(16 + json.len() + weights.len() + optimizer.len() + 32);
        bytes.extend_from_slice(&CHECKPOINT_MAGIC);
        let version = if self.net.arch.stacks.is_single() {
            1
        } else {
            CHECKPOINT_VERSION
        };
        bytes.extend_from_slice(&version.to_le_bytes());
        bytes.extend_from_slice(&(json.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&json);
        bytes.extend_from_slice(&weights);
        bytes.extend_from_slice(optimizer);
        let digest = Sha256::digest(&bytes);
        bytes.extend_from_slice(&digest);
        Ok(bytes)
    }

    /// Parses and verifies the bytes of a checkpoint (`path` names it in
    /// errors): magic, version, checksum, feature layout, architecture and
    /// every tensor's shape.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<NnueCheckpoint, NnueError> {
        let fail = |reason: String| NnueError::format(path, reason);
        if bytes.len() < 16 + 32 || bytes[..8] != CHECKPOINT_MAGIC {
            return Err(fail(
                "not a Shashki NNUE checkpoint (bad magic bytes or too short)".into(),
            ));
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        let version = u32_at(8);
        if !(1..=CHECKPOINT_VERSION).contains(&version) {
            return Err(NnueError::Version {
                path: path.to_path_buf(),
                what: "checkpoint format version",
                found: version.to_string(),
                expected: format!("1 or {CHECKPOINT_VERSION}"),
            });
        }
        let body = bytes.len() - 32;
        if Sha256::digest(&bytes[..body])[..] != bytes[body..] {
            return Err(fail(
                "SHA-256 checksum mismatch: truncated or corrupted checkpoint".into(),
            ));
        }
        let header_len = u32_at(12) as usize;
        let header_end = 16usize
            .checked_add(header_len)
            .filter(|&end| end <= body)
            .ok_or_else(|| fail(format!("header length {header_len} runs past the end")))?;
        let header: CheckpointHeader = serde_json::from_slice(&bytes[16..header_end])
            .map_err(|e| fail(format!("bad checkpoint header: {e}")))?;
        if header.feature_layout != current_layout() {
            let l = &header.feature_layout;
            return Err(NnueError::Version {
                path: path.to_path_buf(),
                what: "feature layout",
                found: format!("{} v{} ({} features)", l.name, l.version, l.features),
                expected: format!(
                    "{FEATURE_LAYOUT} v{FEATURE_LAYOUT_VERSION} ({NUM_FEATURES} features)"
                ),
            });
        }
        header.architecture.validate()?;
        if version < CHECKPOINT_VERSION && !header.architecture.stacks.is_single() {
            return Err(fail(format!(
                "format version {version} has no output stacks, but the header names {}",
                header.architecture.stacks
            )));
        }
        let weights_end = header_end as u64 + header.weights_len;
        if weights_end + header.optimizer_len != body as u64 {
            return Err(fail(format!(
                "the header promises {} + {} bytes of weights and optimiser state, the file holds {}",
                header.weights_len,
                header.optimizer_len,
                body - header_end
            )));
        }
        let weights_end = weights_end as usize;
        let net =
            float_from_safetensors(&header.architecture, &bytes[header_end..weights_end], path)?;
        let optimizer = (header.optimizer_len > 0).then(|| bytes[weights_end..body].to_vec());
        Ok(NnueCheckpoint {
            net,
            step: header.step,
            optimizer,
        })
    }

    /// Writes the file atomically.
    pub fn save(&self, path: &Path) -> Result<(), NnueError> {
        let bytes = self.to_bytes().map_err(|e| NnueError::format(path, e))?;
        shashki_atomic::write_atomic(path, &bytes).map_err(|e| NnueError::io(path, e))
    }

    /// Reads and verifies a checkpoint file.
    pub fn load(path: &Path) -> Result<NnueCheckpoint, NnueError> {
        let bytes = std::fs::read(path).map_err(|e| NnueError::io(path, e))?;
        NnueCheckpoint::from_bytes(&bytes, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint() -> NnueCheckpoint {
        NnueCheckpoint {
            net: FloatNet::random(&Architecture::default(), 5).unwrap(),
            step: 42,
            optimizer: Some(vec![1, 2, 3, 4]),
        }
    }

    #[test]
    fn a_checkpoint_reads_back_identical() {
        let c = checkpoint();
        let bytes = c.to_bytes().unwrap();
        assert_eq!(
            NnueCheckpoint::from_bytes(&bytes, Path::new("x")).unwrap(),
            c
        );
        let none = NnueCheckpoint {
            optimizer: None,
            ..c
        };
        let bytes = none.to_bytes().unwrap();
        assert_eq!(
            NnueCheckpoint::from_bytes(&bytes, Path::new("x")).unwrap(),
            none
        );
    }

    #[test]
    fn truncated_corrupt_foreign_and_other_versions_give_clear_errors() {
        let bytes = checkpoint().to_bytes().unwrap();
        let path = Path::new("runs/x/ckpt.shzk");
        let err = |b: &[u8]| NnueCheckpoint::from_bytes(b, path).unwrap_err().to_string();
        let truncated = err(&bytes[..bytes.len() - 100]);
        assert!(
            truncated.contains("checksum") && truncated.contains("runs/x"),
            "{truncated}"
        );
        let mut flipped = bytes.clone();
        flipped[200] ^= 1;
        assert!(err(&flipped).contains("corrupted"));
        assert!(
            err(b"SHZCHNK\0 a chunk, not a checkpoint.............................")
                .contains("magic")
        );
        let mut newer = bytes.clone();
        newer[8] = 9;
        assert!(err(&newer).contains("checkpoint format version is 9"));
        // Another feature layout, with a valid checksum.
        let text = String::from_utf8_lossy(&bytes).into_owned();
        assert!(text.contains("stm-piece-square"));
        let mut other = bytes[..bytes.len() - 32].to_vec();
        let at = other
            .windows(16)
            .position(|w| w == b"stm-piece-square")
            .unwrap();
        other[at..at + 3].copy_from_slice(b"abc");
        let digest = Sha256::digest(&other);
        other.extend_from_slice(&digest);
        assert!(err(&other).contains("feature layout is abc-piece-square"));
    }
}
