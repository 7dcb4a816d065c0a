//! Players: the [`Player`] trait the game runner drives, the built-in
//! players (random, alpha-beta with the hand evaluation or an NNUE network,
//! MCTS over playouts or a network), and
//! [`PlayerFactory`], which holds what the games of one match share (the
//! network behind a batching service) and makes one fresh player per game.

use crate::external::ExternalPlayer;
use crate::spec::{MctsSettings, PlayerKind, PlayerSpec};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use shashki_nnue::{NnueEval, QuantNet};
use shashki_rules::{Game, Move};
use shashki_search::alphabeta::StaticEval;
use shashki_search::batching::BatchingEvaluator;
use shashki_search::cache::DEFAULT_CACHE_ENTRIES;
use shashki_search::evaluators::RolloutEvaluator;
use shashki_search::mcts_engine::MctsEngine;
use shashki_search::{
    AbConfig, AlphaBeta, Engine, EvalRequest, Evaluation, Evaluator, Search, SearchConfig,
    SearchLimits,
};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// Why a player did not produce a legal move: the game is lost by it.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PlayerFailure {
    /// The move given is not legal (or not a move).
    #[error("illegal move {text:?}: {reason}")]
    IllegalMove {
        /// What the player sent.
        text: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The engine stopped (exited, closed its output, or could not start).
    #[error("engine crashed: {0}")]
    Crashed(String),
    /// No move within the time allowed.
    #[error("no move within {} ms", .0.as_millis())]
    TimedOut(Duration),
    /// The side's game clock ran out.
    #[error("{0}")]
    TimeForfeit(String),
    /// The engine broke the protocol (e.g. answered `error`).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The player's own search failed.
    #[error("search failed: {0}")]
    Internal(String),
}

/// Something that chooses moves in games. One instance plays one game.
pub trait Player: Send {
    /// The move to play in the current position of `game` (which is not
    /// over). An error forfeits the game.
    fn choose_move(&mut self, game: &Game) -> Result<Move, PlayerFailure>;

    /// The move to play under a game clock: `clock` holds both sides'
    /// times and increments (as `go wtime/btime/winc/binc` sends them), and
    /// the side has lost on time after `allowance`. Players that cannot
    /// manage time ignore the clock.
    fn choose_move_on_clock(
        &mut self,
        game: &Game,
        clock: &SearchLimits,
        allowance: Duration,
    ) -> Result<Move, PlayerFailure> {
        let _ = (clock, allowance);
        self.choose_move(game)
    }
}

/// A player's own limits under a game clock: the clock replaces its time
/// per move; its depth and node caps stay.
pub fn limits_on_clock(own: &SearchLimits, clock: &SearchLimits) -> SearchLimits {
    SearchLimits {
        depth: own.depth,
        nodes: own.nodes,
        ..*clock
    }
}

/// Any [`Engine`] at fixed limits (or on the game clock): the alpha-beta
/// players and the timed MCTS and network players.
pub struct EnginePlayer {
    engine: Box<dyn Engine>,
    limits: SearchLimits,
}

impl EnginePlayer {
    /// `engine` searching each move within `limits`.
    pub fn new(engine: Box<dyn Engine>, limits: SearchLimits) -> EnginePlayer {
        EnginePlayer { engine, limits }
    }

    fn play(&mut self, game: &Game, limits: &SearchLimits) -> Result<Move, PlayerFailure> {
        self.engine
            .go(game, limits, &mut |_| {})
            .best_move
            .ok_or_else(|| PlayerFailure::Internal("the engine found no move".into()))
    }
}

impl Player for EnginePlayer {
    fn choose_move(&mut self, game: &Game) -> Result<Move, PlayerFailure> {
        let limits = self.limits;
        self.play(game, &limits)
    }

    fn choose_move_on_clock(
        &mut self,
        game: &Game,
        clock: &SearchLimits,
        _allowance: Duration,
    ) -> Result<Move, PlayerFailure> {
        let limits = limits_on_clock(&self.limits, clock);
        self.play(game, &limits)
    }
}

