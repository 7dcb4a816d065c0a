//! Monte-Carlo tree search over a batched [`Evaluator`](crate::Evaluator),
//! designed after DeepMind's mctx: small typed pieces, one idea per file.
//!
//! - [`SearchConfig`]: every knob (serde, defaults, validation).
//! - [`Search`]: the resumable search (begin / select_leaves / apply /
//!   finish, or `run`), tree reuse with [`Search::advance`].
//! - [`puct_policy`], [`gumbel_policy`]: one-shot entry points.
//! - [`SearchResult`]: move, policy target, W/D/L, principal variation.
//! - Building blocks: [`tree`], [`action_selection`], [`qtransforms`],
//!   [`seq_halving`], [`noise`].
//!
//! # One search, blocking
//! ```no_run
//! # use shashki_rules::{Game, Position};
//! # use shashki_search::mcts::{Search, SearchConfig};
//! # use shashki_search::stand_ins::RolloutEvaluator;
//! # use rand::SeedableRng;
//! let game = Game::new(Position::startpos());
//! let mut search = Search::new(game, SearchConfig::default().with_simulations(400)).unwrap();
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
//! let result = search.run(&RolloutEvaluator::new(1, 7), &mut rng).unwrap();
//! search.advance(&result.best_move).unwrap();
//! ```
//!
//! # Many games, one batch
//! Call [`Search::select_leaves`] on every game, concatenate their
//! [`LeafRequest::eval_request`]s into one batch, evaluate, and hand each
//! search its slice with [`Search::apply`]. Or give every game its own thread
//! and a client of [`BatchingEvaluator`](crate::batching::BatchingEvaluator),
//! which merges their calls into one batch.

pub mod action_selection;
mod config;
mod counters;
pub mod driver;
pub mod engine;
mod error;
mod leaf;
pub mod noise;
mod oneshot;
mod policies;
pub mod qtransforms;
mod result;
mod search;
pub mod seq_halving;
pub mod tree;

pub use config::{Algorithm, ConfigError, SEARCH_RANGES, SearchConfig};
pub use counters::SearchCounters;
pub use engine::MctsEngine;
pub use error::SearchError;
pub use leaf::LeafRequest;
pub use oneshot::{gumbel_policy, puct_policy};
pub use policies::choose_by_visits;
pub(crate) use policies::principal_variation;
pub use result::{ChildStats, SearchResult};
pub use search::{LeafBatch, Search};
pub use tree::Proof;

#[cfg(test)]
mod tests {
    #[test]
    fn a_search_can_move_to_another_thread() {
        fn send<T: Send>() {}
        send::<super::Search>();
        send::<super::SearchResult>();
    }
}
