//! The reference alpha-beta engine: a fixed yardstick for measuring learned
//! nets, not a competitor.
//!
//! Negamax with alpha-beta pruning and iterative deepening; a bounded
//! transposition table keyed by the Zobrist hash plus the draw-rule state;
//! capture quiescence (a position where a capture is due is never a leaf);
//! move ordering by table move, capture size, killers and history; and a
//! hand-written evaluation ([`EvalWeights`]). Every node is judged by the
//! [`Game`] arbiter, so repetitions and the counting draw rules are exact
//! along the searched line. The table, killers and history are cleared at the
//! start of each search, so a fixed-depth search is deterministic.

mod eval;
mod ordering;
mod search;
mod tt;

pub use eval::{EvalWeights, HandEval};
pub use search::{MATE, MATE_BOUND};

use crate::engine::{Engine, Score, SearchReport};
use crate::limits::{Deadlines, SearchLimits, StopHandle};
use ordering::MoveOrderer;
use search::{INFINITY, Searcher, StopRule};
use shashki_rules::{Game, Move};
use std::time::{Duration, Instant};
use tt::TranspositionTable;

/// Deepest nominal depth iterative deepening goes to.
pub const MAX_DEPTH: u32 = 64;

/// Settings of the alpha-beta engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbConfig {
    /// Size of the transposition table in MiB.
    pub tt_megabytes: usize,
    /// Depth searched when the limits set neither depth, nodes nor time.
    pub default_depth: u32,
    /// Evaluation weights.
    pub weights: EvalWeights,
}

impl Default for AbConfig {
    fn default() -> Self {
        AbConfig {
            tt_megabytes: 16,
            default_depth: 8,
            weights: EvalWeights::default(),
        }
    }
}

/// The result of an alpha-beta search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbResult {
    /// The move to play; `None` only when there is no legal move.
    pub best_move: Option<Move>,
    /// Score from the side to move's view: a man is 100; `MATE - n` is a win
    /// in `n` plies, `-(MATE - n)` a loss in `n` plies, 0 a draw.
    pub score: i32,
    /// Principal variation, best move first.
    pub pv: Vec<Move>,
    /// The deepest completed iteration.
    pub depth: u32,
    /// Nodes visited (all iterations).
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
}

impl AbResult {
    /// The score as a [`Score`]: `Mate(plies)` for forced game ends,
    /// `Centi` otherwise.
    pub fn score_kind(&self) -> Score {
        if self.score > MATE_BOUND {
            Score::Mate(MATE - self.score)
        } else if self.score < -MATE_BOUND {
            Score::Mate(-(MATE + self.score))
        } else {
            Score::Centi(self.score)
        }
    }

    /// The same result as an engine-neutral [`SearchReport`].
    pub fn to_report(&self) -> SearchReport {
        SearchReport {
            best_move: self.best_move,
            score: self.score_kind(),
            depth: self.depth,
            nodes: self.nodes,
            elapsed: self.elapsed,
            pv: self.pv.clone(),
        }
    }
}

/// The alpha-beta engine. Holds its tables between searches (to reuse the
/// memory), but clears them at the start of each.
pub struct AlphaBeta {
    config: AbConfig,
    eval: HandEval,
    tt: TranspositionTable,
    orderer: MoveOrderer,
    stop: StopHandle,
}

impl Default for AlphaBeta {
    fn default() -> Self {
        AlphaBeta::new(AbConfig::default())
    }
}

impl AlphaBeta {
    /// An engine with these settings.
    pub fn new(config: AbConfig) -> AlphaBeta {
        AlphaBeta {
            eval: HandEval::new(&config.weights),
            tt: TranspositionTable::new(config.tt_megabytes),
            orderer: MoveOrderer::new(),
            stop: StopHandle::new(),
            config,
        }
    }

    /// The settings.
    pub fn config(&self) -> &AbConfig {
        &self.config
    }

    /// The static evaluation of the game's current position (side to move's view).
    pub fn evaluate(&self, game: &Game) -> i32 {
        self.eval.evaluate(game.position())
    }

    /// Searches the current position of `game` within `limits`.
    pub fn search(&mut self, game: &Game, limits: &SearchLimits) -> AbResult {
        self.search_with_progress(game, limits, &mut |_| {})
    }

    /// Like [`AlphaBeta::search`], calling `progress` after each completed
    /// depth.
    pub fn search_with_progress(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        progress: &mut dyn FnMut(&AbResult),
    ) -> AbResult {
        let start = Instant::now();
        self.tt.clear();
        self.orderer.clear();
        let max_depth = match limits.depth {
            Some(depth) if !limits.infinite => depth,
            None if limits.is_unlimited() => self.config.default_depth,
            _ => MAX_DEPTH,
        }
        .clamp(1, MAX_DEPTH);
        let mut result = AbResult {
            best_move: None,
            score: -MATE,
            pv: Vec::new(),
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
        };
        if game.legal_moves().is_empty() {
            result.elapsed = start.elapsed();
            return result;
        }
        let deadlines = Deadlines::new(limits, game.side_to_move(), start, None);
        let budget = limits.time_budget(game.side_to_move());
        // A forced move under a time limit: one iteration for the score, then answer.
        let max_depth = if budget.is_some() && game.legal_moves().len() == 1 {
            1
        } else {
            max_depth
        };
        let stop_rule = StopRule {
            nodes: limits.nodes.filter(|_| !limits.infinite),
            deadline: budget.map(|b| start + b.hard),
            stop: Some(self.stop.clone()),
        };
        let mut searcher = Searcher::new(
            game.clone(),
            &mut self.tt,
            &mut self.orderer,
            &self.eval,
            stop_rule,
        );
        for depth in 1..=max_depth {
            // The first iteration always completes, so a move is always found.
            searcher.enforce_limits = depth > 1;
            let score = searcher.negamax(depth as i32, -INFINITY, INFINITY, 0);
            if searcher.stopped {
                break;
            }
            let pv = searcher.principal_variation(depth as usize);
            result = AbResult {
                best_move: pv.first().copied(),
                score,
                pv,
                depth,
                nodes: searcher.nodes,
                elapsed: start.elapsed(),
            };
            progress(&result);
            // A game end within the nominal depth is proven: a deeper search
            // cannot find a shorter one.
            if score.abs() > MATE_BOUND && (MATE - score.abs()) as u32 <= depth {
                break;
            }
            // Under a clock, an iteration takes several times the previous
            // one: do not start one that would likely overrun the plan.
            if deadlines.is_flexible()
                && let Some(b) = budget
                && start.elapsed() >= b.soft / 2
            {
                break;
            }
        }
        result.nodes = searcher.nodes;
        result.elapsed = start.elapsed();
        result
    }
}

impl Engine for AlphaBeta {
    fn description(&self) -> String {
        "alpha-beta".to_string()
    }

    fn new_game(&mut self) {
        self.tt.clear();
        self.orderer.clear();
    }

    fn stop_handle(&self) -> Option<StopHandle> {
        Some(self.stop.clone())
    }

    fn go(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport {
        self.search_with_progress(game, limits, &mut |r| progress(&r.to_report()))
            .to_report()
    }
}
