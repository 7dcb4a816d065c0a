//! Starting or resuming a run: its directory claimed (the lock taken, what
//! killed processes left behind removed), its configuration (the saved one
//! wins), and its learner reopened from the newest checkpoint that loads,
//! or started fresh and saved as step 0.

use crate::checkpoints::{CheckpointFile, CheckpointStore, Loaded};
use crate::config::RunConfig;
use crate::cores::{CoreSplit, core_split};
use crate::errors::RunError;
use crate::family::Trainee;
use crate::observer::Observer;
use crate::run_dir::{RunDir, RunLock};
use crate::state::LearnerState;
use shashki_net::Device;
use shashki_selfplay::available_cores;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A claimed run directory and the configuration it runs: opened once,
/// read by whoever shows it (the command's banner), then handed to
/// [`crate::train`].
pub struct OpenRun {
    /// The directory.
    pub(crate) run: RunDir,
    /// Held while the run goes on.
    pub(crate) _lock: RunLock,
    /// The run's configuration (the one saved in it, if any).
    pub(crate) config: RunConfig,
    /// How a concurrent run shares this machine's cores.
    pub(crate) cores: CoreSplit,
    /// Whether the directory held a run already.
    resumed: bool,
}

impl OpenRun {
    /// Claims `run_dir` (its lock taken, what killed processes left
    /// removed) and settles its configuration: the one `asked` for on a
    /// new run, the saved one on a resumed run (a note says what differs).
    pub fn open(
        run_dir: &Path,
        asked: &RunConfig,
        observer: &mut dyn Observer,
    ) -> Result<OpenRun, RunError> {
        open_run(run_dir, asked, observer)
    }

    /// The configuration the run goes on with.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// How a concurrent run shares this machine's cores (settled once, for
    /// the banner, the evaluator and the run alike).
    pub fn cores(&self) -> CoreSplit {
        self.cores
    }

    /// The file that configuration comes from: the run's saved copy when
    /// it resumes, else `None` (the one asked for).
    pub fn saved_config(&self) -> Option<PathBuf> {
        self.resumed.then(|| self.run.config_path())
    }
}

/// As [`OpenRun::open`].
pub(crate) fn open_run(
    run_dir: &Path,
    asked: &RunConfig,
    observer: &mut dyn Observer,
) -> Result<OpenRun, RunError> {
    let run = RunDir::new(run_dir);
    let lock = claim_run_dir(&run, observer)?;
    let resumed = run.exists();
    let (config, note) = run.prepare(asked)?;
    if let Some(note) = note {
        observer.message(&note);
    }
    let cores = core_split(&config, available_cores());
    Ok(OpenRun {
        run,
        _lock: lock,
        config,
        cores,
        resumed,
    })
}

/// Takes the run's lock, then removes what killed processes left behind
/// (temporary files), reporting it.
fn claim_run_dir(run: &RunDir, observer: &mut dyn Observer) -> Result<RunLock, RunError> {
    let lock = run.lock()?;
    let stale = run.remove_stale_temp_files(Duration::from_secs(600));
    if stale > 0 {
        observer.message(&format!(
            "removed {stale} temporary files left by an interrupted run"
        ));
    }
    Ok(lock)
}

/// Removes state files whose checkpoint is gone.
pub(crate) fn tidy_checkpoints<C: CheckpointFile>(
    store: &CheckpointStore<C>,
    observer: &mut dyn Observer,
) -> Result<(), RunError> {
    let orphans = store.remove_orphan_states()?;
    if orphans > 0 {
        observer.message(&format!(
            "removed {orphans} checkpoint state files whose checkpoint was never written"
        ));
    }
    Ok(())
}

/// Opens (or starts) the learner of a run: the newest loadable checkpoint,
/// or a fresh net saved (and promoted) as step 0 when there is none.
/// Checkpoints that fail to load are moved aside, never deleted; if there
/// are some and none loads, this fails unless `restart` asks for a fresh
/// network.
pub(crate) fn open_learner<L: Trainee>(
    config: &RunConfig,
    store: &CheckpointStore<L::Checkpoint>,
    device: &Device,
    restart: bool,
    observer: &mut dyn Observer,
) -> Result<(L, LearnerState), RunError> {
    let loaded = store.load_latest()?;
    let unusable = match &loaded {
        Some(l) => l.skipped.clone(),
        None => store.unreadable()?,
    };
    if loaded.is_none() && !unusable.is_empty() && !restart {
        return Err(RunError::NoCheckpointLoads {
            dir: store.dir().to_path_buf(),
            files: unusable,
        });
    }
    for file in &unusable {
        let aside = store.set_aside(&file.path)?;
        observer.message(&format!(
            "unusable checkpoint moved to {}: {}",
            aside.display(),
            file.reason
        ));
    }
    match loaded {
        Some(loaded) => resume(config, loaded, device, observer),
        None => {
            if !unusable.is_empty() {
                observer.message("--restart: starting from a fresh network");
            }
            let learner = L::fresh(config, device)?;
            let state = LearnerState::default();
            let checkpoint = learner.checkpoint()?;
            store.save(&checkpoint, &state)?;
            store.promote(&checkpoint)?;
            Ok((learner, state))
        }
    }
}

