//! The run configuration: one TOML file with a section per part of the
//! pipeline. Every key has a default (a missing key or section takes it) and
//! a doc comment; an unknown key is an error that names it.
//!
//! ```toml
//! [run]        # seed, number of generations, logging
//! [net]        # network architecture (shashki-net)
//! [search]     # tree search (shashki-search SearchConfig)
//! [selfplay]   # games, batching, exploration, resignation
//! [train]      # optimiser, schedule, replay window, checkpoints
//! [gating]     # candidate vs best matches (shashki-arena)
//! [draw_rules] # the official draw rules and self-play adjudication
//! [nnue]       # NNUE runs (`[run] engine = "nnue"`): net, search, targets
//! ```

use serde::{Deserialize, Serialize};
use shashki_atomic::room::DEFAULT_FLOOR_GB;
use shashki_net::InferenceKernels;
use shashki_net::config::NET_RANGES;
use shashki_rules::DrawRules;
use shashki_search::mcts::{SEARCH_RANGES, SearchConfig};
use shashki_search::ranges::{self, KeyRange};
use shashki_selfplay::SelfPlayConfig;
use shashki_selfplay::config::SELFPLAY_RANGES;
use std::path::{Path, PathBuf};

pub use shashki_net::NetConfig;

/// Half-move limit for self-play games when `[draw_rules] max_plies` is not
/// set (a bound is needed so a game always ends).
pub const DEFAULT_MAX_PLIES: u32 = 300;

/// A run configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// Seed, generations, logging.
    pub run: RunSection,
    /// Network architecture.
    pub net: NetConfig,
    /// Tree search used by self-play.
    pub search: SearchConfig,
    /// Self-play.
    pub selfplay: SelfPlayConfig,
    /// The learner.
    pub train: TrainSection,
    /// Gating of new nets against the best one.
    pub gating: GatingSection,
    /// The concurrent loop's evaluator: each published net rated against
    /// a fixed anchor as the run trains.
    pub evaluator: EvaluatorSection,
    /// The draw rules games are judged by.
    pub draw_rules: DrawRules,
    /// The NNUE family's settings (used when `[run] engine = "nnue"`).
    pub nnue: NnueSection,
    /// Refits of the learner's net to every sample the run wrote.
    pub refit: RefitSection,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            run: RunSection::default(),
            net: NetConfig::default(),
            search: SearchConfig::default(),
            selfplay: SelfPlayConfig::default(),
            train: TrainSection::default(),
            gating: GatingSection::default(),
            evaluator: EvaluatorSection::default(),
            draw_rules: DrawRules {
                max_plies: Some(DEFAULT_MAX_PLIES),
                ..DrawRules::default()
            },
            nnue: NnueSection::default(),
            refit: RefitSection::default(),
        }
    }
}

/// The engine family a run trains.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineFamily {
    /// A policy/value network searched by MCTS (`[net]`, `[search]`).
    #[default]
    Mcts,
    /// An efficiently updatable network searched by alpha-beta (`[nnue]`).
    Nnue,
}

impl std::fmt::Display for EngineFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EngineFamily::Mcts => "mcts",
            EngineFamily::Nnue => "nnue",
        })
    }
}

/// `[nnue]`: an NNUE run. Self-play is the alpha-beta engine with the
/// current network at a fixed depth (or node budget) per move; `[selfplay]`
/// gives threads (games searched at once), games per generation and chunk,
/// random opening plies and tablebases; `[train]` the optimiser, batch,
/// replay window and checkpoints; `[gating]` the SPRT settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NnueSection {
    /// Accumulator width per perspective (a multiple of 16).
    pub ft: usize,
    /// Widths of the two hidden layers (the first a multiple of 32).
    pub hidden: Vec<usize>,
    /// Output layer stacks by game phase: `single` (default, one set of
    /// dense layers), `phase4` or `pieces8` (see `shashki_nnue::Stacks`).
    pub stacks: shashki_nnue::Stacks,
    /// Search depth of each self-play move, in plies.
    pub depth: u32,
    /// Node budget of each self-play move (0: the depth alone decides).
    pub nodes: u64,
    /// The self-play search's selectivity (`"none"`: full width, the
    /// default; `"prune+lmr"`: the engine's search of issue 52), for the
    /// moves played and the scores that label them. Named in the recipe,
    /// so that a change of the engine's default does not change its data.
    pub search: shashki_search::alphabeta::Selectivity,
    /// Weight of the search score in the target; the game result gets
    /// `1 - lambda` (Stockfish's trainer: 1.0 trains on scores only).
    pub lambda: f64,
    /// Record no sample where a capture is due: the search never
    /// evaluates such positions statically (quiescence plays the captures).
    pub skip_captures: bool,
    /// Search depth per move in gating games.
    pub gate_depth: u32,
    /// A policy/value network (a checkpoint file or an exported model
    /// folder, e.g. `models/cpu-2h`) whose value replaces the search score
    /// in the targets: the fast net learns the big net's judgment of each
    /// self-play position. `None` (default): the search score.
    pub label_model: Option<String>,
    // Issue 36: keys that widen and clean the data; the defaults are the
    // run as it was without them.
    /// Random multi-PV moves per self-play game (0: none): all moves are
    /// searched and one within `random_multipv_margin` of the best is played.
    pub random_multipv_moves: u32,
    /// The random multi-PV moves fall among the game's first this many plies.
    pub random_multipv_plies: u32,
    /// Candidate moves lie within this many centi-men of the best.
    pub random_multipv_margin: i32,
    /// Samples drawn from inside the search tree per game move (0: none):
    /// a random walk off the game line, labelled by its own search.
    pub tree_sample_rate: f64,
    /// Longest random walk of a tree sample, in plies.
    pub tree_sample_plies: u32,
    /// Depth of the search that labels a tree sample.
    pub tree_sample_depth: u32,
    /// Samples in the tablebases (`[selfplay] tablebase_dir`) get their
    /// exact value as label.
    pub exact_labels: bool,
    /// The self-play searches probe the tablebases below the root.
    pub tablebase_search: bool,
    /// Self-play's evaluation is scaled down in drawish material.
    pub drawish_scale: bool,
    /// Samples before this ply of their game are not trained on (0: all).
    pub min_sample_ply: u32,
    /// Lambda at the end of its schedule: lambda goes linearly from
    /// `lambda` at step 0 to `lambda_end` at step `lambda_steps`, then stays.
    pub lambda_end: f64,
    /// Steps of the lambda schedule (0: lambda stays `lambda`).
    pub lambda_steps: u64,
    /// Drop samples whose score contradicts their game result, each kept
    /// with the probability of its result under a win-rate model fitted to
    /// the run's samples (nnue-pytorch's `wld_filtered`).
    pub wdl_filter: bool,
    /// Samples the win-rate model is fitted on before the filter starts.
    pub wdl_filter_min_samples: u64,
    /// Share of each game's sample weight given by surprise (KataGo's
    /// surprise weighting: a sample whose search score lies far from the
    /// playing net's static evaluation is written more often; 0: off).
    pub surprise_weight: f64,
}

