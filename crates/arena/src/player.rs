//! Players: the [`Player`] trait the game runner drives, the failures that
//! forfeit a game, [`EnginePlayer`] (any search engine at fixed limits or
//! on the game clock), and [`PlayerMaker`], what each kind of player
//! ([`crate::kinds`]) prepares once per match to make one player per game.

use shashki_rules::{Game, Move};
use shashki_search::batching::BatchStats;
use shashki_search::tablebase::Tablebases;
use shashki_search::{Engine, EvalRequest, Evaluation, Evaluator, SearchLimits, StopHandle};
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

    /// A handle that stops the search under way at once, for a player whose
    /// search can be stopped (an engine's); `None` for the others.
    fn stop_handle(&self) -> Option<StopHandle> {
        None
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
    /// The limits its spec stated, which a game clock keeps as caps: a
    /// kind's default depth (`ab`, `builtin`, `nnue:` without limits) is
    /// what it searches without a clock, not a cap on a clocked game.
    stated: SearchLimits,
}

impl EnginePlayer {
    /// `engine` searching each move within `limits`.
    pub fn new(engine: Box<dyn Engine>, limits: SearchLimits) -> EnginePlayer {
        EnginePlayer::with_default(engine, limits, limits)
    }

    /// `engine` whose spec stated `stated`, searching each move within
    /// `limits` (`stated`, or the kind's default when it stated none)
    /// without a clock and within `stated`'s caps on one.
    pub fn with_default(
        engine: Box<dyn Engine>,
        limits: SearchLimits,
        stated: SearchLimits,
    ) -> EnginePlayer {
        EnginePlayer {
            engine,
            limits,
            stated,
        }
    }

    /// The limits of a move on the game clock `clock`.
    pub fn limits_on_clock(&self, clock: &SearchLimits) -> SearchLimits {
        limits_on_clock(&self.stated, clock)
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
        let limits = self.limits_on_clock(clock);
        self.play(game, &limits)
    }

    fn stop_handle(&self) -> Option<StopHandle> {
        self.engine.stop_handle()
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

/// What a player is made for: one game of a match.
#[derive(Clone, Copy, Debug, Default)]
pub struct GameSetup<'a> {
    /// Seeds the player's randomness in this game.
    pub seed: u64,
    /// The game is on a clock: MCTS and network players then search by
    /// time.
    pub clocked: bool,
    /// The match's endgame tablebases: beside adjudicating, they are probed
    /// in the search of every player whose search can (alpha-beta, NNUE,
    /// MCTS and network players), so a capture into the tables is seen
    /// exactly before the game gets there.
    pub tablebases: Option<&'a Arc<Tablebases>>,
}

/// What the games of one match share for one player (a loaded network
/// behind its batching service, an NNUE net), made once per match by its
/// kind ([`crate::kinds`]); it makes a fresh player for every game.
pub trait PlayerMaker: Send + Sync {
    /// A fresh player for the game `setup` describes.
    fn create(&self, setup: &GameSetup<'_>) -> Result<Box<dyn Player>, PlayerFailure>;

    /// True if the player thinks for a time per move (`movetime`) rather
    /// than a fixed amount of work.
    fn is_timed(&self) -> bool;

    /// Batching statistics of a network player.
    fn batch_stats(&self) -> Option<BatchStats> {
        None
    }
}
