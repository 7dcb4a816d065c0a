//! Every knob of the tree search, with defaults that work out of the box.

use crate::ranges::{self, KeyRange, OutOfRange};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Which search algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// AlphaZero: PUCT everywhere, Dirichlet noise at the root, the move
    /// chosen by visit count with a temperature, the visit distribution as
    /// the policy target.
    #[default]
    Puct,
    /// Gumbel AlphaZero (Danihelka et al. 2022): Gumbel-top-m sampling and
    /// sequential halving at the root, deterministic selection below it,
    /// the improved policy `softmax(logits + sigma(completed Q))` as target.
    /// Sound with as few as 8-16 simulations.
    Gumbel,
}

/// Configuration of one [`Search`](super::Search).
///
/// Deserialise it from any serde format (unknown keys are rejected, missing
/// keys take their default), then call [`SearchConfig::validate`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// PUCT or Gumbel.
    pub algorithm: Algorithm,
    /// Simulations of a full search (every search when
    /// `full_search_fraction` is 1). A simulation is one descent that ends in
    /// an evaluation or a terminal position; the root's own evaluation is
    /// not counted.
    pub full_simulations: u32,
    /// Simulations of a fast search (playout cap randomisation, KataGo).
    pub fast_simulations: u32,
    /// Probability that a search is a full one; the rest are fast. Only full
    /// searches should be used as policy targets. 1 disables randomisation.
    pub full_search_fraction: f32,
    /// Leaves gathered per evaluator call by [`Search::run`](super::Search::run)
    /// (virtual loss keeps them apart). 1 is the exact sequential algorithm.
    pub leaves_per_batch: u32,
    /// AlphaZero's `c_init` in `c(s) = c_init + ln((N(s) + c_base + 1) / c_base)`.
    pub c_init: f32,
    /// AlphaZero's `c_base` (the slow growth of exploration with visits).
    pub c_base: f32,
    /// First-play urgency below the root: an unvisited child is valued at
    /// the parent's value minus `fpu_reduction * sqrt(prior mass visited)`.
    pub fpu_reduction: f32,
    /// First-play urgency reduction at the root (often smaller, to explore
    /// noise-boosted moves).
    pub root_fpu_reduction: f32,
    /// Add Dirichlet noise to the root priors (PUCT, full searches only;
    /// for self-play, not for play or analysis).
    pub root_noise: bool,
    /// Dirichlet concentration; about 10 / typical number of legal moves.
    pub dirichlet_alpha: f32,
    /// Weight of the noise in the root priors: `(1 - f) * P + f * noise`.
    pub dirichlet_fraction: f32,
    /// Value of one virtual loss (in units of a lost visit) that an in-flight
    /// descent charges each node on its path.
    pub virtual_loss: f32,
    /// Temperature for choosing the move from PUCT visit counts: 0 plays the
    /// most visited move (ties broken by the caller's RNG), 1 samples in
    /// proportion to visits. Gumbel ignores it (its sampling is built in).
    pub temperature: f32,
    /// Gumbel: how many root moves are sampled (m) for sequential halving.
    pub gumbel_max_considered: u32,
    /// Gumbel: scale of the Gumbel noise (0 gives a deterministic search,
    /// for play and analysis).
    pub gumbel_scale: f32,
    /// Gumbel: `c_visit` in `sigma(q) = (c_visit + max_b N(b)) * c_scale * q`.
    pub c_visit: f32,
    /// Gumbel: `c_scale` in `sigma(q)`.
    pub c_scale: f32,
    /// Gumbel: rescale completed Q-values to [0, 1] by the node's min and max
    /// (mctx's default); otherwise Q in [-1, 1] maps linearly to [0, 1].
    pub rescale_values: bool,
    /// Keep the chosen subtree when [`Search::advance`](super::Search::advance)
    /// plays a move.
    pub reuse_tree: bool,
    /// Memory guard: a search stops early once the tree holds this many
    /// nodes (about 300 bytes each with their edges).
    pub max_tree_nodes: u32,
    /// A new node below the root with exactly one legal move (a forced
    /// capture, most often) is expanded without a network call and the
    /// descent goes on to its child: forced moves cost nothing. Such a
    /// node's value is its child's. `false` evaluates them like any other
    /// leaf (the behaviour before; for comparisons).
    pub pass_forced_moves: bool,
    /// A new node below the root where a capture is due (several captures
    /// to choose from; one is a forced move) is expanded with equal priors
    /// over its captures, without a network call, and the descent goes on:
    /// leaves are then evaluated in quiet positions only, not in the middle
    /// of an exchange. Off by default (docs/RESULTS.md, "Network calls").
    pub capture_leaves: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            algorithm: Algorithm::Puct,
            full_simulations: 800,
            fast_simulations: 100,
            full_search_fraction: 1.0,
            leaves_per_batch: 1,
            c_init: 1.25,
            c_base: 19652.0,
            fpu_reduction: 0.25,
            root_fpu_reduction: 0.25,
            root_noise: false,
            dirichlet_alpha: 1.0,
            dirichlet_fraction: 0.25,
            virtual_loss: 1.0,
            temperature: 0.0,
            gumbel_max_considered: 16,
            gumbel_scale: 1.0,
            c_visit: 50.0,
            c_scale: 0.1,
            rescale_values: true,
            reuse_tree: true,
            max_tree_nodes: 2_000_000,
            pass_forced_moves: true,
            capture_leaves: false,
        }
    }
}

