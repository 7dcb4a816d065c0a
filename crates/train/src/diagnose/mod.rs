//! Why does an NNUE run stop improving? Measurements behind
//! `shashki nnue-diagnose` (issue 24, part 1):
//!
//! - [`held_out`]: a fixed set of quiet positions labelled by a deeper
//!   search or the tablebases ([`sources`] draws them, [`label`] labels);
//! - [`loss`]: each model's loss and sign agreement on it;
//! - [`noise`]: how the stored self-play score agrees with the game result
//!   and, on a set drawn from chunks, each target blend with the deep label;
//! - [`capacity`]: how low a layout fits one fixed set in many epochs.

pub mod capacity;
pub mod held_out;
pub mod label;
pub mod loss;
pub mod noise;
pub mod sources;

use std::path::{Path, PathBuf};

/// What a diagnosis can fail on.
#[derive(Debug, thiserror::Error)]
pub enum DiagnoseError {
    /// Reading or writing a file.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// A file that is not what it should be.
    #[error("{path}: {reason}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

impl DiagnoseError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, error: std::io::Error) -> DiagnoseError {
        DiagnoseError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}
