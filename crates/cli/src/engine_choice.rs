//! Which engine a command runs, chosen in one place: `--engine
//! builtin|ab|nnue:PATH|mcts|net:PATH`, `--threads`, the search limits (`--depth`, `--nodes`,
//! `--movetime`) and the seed. A new engine kind is one variant here plus
//! one arm in [`EngineArgs::build`].

use crate::builtin_engine::builtin_evaluator;
use anyhow::{Result, anyhow, bail};
use shashki_arena::net::load_evaluator;
use shashki_arena::player::SharedEvaluator;
use shashki_net::InferenceKernels;
use shashki_rules::DrawRules;
use shashki_search::cache::DEFAULT_CACHE_ENTRIES;
use shashki_search::evaluators::RolloutEvaluator;
use shashki_search::mcts_engine::MctsEngine;
use shashki_search::tablebase::{self, MAX_TABLEBASE_PIECES, Tablebases};
use shashki_search::{AbConfig, AlphaBeta, Engine, SearchConfig, SearchLimits};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// An engine kind as named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineChoice {
    /// `builtin` (the default): the strongest shipped model, built into the
    /// binary ([`crate::builtin_engine`]).
    Builtin,
    /// `ab`: the reference alpha-beta engine with the hand-written evaluation.
    AlphaBeta,
    /// `nnue:PATH`: alpha-beta with an NNUE model folder (or a training
    /// checkpoint) as its evaluation.
    Nnue(PathBuf),
    /// `mcts`: Monte-Carlo tree search with random-rollout evaluation.
    Mcts,
    /// `net:PATH`: MCTS guided by a network, a checkpoint file or an
    /// exported model folder (`models/NAME`).
    Net(PathBuf),
}

impl FromStr for EngineChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<EngineChoice, String> {
        match text {
            "builtin" => Ok(EngineChoice::Builtin),
            "ab" | "alphabeta" => Ok(EngineChoice::AlphaBeta),
            "mcts" => Ok(EngineChoice::Mcts),
            other => match (other.strip_prefix("net:"), other.strip_prefix("nnue:")) {
                (Some(path), _) if !path.is_empty() => Ok(EngineChoice::Net(PathBuf::from(path))),
                (_, Some(path)) if !path.is_empty() => Ok(EngineChoice::Nnue(PathBuf::from(path))),
                _ => Err(format!(
                    "unknown engine {other:?}: expected builtin, ab, nnue:PATH, mcts or net:PATH"
                )),
            },
        }
    }
}

impl fmt::Display for EngineChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineChoice::Builtin => f.write_str("builtin"),
            EngineChoice::AlphaBeta => f.write_str("ab"),
            EngineChoice::Nnue(path) => write!(f, "nnue:{}", path.display()),
            EngineChoice::Mcts => f.write_str("mcts"),
            EngineChoice::Net(path) => write!(f, "net:{}", path.display()),
        }
    }
}

/// `--engine` and `--seed`, shared by `analyse`, `play` and `engine`.
#[derive(clap::Args, Clone, Debug)]
pub struct EngineArgs {
    /// The engine: `builtin` (the strongest shipped model, `models/nnue-2h`:
    /// alpha-beta with its NNUE, built into the binary), `ab` (alpha-beta
    /// with the hand-written evaluation), `nnue:PATH` (alpha-beta with an
    /// NNUE model folder or checkpoint), `mcts` (tree search with rollouts)
    /// or `net:PATH` (tree search with a network: a checkpoint or
    /// `models/NAME`).
    #[arg(long, default_value = "builtin")]
    pub engine: EngineChoice,
    /// Seed of the engine's random choices (MCTS), for reproducible runs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Search threads; 0 means one per core. Alpha-beta engines (Lazy SMP)
    /// default to 1, which keeps fixed-depth searches reproducible; MCTS
    /// defaults to one per core (each thread evaluates its own batch while
    /// the others search, so the network keeps every core busy), and 1 makes
    /// it reproducible from the seed.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Leaves each MCTS thread sends to the evaluator at once (virtual loss
    /// keeps them apart). Default: 16 for a network, 1 for rollouts.
    #[arg(long)]
    pub batch: Option<u32>,
    /// Endgame tablebase folder (`shashki tb generate`): the search scores
    /// positions in its tables exactly (MCTS: solved nodes; alpha-beta:
    /// exact scores) and reports a result resting on them as
    /// `tb win N` / `tb loss N` / `tb draw` (N: half-moves to the next
    /// capture, promotion or end of the game, not a mate distance).
    #[arg(long, value_name = "DIR")]
    pub tablebase: Option<PathBuf>,
    /// Evaluations a network engine (`net:PATH`) keeps in its cache, shared
    /// by its threads and kept from move to move (about 150 bytes each);
    /// 0 switches the cache off.
    #[arg(long, default_value_t = DEFAULT_CACHE_ENTRIES, value_name = "ENTRIES")]
    pub cache: usize,
    /// Which code runs a network engine's net on the CPU: `int8` (the
    /// default: hand-written int8 kernels with AVX2, see docs/BENCHMARKS.md
    /// for their accuracy), `f32` (hand-written f32 kernels) or `burn`
    /// (burn's folded net, what training uses). The hand-written kernels
    /// run `diag32` nets; `resnet8x8` nets always run in burn.
    #[arg(long, default_value_t = InferenceKernels::PLAY, value_name = "KERNELS")]
    pub kernels: InferenceKernels,
    /// Evaluate positions with a single legal move like any other (MCTS),
    /// instead of passing through them at no cost; for comparisons.
    #[arg(long)]
    pub evaluate_forced: bool,
}