impl Default for NnueSection {
    fn default() -> Self {
        // The layout's defaults are the NNUE crate's.
        let arch = shashki_nnue::Architecture::default();
        NnueSection {
            ft: arch.ft,
            hidden: arch.hidden.to_vec(),
            stacks: arch.stacks,
            depth: 4,
            nodes: 0,
            search: shashki_search::alphabeta::Selectivity::NONE,
            lambda: 0.5,
            skip_captures: true,
            gate_depth: 4,
            label_model: None,
            random_multipv_moves: 0,
            random_multipv_plies: 24,
            random_multipv_margin: 100,
            tree_sample_rate: 0.0,
            tree_sample_plies: 4,
            tree_sample_depth: 4,
            exact_labels: false,
            tablebase_search: false,
            drawish_scale: false,
            min_sample_ply: 0,
            lambda_end: 0.5,
            lambda_steps: 0,
            wdl_filter: false,
            wdl_filter_min_samples: 20_000,
            surprise_weight: 0.0,
        }
    }
}

/// `[run]`: what the whole run is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunSection {
    /// Master seed: self-play, initial weights and batch sampling derive
    /// their seeds from it, so a run is reproducible.
    pub seed: u64,
    /// Generations to run (self-play, training, gating); 0 runs until stopped.
    /// A resumed run counts the generations already done.
    pub generations: u64,
    /// Seconds of the run's own time after which it stops (0: no limit):
    /// summed over sittings, each checkpoint recording the time run so far,
    /// so a run stopped and resumed still trains this long in all.
    pub seconds: u64,
    /// Every this many seconds of the run's own time, the first checkpoint
    /// saved past the mark is also kept as `checkpoints/time-<mark>s`,
    /// never deleted (3600: the 1-, 2-, 3-hour nets of a run); 0: none.
    pub keep_every_seconds: u64,
    /// Training steps between two tensorboard points of the losses.
    pub log_every_steps: u64,
    /// `mcts` (default) or `nnue`: which engine family the run trains.
    pub engine: EngineFamily,
    /// How self-play runs a `diag32` network on the CPU: `f32` (default:
    /// hand-written kernels, the float net's numbers to 1e-6 at about twice
    /// burn's speed), `int8` (faster again, within 0.05 of the float net) or
    /// `burn`. Training is always burn's float net.
    pub kernels: InferenceKernels,
    /// `sequential` (default: self-play, then training, generation by
    /// generation; reproducible from the seed) or `concurrent` (self-play
    /// and the learner at the same time on their own cores, the learner
    /// held to `[train] replay_ratio`; faster, not reproducible; no gating).
    pub mode: RunMode,
    /// Concurrent mode: the learner's threads (burn's matrix products and
    /// reductions). 0: half the machine's cores, at least one; self-play
    /// with `[selfplay] threads = 0` takes the others (at least one).
    pub learner_threads: usize,
    /// Gigabytes that must stay free on the run directory's disk: below
    /// them the run saves and stops (exit status 75) before writing more
    /// chunks or checkpoints, and resumes once there is room; 0: no floor.
    pub disk_floor_gb: f64,
    /// Gigabytes the run directory may hold (chunks, checkpoints, logs);
    /// past them, after a generation, the run drops what no reader needs
    /// (chunks wholly older than the replay window, then regular
    /// checkpoints but the newest few). 0: no budget, every chunk kept.
    pub disk_budget_gb: f64,
}

/// How `shashki train` schedules self-play and learning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    /// Generation by generation: self-play, then training, then gating.
    #[default]
    Sequential,
    /// Self-play and the learner at once (`shashki train` only).
    Concurrent,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            seed: 1,
            generations: 0,
            seconds: 0,
            keep_every_seconds: 0,
            log_every_steps: 10,
            engine: EngineFamily::Mcts,
            kernels: InferenceKernels::F32,
            mode: RunMode::Sequential,
            learner_threads: 0,
            disk_floor_gb: DEFAULT_FLOOR_GB,
            disk_budget_gb: 0.0,
        }
    }
}

/// The optimiser.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptimizerKind {
    /// Stochastic gradient descent with momentum (AlphaZero, KataGo).
    Sgd,
    /// Adam.
    Adam,
}

