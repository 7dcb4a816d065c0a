//! # shashki-train
//!
//! The learner of Shashki Zero: a replay window over self-play chunk files,
//! training with burn, checkpoints, tensorboard logs and the run
//! configuration. One generation loop trains either engine family
//! ([`family`]): the MCTS policy/value network or the alpha-beta engine's
//! NNUE ([`nnue_family`]).

pub mod checkpoints;
pub mod config;
pub mod diagnose;
pub mod family;
pub mod learner;
pub mod nnue_family;
pub mod pipeline;
pub mod replay;
pub mod run_dir;
pub mod state;
pub mod tblog;

pub use config::{ConfigError, RunConfig};
pub use learner::{Learner, StepReport};
pub use pipeline::{
    GateVerdict, Gatekeeper, GenerationSummary, LearnOptions, Observer, RunError, RunSummary,
    SelfPlayOptions, Silent, TrainOptions, learn, selfplay, train,
};
pub use replay::{RefreshReport, ReplaySettings, ReplayState, ReplayWindow};
pub use run_dir::RunDir;
pub use state::LearnerState;
pub use tblog::{TbError, TbLogger};
