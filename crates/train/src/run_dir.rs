//! The layout of a run directory.
//!
//! ```text
//! runs/<name>/
//!   config.toml      the run's configuration (saved at the first start;
//!                    a resumed run uses it)
//!   run.json         process starts so far (each start gets its own
//!                    self-play random streams)
//!   data/            self-play chunk files (the replay window reads them)
//!   checkpoints/     ckpt-<step>.shzk + .state.json, best-<step>.shzk
//!   tb/              tensorboard event files
//!   lock             pid and host of the trainer using the run (an OS
//!                    file lock on it is the real guard)
//!   selfplay.pdn     (not written: games live in the chunks)
//! ```

use crate::config::{ConfigError, RunConfig};
use serde::{Deserialize, Serialize};
use shashki_atomic::write_atomic;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a run directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RunDirError {
    /// The path exists but is not a directory.
    #[error("run directory {0}: exists and is not a directory")]
    NotADirectory(PathBuf),
    /// Another process holds the run's lock.
    #[error(
        "run directory {root} is in use by {holder} (lock file {lock}); stop that trainer first, \
         or use another --run-dir"
    )]
    Locked {
        /// The run directory.
        root: PathBuf,
        /// Who holds it, as written in the lock file.
        holder: String,
        /// The lock file.
        lock: PathBuf,
    },
    /// Creating or locking failed.
    #[error("run directory {path}: {error}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
}

/// The exclusive lock of a run directory, held while the value lives. The
/// OS releases it when the process ends, however it ends (`kill -9`
/// included), so a crash never leaves a run locked.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

/// Paths of a run directory.
#[derive(Clone, Debug)]
pub struct RunDir {
    root: PathBuf,
}

/// `run.json`: bookkeeping of process starts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// How many times the run has been started (this start included once
    /// [`RunDir::begin_session`] returns).
    pub sessions: u64,
}

impl RunDir {
    /// The run directory at `root` (not created yet).
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }

    /// The root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `config.toml`.
    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// `data/`.
    pub fn data_dir(&self) -> PathBuf {
        self.root.join("data")
    }

    /// `checkpoints/`.
    pub fn checkpoint_dir(&self) -> PathBuf {
        self.root.join("checkpoints")
    }

    /// `tb/`.
    pub fn tensorboard_dir(&self) -> PathBuf {
        self.root.join("tb")
    }

    /// `lock`.
    pub fn lock_path(&self) -> PathBuf {
        self.root.join("lock")
    }

    /// Creates the directory if needed and takes its exclusive lock (one
    /// trainer or learner per run directory; self-play workers writing
    /// chunks into `data/` take none). Fails at once, naming the holder, if
    /// another process has it.
    pub fn lock(&self) -> Result<RunLock, RunDirError> {
        if self.root.exists() && !self.root.is_dir() {
            return Err(RunDirError::NotADirectory(self.root.clone()));
        }
        let io = |path: PathBuf| move |error| RunDirError::Io { path, error };
        std::fs::create_dir_all(&self.root).map_err(io(self.root.clone()))?;
        let path = self.lock_path();
        // Opened without truncating: the holder's pid and host stay readable
        // until the lock is ours.
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io(path.clone()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(RunDirError::Locked {
                    root: self.root.clone(),
                    holder: if holder.is_empty() {
                        "another process".into()
                    } else {
                        holder.to_string()
                    },
                    lock: path,
                });
            }
            Err(std::fs::TryLockError::Error(error)) => {
                return Err(RunDirError::Io { path, error });
            }
        }
        let text = format!("pid {} on host {}\n", std::process::id(), host_name());
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(text.as_bytes()))
            .and_then(|()| file.sync_all())
            .map_err(io(path))?;
        Ok(RunLock { _file: file })
    }

    /// True if the directory holds a saved configuration (a run to resume).
    pub fn exists(&self) -> bool {
        self.config_path().is_file()
    }

    /// The configuration to run with: the saved one when resuming (and a
    /// note if `requested` differs from it), else `requested`, which is then
    /// saved. Creates the directories.
    pub fn prepare(
        &self,
        requested: &RunConfig,
    ) -> Result<(RunConfig, Option<String>), ConfigError> {
        let io = |path: PathBuf| move |error| ConfigError::Io { path, error };
        for dir in [self.root.clone(), self.data_dir(), self.checkpoint_dir()] {
            std::fs::create_dir_all(&dir).map_err(io(dir.clone()))?;
        }
        if self.exists() {
            let saved = RunConfig::load(&self.config_path())?;
            // The generation count is a command-line matter, not a setting.
            let mut comparable = requested.clone();
            comparable.run.generations = saved.run.generations;
            let note = (saved != comparable).then(|| {
                format!(
                    "{} has its own config.toml, which differs from the one given; resuming with the saved one \
                     (use a new --run-dir to change settings)",
                    self.root.display()
                )
            });
            return Ok((saved, note));
        }
        write_atomic(&self.config_path(), requested.to_toml().as_bytes())
            .map_err(io(self.config_path()))?;
        Ok((requested.clone(), None))
    }

    /// Removes temporary files that writers killed mid-write left in
    /// `data/` and `checkpoints/`. Only our own names count
    /// (`.NAME.tmpPID[.EXT]`, as the atomic writer makes them), and only
    /// stale ones: their process is gone, or they are older than `min_age`
    /// (the pid may have been reused). Call it holding the run's lock.
    /// Returns how many were removed.
    pub fn remove_stale_temp_files(&self, min_age: Duration) -> usize {
        let mut removed = 0;
        for dir in [self.data_dir(), self.checkpoint_dir()] {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(pid) = temp_file_pid(&name.to_string_lossy()) else {
                    continue;
                };
                let old = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age >= min_age);
                let writer_gone = pid != std::process::id() && !process_exists(pid);
                if (old || writer_gone) && std::fs::remove_file(entry.path()).is_ok() {
                    removed += 1;
                }
            }
        }
        removed
    }

    /// Counts this process start in `run.json` and returns the session
    /// number (0 for the first start).
    pub fn begin_session(&self) -> std::io::Result<u64> {
        let path = self.root.join("run.json");
        let mut info: RunInfo = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        let session = info.sessions;
        info.sessions += 1;
        write_atomic(
            &path,
            &serde_json::to_vec_pretty(&info).expect("run info serialises"),
        )?;
        Ok(session)
    }
}