/// Which samples the learner draws from (`[train] replay`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayKind {
    /// The newest `window` samples (in memory).
    Window,
    /// Every sample the run has written (read from disk as drawn).
    All,
}

/// `[train]`: the learner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainSection {
    /// Positions per training step.
    pub batch_size: usize,
    /// Training steps per generation of `shashki train` (fewer if the reuse
    /// budget runs out first).
    pub steps_per_generation: u64,
    /// `sgd` or `adam`.
    pub optimizer: OptimizerKind,
    /// Base learning rate.
    pub learning_rate: f64,
    /// SGD momentum (ignored by Adam).
    pub momentum: f64,
    /// L2 weight decay added to the gradients.
    pub weight_decay: f64,
    /// Steps of linear warm-up from 0 to the base learning rate.
    pub lr_warmup_steps: u64,
    /// Steps at which the learning rate is multiplied by `lr_decay_factor`.
    pub lr_decay_steps: Vec<u64>,
    /// Factor applied at each of `lr_decay_steps`.
    pub lr_decay_factor: f64,
    /// Clip the gradient's global norm to this; 0 disables clipping.
    pub grad_clip_norm: f32,
    /// Weight of the policy cross-entropy in the loss.
    pub policy_loss_weight: f32,
    /// Weight of the W/D/L cross-entropy in the loss.
    pub value_loss_weight: f32,
    /// Where batches come from: `window` (the newest `window` samples) or
    /// `all` (every chunk the run has written; `window` then only bounds
    /// the stock of reuse tokens).
    pub replay: ReplayKind,
    /// `replay = "all"`: a sample this many samples older than the newest
    /// is drawn half as often (0: every sample alike).
    pub replay_half_life: f64,
    /// Samples in the replay window (the newest ones across all chunks).
    pub window: usize,
    /// No training before this many samples exist.
    pub min_samples: usize,
    /// Average number of times each sample is used before the learner waits
    /// for new self-play data (KataGo: about 4).
    pub max_reuse: f64,
    /// Concurrent mode: samples trained per sample played. The learner
    /// waits for self-play whenever one more batch would take it above this
    /// ratio (counted over the whole run); `max_reuse` still caps it.
    pub replay_ratio: f64,
    /// Write a checkpoint every this many steps (and at each generation
    /// end). In concurrent mode these are the published nets: self-play
    /// plays each new round with the newest.
    pub checkpoint_every_steps: u64,
    /// Checkpoints kept besides the promoted (best) ones.
    pub keep_checkpoints: usize,
}

impl Default for TrainSection {
    fn default() -> Self {
        TrainSection {
            batch_size: 256,
            steps_per_generation: 100,
            optimizer: OptimizerKind::Sgd,
            learning_rate: 0.02,
            momentum: 0.9,
            weight_decay: 1e-4,
            lr_warmup_steps: 100,
            lr_decay_steps: Vec::new(),
            lr_decay_factor: 0.1,
            grad_clip_norm: 10.0,
            policy_loss_weight: 1.0,
            value_loss_weight: 1.0,
            replay: ReplayKind::Window,
            replay_half_life: 0.0,
            window: 200_000,
            min_samples: 2_000,
            max_reuse: 4.0,
            replay_ratio: 2.0,
            checkpoint_every_steps: 100,
            keep_checkpoints: 5,
        }
    }
}

impl TrainSection {
    /// What the replay draws from, as the replay module takes it.
    pub fn replay_mode(&self) -> crate::replay::ReplayMode {
        match self.replay {
            ReplayKind::Window => crate::replay::ReplayMode::Window,
            ReplayKind::All => crate::replay::ReplayMode::All {
                half_life: self.replay_half_life,
            },
        }
    }

    /// The learning rate at `step` (0-based): warm-up, then step decays.
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        let mut lr = self.learning_rate;
        if self.lr_warmup_steps > 0 && step < self.lr_warmup_steps {
            lr *= (step + 1) as f64 / self.lr_warmup_steps as f64;
        }
        let decays = self.lr_decay_steps.iter().filter(|&&s| step >= s).count();
        lr * self.lr_decay_factor.powi(decays as i32)
    }
}

/// How a gate decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateMethodKind {
    /// Sequential probability ratio test on game pairs.
    Sprt,
    /// A fixed number of games and a score threshold.
    Fixed,
}

/// `[gating]`: the newest net against the best one, in arena matches
/// (balloted openings, colours swapped per pair, official draw rules).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GatingSection {
    /// Gate at all. Off: every new net plays self-play at once (AlphaZero);
    /// on: self-play uses the best net, replaced only by one that passes.
    pub enabled: bool,
    /// Gate every this many generations.
    pub every_generations: u64,
    /// `sprt` or `fixed`.
    pub method: GateMethodKind,
    /// Simulations per move in gating games (the `[search]` algorithm,
    /// no noise).
    pub simulations: u32,
    /// SPRT: Elo of the null hypothesis (candidate not better).
    pub elo0: f64,
    /// SPRT: Elo of the alternative hypothesis (candidate better).
    pub elo1: f64,
    /// SPRT: false positive rate.
    pub alpha: f64,
    /// SPRT: false negative rate.
    pub beta: f64,
    /// SPRT: games played before the test may stop.
    pub min_games: u32,
    /// SPRT: games after which the match stops undecided (not promoted).
    pub max_games: u32,
    /// Fixed: number of games.
    pub games: u32,
    /// Fixed: the candidate's score (points per game) needed to pass.
    pub threshold: f64,
    /// Games played at once (their network calls share batches); 0: one
    /// per CPU core.
    pub concurrency: usize,
}

