//! # shashki-search
//!
//! Monte-Carlo tree search (PUCT and Gumbel root search) over a batched
//! [`Evaluator`], and a reference alpha-beta engine.

pub mod evaluator;

pub use evaluator::{EvalRequest, Evaluation, Evaluator, Wdl};
