//! `[run] disk_budget_gb`: a run that holds more than its budget drops,
//! after a generation, what no reader of the run needs: first the chunks
//! wholly older than the replay window (oldest first; none when the
//! learner reads every chunk: `replay = "all"` or refits), then regular
//! checkpoints but the newest few. Never the newest checkpoint, an hourly
//! or promoted net, the logs, or a chunk the window still reads.

use crate::config::RunConfig;
use crate::errors::RunError;
use crate::family::Trainee;
use crate::learning_side::Trainer;
use crate::observer::Observer;
use shashki_atomic::room::{GB, size};

/// Regular checkpoints a budget keeps: the newest, and two to fall back on
/// if it is damaged.
pub(crate) const CHECKPOINTS_KEPT: usize = 3;

/// A run's disk budget.
pub(crate) struct DiskBudget {
    /// In bytes; 0: none.
    bytes: u64,
    /// The run said once that it cannot get under the budget.
    warned: bool,
}

impl DiskBudget {
    /// The budget of `config`'s `[run] disk_budget_gb`.
    pub(crate) fn new(config: &RunConfig) -> DiskBudget {
        DiskBudget {
            bytes: (config.run.disk_budget_gb * GB) as u64,
            warned: false,
        }
    }

    /// True if the run has a budget.
    pub(crate) fn is_set(&self) -> bool {
        self.bytes > 0
    }

    /// With the run holding `run_bytes`, drops what may go until it is
    /// within the budget; the bytes freed. Says once when what must stay
    /// exceeds the budget (the run goes on; the floor still stops it).
    pub(crate) fn keep<L: Trainee>(
        &mut self,
        run_bytes: u64,
        trainer: &mut Trainer<'_, L>,
        observer: &mut dyn Observer,
    ) -> Result<u64, RunError> {
        if self.bytes == 0 || run_bytes <= self.bytes {
            return Ok(0);
        }
        let excess = run_bytes - self.bytes;
        let freed = trainer.drop_unread(excess, CHECKPOINTS_KEPT)?;
        if freed < excess && !self.warned {
            self.warned = true;
            observer.message(&format!(
                "warning: the run holds {}, over its disk budget of {}, and nothing more may go \
                 (the chunks the learner reads, the newest {CHECKPOINTS_KEPT} checkpoints, hourly \
                 and promoted nets, the logs); raise [run] disk_budget_gb",
                size(run_bytes - freed),
                size(self.bytes),
            ));
        }
        Ok(freed)
    }
}
