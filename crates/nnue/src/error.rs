//! The one error type of the NNUE crate.

use std::path::PathBuf;
use thiserror::Error;

/// What went wrong while building, loading or saving a network.
#[derive(Debug, Error)]
pub enum NnueError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file is not in the expected format (foreign, truncated or corrupt).
    #[error("{path}: {reason}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
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
        NnueError::Io {
            path: path.into(),
            source,
        }
    }

    /// A format error on `path`.
    pub fn format(path: impl Into<PathBuf>, reason: impl Into<String>) -> NnueError {
        NnueError::Format {
            path: path.into(),
            reason: reason.into(),
        }
    }
}