/// One search thread per core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl EngineArgs {
    /// The alpha-beta settings with `--threads` applied.
    fn ab_config(&self) -> AbConfig {
        let threads = match self.threads {
            Some(0) => default_threads(),
            Some(n) => n,
            None => 1,
        };
        AbConfig {
            threads,
            ..AbConfig::default()
        }
    }

    /// The tables of `--tablebase`, loaded for games under the official
    /// draw rules.
    pub fn tablebases(&self) -> Result<Option<Arc<Tablebases>>> {
        self.tablebase
            .as_deref()
            .map(|dir| tablebase::load(dir, DrawRules::default(), MAX_TABLEBASE_PIECES))
            .transpose()
            .map_err(|e| anyhow!("--tablebase {e}"))
    }

    /// Builds the chosen engine.
    pub fn build(&self) -> Result<Box<dyn Engine>> {
        self.build_with(self.tablebases()?)
    }

    /// Builds the chosen engine with tables already loaded (a server makes
    /// an engine per search and loads the tables once).
    pub fn build_with(&self, tb: Option<Arc<Tablebases>>) -> Result<Box<dyn Engine>> {
        let threads = match self.threads {
            Some(0) | None => default_threads(),
            Some(n) => n,
        };
        let config = |default_batch: u32| SearchConfig {
            leaves_per_batch: self.batch.unwrap_or(default_batch).max(1),
            pass_forced_moves: !self.evaluate_forced,
            ..SearchConfig::default()
        };
        Ok(match &self.engine {
            EngineChoice::Builtin => {
                let eval = builtin_evaluator().map_err(|e| anyhow!("--engine builtin: {e}"))?;
                Box::new(AlphaBeta::with_eval(self.ab_config(), Box::new(eval)).with_tablebases(tb))
            }
            EngineChoice::AlphaBeta => {
                Box::new(AlphaBeta::new(self.ab_config()).with_tablebases(tb))
            }
            EngineChoice::Nnue(path) => {
                let eval = shashki_nnue::load_evaluator(path)
                    .map_err(|e| anyhow!("--engine nnue:{}: {e}", path.display()))?;
                Box::new(AlphaBeta::with_eval(self.ab_config(), Box::new(eval)).with_tablebases(tb))
            }
            EngineChoice::Mcts => Box::new(
                MctsEngine::new(
                    RolloutEvaluator::new(1, self.seed),
                    config(1),
                    self.seed,
                    "mcts (random rollouts)",
                )?
                .with_threads(threads)
                .with_tablebases(tb),
            ),
            EngineChoice::Net(path) => {
                let evaluator = load_evaluator(path, "cpu", self.kernels)
                    .map_err(|e| anyhow!("--engine net:{}: {e}", path.display()))?;
                Box::new(
                    MctsEngine::new(
                        SharedEvaluator(evaluator),
                        config(16),
                        self.seed,
                        format!("mcts with the network {}", path.display()),
                    )?
                    .with_threads(threads)
                    .with_tablebases(tb)
                    .with_cache(self.cache),
                )
            }
        })
    }
}

/// `--depth`, `--nodes`, `--movetime`: how long each search may run. With
/// none given the engine's default applies (alpha-beta: depth 8; MCTS: 800
/// simulations).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LimitArgs {
    /// Depth in plies (alpha-beta).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Nodes (alpha-beta) or simulations (MCTS).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Milliseconds per move.
    #[arg(long)]
    pub movetime: Option<u64>,
}

impl LimitArgs {
    /// The limits as `engine` takes them; a limit it cannot honour is an
    /// error rather than silently ignored or capped.
    pub fn limits_for(&self, engine: &EngineChoice) -> Result<SearchLimits> {
        let tree_search = matches!(engine, EngineChoice::Mcts | EngineChoice::Net(_));
        if tree_search && self.depth.is_some() {
            bail!(
                "--depth applies to the alpha-beta engine only; limit {engine} by --nodes \
                 (simulations) or --movetime"
            );
        }
        if let Some(nodes) = self.nodes
            && tree_search
            && nodes > u64::from(u32::MAX)
        {
            bail!(
                "--nodes {nodes}: {engine} runs at most {} simulations per move",
                u32::MAX
            );
        }
        Ok(SearchLimits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime.map(Duration::from_millis),
            ..SearchLimits::default()
        })
    }
}
