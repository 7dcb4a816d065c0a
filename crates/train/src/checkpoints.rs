//! The checkpoint directory of a run: `ckpt-<step>.shzk` files with a
//! `ckpt-<step>.state.json` beside each (the learner's counters at that
//! step), the newest `keep` kept, promoted nets copied to
//! `best-<step>.shzk` and the nets at marks of the run's own time to
//! `time-<seconds>s.shzk` (with their counters), never deleted.
//!
//! The state file is written before its checkpoint, both atomically, so a
//! checkpoint on disk always has its state. Loading takes the newest
//! checkpoint that passes its checks; a truncated or corrupt one is reported
//! and the one before it used.
//!
//! The store holds any [`CheckpointFile`]: the MCTS network's
//! [`Checkpoint`] (the default) or an NNUE run's [`NnueCheckpoint`].

use crate::state::LearnerState;
use shashki_atomic::write_atomic;
use shashki_net::{Checkpoint, NetError};
use shashki_nnue::{NnueCheckpoint, NnueError};
use std::fs;
use std::path::{Path, PathBuf};

/// A checkpoint directory failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The network could not be serialised.
    #[error(transparent)]
    Net(#[from] NetError),
    /// The NNUE network could not be serialised.
    #[error(transparent)]
    Nnue(#[from] NnueError),
}

/// A checkpoint file the store can hold.
pub trait CheckpointFile: Sized {
    /// Training steps behind it (names the file).
    fn step(&self) -> u64;
    /// Writes it atomically.
    fn save(&self, path: &Path) -> Result<(), StoreError>;
    /// Reads and verifies it; the error names the file.
    fn load(path: &Path) -> Result<Self, StoreError>;
}

impl CheckpointFile for Checkpoint {
    fn step(&self) -> u64 {
        self.step
    }
    fn save(&self, path: &Path) -> Result<(), StoreError> {
        Ok(Checkpoint::save(self, path)?)
    }
    fn load(path: &Path) -> Result<Self, StoreError> {
        Ok(Checkpoint::load(path)?)
    }
}

impl CheckpointFile for NnueCheckpoint {
    fn step(&self) -> u64 {
        self.step
    }
    fn save(&self, path: &Path) -> Result<(), StoreError> {
        Ok(NnueCheckpoint::save(self, path)?)
    }
    fn load(path: &Path) -> Result<Self, StoreError> {
        Ok(NnueCheckpoint::load(path)?)
    }
}

/// A checkpoint that loaded, with its state.
pub struct Loaded<C = Checkpoint> {
    /// The checkpoint.
    pub checkpoint: C,
    /// The learner state saved with it (`None` if its state file is missing
    /// or unreadable: the caller starts the counters from the checkpoint's
    /// step).
    pub state: Option<LearnerState>,
    /// Its file.
    pub path: PathBuf,
    /// Newer checkpoints that failed to load.
    pub skipped: Vec<Unreadable>,
}

/// A checkpoint file that failed to load, and why.
#[derive(Clone, Debug)]
pub struct Unreadable {
    /// The file.
    pub path: PathBuf,
    /// The error (names the file).
    pub reason: String,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

/// Folder (inside the checkpoint directory) where unreadable checkpoints
/// are moved, so they are neither pruned nor overwritten nor read again.
pub const UNREADABLE_DIR: &str = "unreadable";

/// The checkpoints of one run.
#[derive(Clone, Debug)]
pub struct CheckpointStore<C = Checkpoint> {
    dir: PathBuf,
    keep: usize,
    kind: std::marker::PhantomData<fn() -> C>,
}

/// File name of the checkpoint at `step`.
pub fn checkpoint_name(step: u64) -> String {
    format!("ckpt-{step:09}.shzk")
}

fn state_name(step: u64) -> String {
    format!("ckpt-{step:09}.state.json")
}

fn best_name(step: u64) -> String {
    format!("best-{step:09}.shzk")
}

/// Writes a checkpoint's counters to `path`, atomically.
fn write_state(path: &Path, state: &LearnerState) -> Result<(), StoreError> {
    let json = serde_json::to_vec_pretty(state).expect("learner state serialises");
    write_atomic(path, &json).map_err(|error| StoreError::Io {
        path: path.to_path_buf(),
        error,
    })
}

/// The files `<prefix><step>.shzk` of `dir`, by step, as (step, path).
fn list_files(dir: &Path, prefix: &str) -> Result<Vec<(u64, PathBuf)>, StoreError> {
    let entries = fs::read_dir(dir).map_err(|error| StoreError::Io {
        path: dir.to_path_buf(),
        error,
    })?;
    let mut found: Vec<(u64, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            step_of(&name.to_string_lossy(), prefix).map(|step| (step, e.path()))
        })
        .collect();
    found.sort();
    Ok(found)
}

/// The regular checkpoints of the folder `dir` (any family), oldest first,
/// as (step, path): what a reader outside the run sees (none while the run
/// has not made the folder yet).
pub fn list_checkpoints(dir: &Path) -> Result<Vec<(u64, PathBuf)>, StoreError> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    list_files(dir, "ckpt-")
}

