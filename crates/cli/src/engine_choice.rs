//! Which engine a command runs: `--engine SPEC` in the one spec syntax of
//! the registry of kinds (`shashki_arena::kinds`, what `rate` and `match`
//! read: `builtin`, `ab:depth=6`, `nnue:PATH@threads=2`, `net:PATH`, ...),
//! with the older flags (`--threads`, `--batch`, `--cache`, `--kernels`,
//! `--evaluate-forced`) kept as aliases of the spec's options; the search
//! limits (`--depth`, `--nodes`, `--movetime`), the tables and the seed.
//! A new engine kind is added in the registry, not here.

use anyhow::{Result, anyhow, bail};
use shashki_arena::kinds::{EngineSetup, build_engine, builds_engine, with_options};
use shashki_arena::{PlayerKind, PlayerSpec};
use shashki_net::InferenceKernels;
use shashki_rules::DrawRules;
use shashki_search::tablebase::{self, MAX_TABLEBASE_PIECES, Tablebases};
use shashki_search::{Engine, SearchLimits};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The older engine flags, each an alias of a spec option (`--threads N`
/// is `threads=N`, `--batch N` is `leaves=N`, ...); a flag applies to the
/// kinds that read its option and is ignored by the others.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct EngineOptions {
    /// Search threads (`threads=`); 0 means one per core. Alpha-beta
    /// engines (Lazy SMP) default to 1, which keeps fixed-depth searches
    /// reproducible; for play, a second thread is worth about a doubling of
    /// the time (docs/RESULTS.md, "Two threads against one"). MCTS defaults to one per core (each thread evaluates
    /// its own batch while the others search, so the network keeps every
    /// core busy), and 1 makes it reproducible from the seed.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Leaves each MCTS thread sends to the evaluator at once (`leaves=`;
    /// virtual loss keeps them apart). Default: 16 for a network, 1 for
    /// rollouts.
    #[arg(long)]
    pub batch: Option<u32>,
    /// Evaluations an MCTS engine keeps in its cache (`cache=`), shared by
    /// its threads and kept from move to move (about 150 bytes each); 0
    /// switches it off. Default: 262,144 for a network, none for rollouts.
    #[arg(long, value_name = "ENTRIES")]
    pub cache: Option<usize>,
    /// Which code runs a network engine's net on the CPU (`kernels=`):
    /// `int8` (the default: hand-written int8 kernels with AVX2, see
    /// docs/BENCHMARKS.md for their accuracy), `f32` (hand-written f32
    /// kernels) or `burn` (burn's folded net, what training uses). The
    /// hand-written kernels run `diag32` nets; `resnet8x8` nets always run
    /// in burn.
    #[arg(long, value_name = "KERNELS")]
    pub kernels: Option<InferenceKernels>,
    /// Evaluate positions with a single legal move like any other (MCTS,
    /// `evaluate_forced`), instead of passing through them at no cost; for
    /// comparisons.
    #[arg(long)]
    pub evaluate_forced: bool,
}

impl EngineOptions {
    /// The flags given, as spec options.
    fn as_options(&self) -> Vec<String> {
        let mut options = Vec::new();
        if let Some(threads) = self.threads {
            let threads = if threads == 0 {
                default_threads()
            } else {
                threads
            };
            options.push(format!("threads={threads}"));
        }
        if let Some(leaves) = self.batch {
            options.push(format!("leaves={leaves}"));
        }
        if let Some(entries) = self.cache {
            options.push(format!("cache={entries}"));
        }
        if let Some(kernels) = self.kernels {
            options.push(format!("kernels={kernels}"));
        }
        if self.evaluate_forced {
            options.push("evaluate_forced".to_string());
        }
        options
    }

    /// `text` (a spec) with these flags merged in as its options; `flag`
    /// names the option in errors.
    pub fn spec(&self, text: &str, flag: &str) -> Result<PlayerSpec> {
        with_options(text, &self.as_options())
            .parse()
            .map_err(|e| anyhow!("{flag} {e}"))
    }
}

