//! The one-shot entry points, as mctx's policies: each runs one fresh
//! [`Search`] with its algorithm. Use [`Search`] directly for tree reuse or
//! cross-game batching.

use super::config::{Algorithm, SearchConfig};
use super::error::SearchError;
use super::result::SearchResult;
use super::search::Search;
use crate::evaluator::Evaluator;
use rand::Rng;
use shashki_rules::Game;

/// AlphaZero search of `game`'s position: PUCT with `config` (whose
/// `algorithm` is overridden), one fresh tree.
pub fn puct_policy<E, R>(
    game: &Game,
    evaluator: &E,
    config: &SearchConfig,
    rng: &mut R,
) -> Result<SearchResult, SearchError>
where
    E: Evaluator + ?Sized,
    R: Rng + ?Sized,
{
    search_with(Algorithm::Puct, game, evaluator, config, rng)
}

/// Gumbel AlphaZero search of `game`'s position with `config` (whose
/// `algorithm` is overridden), one fresh tree.
pub fn gumbel_policy<E, R>(
    game: &Game,
    evaluator: &E,
    config: &SearchConfig,
    rng: &mut R,
) -> Result<SearchResult, SearchError>
where
    E: Evaluator + ?Sized,
    R: Rng + ?Sized,
{
    search_with(Algorithm::Gumbel, game, evaluator, config, rng)
}

/// One fresh search of `game`'s position with `config` under `algorithm`.
fn search_with<E, R>(
    algorithm: Algorithm,
    game: &Game,
    evaluator: &E,
    config: &SearchConfig,
    rng: &mut R,
) -> Result<SearchResult, SearchError>
where
    E: Evaluator + ?Sized,
    R: Rng + ?Sized,
{
    let config = SearchConfig {
        algorithm,
        ..config.clone()
    };
    Search::new(game.clone(), config)?.run(evaluator, rng)
}
