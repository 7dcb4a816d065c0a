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
//!   selfplay.pdn     (not written: games live in the chunks)
//! ```

use crate::config::{ConfigError, RunConfig};
use serde::{Deserialize, Serialize};
use shashki_selfplay::chunk::write_atomic;
use std::path::{Path, PathBuf};

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
    /// `data/` and `checkpoints/`, if older than `min_age` (another process
    /// may still be writing a young one). Returns how many were removed.
    pub fn remove_stale_temp_files(&self, min_age: std::time::Duration) -> usize {
        let mut removed = 0;
        for dir in [self.data_dir(), self.checkpoint_dir()] {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                // Chunk writers use `.tmp-<pid>-<name>`, checkpoint writers `.<name>.tmp<pid>`.
                if !(name.starts_with(".tmp-") || (name.starts_with('.') && name.contains(".tmp")))
                {
                    continue;
                }
                let old = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age >= min_age);
                if old && std::fs::remove_file(entry.path()).is_ok() {
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

#[cfg(test)]
mod tests {
    use super::*;

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

        std::fs::write(run.data_dir().join(".tmp-1-chunk-x.shzc"), b"x").unwrap();
        std::fs::write(
            run.checkpoint_dir().join(".ckpt-000000001.shzk.tmp77"),
            b"x",
        )
        .unwrap();
        std::fs::write(run.data_dir().join("chunk-1.shzc"), b"x").unwrap();
        assert_eq!(
            run.remove_stale_temp_files(std::time::Duration::from_secs(3600)),
            0,
            "too young"
        );
        assert_eq!(run.remove_stale_temp_files(std::time::Duration::ZERO), 2);
        assert!(run.data_dir().join("chunk-1.shzc").exists());
        std::fs::remove_dir_all(root).unwrap();
    }
}
