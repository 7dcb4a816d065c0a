//! The one error type of the NNUE crate.

use shashki_atomic::FileError;
use std::path::PathBuf;
use thiserror::Error;

/// What went wrong while building, loading or saving a network.
#[derive(Debug, Error)]
pub enum NnueError {
    /// A file could not be read or written, or is not in the expected
    /// format.
    #[error(transparent)]
    File(#[from] FileError),
    /// A file was written for another feature layout or format version.
    #[error("{path}: {what} is {found}, this build reads {expected}")]
    Version {
        /// The file.
        path: PathBuf,
        /// Which version: "format version", "feature layout"...
        what: &'static str,
        /// What the file says.
        found: String,
        /// What this build reads.
        expected: String,
    },
    /// Layer sizes the kernels cannot run.
    #[error("invalid NNUE architecture: {0}")]
    Architecture(String),
}

impl NnueError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> NnueError {
        FileError::io(path, source).into()
    }

    /// A format error on `path`.
    pub fn format(path: impl Into<PathBuf>, reason: impl Into<String>) -> NnueError {
        FileError::format(path, reason).into()
    }
}