/// The learner and counters of a checkpoint that loaded (counters from the
/// step alone when none were saved with it).
fn resume<L: Trainee>(
    config: &RunConfig,
    loaded: Loaded<L::Checkpoint>,
    device: &Device,
    observer: &mut dyn Observer,
) -> Result<(L, LearnerState), RunError> {
    let Loaded {
        checkpoint,
        state,
        path,
        ..
    } = loaded;
    let learner = L::resume(config, &checkpoint, &path, device)?;
    let state = state.unwrap_or_else(|| {
        observer.message(&format!(
            "{}: no counters saved with it; continuing from step {}",
            path.display(),
            checkpoint.step()
        ));
        LearnerState {
            step: checkpoint.step(),
            ..LearnerState::default()
        }
    });
    observer.message(&format!(
        "resuming from {} (step {}, generation {})",
        path.display(),
        state.step,
        state.generation
    ));
    Ok((learner, state))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoints::checkpoint_name;
    use crate::nnue_family::NnueLearner;
    use shashki_nnue::NnueCheckpoint;
    use std::path::PathBuf;

    /// Collects the observer's messages.
    #[derive(Default)]
    struct Lines(Vec<String>);
    impl Observer for Lines {
        fn message(&mut self, line: &str) {
            self.0.push(line.to_string());
        }
    }

    fn config() -> RunConfig {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/nnue-smoke.toml");
        RunConfig::load(&path).unwrap()
    }

    fn store(tag: &str) -> CheckpointStore<NnueCheckpoint> {
        let dir = std::env::temp_dir().join(format!(
            "shashki-resume-test-{tag}-{}-{}",
            std::process::id(),
            rand::random::<u32>()
        ));
        CheckpointStore::open_for(dir, 2).unwrap()
    }

    fn open(
        store: &CheckpointStore<NnueCheckpoint>,
        restart: bool,
        lines: &mut Lines,
    ) -> Result<(NnueLearner, LearnerState), RunError> {
        open_learner(&config(), store, &Device::flex(), restart, lines)
    }

    /// A checkpoint file that does not load.
    fn corrupt(store: &CheckpointStore<NnueCheckpoint>, step: u64) -> PathBuf {
        let path = store.dir().join(checkpoint_name(step));
        std::fs::write(&path, b"not a checkpoint").unwrap();
        path
    }

    #[test]
    fn a_new_run_starts_fresh_and_saves_and_promotes_step_0() {
        let store = store("fresh");
        let (learner, state) = open(&store, false, &mut Lines::default()).unwrap();
        assert_eq!((learner.step(), state), (0, LearnerState::default()));
        assert_eq!(store.checkpoints().unwrap().len(), 1);
        assert_eq!(store.promoted().unwrap()[0].0, 0);
        // The same seed gives the same fresh network.
        let again = store.load_latest().unwrap().unwrap().checkpoint;
        let other_store = self::store("fresh-b");
        let (other, _) = open(&other_store, false, &mut Lines::default()).unwrap();
        assert_eq!(other.float_net(), again.net);
        std::fs::remove_dir_all(store.dir()).unwrap();
        std::fs::remove_dir_all(other_store.dir()).unwrap();
    }

    #[test]
    fn a_run_resumes_its_newest_checkpoint_with_its_counters() {
        let store = store("resume");
        let (learner, _) = open(&store, false, &mut Lines::default()).unwrap();
        let mut checkpoint = learner.checkpoint().unwrap();
        checkpoint.step = 5;
        let state = LearnerState {
            step: 5,
            generation: 2,
            ..LearnerState::default()
        };
        store.save(&checkpoint, &state).unwrap();
        let mut lines = Lines::default();
        let (learner, resumed) = open(&store, false, &mut lines).unwrap();
        assert_eq!((learner.step(), resumed), (5, state));
        assert!(
            lines.0[0].contains("(step 5, generation 2)"),
            "{:?}",
            lines.0
        );
        std::fs::remove_dir_all(store.dir()).unwrap();
    }

    #[test]
    fn unreadable_checkpoints_stop_the_run_unless_it_restarts() {
        let store = store("unreadable");
        let path = corrupt(&store, 7);
        let error = open(&store, false, &mut Lines::default())
            .err()
            .expect("no checkpoint loads");
        assert!(matches!(error, RunError::NoCheckpointLoads { ref files, .. } if files.len() == 1));
        assert!(path.exists(), "nothing is moved without --restart");

        let mut lines = Lines::default();
        let (learner, _) = open(&store, true, &mut lines).unwrap();
        assert_eq!(learner.step(), 0);
        assert!(!path.exists());
        assert!(
            store
                .dir()
                .join("unreadable")
                .join(checkpoint_name(7))
                .exists()
        );
        assert!(
            lines
                .0
                .iter()
                .any(|l| l.starts_with("unusable checkpoint moved to"))
        );
        assert!(
            lines
                .0
                .iter()
                .any(|l| l == "--restart: starting from a fresh network")
        );
        std::fs::remove_dir_all(store.dir()).unwrap();
    }

    #[test]
    fn a_checkpoint_of_another_architecture_is_refused() {
        let store = store("mismatch");
        open(&store, false, &mut Lines::default()).unwrap();
        let mut other = config();
        other.nnue.ft = 16;
        let error = open_learner::<NnueLearner>(
            &other,
            &store,
            &Device::flex(),
            false,
            &mut Lines::default(),
        )
        .err()
        .expect("architectures differ");
        assert!(matches!(error, RunError::Mismatch(_)), "{error}");
        std::fs::remove_dir_all(store.dir()).unwrap();
    }
}
