//! Player specifications: a player's name (its spec text, as in tables, PDN
//! and the ratings file) and its kind with the kind's settings. The text
//! forms (`random`, `ab:depth=4`, `net:PATH@sims=64`, ...) are read by the
//! table of player kinds in [`crate::kinds`].

use shashki_net::InferenceKernels;
use shashki_search::alphabeta::{Selectivity, TimeUse};
use shashki_search::{Algorithm, SearchLimits};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

/// A spec that could not be read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("player spec {spec:?}: {reason}")]
pub struct SpecError {
    /// The text given.
    pub spec: String,
    /// What is wrong.
    pub reason: String,
}

/// Which kind of player, with its settings.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerKind {
    /// Uniform random legal moves.
    Random,
    /// The reference alpha-beta engine.
    AlphaBeta {
        /// Depth, nodes and/or time per move as the spec gives them (none:
        /// a player searches to [`crate::kinds::ab::DEFAULT_AB_DEPTH`]).
        limits: SearchLimits,
        /// Lazy SMP threads and selectivity.
        search: AbSearch,
    },
    /// Alpha-beta with an NNUE model as its evaluation.
    Nnue {
        /// The model folder (or its `model.json`), or a training checkpoint.
        path: PathBuf,
        /// Depth, nodes and/or time per move as the spec gives them.
        limits: SearchLimits,
        /// Lazy SMP threads and selectivity.
        search: AbSearch,
    },
    /// Alpha-beta with the shipped NNUE built into the binary
    /// ([`crate::kinds::builtin`]).
    Builtin {
        /// Depth, nodes and/or time per move as the spec gives them.
        limits: SearchLimits,
        /// Lazy SMP threads and selectivity.
        search: AbSearch,
    },
    /// MCTS with random-playout evaluation.
    Mcts {
        /// The search settings.
        search: MctsSettings,
        /// Playouts per evaluated position.
        rollouts: u32,
    },
    /// MCTS over a network checkpoint or exported model.
    Net {
        /// A checkpoint file or an exported model folder.
        path: PathBuf,
        /// The search settings.
        search: MctsSettings,
        /// Device name for the network (`cpu`, or a GPU name with the
        /// `wgpu` feature).
        device: String,
        /// Which code runs the network on the CPU (`kernels=burn|f32|int8`;
        /// the hand-written kernels apply to `diag32` nets only).
        kernels: InferenceKernels,
        /// Target batch of the batching service shared by all games.
        batch: usize,
    },
    /// An external engine over the line protocol.
    External {
        /// Program and arguments.
        command: Vec<String>,
        /// Limits sent with every `go`.
        limits: SearchLimits,
        /// Longest wait for a `bestmove` before the game is forfeited.
        timeout: Duration,
    },
}

/// How an alpha-beta player searches, beside its limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbSearch {
    /// Lazy SMP search threads (default 1).
    pub threads: usize,
    /// The selectivity techniques (default: the engine's measured set).
    pub selectivity: Selectivity,
    /// How a clock's planned time is spent (`tm=plain|adaptive`).
    pub time_use: TimeUse,
}

impl Default for AbSearch {
    fn default() -> Self {
        AbSearch {
            threads: 1,
            selectivity: Selectivity::default(),
            time_use: TimeUse::default(),
        }
    }
}

impl AbSearch {
    /// The default search on `threads` threads.
    pub fn threads(threads: usize) -> AbSearch {
        AbSearch {
            threads,
            ..AbSearch::default()
        }
    }
}

/// Simulations per move of an MCTS player whose spec names none.
pub const DEFAULT_PLAYER_SIMULATIONS: u32 = 64;

/// MCTS settings of a player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsSettings {
    /// Simulations per move (`None`: a player runs
    /// [`DEFAULT_PLAYER_SIMULATIONS`], a standalone engine its search's
    /// default).
    pub simulations: Option<u32>,
    /// PUCT or Gumbel.
    pub algorithm: Algorithm,
    /// Leaves gathered per evaluator call within one search, per thread
    /// (`None`: the kind's default, more for a network than for playouts).
    pub leaves_per_batch: Option<u32>,
    /// Time per move: the player is timed and ignores `simulations`.
    pub movetime: Option<Duration>,
    /// Search threads of a timed player (default: one per core).
    pub threads: Option<usize>,
    /// Evaluations a timed player caches, shared by its threads and kept
    /// from move to move (default: the search's default; 0: none).
    pub cache_entries: Option<usize>,
    /// Evaluate positions with one legal move like any other, instead of
    /// passing through them (how the search worked before; for comparisons).
    pub evaluate_forced: bool,
}

impl Default for MctsSettings {
    fn default() -> Self {
        MctsSettings {
            simulations: None,
            algorithm: Algorithm::Puct,
            leaves_per_batch: None,
            movetime: None,
            threads: None,
            cache_entries: None,
            evaluate_forced: false,
        }
    }
}

/// A player: its name (the spec text) and what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerSpec {
    /// Display name: the spec as written.
    pub name: String,
    /// The player.
    pub kind: PlayerKind,
}

impl MctsSettings {
    /// Simulations per move of a player.
    pub fn player_simulations(&self) -> u32 {
        self.simulations.unwrap_or(DEFAULT_PLAYER_SIMULATIONS)
    }
}

impl PlayerKind {
    /// The limits per move the spec itself states (none given: unlimited),
    /// which `analyse` and `play` use unless their own `--depth`,
    /// `--nodes` or `--movetime` say otherwise.
    pub fn stated_limits(&self) -> SearchLimits {
        match self {
            PlayerKind::AlphaBeta { limits, .. }
            | PlayerKind::Nnue { limits, .. }
            | PlayerKind::Builtin { limits, .. }
            | PlayerKind::External { limits, .. } => *limits,
            PlayerKind::Mcts { search, .. } | PlayerKind::Net { search, .. } => SearchLimits {
                nodes: search.simulations.map(u64::from),
                movetime: search.movetime,
                ..SearchLimits::default()
            },
            PlayerKind::Random => SearchLimits::default(),
        }
    }

    /// True for the tree searches (MCTS), which take no depth limit.
    pub fn is_tree_search(&self) -> bool {
        matches!(self, PlayerKind::Mcts { .. } | PlayerKind::Net { .. })
    }

    /// The network (a checkpoint file or a model folder) of a `net:` or
    /// `nnue:` player; `None` for the others.
    pub fn network_path(&self) -> Option<&std::path::Path> {
        match self {
            PlayerKind::Net { path, .. } | PlayerKind::Nnue { path, .. } => Some(path),
            _ => None,
        }
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}
