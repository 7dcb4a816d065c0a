//! `mcts:sims=64[,gumbel][,rollouts=2][,leaves=1]`, `mcts:movetime=1000[,threads=2]`:
//! MCTS over random playouts (default 64 simulations, PUCT). The search
//! options and the players themselves serve `net:` too.
//!
//! A player with `movetime` (or in a match with a clock, `--tc`) thinks for
//! a time rather than a number of simulations: it searches with `threads`
//! threads (default: one per core) and `leaves` leaves per thread and
//! evaluator call.
//!
//! `cache=N` sets how many evaluations a timed player keeps (0: none) and
//! `evaluate_forced` makes it evaluate positions with a single legal move
//! instead of passing through them: both reproduce the search as it was
//! before issue 25, for comparisons.

use super::options::{joined, number, options};
use super::{EngineSetup, Kind};
use crate::player::{EnginePlayer, GameSetup, Player, PlayerFailure, PlayerMaker, SharedEvaluator};
use crate::spec::{MctsSettings, PlayerKind};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shashki_rules::{Game, Move};
use shashki_search::batching::BatchingEvaluator;
use shashki_search::cache::DEFAULT_CACHE_ENTRIES;
use shashki_search::mcts::MctsEngine;
use shashki_search::stand_ins::RolloutEvaluator;
use shashki_search::tablebase::Tablebases;
use shashki_search::{Algorithm, Engine, Evaluator, Search, SearchConfig, SearchLimits};
use std::sync::Arc;
use std::time::Duration;

/// `mcts[:options]`.
pub(crate) const KIND: Kind = Kind {
    prefix: "mcts",
    syntax: "mcts:...",
    example: "mcts:sims=8,gumbel,rollouts=2",
    takes_path: false,
    options: &joined::<8, 1, 9>(SEARCH_OPTIONS, ["rollouts"]),
    parse,
};

/// The options of an MCTS search, read by [`search_option`] for every
/// MCTS kind (`mcts:` over playouts, `net:` over a network).
pub(crate) const SEARCH_OPTIONS: [&str; 8] = [
    "sims",
    "movetime",
    "threads",
    "gumbel",
    "puct",
    "leaves",
    "cache",
    "evaluate_forced",
];

fn parse(rest: Option<&str>) -> Result<PlayerKind, String> {
    let mut search = MctsSettings::default();
    let mut rollouts = 1;
    for (key, value) in options(rest.unwrap_or(""))? {
        if key == "rollouts" {
            let v = value.ok_or("rollouts needs a number")?;
            rollouts = number(key, v)?;
        } else if !search_option(&mut search, key, value)? {
            return Err(super::unknown_option("mcts", key, KIND.options));
        }
    }
    Ok(PlayerKind::Mcts { search, rollouts })
}

/// The standalone engine: MCTS over `rollouts` random playouts per leaf,
/// one leaf per call unless `leaves` says otherwise; a cache only when the
/// spec asks for one.
pub(crate) fn engine(
    search: &MctsSettings,
    rollouts: u32,
    setup: &EngineSetup,
) -> Result<Box<dyn Engine>, String> {
    let engine = MctsEngine::new(
        RolloutEvaluator::new(rollouts, setup.seed),
        engine_config(search, 1),
        setup.seed,
        "mcts (random rollouts)",
    )
    .map_err(|e| e.to_string())?
    .with_threads(search_threads(search))
    .with_tablebases(setup.tablebases.clone());
    Ok(match search.cache_entries {
        Some(entries) => Box::new(engine.with_cache(entries)),
        None => Box::new(engine),
    })
}

/// The search configuration of a standalone engine: its search's default
/// simulations (the command's limits decide), `default_leaves` per call
/// unless the spec says.
pub(crate) fn engine_config(search: &MctsSettings, default_leaves: u32) -> SearchConfig {
    let mut config = SearchConfig::with_algorithm(search.algorithm);
    config.leaves_per_batch = search.leaves_per_batch.unwrap_or(default_leaves).max(1);
    config.pass_forced_moves = !search.evaluate_forced;
    config
}