impl Default for GatingSection {
    fn default() -> Self {
        GatingSection {
            enabled: false,
            every_generations: 5,
            method: GateMethodKind::Sprt,
            simulations: 32,
            elo0: 0.0,
            elo1: 30.0,
            alpha: 0.05,
            beta: 0.05,
            min_games: 20,
            max_games: 200,
            games: 40,
            threshold: 0.55,
            concurrency: 16,
        }
    }
}

/// `[evaluator]`: in a concurrent run, a third side beside self-play and
/// the learner rates the published checkpoints as they come, each against
/// the same anchor (so two runs of one config share a scale), as the
/// gate's players play (`[gating] simulations`, `[nnue] gate_depth`: fixed
/// budgets, not a clock, because the machine is loaded), from the
/// unbalanced book under the official draw rules; each point goes to
/// `ratings.jsonl` and tensorboard (`eval/elo` and its interval). The
/// sequential loop does not run it: `shashki rate --watch RUN` rates any
/// run from outside the same way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvaluatorSection {
    /// Rate at all (concurrent runs).
    pub enabled: bool,
    /// The anchor every rated checkpoint plays (a player spec of `shashki
    /// rate`).
    pub anchor: String,
    /// Games per rated checkpoint (rounded up to whole opening pairs).
    pub games: u32,
    /// Rate a checkpoint only this many steps or more after the last rated
    /// one (0: the next published one whenever the evaluator is free).
    pub every_steps: u64,
    /// Its threads (games at once), taken from self-play's share; 0: a
    /// quarter of the cores, at least one.
    pub threads: usize,
}

impl Default for EvaluatorSection {
    fn default() -> Self {
        EvaluatorSection {
            enabled: true,
            anchor: "ab:depth=4".into(),
            games: 40,
            every_steps: 0,
            threads: 0,
        }
    }
}

impl EvaluatorSection {
    /// The evaluator's threads on a machine of `cores` cores (0 when it is
    /// off).
    pub fn threads_on(&self, cores: usize) -> usize {
        match (self.enabled, self.threads) {
            (false, _) => 0,
            (true, 0) => (cores / 4).max(1),
            (true, n) => n,
        }
    }
}

/// `[refit]` (issue 69): at marks of the run, the learner's net is fitted
/// again to every sample the run has written (read from its chunks as
/// drawn), for `passes` passes with a rate falling linearly from
/// `learning_rate` to `learning_rate_end` and a new optimizer, from the
/// learner's own weights or fresh ones; self-play and the online learner
/// go on from the refitted net. The online learner at a high rate on its
/// newest window ends each hour about as strong as the last; two passes
/// over all of a 2-hour run's data at a tenth of its rate beat its net by
/// +24 Elo (docs/RESULTS.md). Sequential runs of the NNUE family only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RefitSection {
    /// A refit so timed that it ends at each multiple of this many seconds
    /// of the run's own time, and at `[run] seconds`, which then ends the
    /// run (started when the time left falls to the refit's estimated
    /// length and one generation's; not reproducible, as any time
    /// budget); 0: none by time.
    pub every_seconds: u64,
    /// A refit after every this many generations and after the run's last
    /// (`[run] generations`), reproducible from the seed; 0: none by
    /// generations. At most one of the two is set.
    pub every_generations: u64,
    /// Passes over the samples (batches drawn with replacement: each
    /// sample is seen this many times on average).
    pub passes: f64,
    /// The rate at the refit's first step.
    pub learning_rate: f64,
    /// The rate at its last step (linear in between).
    pub learning_rate_end: f64,
    /// Start from fresh weights (seeded by the run seed and the refit's
    /// number) instead of the learner's.
    pub fresh: bool,
}

impl Default for RefitSection {
    fn default() -> Self {
        RefitSection {
            every_seconds: 0,
            every_generations: 0,
            passes: 2.0,
            learning_rate: 1e-4,
            learning_rate_end: 1e-5,
            fresh: false,
        }
    }
}

impl RefitSection {
    /// Whether the run refits at all.
    pub fn enabled(&self) -> bool {
        self.every_seconds > 0 || self.every_generations > 0
    }
}

/// A configuration that could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("config {path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The TOML does not parse or has an unknown key or a wrong type.
    #[error("config {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message (with line and column).
        message: String,
    },
    /// A value is out of range.
    #[error("config {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Which key and why.
        message: String,
    },
}

