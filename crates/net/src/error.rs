//! The one error type of the network crate.

use shashki_atomic::FileError;
use std::path::PathBuf;
use thiserror::Error;

/// What went wrong while building, loading, saving or running a network.
#[derive(Debug, Error)]
pub enum NetError {
    /// A file could not be read or written, or is not in the expected
    /// format.
    #[error(transparent)]
    File(#[from] FileError),
    /// A file holds a network of another architecture than the one asked for.
    #[error("{path}: architecture mismatch: the file holds {found}, expected {expected}")]
    ArchitectureMismatch {
        /// The file.
        path: PathBuf,
        /// The architecture asked for (JSON).
        expected: String,
        /// The architecture in the file (JSON).
        found: String,
    },
    /// A file was written for another input encoding or policy layout.
    #[error("{path}: {what} version {found} is not supported (this build uses {expected})")]
    VersionMismatch {
        /// The file.
        path: PathBuf,
        /// Which version: "encoding", "policy layout", "checkpoint format"...
        what: &'static str,
        /// The version in the file.
        found: u64,
        /// The version this build reads.
        expected: u64,
    },
    /// A network configuration is invalid.
    #[error("invalid network configuration: {0}")]
    Config(String),
    /// Weights do not fit the architecture (missing, extra or misshapen tensors).
    #[error("weights do not fit the network: {0}")]
    Weights(String),
    /// A weight is NaN or infinite (a corrupt file or a diverged run).
    #[error("tensor {tensor} holds a non-finite value ({value}) at index {index}")]
    NonFinite {
        /// The tensor's stable name.
        tensor: String,
        /// Index of the first bad value.
        index: usize,
        /// The value.
        value: f32,
    },
    /// The compute device cannot be used.
    #[error("device: {0}")]
    Device(String),
    /// Reading a tensor back from the device failed.
    #[error("tensor data: {0}")]
    Tensor(String),
}

impl NetError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> NetError {
        FileError::io(path, source).into()
    }

    /// A format error on `path`.
    pub fn format(path: impl Into<PathBuf>, reason: impl Into<String>) -> NetError {
        FileError::format(path, reason).into()
    }
}