/// Search threads of a timed player or a standalone engine: as the spec
/// says, else one per core.
pub(crate) fn search_threads(search: &MctsSettings) -> usize {
    search
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Applies an MCTS search option; false if the key is not one.
pub(crate) fn search_option(
    search: &mut MctsSettings,
    key: &str,
    value: Option<&str>,
) -> Result<bool, String> {
    match (key, value) {
        ("sims", Some(v)) => search.simulations = Some(number::<u32>(key, v)?.max(1)),
        ("leaves", Some(v)) => search.leaves_per_batch = Some(number::<u32>(key, v)?.max(1)),
        ("movetime", Some(v)) => {
            search.movetime = Some(Duration::from_millis(number::<u64>(key, v)?.max(1)))
        }
        ("threads", Some(v)) => search.threads = Some(number::<usize>(key, v)?.clamp(1, 256)),
        ("cache", Some(v)) => search.cache_entries = Some(number(key, v)?),
        ("evaluate_forced", None) => search.evaluate_forced = true,
        ("gumbel", None) => search.algorithm = Algorithm::Gumbel,
        ("puct", None) => search.algorithm = Algorithm::Puct,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Makes an MCTS player over random playouts per game.
pub(crate) struct Maker {
    pub(crate) search: MctsSettings,
    pub(crate) rollouts: u32,
}

impl PlayerMaker for Maker {
    fn create(&self, setup: &GameSetup<'_>) -> Result<Box<dyn Player>, PlayerFailure> {
        let evaluator = RolloutEvaluator::new(self.rollouts, setup.seed);
        if is_timed(&self.search, setup.clocked) {
            return timed_player(evaluator, &self.search, 1, setup, "mcts");
        }
        Ok(Box::new(MctsPlayer::new(
            self.search,
            EvalSource::Own(evaluator),
            setup,
        )))
    }

    fn is_timed(&self) -> bool {
        self.search.movetime.is_some()
    }
}

/// True if a player with `search` thinks by time in a game (`clocked`: on
/// a clock).
pub(crate) fn is_timed(search: &MctsSettings, clocked: bool) -> bool {
    search.movetime.is_some() || clocked
}

/// The timed form of an MCTS or network player: an [`MctsEngine`] on its
/// own threads, `default_leaves` per call unless the spec says (a network
/// wants more than one to keep it busy).
pub(crate) fn timed_player<E: Evaluator + 'static>(
    evaluator: E,
    search: &MctsSettings,
    default_leaves: u32,
    setup: &GameSetup<'_>,
    label: &str,
) -> Result<Box<dyn Player>, PlayerFailure> {
    let mut config = play_config(search);
    config.leaves_per_batch = search.leaves_per_batch.unwrap_or(default_leaves).max(1);
    let threads = search_threads(search);
    // The evaluators here answer from the request alone, so a cache
    // (shared by the threads, kept from move to move) changes no answer.
    let engine = MctsEngine::new(evaluator, config, setup.seed, label)
        .map_err(|e| PlayerFailure::Internal(e.to_string()))?
        .with_threads(threads)
        .with_cache(search.cache_entries.unwrap_or(DEFAULT_CACHE_ENTRIES))
        .with_tablebases(setup.tablebases.cloned());
    let limits = SearchLimits {
        movetime: search.movetime,
        ..SearchLimits::default()
    };
    let engine: Box<dyn Engine> = Box::new(engine);
    Ok(Box::new(EnginePlayer::new(engine, limits)))
}

/// The search configuration of a player (not self-play): no root noise,
/// the most visited move.
fn play_config(settings: &MctsSettings) -> SearchConfig {
    let mut config = SearchConfig::with_algorithm(settings.algorithm)
        .with_simulations(settings.player_simulations());
    config.leaves_per_batch = settings.leaves_per_batch.unwrap_or(1).max(1);
    config.root_noise = false;
    config.temperature = 0.0;
    config.pass_forced_moves = !settings.evaluate_forced;
    config
}

/// Where an MCTS player gets its evaluations.
pub(crate) enum EvalSource {
    /// Its own evaluator (random playouts).
    Own(RolloutEvaluator),
    /// A client of the match's batching service, made for each search and
    /// dropped after it, so a game that is not searching (the opponent's
    /// turn) never holds up the others' batches.
    Batched(Arc<BatchingEvaluator<SharedEvaluator>>),
}

/// MCTS (PUCT or Gumbel) at a fixed number of simulations, reusing its tree
/// between moves.
pub struct MctsPlayer {
    config: SearchConfig,
    search: Option<Search>,
    source: EvalSource,
    tablebases: Option<Arc<Tablebases>>,
    rng: ChaCha8Rng,
}

impl MctsPlayer {
    pub(crate) fn new(
        settings: MctsSettings,
        source: EvalSource,
        setup: &GameSetup<'_>,
    ) -> MctsPlayer {
        MctsPlayer {
            config: play_config(&settings),
            search: None,
            source,
            tablebases: setup.tablebases.cloned(),
            rng: ChaCha8Rng::seed_from_u64(setup.seed),
        }
    }

    /// A new search from `game`, probing the tables; tables of other
    /// rules are refused by `set_tablebases` and the search goes without.
    fn new_search(&self, game: &Game) -> Result<Search, shashki_search::SearchError> {
        let mut search = Search::new(game.clone(), self.config.clone())?;
        let _ = search.set_tablebases(self.tablebases.clone());
        Ok(search)
    }
}

impl Player for MctsPlayer {
    fn choose_move(&mut self, game: &Game) -> Result<Move, PlayerFailure> {
        let internal = |e: shashki_search::SearchError| PlayerFailure::Internal(e.to_string());
        let search = match &mut self.search {
            Some(s) => {
                s.sync_to(game);
                s
            }
            None => {
                let search = self.new_search(game).map_err(internal)?;
                self.search.insert(search)
            }
        };
        let result = match &self.source {
            EvalSource::Own(evaluator) => search.run(evaluator, &mut self.rng),
            EvalSource::Batched(service) => {
                let client = service.client();
                let result = search.run(&client, &mut self.rng);
                drop(client);
                result
            }
        };
        Ok(result.map_err(internal)?.best_move)
    }
}