/// The writer's pid in a temporary file name `.NAME.tmpPID` or
/// `.NAME.tmpPID.EXT`; `None` for any other name.
fn temp_file_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (stem, tail) = rest.rsplit_once(".tmp")?;
    if stem.is_empty() {
        return None;
    }
    let digits = tail.split_once('.').map_or(tail, |(pid, _ext)| pid);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// True if a process with this pid runs (on Linux, by `/proc`; elsewhere
/// it is assumed to, and the age decides).
fn process_exists(pid: u32) -> bool {
    if Path::new("/proc/self").exists() {
        Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

/// This machine's name, for the lock file.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_root(tag: &str) -> PathBuf {
        std::env::temp_dir().join(format!(
            "shashki-rundir-{tag}-{}-{}",
            std::process::id(),
            rand::random::<u32>()
        ))
    }

    #[test]
    fn temp_file_names_and_their_writers() {
        assert_eq!(temp_file_pid(".ckpt-000000100.tmp1234.shzk"), Some(1234));
        assert_eq!(temp_file_pid(".run.tmp9"), Some(9));
        assert_eq!(temp_file_pid(".ckpt-1.state.tmp77.json"), Some(77));
        assert_eq!(temp_file_pid("ckpt-1.tmp77.shzk"), None, "not hidden");
        assert_eq!(temp_file_pid(".tmp12"), None, "no stem");
        assert_eq!(temp_file_pid(".a.tmp.json"), None, "no pid");
        assert_eq!(temp_file_pid(".a.tmp12x.json"), None);
    }

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_freed_on_drop() {
        let root = temp_root("lock");
        let run = RunDir::new(&root);
        let held = run.lock().unwrap();
        let text = std::fs::read_to_string(run.lock_path()).unwrap();
        assert!(
            text.starts_with(&format!("pid {} on host ", std::process::id())),
            "{text}"
        );
        // Another open file description: the same as another process.
        let err = run.lock().unwrap_err().to_string();
        assert!(
            err.contains("in use by pid") && err.contains(&root.display().to_string()),
            "{err}"
        );
        drop(held);
        let again = run.lock().unwrap();
        drop(again);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_run_directory_that_is_a_file_is_named_as_such() {
        let root = temp_root("file");
        std::fs::write(&root, b"not a folder").unwrap();
        let err = RunDir::new(&root).lock().unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "run directory {}: exists and is not a directory",
                root.display()
            )
        );
        std::fs::remove_file(&root).unwrap();
    }

    #[test]
    fn prepare_saves_the_config_and_a_resume_keeps_it() {
        let root = std::env::temp_dir().join(format!(
            "shashki-rundir-{}-{}",
            std::process::id(),
            rand::random::<u32>()
        ));
        let run = RunDir::new(&root);
        let first = RunConfig::default();
        let (config, note) = run.prepare(&first).unwrap();
        assert_eq!((config, note), (first.clone(), None));
        let mut other = first.clone();
        other.train.batch_size = 7;
        other.run.generations = 99;
        let (config, note) = run.prepare(&other).unwrap();
        assert_eq!(config, first, "the saved config wins");
        assert!(note.unwrap().contains("differs"));
        let mut only_generations = first.clone();
        only_generations.run.generations = 5;
        assert!(run.prepare(&only_generations).unwrap().1.is_none());
        assert_eq!(run.begin_session().unwrap(), 0);
        assert_eq!(run.begin_session().unwrap(), 1);

        // Temporary files of a live writer (this process) and of one that
        // is gone (no pid is that large), young and old.
        let me = std::process::id();
        let gone = 4_000_000_000u32;
        let live_chunk = run.data_dir().join(format!(".chunk-1.tmp{me}.shzc"));
        let dead_chunk = run.data_dir().join(format!(".chunk-2.tmp{gone}.shzc"));
        let dead_ckpt = run
            .checkpoint_dir()
            .join(format!(".ckpt-000000001.tmp{gone}.shzk"));
        let dead_state = run
            .checkpoint_dir()
            .join(format!(".ckpt-000000001.state.tmp{gone}.json"));
        let not_ours = run.data_dir().join(".notes.tmpx");
        for path in [&live_chunk, &dead_chunk, &dead_ckpt, &dead_state, &not_ours] {
            std::fs::write(path, b"x").unwrap();
        }
        std::fs::write(run.data_dir().join("chunk-1.shzc"), b"x").unwrap();
        assert_eq!(
            run.remove_stale_temp_files(std::time::Duration::from_secs(3600)),
            3,
            "the files of a process that is gone go at once"
        );
        assert!(live_chunk.exists() && not_ours.exists());
        assert_eq!(
            run.remove_stale_temp_files(std::time::Duration::ZERO),
            1,
            "old enough: the live writer's file goes too"
        );
        assert!(not_ours.exists());
        assert!(run.data_dir().join("chunk-1.shzc").exists());
        std::fs::remove_dir_all(root).unwrap();
    }
}
