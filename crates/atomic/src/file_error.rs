//! The error of one file, named by its path: it could not be read or
//! written, or its contents are not what the reader expects. The network
//! crates' errors wrap it, so the two cases are said once.

use std::path::PathBuf;
use thiserror::Error;

/// What went wrong with a file.
#[derive(Debug, Error)]
pub enum FileError {
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is not in the expected format (foreign, truncated or corrupt).
    #[error("{path}: {reason}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

impl FileError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> FileError {
        FileError::Io {
            path: path.into(),
            source,
        }
    }

    /// A format error on `path`.
    pub fn format(path: impl Into<PathBuf>, reason: impl Into<String>) -> FileError {
        FileError::Format {
            path: path.into(),
            reason: reason.into(),
        }
    }
}