/// Uniform random legal moves.
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    /// A random player with its own seeded stream.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn choose_move(&mut self, game: &Game) -> Result<Move, PlayerFailure> {
        let moves = game.legal_moves();
        moves
            .as_slice()
            .choose(&mut self.rng)
            .copied()
            .ok_or_else(|| PlayerFailure::Internal("no legal move".into()))
    }
}

/// A small table: many games run at once (one thread each).
const PLAYER_TT_MEGABYTES: usize = 8;

impl EnginePlayer {
    /// The alpha-beta engine at `limits` on `threads` Lazy SMP threads,
    /// with the hand evaluation or `eval` (an NNUE network's).
    pub fn alpha_beta(
        limits: SearchLimits,
        threads: usize,
        eval: Option<Box<dyn StaticEval>>,
    ) -> EnginePlayer {
        let config = AbConfig {
            tt_megabytes: PLAYER_TT_MEGABYTES,
            threads,
            ..AbConfig::default()
        };
        let engine = match eval {
            Some(eval) => AlphaBeta::with_eval(config, eval),
            None => AlphaBeta::new(config),
        };
        EnginePlayer::new(Box::new(engine), limits)
    }
}

/// An [`Evaluator`] shared behind an `Arc` (so one network serves every
/// game of a match through the batching service).
#[derive(Clone)]
pub struct SharedEvaluator(pub Arc<dyn Evaluator>);

impl Evaluator for SharedEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        self.0.evaluate(batch, out)
    }
    fn preferred_batch(&self) -> usize {
        self.0.preferred_batch()
    }
}

/// Where an MCTS player gets its evaluations.
enum EvalSource {
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
    rng: ChaCha8Rng,
}

impl MctsPlayer {
    fn new(settings: MctsSettings, source: EvalSource, seed: u64) -> MctsPlayer {
        MctsPlayer {
            config: play_config(&settings),
            search: None,
            source,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
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
            None => self
                .search
                .insert(Search::new(game.clone(), self.config.clone()).map_err(internal)?),
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

/// Why a player could not be prepared for a match (a bad checkpoint, an
/// unavailable device): unlike a [`PlayerFailure`] this stops the match.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("player {name}: {reason}")]
pub struct PlayerError {
    /// The player.
    pub name: String,
    /// What went wrong.
    pub reason: String,
}

/// Makes a fresh player for each game of a match; holds what the games
/// share (a network behind one batching service).
pub struct PlayerFactory {
    spec: PlayerSpec,
    service: Option<Arc<BatchingEvaluator<SharedEvaluator>>>,
    /// The network itself, for timed players (which batch within their own
    /// search on several threads).
    network: Option<SharedEvaluator>,
    /// The quantized network of an NNUE player, loaded once.
    nnue: Option<Arc<QuantNet>>,
}

impl fmt::Debug for PlayerFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlayerFactory")
            .field("spec", &self.spec)
            .finish()
    }
}

impl PlayerFactory {
    /// Prepares `spec`: a network player loads its network here, once.
    pub fn new(spec: PlayerSpec) -> Result<PlayerFactory, PlayerError> {
        let network = match &spec.kind {
            PlayerKind::Net { path, device, .. } => {
                let evaluator =
                    crate::net::load_evaluator(path, device).map_err(|reason| PlayerError {
                        name: spec.name.clone(),
                        reason,
                    })?;
                Some(SharedEvaluator(evaluator))
            }
            PlayerKind::External {
                command,
                limits,
                timeout,
            } => {
                // One handshake before any game: an engine that does not
                // start or answer stops the match here, before anything is
                // played or rated (a crash later forfeits one game only).
                ExternalPlayer::start(command, *limits, *timeout).map_err(|failure| {
                    PlayerError {
                        name: spec.name.clone(),
                        reason: format!("the engine failed its handshake: {failure}"),
                    }
                })?;
                None
            }
            _ => None,
        };
        let batch = match &spec.kind {
            PlayerKind::Net { batch, .. } => *batch,
            _ => 1,
        };
        let nnue = match &spec.kind {
            PlayerKind::Nnue { path, .. } => Some(Arc::new(
                shashki_nnue::load_engine_net(path).map_err(|e| PlayerError {
                    name: spec.name.clone(),
                    reason: e.to_string(),
                })?,
            )),
            _ => None,
        };
        Ok(PlayerFactory {
            service: network
                .clone()
                .map(|n| Arc::new(BatchingEvaluator::new(n, Some(batch)))),
            network,
            nnue,
            spec,
        })
    }