impl RunConfig {
    /// Parses TOML text (`origin` names it in errors) and validates it.
    pub fn from_toml(text: &str, origin: &Path) -> Result<RunConfig, ConfigError> {
        let config: RunConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: origin.to_path_buf(),
            message: e.to_string(),
        })?;
        config.validate().map_err(|message| ConfigError::Invalid {
            path: origin.to_path_buf(),
            message,
        })?;
        Ok(config)
    }

    /// Reads and validates a TOML file.
    pub fn load(path: &Path) -> Result<RunConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        RunConfig::from_toml(&text, path)
    }

    /// The configuration as TOML (what a run directory keeps).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a run config always serialises")
    }

    /// The NNUE architecture `[nnue]` asks for.
    pub fn nnue_architecture(&self) -> Result<shashki_nnue::Architecture, String> {
        let n = &self.nnue;
        let [h1, h2] = n.hidden[..] else {
            return Err(format!(
                "[nnue] hidden: needs two layer widths, got {}",
                n.hidden.len()
            ));
        };
        let arch = shashki_nnue::Architecture {
            ft: n.ft,
            hidden: [h1, h2],
            stacks: n.stacks,
        };
        arch.validate().map_err(|e| format!("[nnue] {e}"))?;
        Ok(arch)
    }

    /// The half-move bound of self-play games.
    pub fn max_plies(&self) -> u32 {
        self.draw_rules.max_plies.unwrap_or(DEFAULT_MAX_PLIES)
    }

    /// The draw rules self-play games are played under: `[draw_rules]` with
    /// the half-move bound always set.
    pub fn game_rules(&self) -> shashki_rules::DrawRules {
        shashki_rules::DrawRules {
            max_plies: Some(self.max_plies()),
            ..self.draw_rules
        }
    }

    /// Checks every section; the message names the section and key.
    pub fn validate(&self) -> Result<(), String> {
        self.check_ranges()?;
        let t = &self.train;
        if t.min_samples > t.window {
            return Err(format!(
                "[train] min_samples = {}: must not exceed window = {} (training would never start)",
                t.min_samples, t.window
            ));
        }
        if t.batch_size > t.window {
            return Err(format!(
                "[train] batch_size = {}: must not exceed window = {}",
                t.batch_size, t.window
            ));
        }
        // Cross-field only: every single key's range was checked above.
        self.net.validate().map_err(|e| format!("[net] {e}"))?;
        let g = &self.gating;
        if g.enabled && self.run.mode == RunMode::Concurrent && !self.evaluator.enabled {
            return Err(
                "[gating] enabled = true with [run] mode = \"concurrent\": needs \
                        [evaluator] enabled = true (the evaluator plays the gates beside \
                        self-play and the learner)"
                    .into(),
            );
        }
        if g.elo1 <= g.elo0 {
            return Err("[gating] elo1: must be greater than elo0".into());
        }
        if g.max_games < g.min_games {
            return Err("[gating] max_games: must be at least min_games".into());
        }
        self.nnue_architecture()?;
        self.validate_refit()
    }

    /// `[refit]` against the run it belongs to.
    fn validate_refit(&self) -> Result<(), String> {
        let r = &self.refit;
        if !r.enabled() {
            return Ok(());
        }
        if r.every_seconds > 0 && r.every_generations > 0 {
            return Err(
                "[refit] every_seconds and every_generations: set one of them, not both".into(),
            );
        }
        if self.run.engine != EngineFamily::Nnue {
            return Err("[refit]: refits are for the NNUE family ([run] engine = \"nnue\")".into());
        }
        if self.run.mode != RunMode::Sequential {
            return Err(
                "[refit]: refits need [run] mode = \"sequential\" (they pause self-play)".into(),
            );
        }
        Ok(())
    }
}

/// The range every numeric key of the sections this crate owns must lie
/// in, as `(section.key, min, max)`, both ends included; `[search]`,
/// `[selfplay]` and `[net]` take theirs from the tables of their crates
/// ([`key_ranges`] has them all). Zero or a negative number where it
/// cannot work and absurd sizes are refused before a run starts. Every
/// numeric key has a range; a test keeps it so.
const RUN_RANGES: &[KeyRange] = &[
    ("run.seed", 0.0, I64_MAX),
    ("run.generations", 0.0, 1e9),
    ("run.seconds", 0.0, 1e9),
    ("run.keep_every_seconds", 0.0, 1e9),
    ("run.log_every_steps", 1.0, 1e9),
    ("run.learner_threads", 0.0, 1024.0),
    ("run.disk_floor_gb", 0.0, 1e6),
    ("run.disk_budget_gb", 0.0, 1e6),
    ("train.batch_size", 1.0, 65536.0),
    ("train.steps_per_generation", 1.0, 1e8),
    ("train.learning_rate", 1e-9, 10.0),
    ("train.momentum", 0.0, 0.9999),
    ("train.weight_decay", 0.0, 1.0),
    ("train.lr_warmup_steps", 0.0, 1e9),
    ("train.lr_decay_steps", 0.0, 1e12),
    ("train.lr_decay_factor", 1e-6, 10.0),
    ("train.grad_clip_norm", 0.0, 1e6),
    ("train.policy_loss_weight", 0.0, 1000.0),
    ("train.value_loss_weight", 0.0, 1000.0),
    ("train.window", 1.0, 1e10),
    ("train.replay_half_life", 0.0, 1e12),
    ("train.min_samples", 0.0, 1e10),
    ("train.max_reuse", 1e-6, 1e4),
    ("train.replay_ratio", 1e-6, 1e4),
    ("train.checkpoint_every_steps", 1.0, 1e9),
    ("train.keep_checkpoints", 1.0, 1e6),
    ("gating.every_generations", 1.0, 1e6),
    ("gating.simulations", 1.0, 1e7),
    ("gating.elo0", -2000.0, 2000.0),
    ("gating.elo1", -2000.0, 2000.0),
    ("gating.alpha", 1e-6, 0.4999),
    ("gating.beta", 1e-6, 0.4999),
    ("gating.min_games", 0.0, 1e7),
    ("gating.max_games", 2.0, 1e7),
    ("gating.games", 1.0, 1e7),
    ("gating.threshold", 0.0, 1.0),
    ("gating.concurrency", 0.0, 4096.0),
    ("evaluator.games", 2.0, 1e6),
    ("evaluator.every_steps", 0.0, 1e9),
    ("evaluator.threads", 0.0, 1024.0),
    ("draw_rules.three_kings_vs_king_plies", 1.0, 1000.0),
    ("draw_rules.kings_only_plies", 1.0, 1000.0),
    ("draw_rules.material_unchanged_plies_4_5", 1.0, 1000.0),
    ("draw_rules.material_unchanged_plies_6_7", 1.0, 1000.0),
    ("draw_rules.main_diagonal_plies", 1.0, 1000.0),
    ("draw_rules.few_pieces_plies", 1.0, 1000.0),
    ("draw_rules.max_plies", 1.0, 100_000.0),
    // The sizes the NNUE's kernels take (each hidden width on its own; the
    // multiples are checked with the architecture).
    (
        "nnue.ft",
        shashki_nnue::FT_MULTIPLE as f64,
        shashki_nnue::FT_MAX as f64,
    ),
    ("nnue.hidden", 1.0, shashki_nnue::HIDDEN_MAX as f64),
    ("nnue.depth", 1.0, 64.0),
    ("nnue.nodes", 0.0, 1e12),
    ("nnue.lambda", 0.0, 1.0),
    ("nnue.gate_depth", 1.0, 64.0),
    ("nnue.random_multipv_moves", 0.0, 1000.0),
    ("nnue.random_multipv_plies", 0.0, 10_000.0),
    ("nnue.random_multipv_margin", 0.0, 100_000.0),
    ("nnue.tree_sample_rate", 0.0, 100.0),
    ("nnue.tree_sample_plies", 1.0, 64.0),
    ("nnue.tree_sample_depth", 1.0, 64.0),
    ("nnue.min_sample_ply", 0.0, 100_000.0),
    ("nnue.lambda_end", 0.0, 1.0),
    ("nnue.lambda_steps", 0.0, 1e12),
    ("nnue.wdl_filter_min_samples", 0.0, 1e12),
    ("nnue.surprise_weight", 0.0, 1.0),
    ("refit.every_seconds", 0.0, 1e9),
    ("refit.every_generations", 0.0, 1e9),
    ("refit.passes", 1e-3, 1e4),
    ("refit.learning_rate", 0.0, 10.0),
    ("refit.learning_rate_end", 0.0, 10.0),
];

