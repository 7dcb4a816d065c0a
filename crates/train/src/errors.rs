//! The error of the training loop and its two halves: every failure below
//! (configuration, network, checkpoints, self-play, chunks, tensorboard,
//! the run directory, gating) as one type.

use crate::checkpoints::{StoreError, UNREADABLE_DIR, Unreadable};
use crate::config::ConfigError;
use crate::run_dir::RunDirError;
use crate::tblog::TbError;
use shashki_atomic::LowDisk;
use shashki_net::NetError;
use shashki_selfplay::{ChunkError, SelfPlayError};
use std::path::{Path, PathBuf};

/// A failure of the training loop.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The configuration.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The network or a checkpoint.
    #[error(transparent)]
    Net(#[from] NetError),
    /// The checkpoint directory.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Self-play.
    #[error(transparent)]
    SelfPlay(#[from] SelfPlayError),
    /// Writing chunks.
    #[error(transparent)]
    Chunk(#[from] ChunkError),
    /// Tensorboard.
    #[error(transparent)]
    Tensorboard(#[from] TbError),
    /// Other I/O.
    #[error("{path}: {error}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// Gating failed.
    #[error("gating: {0}")]
    Gate(String),
    /// An NNUE network or model folder.
    #[error(transparent)]
    Nnue(#[from] shashki_nnue::NnueError),
    /// A checkpoint of another architecture than the configuration's.
    #[error("{0}")]
    Mismatch(String),
    /// The run directory is locked by another process or unusable.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// The concurrent loop's threads (a pool that cannot start, a side
    /// that panicked).
    #[error("concurrent training: {0}")]
    Concurrent(String),
    /// The disk's free space fell below its floor; everything done so far
    /// is saved (`shashki selfplay`, `shashki learn`: the same command
    /// resumes once there is room).
    #[error("{0}")]
    LowDisk(#[from] LowDisk),
    /// Checkpoints exist but none loads: nothing is started or deleted.
    #[error(
        "no checkpoint in {dir} loads:\n{}\nnothing was deleted; fix or move them, or rerun with \
         --restart to start from a fresh network (they are then moved to {dir}/{UNREADABLE_DIR}/)",
        list_unreadable(.files)
    )]
    NoCheckpointLoads {
        /// The checkpoint directory.
        dir: PathBuf,
        /// Each file and why it failed.
        files: Vec<Unreadable>,
    },
}

fn list_unreadable(files: &[Unreadable]) -> String {
    files
        .iter()
        .map(|f| format!("  {}", f.reason))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_checkpoint_loads_lists_each_file_and_the_way_out() {
        let files = ["a", "b"]
            .map(|name| Unreadable {
                path: PathBuf::from(format!("ckpt/{name}")),
                reason: format!("ckpt/{name}: truncated"),
            })
            .to_vec();
        let error = RunError::NoCheckpointLoads {
            dir: PathBuf::from("ckpt"),
            files,
        };
        assert_eq!(
            error.to_string(),
            format!(
                "no checkpoint in ckpt loads:\n  ckpt/a: truncated\n  ckpt/b: truncated\nnothing \
                 was deleted; fix or move them, or rerun with --restart to start from a fresh \
                 network (they are then moved to ckpt/{UNREADABLE_DIR}/)"
            )
        );
    }
}

/// A data file (chunks, held-out sets, label journals) that cannot be
/// read or written, or is not what it should be: what `nnue-diagnose` and
/// `relabel` fail on.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
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

impl FileError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, error: std::io::Error) -> FileError {
        FileError::Io {
            path: path.to_path_buf(),
            error,
        }
    }

    /// `path` is not what it should be.
    pub fn format(path: &Path, reason: impl std::fmt::Display) -> FileError {
        FileError::Format {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }
}