/// A configuration value outside its range.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("search config: {0}")]
pub struct ConfigError(#[from] pub OutOfRange);

impl SearchConfig {
    /// A configuration for the given algorithm with every other knob default.
    pub fn with_algorithm(algorithm: Algorithm) -> SearchConfig {
        SearchConfig {
            algorithm,
            ..SearchConfig::default()
        }
    }

    /// Sets both simulation budgets to `n` and disables playout cap
    /// randomisation (for play and analysis).
    pub fn with_simulations(mut self, n: u32) -> SearchConfig {
        self.full_simulations = n;
        self.fast_simulations = n;
        self.full_search_fraction = 1.0;
        self
    }

    /// Checks every value against [`SEARCH_RANGES`]; the error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let values = crate::range_fields!(self;
            full_simulations, fast_simulations, full_search_fraction, leaves_per_batch,
            c_init, c_base, fpu_reduction, root_fpu_reduction, dirichlet_alpha,
            dirichlet_fraction, virtual_loss, temperature, gumbel_max_considered,
            gumbel_scale, c_visit, c_scale, max_tree_nodes,
        );
        Ok(ranges::check(SEARCH_RANGES, &values)?)
    }
}

/// The range of every numeric key, both ends included: the search's limits,
/// stated once ([`SearchConfig::validate`] and a run config's `[search]`
/// are checked against it).
pub const SEARCH_RANGES: &[KeyRange] = &[
    // Up to u32::MAX: a timed or infinite search runs that many, in effect
    // until its time or `stop` ends it.
    ("full_simulations", 1.0, u32::MAX as f64),
    ("fast_simulations", 1.0, u32::MAX as f64),
    ("full_search_fraction", 0.0, 1.0),
    ("leaves_per_batch", 1.0, 4096.0),
    ("c_init", 0.0, 100.0),
    ("c_base", 1.0, 1e9),
    ("fpu_reduction", 0.0, 10.0),
    ("root_fpu_reduction", 0.0, 10.0),
    ("dirichlet_alpha", 1e-6, 100.0),
    ("dirichlet_fraction", 0.0, 1.0),
    ("virtual_loss", 0.0, 100.0),
    ("temperature", 0.0, 100.0),
    ("gumbel_max_considered", 1.0, 1024.0),
    ("gumbel_scale", 0.0, 100.0),
    ("c_visit", 0.0, 1e6),
    ("c_scale", 0.0, 1e3),
    ("max_tree_nodes", 16.0, 1e9),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        SearchConfig::default().validate().unwrap();
        SearchConfig::with_algorithm(Algorithm::Gumbel)
            .with_simulations(8)
            .validate()
            .unwrap();
    }

    #[test]
    fn bad_values_name_the_key() {
        let config = SearchConfig {
            dirichlet_fraction: 1.5,
            ..SearchConfig::default()
        };
        let err = config.validate().unwrap_err();
        assert_eq!(err.0.key, "dirichlet_fraction");
        let config = SearchConfig {
            full_simulations: 0,
            ..SearchConfig::default()
        };
        assert_eq!(config.validate().unwrap_err().0.key, "full_simulations");
        let config = SearchConfig {
            c_base: f32::NAN,
            ..SearchConfig::default()
        };
        assert_eq!(config.validate().unwrap_err().0.key, "c_base");
    }

    #[test]
    fn toml_partial_and_unknown_keys() {
        let config: SearchConfig =
            toml::from_str("algorithm = \"gumbel\"\nfull_simulations = 16\n").unwrap();
        assert_eq!(config.algorithm, Algorithm::Gumbel);
        assert_eq!(config.full_simulations, 16);
        assert_eq!(config.c_init, SearchConfig::default().c_init);
        let err = toml::from_str::<SearchConfig>("full_simulation = 16\n").unwrap_err();
        assert!(err.to_string().contains("full_simulation"), "{err}");
    }
}
