//! # shashki-search
//!
//! Monte-Carlo tree search (PUCT and Gumbel root search) over a batched
//! [`Evaluator`], and a reference alpha-beta engine; the protocols that
//! serve them ([`protocol`], our own line protocol, and [`hub`], Hub).

pub mod alphabeta;
pub mod batching;
pub mod cache;
pub mod engine;
pub mod evaluator;
pub mod evaluators;
pub mod hub;
pub mod limits;
pub mod mcts;
pub mod mcts_driver;
pub mod mcts_engine;
pub mod protocol;
pub mod tablebase;

pub use alphabeta::{AbConfig, AbResult, AlphaBeta};
pub use engine::{Engine, Score, SearchReport};
pub use evaluator::{EvalRequest, Evaluation, Evaluator, Wdl};
pub use limits::{Deadlines, SearchLimits, StopHandle, TimeBudget};
pub use mcts::{Algorithm, Search, SearchConfig, SearchError, SearchResult};
