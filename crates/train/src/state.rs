//! Counters a run keeps across restarts.

use crate::replay::ReplayState;
use serde::{Deserialize, Serialize};

/// What the learner saves beside each checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LearnerState {
    /// Training steps taken (equals the checkpoint's step).
    pub step: u64,
    /// Generations of `shashki train` completed.
    pub generation: u64,
    /// Self-play games finished by this run (as counted at checkpoints).
    pub games: u64,
    /// Self-play samples written by this run (as counted at checkpoints).
    pub samples: u64,
    /// Reuse accounting of the replay window.
    pub replay: ReplayState,
    /// Step of the net self-play currently uses (the last promoted one
    /// when gating is on).
    pub best_step: u64,
    /// Elo of the best net relative to the first one, summed over gates.
    pub best_elo: f64,
    /// Seconds the run has trained, summed over its sittings, up to this
    /// checkpoint (absent in runs older than the time budget: 0).
    #[serde(default)]
    pub seconds: f64,
    /// Refits done (`[refit]`; absent in runs before them: 0).
    #[serde(default)]
    pub refits: u64,
    /// The mark of the run's time, in seconds, the last refit by time
    /// ended at (0: none yet).
    #[serde(default)]
    pub refit_mark: u64,
}