/// The sections whose ranges their own crates state.
const SECTION_RANGES: [(&str, &[KeyRange]); 3] = [
    ("search", SEARCH_RANGES),
    ("selfplay", SELFPLAY_RANGES),
    ("net", NET_RANGES),
];

/// The range of every numeric key of a run config, as `(section.key, min, max)`.
pub fn key_ranges() -> Vec<(String, f64, f64)> {
    let sections = SECTION_RANGES.iter().flat_map(|(section, table)| {
        table
            .iter()
            .map(move |(key, min, max)| (format!("{section}.{key}"), *min, *max))
    });
    let own = RUN_RANGES
        .iter()
        .map(|(key, min, max)| (key.to_string(), *min, *max));
    sections.chain(own).collect()
}

/// The range of the key `section.key`, if it has one.
pub fn key_range(path: &str) -> Option<(f64, f64)> {
    let (section, key) = path.split_once('.')?;
    match SECTION_RANGES.iter().find(|(s, _)| *s == section) {
        Some((_, table)) => ranges::find(table, key),
        None => ranges::find(RUN_RANGES, path),
    }
}

/// The largest integer TOML holds.
const I64_MAX: f64 = i64::MAX as f64;

/// Every numeric value of `value` (a config as TOML), as
/// (`section.key`, number); arrays give one entry per element.
pub fn numeric_keys(value: &toml::Value) -> Vec<(String, f64)> {
    fn walk(prefix: &str, value: &toml::Value, out: &mut Vec<(String, f64)>) {
        match value {
            toml::Value::Integer(i) => out.push((prefix.to_string(), *i as f64)),
            toml::Value::Float(f) => out.push((prefix.to_string(), *f)),
            toml::Value::Array(items) => items.iter().for_each(|v| walk(prefix, v, out)),
            toml::Value::Table(table) => {
                for (key, v) in table {
                    let path = if prefix.is_empty() {
                        key.clone()
                    } else {
                        format!("{prefix}.{key}")
                    };
                    walk(&path, v, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk("", value, &mut out);
    out
}

impl RunConfig {
    /// Checks every numeric key against its range ([`key_range`]); the
    /// message names the section, the key, the value and the allowed range.
    fn check_ranges(&self) -> Result<(), String> {
        let value = toml::Value::try_from(self).map_err(|e| format!("config: {e}"))?;
        for (path, x) in numeric_keys(&value) {
            let Some((min, max)) = key_range(&path) else {
                continue;
            };
            if !(min..=max).contains(&x) {
                let (section, key) = path.split_once('.').unwrap_or(("", &path));
                return Err(format!(
                    "[{section}] {key} = {}: must be in {} ..= {}",
                    ranges::show_number(x),
                    ranges::show_number(min),
                    ranges::show_number(max)
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configs_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs")
    }

    #[test]
    fn shipped_configs_load() {
        for name in [
            "smoke.toml",
            "cpu.toml",
            "gpu.toml",
            "cpu-resnet.toml",
            "cpu-diag-wide.toml",
            "cpu-concurrent.toml",
            "nnue.toml",
            "nnue-2h.toml",
            "nnue-smoke.toml",
        ] {
            let path = configs_dir().join(name);
            let config = RunConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            // What is saved in a run directory loads back the same.
            let again = RunConfig::from_toml(&config.to_toml(), &path).unwrap();
            assert_eq!(again, config, "{name}");
        }
        // The 8x8 twin differs from cpu.toml (diagonal net) in the net kind only.
        let cpu = RunConfig::load(&configs_dir().join("cpu.toml")).unwrap();
        assert_eq!(cpu.net.kind, shashki_net::NetKind::Diag32);
        let mut resnet = RunConfig::load(&configs_dir().join("cpu-resnet.toml")).unwrap();
        assert_eq!(resnet.net.kind, shashki_net::NetKind::Resnet8x8);
        resnet.net.kind = cpu.net.kind;
        assert_eq!(resnet, cpu);
        // The concurrent twin differs in its mode, publishing interval and
        // the checkpoints kept (all of a 4-hour run at one per 50 steps).
        let mut concurrent = RunConfig::load(&configs_dir().join("cpu-concurrent.toml")).unwrap();
        assert_eq!(concurrent.run.mode, RunMode::Concurrent);
        assert_eq!(concurrent.train.checkpoint_every_steps, 50);
        assert_eq!(concurrent.train.keep_checkpoints, 5000);
        concurrent.run.mode = cpu.run.mode;
        concurrent.train.checkpoint_every_steps = cpu.train.checkpoint_every_steps;
        concurrent.train.keep_checkpoints = cpu.train.keep_checkpoints;
        assert_eq!(concurrent, cpu);
    }

    #[test]
    fn empty_config_is_the_default() {
        let config = RunConfig::from_toml("", Path::new("empty.toml")).unwrap();
        assert_eq!(config, RunConfig::default());
        assert_eq!(config.max_plies(), DEFAULT_MAX_PLIES);
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors_naming_them() {
        let err =
            RunConfig::from_toml("[train]\nbatch_sise = 3\n", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("batch_sise"), "{err}");
        let err = RunConfig::from_toml("[trian]\n", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("trian"), "{err}");
        let err =
            RunConfig::from_toml("[train]\nmax_reuse = -1.0\n", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("max_reuse"), "{err}");
        let err = RunConfig::from_toml("[search]\nfull_simulations = 0\n", Path::new("x.toml"))
            .unwrap_err();
        assert!(err.to_string().contains("full_simulations"), "{err}");
        let err = RunConfig::from_toml("[train]\nbatch_size = \"big\"\n", Path::new("x.toml"))
            .unwrap_err();
        assert!(err.to_string().contains("x.toml"), "{err}");
    }

    #[test]
    fn concurrent_runs_gate_only_with_their_evaluator_and_check_their_keys() {
        let concurrent = "[run]\nmode = \"concurrent\"\n";
        let config = RunConfig::from_toml(concurrent, Path::new("c.toml")).unwrap();
        assert_eq!(config.run.mode, RunMode::Concurrent);
        assert_eq!(config.train.replay_ratio, 2.0);
        let gated = format!("{concurrent}[gating]\nenabled = true\n");
        RunConfig::from_toml(&gated, Path::new("c.toml")).unwrap();
        let unjudged = format!("{gated}[evaluator]\nenabled = false\n");
        let err = RunConfig::from_toml(&unjudged, Path::new("c.toml")).unwrap_err();
        assert!(
            err.to_string().contains("needs [evaluator] enabled = true"),
            "{err}"
        );
        // The sequential mode keeps gating.
        RunConfig::from_toml("[gating]\nenabled = true\n", Path::new("s.toml")).unwrap();
        let err =
            RunConfig::from_toml("[train]\nreplay_ratio = 0\n", Path::new("c.toml")).unwrap_err();
        assert!(
            err.to_string().contains("[train] replay_ratio = 0"),
            "{err}"
        );
        let err =
            RunConfig::from_toml("[run]\nmode = \"async\"\n", Path::new("c.toml")).unwrap_err();
        assert!(err.to_string().contains("async"), "{err}");
    }

    #[test]
    fn learning_rate_warms_up_then_decays() {
        let t = TrainSection {
            learning_rate: 0.1,
            lr_warmup_steps: 10,
            lr_decay_steps: vec![100, 200],
            lr_decay_factor: 0.5,
            ..TrainSection::default()
        };
        assert!((t.learning_rate_at(0) - 0.01).abs() < 1e-12);
        assert!((t.learning_rate_at(9) - 0.1).abs() < 1e-12);
        assert!((t.learning_rate_at(150) - 0.05).abs() < 1e-12);
        assert!((t.learning_rate_at(250) - 0.025).abs() < 1e-12);
    }
}

#[cfg(test)]
mod range_tests {
    use super::*;

    /// The default config as a TOML table.
    fn default_table() -> toml::Table {
        match toml::Value::try_from(RunConfig::default()).unwrap() {
            toml::Value::Table(t) => t,
            _ => unreachable!(),
        }
    }

    /// The default value of `section.key` (an array's first element).
    fn default_value(path: &str) -> toml::Value {
        let mut config = RunConfig::default();
        config.train.lr_decay_steps = vec![1];
        let value = toml::Value::try_from(&config).unwrap();
        let (section, key) = path.split_once('.').unwrap();
        match &value[section][key] {
            toml::Value::Array(items) => items[0].clone(),
            other => other.clone(),
        }
    }

    /// The default config with `section.key` set to `value` (TOML text).
    fn with_value(path: &str, value: &str) -> String {
        let (section, key) = path.split_once('.').unwrap();
        let mut table = default_table();
        let replacement: toml::Value = toml::from_str::<toml::Table>(&format!("x = {value}"))
            .unwrap()
            .remove("x")
            .unwrap();
        let section = table
            .entry(section)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let old = section
            .as_table_mut()
            .unwrap()
            .insert(key.to_string(), replacement);
        // An array key takes a one-element array.
        if let Some(toml::Value::Array(_)) = old {
            let v = section.as_table_mut().unwrap().remove(key).unwrap();
            section
                .as_table_mut()
                .unwrap()
                .insert(key.to_string(), toml::Value::Array(vec![v]));
        }
        toml::to_string(&table).unwrap()
    }

    #[test]
    fn every_numeric_key_has_a_range_that_holds_its_default() {
        let mut config = RunConfig::default();
        config.train.lr_decay_steps = vec![1000];
        let value = toml::Value::try_from(&config).unwrap();
        let keys = numeric_keys(&value);
        assert!(keys.len() > 60, "{keys:?}");
        for (path, x) in keys {
            let (min, max) = key_range(&path)
                .unwrap_or_else(|| panic!("numeric key {path} has no range: give it one"));
            assert!((min..=max).contains(&x), "default {path} = {x}");
        }
        for (key, min, max) in key_ranges() {
            assert!(min <= max, "{key}");
        }
    }

    #[test]
    fn zero_minus_one_and_absurd_values_are_refused_naming_key_value_and_range() {
        for (path, min, max) in key_ranges() {
            let path = path.as_str();
            let key = path.split_once('.').unwrap().1;
            let is_int = matches!(default_value(path), toml::Value::Integer(_));
            let absurd = if max >= 1e18 {
                None
            } else {
                Some(max * 1000.0 + 1000.0)
            };
            let (zero, minus_one) = if is_int { ("0", "-1") } else { ("0.0", "-1.0") };
            let mut cases: Vec<(String, f64)> = vec![(zero.into(), 0.0), (minus_one.into(), -1.0)];
            if let Some(a) = absurd {
                let text = if is_int {
                    format!("{}", a as i64)
                } else {
                    format!("{a:e}")
                };
                cases.push((text, a));
            }
            for (text, x) in cases {
                let toml_text = with_value(path, &text);
                let result = RunConfig::from_toml(&toml_text, Path::new("walk.toml"));
                let allowed = (min..=max).contains(&x);
                match result {
                    Ok(_) => assert!(allowed, "{path} = {text} was accepted"),
                    Err(err) => {
                        let message = err.to_string();
                        assert!(message.contains("walk.toml"), "{message}");
                        assert!(message.contains(key), "{path} = {text}: {message}");
                        // Type errors (a negative unsigned) come from the
                        // parser with the line; range errors say the range.
                        if let ConfigError::Invalid { .. } = err
                            && !allowed
                        {
                            // (An f32 key shows its value as stored.)
                            assert!(
                                message.contains(&ranges::show_number(min))
                                    && message.contains(&ranges::show_number(max))
                                    && message.contains(&format!("{key} = "))
                                    && (!is_int || message.contains(&ranges::show_number(x))),
                                "{path} = {text}: {message}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_values_the_issue_named_are_refused() {
        for (section, key) in [
            ("selfplay", "games_per_generation"),
            ("draw_rules", "max_plies"),
            ("train", "steps_per_generation"),
            // (`net.blocks = 0` is a working net, stem and heads: allowed.)
            ("net", "channels"),
        ] {
            let text = format!("[{section}]\n{key} = 0\n");
            let err = RunConfig::from_toml(&text, Path::new("x.toml"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("[{section}] {key} = 0: must be in 1 ..= ")),
                "{err}"
            );
        }
        let err = RunConfig::from_toml(
            "[train]\nmin_samples = 500\nwindow = 100\n",
            Path::new("x.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("min_samples = 500: must not exceed window = 100"),
            "{err}"
        );
    }

    #[test]
    fn refits_are_refused_where_they_cannot_run() {
        let nnue = "[run]\nengine = \"nnue\"\n";
        let refused = |text: &str| {
            RunConfig::from_toml(text, Path::new("x.toml"))
                .unwrap_err()
                .to_string()
        };
        let both = format!("{nnue}[refit]\nevery_seconds = 60\nevery_generations = 5\n");
        assert!(refused(&both).contains("set one of them, not both"));
        let mcts = "[refit]\nevery_generations = 5\n";
        assert!(refused(mcts).contains("refits are for the NNUE family"));
        let concurrent = format!("{nnue}mode = \"concurrent\"\n[refit]\nevery_generations = 5\n");
        assert!(refused(&concurrent).contains("mode = \"sequential\""));
        let config = format!("{nnue}[refit]\nevery_generations = 5\n");
        let config = RunConfig::from_toml(&config, Path::new("x.toml")).unwrap();
        assert!(config.refit.enabled() && config.refit.passes == 2.0);
    }

    #[test]
    fn nnue_output_stacks_come_from_the_config_and_unknown_ones_are_named() {
        let config =
            RunConfig::from_toml("[nnue]\nstacks = \"phase4\"\n", Path::new("x.toml")).unwrap();
        let arch = config.nnue_architecture().unwrap();
        assert_eq!(arch.stacks, shashki_nnue::Stacks::Phase4);
        let default = RunConfig::from_toml("", Path::new("x.toml")).unwrap();
        assert_eq!(
            default.nnue_architecture().unwrap().stacks,
            shashki_nnue::Stacks::Single
        );
        let err = RunConfig::from_toml("[nnue]\nstacks = \"wide\"\n", Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("wide") && err.contains("phase4"), "{err}");
    }

    #[test]
    fn the_self_play_search_is_named_by_the_recipe_and_kept_when_saved() {
        use shashki_search::alphabeta::Selectivity;
        let default = RunConfig::from_toml("", Path::new("x.toml")).unwrap();
        assert_eq!(
            default.nnue.search,
            Selectivity::NONE,
            "full width unless named"
        );
        let text = "[nnue]\nsearch = \"prune+lmr\"\n";
        let config = RunConfig::from_toml(text, Path::new("x.toml")).unwrap();
        assert_eq!(config.nnue.search, Selectivity::parse("prune+lmr").unwrap());
        let saved = toml::to_string(&config).unwrap();
        assert!(saved.contains("search = \"prune+lmr\""), "{saved}");
        let again = RunConfig::from_toml(&saved, Path::new("x.toml")).unwrap();
        assert_eq!(again.nnue.search, config.nnue.search);
        let err =
            RunConfig::from_toml("[nnue]\nsearch = \"prune+nullmove\"\n", Path::new("x.toml"))
                .unwrap_err()
                .to_string();
        assert!(err.contains("nullmove") && err.contains("lmr"), "{err}");
    }
}
