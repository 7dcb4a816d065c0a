//! # shashki-search
//!
//! The searches of Shashki Zero, which see networks only through the
//! traits here ([`Evaluator`] for MCTS, [`StaticEval`](alphabeta::StaticEval)
//! for alpha-beta):
//!
//! - [`mcts`]: Monte-Carlo tree search (PUCT and Gumbel root search) over a
//!   batched [`Evaluator`] ([`evaluator`]); [`mcts::driver`] runs one search
//!   on several threads, [`mcts::engine`] puts it behind [`Engine`].
//! - [`alphabeta`]: the reference alpha-beta engine.
//! - [`Engine`] ([`engine`]): what every engine offers the commands and the
//!   arena; [`limits`]: depth, nodes, time and clocks, and stopping.
//! - [`stand_ins`]: stand-in evaluators (uniform priors, a fixed, random
//!   or rollout value);
//!   [`batching`]: many threads' calls merged into one batch; [`cache`]: a
//!   bounded evaluation cache shared by searches.
//! - [`tablebase`]: the endgame tablebases as both searches see them.
//!
//! The protocols that drive these engines live in `shashki-protocol`.

pub mod alphabeta;
pub mod batching;
pub mod cache;
pub mod engine;
pub mod evaluator;
pub mod limits;
pub mod mcts;
pub mod ranges;
pub mod stand_ins;
pub mod tablebase;

pub use alphabeta::{AbConfig, AbResult, AlphaBeta};
pub use engine::{Engine, Score, SearchReport};
pub use evaluator::{EvalRequest, Evaluation, Evaluator, Wdl};
pub use limits::{Deadlines, SearchLimits, StopHandle, TimeBudget};
pub use mcts::{Algorithm, Search, SearchConfig, SearchError, SearchResult};