    /// A network player from an evaluator already in memory (what the
    /// training loop uses to gate its latest network).
    pub fn with_evaluator(
        name: &str,
        evaluator: Arc<dyn Evaluator>,
        search: MctsSettings,
        batch: usize,
    ) -> PlayerFactory {
        PlayerFactory {
            spec: PlayerSpec {
                name: name.to_string(),
                kind: PlayerKind::Net {
                    path: name.into(),
                    search,
                    device: "memory".into(),
                    batch,
                },
            },
            service: Some(Arc::new(BatchingEvaluator::new(
                SharedEvaluator(Arc::clone(&evaluator)),
                Some(batch.max(1)),
            ))),
            network: Some(SharedEvaluator(evaluator)),
            nnue: None,
        }
    }

    /// Parses and prepares a spec string.
    pub fn from_text(text: &str) -> Result<PlayerFactory, PlayerError> {
        let spec: PlayerSpec = text
            .parse()
            .map_err(|e: crate::spec::SpecError| PlayerError {
                name: text.trim().to_string(),
                reason: e.reason,
            })?;
        PlayerFactory::new(spec)
    }

    /// The player's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The spec.
    pub fn spec(&self) -> &PlayerSpec {
        &self.spec
    }

    /// Batching statistics of a network player (batches, positions).
    pub fn batch_stats(&self) -> Option<shashki_search::batching::BatchStats> {
        self.service.as_ref().map(|s| s.stats())
    }

    /// True if the player thinks for a time per move (`movetime`) rather
    /// than a fixed amount of work.
    pub fn is_timed(&self) -> bool {
        match &self.spec.kind {
            PlayerKind::Random => false,
            PlayerKind::AlphaBeta { limits, .. }
            | PlayerKind::Nnue { limits, .. }
            | PlayerKind::External { limits, .. } => limits.movetime.is_some(),
            PlayerKind::Mcts { search, .. } | PlayerKind::Net { search, .. } => {
                search.movetime.is_some()
            }
        }
    }

    /// A fresh player for one game, seeded with `seed`. An external engine
    /// that cannot start fails here, which forfeits that game only.
    pub fn create(&self, seed: u64) -> Result<Box<dyn Player>, PlayerFailure> {
        self.create_for_match(seed, false)
    }

