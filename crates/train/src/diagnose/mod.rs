//! Why does an NNUE run stop improving? Measurements behind
//! `shashki nnue-diagnose` (issue 24, part 1):
//!
//! - [`held_out`]: a fixed set of quiet positions labelled by a deeper
//!   search or the tablebases ([`sources`] draws them, [`label`] labels);
//! - [`loss`]: each model's loss and sign agreement on it;
//! - [`noise`]: how the stored self-play score agrees with the game result
//!   and, on a set drawn from chunks, each target blend with the deep label;
//! - [`capacity`]: how low a layout fits one fixed set in many epochs;
//! - [`report`]: each measurement end to end, as the command runs it.

pub mod capacity;
pub mod held_out;
pub mod label;
pub mod loss;
pub mod noise;
pub mod report;
pub mod sources;

pub use crate::errors::FileError;
