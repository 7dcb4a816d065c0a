//! What can go wrong in self-play.

use shashki_search::SearchError;

/// A self-play failure.
#[derive(Debug, thiserror::Error)]
pub enum SelfPlayError {
    /// A setting is out of range.
    #[error("{0}")]
    Config(String),
    /// The search reported an error (a bug, or an evaluator that answered
    /// the wrong number of priors).
    #[error("game {game}: {error}")]
    Search {
        /// Game number.
        game: u64,
        /// The search's error.
        error: SearchError,
    },
    /// The worker pool could not be built.
    #[error("thread pool: {0}")]
    Pool(String),
    /// The endgame tablebases could not be loaded or generated.
    #[error("tablebases: {0}")]
    Tablebase(String),
}