/// `--engine`, the tables and `--seed`, shared by `analyse`, `play`,
/// `engine`, `hub`, `book score` and `bench-search`.
#[derive(clap::Args, Clone, Debug)]
pub struct EngineArgs {
    /// The engine, as a player spec of `shashki rate`: `builtin` (the
    /// strongest shipped model, `models/nnue-data-2h`: alpha-beta with its NNUE,
    /// built into the binary), `ab` (alpha-beta with the hand-written
    /// evaluation), `nnue:PATH` (alpha-beta with an NNUE model folder or
    /// checkpoint), `mcts` (tree search with rollouts) or `net:PATH` (tree
    /// search with a network: a checkpoint or `models/NAME`), each with its
    /// options (`ab:threads=2`, `net:PATH@leaves=32,kernels=f32`); limits
    /// in the spec (`ab:depth=10`) are the defaults of `analyse` and `play`.
    #[arg(long, default_value = "builtin", value_name = "SPEC")]
    pub engine: String,
    /// Seed of the engine's random choices (MCTS), for reproducible runs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Endgame tablebase folder (`shashki tb generate`): the search scores
    /// positions in its tables exactly (MCTS: solved nodes; alpha-beta:
    /// exact scores) and reports a result resting on them as
    /// `tb win N` / `tb loss N` / `tb draw` (N: half-moves to the next
    /// capture, promotion or end of the game, not a mate distance).
    #[arg(long, value_name = "DIR")]
    pub tablebase: Option<PathBuf>,
    #[command(flatten)]
    pub options: EngineOptions,
}

/// One search thread per core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The tables in `dir` (`--tablebase`), for games under the official draw
/// rules.
pub fn load_tablebases(dir: Option<&Path>) -> Result<Option<Arc<Tablebases>>> {
    dir.map(|dir| tablebase::load(dir, DrawRules::default(), MAX_TABLEBASE_PIECES))
        .transpose()
        .map_err(|e| anyhow!("--tablebase {e}"))
}

/// The standalone engine of `spec`, with the seed and tables.
pub fn engine_of(
    spec: &PlayerSpec,
    seed: u64,
    tablebases: Option<Arc<Tablebases>>,
) -> Result<Box<dyn Engine>> {
    build_engine(spec, &EngineSetup { seed, tablebases })
        .map_err(|e| anyhow!("--engine {}: {}", e.spec, e.reason))
}

impl EngineArgs {
    /// The spec `--engine` names, the alias flags merged in; a kind that
    /// cannot run on its own (`random`, `ext:`) is refused.
    pub fn spec(&self) -> Result<PlayerSpec> {
        let spec = self.options.spec(&self.engine, "--engine")?;
        if !builds_engine(&spec.kind) {
            bail!(
                "--engine {}: plays in matches only (shashki rate, match); an engine is \
                 builtin, ab, nnue:PATH, mcts or net:PATH with its options",
                spec.name
            );
        }
        Ok(spec)
    }

    /// The spec for a protocol session (`engine`, `hub`), where the GUI's
    /// `go` gives the limits: a spec stating limits is refused.
    pub fn protocol_spec(&self) -> Result<PlayerSpec> {
        let spec = self.spec()?;
        if !spec.kind.stated_limits().is_unlimited() {
            bail!(
                "--engine {}: the GUI's go sets the limits of a protocol engine; name the \
                 engine without depth, nodes, sims or movetime",
                spec.name
            );
        }
        Ok(spec)
    }

    /// The tables of `--tablebase`.
    pub fn tablebases(&self) -> Result<Option<Arc<Tablebases>>> {
        load_tablebases(self.tablebase.as_deref())
    }

    /// Builds the engine of `spec` (from [`EngineArgs::spec`]) with the
    /// tables of `--tablebase`.
    pub fn build(&self, spec: &PlayerSpec) -> Result<Box<dyn Engine>> {
        engine_of(spec, self.seed, self.tablebases()?)
    }
}

/// `--depth`, `--nodes`, `--movetime`: how long each search may run. With
/// none given the limits the engine's spec states apply, else the engine's
/// default (alpha-beta: depth 8; MCTS: 800 simulations).
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
    /// The limits as the engine of `spec` takes them; a limit it cannot
    /// honour is an error rather than silently ignored or capped.
    pub fn limits_for(&self, spec: &PlayerSpec) -> Result<SearchLimits> {
        let given = SearchLimits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime.map(Duration::from_millis),
            ..SearchLimits::default()
        };
        let limits = if given.is_unlimited() {
            spec.kind.stated_limits()
        } else {
            given
        };
        check_limits(&limits, &spec.kind, &spec.name)?;
        Ok(limits)
    }
}

/// Refuses a depth for a tree search and more simulations than it runs.
fn check_limits(limits: &SearchLimits, kind: &PlayerKind, name: &str) -> Result<()> {
    if !kind.is_tree_search() {
        return Ok(());
    }
    if limits.depth.is_some() {
        bail!(
            "--depth applies to the alpha-beta engine only; limit {name} by --nodes \
             (simulations) or --movetime"
        );
    }
    if let Some(nodes) = limits.nodes
        && nodes > u64::from(u32::MAX)
    {
        bail!(
            "--nodes {nodes}: {name} runs at most {} simulations per move",
            u32::MAX
        );
    }
    Ok(())
}
