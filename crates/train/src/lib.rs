//! # shashki-train
//!
//! The learner of Shashki Zero: a replay window over self-play chunk files,
//! training with burn, checkpoints, tensorboard logs and the run
//! configuration. One generation loop trains either engine family: the
//! MCTS policy/value network or the alpha-beta engine's NNUE.
//!
//! The modules, from the bottom up:
//! - [`config`]: the run configuration (TOML), [`seeds`]: every seed a run
//!   derives from `[run] seed`, [`state`]: the counters kept across
//!   restarts;
//! - [`replay`]: the sliding window over a chunk directory; [`checkpoints`]:
//!   the checkpoint directory; [`run_dir`]: the run directory and its lock;
//!   `disk_use`: what the run costs on disk, shown as it goes;
//!   `disk_budget`: what a run over `[run] disk_budget_gb` drops;
//!   [`tblog`]: tensorboard event files;
//! - [`net_learner`]: the policy/value network's training step;
//!   [`errors`]: the error of a run; [`gate`]: the gate trait the caller
//!   implements; [`observer`]: progress and summaries for the caller;
//! - [`family`]: what the loop needs of an engine family (its learner and
//!   its self-play), with the MCTS family; [`nnue_family`]: the NNUE family,
//!   [`nnue_targets`]: its targets and which samples it trains on;
//! - `resume`: claiming a run directory and reopening its learner;
//!   `learning_side`: the training steps, saves and logs that `train` and
//!   `learn` share;
//! - [`generations`]: `shashki train`, the generation loop, with `refit`:
//!   the learner's net fitted again to all the run's data at its marks;
//!   [`concurrent`]: its concurrent mode, self-play and the learner at
//!   once; [`halves`]: `shashki selfplay` and `shashki learn` alone;
//!   [`relabel`]: `shashki relabel`, deeper labels for the samples a
//!   screen picks;
//! - [`ratings`]: a run's Elo curve (`ratings.jsonl`, tensorboard) and the
//!   rater trait the caller implements; [`watch`]: `shashki rate --watch`,
//!   a run's checkpoints rated as they appear.

pub mod checkpoints;
pub mod concurrent;
pub mod config;
pub mod cores;
pub mod diagnose;
mod disk_budget;
mod disk_use;
pub mod errors;
pub mod family;
pub mod gate;
pub mod generations;
pub mod halves;
mod learning_side;
pub mod net_learner;
pub mod nnue_family;
pub mod nnue_targets;
pub mod observer;
pub mod ratings;
mod refit;
pub mod relabel;
pub mod replay;
mod resume;
pub mod run_dir;
pub mod seeds;
pub mod state;
pub mod tblog;
pub mod watch;

pub use config::{ConfigError, RunConfig, RunMode};
pub use disk_use::dir_bytes;
pub use errors::RunError;
pub use gate::{GateVerdict, Gatekeeper};
pub use generations::{TrainOptions, train};
pub use halves::{LearnOptions, SelfPlayOptions, learn, selfplay};
pub use net_learner::{Learner, StepReport};
pub use observer::{GenerationSummary, Observer, RunSummary, Silent};
pub use ratings::{AnchorResult, Rater, RatingPoint, RatingsLog};
pub use replay::{RefreshReport, ReplayMode, ReplaySettings, ReplayState, ReplayWindow};
pub use resume::OpenRun;
pub use run_dir::RunDir;
pub use state::LearnerState;
pub use tblog::{TbError, TbLogger};