/// The counters saved beside the checkpoint file `checkpoint`
/// (`ckpt-<step>.state.json`), if they are there and read.
pub fn read_state(checkpoint: &Path) -> Option<LearnerState> {
    let state = checkpoint.with_extension("state.json");
    fs::read(state)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<LearnerState>(&bytes).ok())
}

/// The step in a file name `<prefix><digits>.shzk`.
fn step_of(name: &str, prefix: &str) -> Option<u64> {
    name.strip_prefix(prefix)?
        .strip_suffix(".shzk")?
        .parse()
        .ok()
}

impl CheckpointStore<Checkpoint> {
    /// The store of MCTS network checkpoints in `dir` (created if missing),
    /// keeping the newest `keep` regular checkpoints.
    pub fn open(dir: impl Into<PathBuf>, keep: usize) -> Result<CheckpointStore, StoreError> {
        CheckpointStore::open_for(dir, keep)
    }
}

impl<C: CheckpointFile> CheckpointStore<C> {
    /// The store of checkpoints of type `C` in `dir` (created if missing),
    /// keeping the newest `keep` regular checkpoints.
    pub fn open_for(
        dir: impl Into<PathBuf>,
        keep: usize,
    ) -> Result<CheckpointStore<C>, StoreError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(|error| StoreError::Io {
            path: dir.clone(),
            error,
        })?;
        Ok(CheckpointStore {
            dir,
            keep: keep.max(1),
            kind: std::marker::PhantomData,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn list(&self, prefix: &str) -> Result<Vec<(u64, PathBuf)>, StoreError> {
        list_files(&self.dir, prefix)
    }

    /// Regular checkpoints, oldest first, as (step, path).
    pub fn checkpoints(&self) -> Result<Vec<(u64, PathBuf)>, StoreError> {
        self.list("ckpt-")
    }

    /// Promoted checkpoints, oldest first, as (step, path).
    pub fn promoted(&self) -> Result<Vec<(u64, PathBuf)>, StoreError> {
        self.list("best-")
    }

    /// Saves `checkpoint` with `state`, then deletes regular checkpoints
    /// beyond the newest `keep`. Returns the checkpoint's path.
    pub fn save(&self, checkpoint: &C, state: &LearnerState) -> Result<PathBuf, StoreError> {
        let step = checkpoint.step();
        write_state(&self.dir.join(state_name(step)), state)?;
        let path = self.dir.join(checkpoint_name(step));
        checkpoint.save(&path)?;
        self.prune()?;
        Ok(path)
    }

    /// Keeps `checkpoint` as the run's net at `mark` seconds of its own
    /// time (`time-<mark>s.<ext>`, never deleted), with its counters.
    pub fn keep_at_time(
        &self,
        checkpoint: &C,
        state: &LearnerState,
        mark: u64,
    ) -> Result<PathBuf, StoreError> {
        let name = format!("time-{mark}s");
        write_state(&self.dir.join(format!("{name}.state.json")), state)?;
        let path = self.dir.join(format!("{name}.shzk"));
        checkpoint.save(&path)?;
        Ok(path)
    }

    /// Copies the checkpoint at `step` to a promoted (never deleted) file.
    pub fn promote(&self, checkpoint: &C) -> Result<PathBuf, StoreError> {
        let path = self.dir.join(best_name(checkpoint.step()));
        checkpoint.save(&path)?;
        Ok(path)
    }

    /// Deletes the oldest regular checkpoint (and its state) while more
    /// than `newest` remain, for a disk budget; the bytes freed, `None`
    /// when nothing may go. Hourly and promoted nets are not regular
    /// checkpoints and stay.
    pub fn drop_oldest(&self, newest: usize) -> Result<Option<u64>, StoreError> {
        let all = self.checkpoints()?;
        if all.len() <= newest.max(1) {
            return Ok(None);
        }
        let (step, path) = &all[0];
        let state = self.dir.join(state_name(*step));
        let bytes = [path, &state]
            .iter()
            .filter_map(|p| fs::metadata(p).ok())
            .map(|m| m.len())
            .sum();
        // A file that will not go ends the dropping (no endless retry).
        if fs::remove_file(path).is_err() {
            return Ok(None);
        }
        let _ = fs::remove_file(state);
        Ok(Some(bytes))
    }

    fn prune(&self) -> Result<(), StoreError> {
        let all = self.checkpoints()?;
        let excess = all.len().saturating_sub(self.keep);
        for (step, path) in &all[..excess] {
            let _ = fs::remove_file(path);
            let _ = fs::remove_file(self.dir.join(state_name(*step)));
        }
        Ok(())
    }

    /// The newest regular checkpoint that loads, or `None` if there is none.
    /// Newer ones that fail are listed in [`Loaded::skipped`].
    pub fn load_latest(&self) -> Result<Option<Loaded<C>>, StoreError> {
        self.load_newest_of(self.checkpoints()?)
    }

    /// The newest promoted checkpoint that loads.
    pub fn load_best(&self) -> Result<Option<Loaded<C>>, StoreError> {
        self.load_newest_of(self.promoted()?)
    }

    /// Every regular checkpoint that fails to load (all of them are read).
    pub fn unreadable(&self) -> Result<Vec<Unreadable>, StoreError> {
        Ok(self
            .checkpoints()?
            .into_iter()
            .filter_map(|(_, path)| {
                C::load(&path).err().map(|e| Unreadable {
                    path,
                    reason: e.to_string(),
                })
            })
            .collect())
    }

    /// Moves `file` (and the state file of a regular checkpoint) into
    /// `<dir>/unreadable/`, keeping it for inspection; returns its new path.
    pub fn set_aside(&self, file: &Path) -> Result<PathBuf, StoreError> {
        let aside = self.dir.join(UNREADABLE_DIR);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |error| StoreError::Io { path, error }
        };
        fs::create_dir_all(&aside).map_err(io(&aside))?;
        let name = file.file_name().unwrap_or_default();
        let target = aside.join(name);
        fs::rename(file, &target).map_err(io(file))?;
        if let Some(step) = step_of(&name.to_string_lossy(), "ckpt-") {
            let state = self.dir.join(state_name(step));
            if state.exists() {
                fs::rename(&state, aside.join(state_name(step))).map_err(io(&state))?;
            }
        }
        Ok(target)
    }

    /// Deletes `ckpt-<step>.state.json` files whose checkpoint is missing
    /// (a kill between writing the state and its checkpoint, or between
    /// pruning the two). Returns how many were removed.
    pub fn remove_orphan_states(&self) -> Result<usize, StoreError> {
        let entries = fs::read_dir(&self.dir).map_err(|error| StoreError::Io {
            path: self.dir.clone(),
            error,
        })?;
        let mut removed = 0;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(step) = name
                .to_string_lossy()
                .strip_prefix("ckpt-")
                .and_then(|rest| rest.strip_suffix(".state.json"))
                .and_then(|digits| digits.parse::<u64>().ok())
            else {
                continue;
            };
            if name.to_string_lossy() == state_name(step)
                && !self.dir.join(checkpoint_name(step)).exists()
                && fs::remove_file(entry.path()).is_ok()
            {
                removed += 1;
            }
        }
        Ok(removed)
    }

    fn load_newest_of(&self, list: Vec<(u64, PathBuf)>) -> Result<Option<Loaded<C>>, StoreError> {
        let mut skipped = Vec::new();
        for (step, path) in list.into_iter().rev() {
            match C::load(&path) {
                Ok(checkpoint) => {
                    let state = read_state(&self.dir.join(checkpoint_name(step)))
                        .filter(|s| s.step == checkpoint.step());
                    return Ok(Some(Loaded {
                        checkpoint,
                        state,
                        path,
                        skipped,
                    }));
                }
                Err(e) => skipped.push(Unreadable {
                    path,
                    reason: e.to_string(),
                }),
            }
        }
        Ok(None)
    }
}