    /// Like [`PlayerFactory::create`], for a game on a clock when `clocked`:
    /// MCTS and network players then search by time on every core.
    pub fn create_for_match(
        &self,
        seed: u64,
        clocked: bool,
    ) -> Result<Box<dyn Player>, PlayerFailure> {
        if let Some(player) = self.timed_mcts_player(seed, clocked)? {
            return Ok(player);
        }
        Ok(match &self.spec.kind {
            PlayerKind::Random => Box::new(RandomPlayer::new(seed)),
            PlayerKind::AlphaBeta { limits, threads } => {
                Box::new(EnginePlayer::alpha_beta(*limits, *threads, None))
            }
            PlayerKind::Nnue {
                limits, threads, ..
            } => {
                let net = self
                    .nnue
                    .as_ref()
                    .ok_or_else(|| PlayerFailure::Internal("NNUE network not loaded".into()))?;
                let eval = NnueEval::new(Arc::clone(net), self.spec.name.clone());
                Box::new(EnginePlayer::alpha_beta(
                    *limits,
                    *threads,
                    Some(Box::new(eval)),
                ))
            }
            PlayerKind::Mcts { search, rollouts } => Box::new(MctsPlayer::new(
                *search,
                EvalSource::Own(RolloutEvaluator::new(*rollouts, seed)),
                seed,
            )),
            PlayerKind::Net { search, .. } => {
                let service = self
                    .service
                    .as_ref()
                    .ok_or_else(|| PlayerFailure::Internal("network not loaded".into()))?;
                Box::new(MctsPlayer::new(
                    *search,
                    EvalSource::Batched(Arc::clone(service)),
                    seed,
                ))
            }
            PlayerKind::External {
                command,
                limits,
                timeout,
            } => Box::new(ExternalPlayer::start(command, *limits, *timeout)?),
        })
    }
}

impl PlayerFactory {
    /// The timed form of an MCTS or network player (`movetime` in its spec,
    /// or a clocked game): an [`MctsEngine`] on its own threads.
    fn timed_mcts_player(
        &self,
        seed: u64,
        clocked: bool,
    ) -> Result<Option<Box<dyn Player>>, PlayerFailure> {
        let (search, is_net) = match &self.spec.kind {
            PlayerKind::Mcts { search, .. } => (search, false),
            PlayerKind::Net { search, .. } => (search, true),
            _ => return Ok(None),
        };
        if search.movetime.is_none() && !clocked {
            return Ok(None);
        }
        let mut config = play_config(search);
        if is_net && search.leaves_per_batch <= 1 {
            // One leaf per call would leave the network mostly idle.
            config.leaves_per_batch = 16;
        }
        let threads = search
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let internal = |e: shashki_search::SearchError| PlayerFailure::Internal(e.to_string());
        let engine: Box<dyn Engine> = match &self.spec.kind {
            PlayerKind::Mcts { rollouts, .. } => Box::new(
                MctsEngine::new(RolloutEvaluator::new(*rollouts, seed), config, seed, "mcts")
                    .map_err(internal)?
                    .with_threads(threads),
            ),
            _ => {
                let network = self
                    .network
                    .clone()
                    .ok_or_else(|| PlayerFailure::Internal("network not loaded".into()))?;
                Box::new(
                    MctsEngine::new(network, config, seed, "net")
                        .map_err(internal)?
                        .with_threads(threads)
                        .with_cache(DEFAULT_CACHE_ENTRIES),
                )
            }
        };
        let limits = SearchLimits {
            movetime: search.movetime,
            ..SearchLimits::default()
        };
        Ok(Some(Box::new(EnginePlayer::new(engine, limits))))
    }
}

/// The search configuration of a player (not self-play): no root noise,
/// the most visited move.
fn play_config(settings: &MctsSettings) -> SearchConfig {
    let mut config =
        SearchConfig::with_algorithm(settings.algorithm).with_simulations(settings.simulations);
    config.leaves_per_batch = settings.leaves_per_batch.max(1);
    config.root_noise = false;
    config.temperature = 0.0;
    config
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_rules::Position;

    fn play_out(white: &mut dyn Player, black: &mut dyn Player, max_plies: usize) -> Game {
        let mut game = Game::new(Position::startpos());
        while !game.is_over() && game.ply() < max_plies {
            let mover: &mut dyn Player = if game.ply().is_multiple_of(2) {
                &mut *white
            } else {
                &mut *black
            };
            let mv = mover.choose_move(&game).unwrap();
            assert!(game.legal_moves().iter().any(|m| m.key() == mv.key()));
            game.play(&mv);
        }
        game
    }

    #[test]
    fn built_in_players_play_legal_moves_reproducibly() {
        let specs = [
            "random",
            "ab:depth=2",
            "mcts:sims=16",
            "mcts:sims=16,gumbel",
        ];
        for spec in specs {
            let f = PlayerFactory::from_text(spec).unwrap();
            let r = PlayerFactory::from_text("random").unwrap();
            let a = play_out(&mut *f.create(1).unwrap(), &mut *r.create(2).unwrap(), 40);
            let b = play_out(&mut *f.create(1).unwrap(), &mut *r.create(2).unwrap(), 40);
            assert_eq!(a.moves(), b.moves(), "{spec} is reproducible from its seed");
        }
    }

    #[test]
    fn in_memory_evaluators_play_through_the_batching_service() {
        let eval: Arc<dyn Evaluator> =
            Arc::new(shashki_search::evaluators::UniformEvaluator::draw());
        let f = PlayerFactory::with_evaluator(
            "uniform",
            eval,
            MctsSettings {
                simulations: 8,
                ..MctsSettings::default()
            },
            4,
        );
        let r = PlayerFactory::from_text("random").unwrap();
        let g = play_out(&mut *f.create(3).unwrap(), &mut *r.create(4).unwrap(), 20);
        assert_eq!(g.ply(), 20);
        assert!(f.batch_stats().unwrap().positions > 0);
    }
}
