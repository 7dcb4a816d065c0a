//! What can go wrong when driving a search.

use super::config::ConfigError;
use shashki_rules::Outcome;
use thiserror::Error;

/// A search could not do what was asked.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SearchError {
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The root position is already decided: there is nothing to search.
    #[error("the game is over ({:?}, {:?}): there is nothing to search", .0.result, .0.reason)]
    GameOver(Outcome),
    /// A move handed to the search is not legal at its root.
    #[error("move {mv} is not legal in the root position {fen}")]
    IllegalMove {
        /// The move in long notation.
        mv: String,
        /// The root position.
        fen: String,
    },
    /// `apply` got a different number of evaluations than leaves pending.
    #[error("got {got} evaluations for {expected} pending leaves")]
    EvaluationCount {
        /// Leaves pending.
        expected: usize,
        /// Evaluations given.
        got: usize,
    },
    /// An evaluation's priors do not match its leaf's legal moves.
    #[error("evaluation {index}: {got} priors for {expected} legal moves")]
    PriorCount {
        /// Index of the evaluation in the batch.
        index: usize,
        /// Legal moves at the leaf.
        expected: usize,
        /// Priors given.
        got: usize,
    },
    /// A search thread failed outside the search (it panicked).
    #[error("search thread failed: {0}")]
    Thread(String),
    /// Endgame tables made for other draw rules than the game's.
    #[error("the tablebases follow other draw rules than the searched game")]
    TablebaseRules,
    /// `finish` was called before the root was ever evaluated.
    #[error("the root has not been evaluated yet: apply at least one batch before finishing")]
    RootNotEvaluated,
}
