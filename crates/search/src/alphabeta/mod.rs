//! The alpha-beta engine: the fixed yardstick for measuring learned nets
//! (with the hand-written evaluation) and, with a network behind
//! [`StaticEval`], an engine family of its own.
//!
//! Negamax with iterative deepening and aspiration windows; principal
//! variation search; the selectivity of draughts engines, each technique a
//! switch ([`Selectivity`]: fail-high pruning, late move reductions, threat
//! search at the horizon, single-reply extension); a bounded,
//! lock-free transposition table keyed by the Zobrist hash plus the
//! draw-rule state; capture quiescence (a position where a capture is due is
//! never a leaf); move ordering by table move, capture size, killers and
//! history; Lazy SMP (helper threads search the same root and share the
//! table) with simplified ABDADA (a node defers the later moves another
//! thread is inside). Every node is judged by the [`Game`] arbiter, so repetitions and
//! the counting draw rules are exact along the searched line. Killers and
//! history are cleared at the start of each search. A timed search keeps
//! the table the earlier moves of the game filled (aged: this search's
//! results replace theirs), as Stockfish does; a fixed-depth or fixed-node
//! search starts from an empty one, so on one thread it is deterministic
//! and reproducible move by move.

mod busy;
mod eval;
mod iteration_clock;
mod ordering;
mod search;
mod selectivity;
mod static_eval;
mod tt;

pub use eval::{EvalWeights, HandEval};
pub use iteration_clock::TimeUse;
pub use search::{EVAL_LIMIT, MATE, MATE_BOUND, TB_BOUND, TB_WIN};
pub use selectivity::{Selectivity, TECHNIQUES};
pub use static_eval::StaticEval;

use crate::engine::{Engine, Score, SearchReport};
use crate::limits::{SearchLimits, StopHandle};
use crate::tablebase::{self, Tablebases};
use busy::BusyMoves;
use iteration_clock::IterationClock;
use ordering::MoveOrderer;
use search::{Completed, INFINITY, Searcher, Shared, tablebase_score};
use shashki_rules::{Game, Move};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
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
    /// Evaluation weights (of the hand evaluation).
    pub weights: EvalWeights,
    /// Search threads (Lazy SMP); 1 keeps fixed-depth searches deterministic.
    pub threads: usize,
    /// Which moves are searched less (or more) deeply than the nominal
    /// depth; the default is the set measured to win (docs/RESULTS.md).
    pub selectivity: Selectivity,
    /// How a clock's planned time is spent (`Plain` until the adaptive
    /// rule measures as a gain, docs/RESULTS.md).
    pub time_use: TimeUse,
}

impl Default for AbConfig {
    fn default() -> Self {
        AbConfig {
            tt_megabytes: 16,
            default_depth: 8,
            weights: EvalWeights::default(),
            threads: 1,
            selectivity: Selectivity::default(),
            time_use: TimeUse::default(),
        }
    }
}

/// Half-width of the first aspiration window around the previous score.
const ASPIRATION_WINDOW: i32 = 30;
/// Past this half-width the window opens fully on the failing side.
const ASPIRATION_GIVE_UP: i32 = 1_000;
/// Depth from which iterations start with an aspiration window.
const ASPIRATION_DEPTH: u32 = 4;

/// The result of an alpha-beta search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbResult {
    /// The move to play; `None` only when there is no legal move.
    pub best_move: Option<Move>,
    /// Score from the side to move's view: a man is 100; `MATE - n` is a win
    /// in `n` plies, `-(MATE - n)` a loss in `n` plies, 0 a draw;
    /// `TB_WIN - n` a tablebase win whose conversion (capture, promotion or
    /// end of the game) comes in `n` plies, `-(TB_WIN - n)` such a loss.
    pub score: i32,
    /// Principal variation, best move first.
    pub pv: Vec<Move>,
    /// The deepest completed iteration.
    pub depth: u32,
    /// Nodes visited (all iterations).
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
    /// The root is in the tablebases: `score` is their verdict (a draw
    /// reports as `tb draw`).
    pub tablebase_root: bool,
}

impl AbResult {
    /// The score as a [`Score`]: `Mate(plies)` for forced game ends the
    /// search saw, `TbWin`/`TbLoss` for results of the tablebases, `Centi`
    /// otherwise.
    pub fn score_kind(&self) -> Score {
        if self.score > MATE_BOUND {
            Score::Mate(MATE - self.score)
        } else if self.score < -MATE_BOUND {
            Score::Mate(-(MATE + self.score))
        } else if self.score > TB_BOUND {
            Score::TbWin((TB_WIN - self.score) as u32)
        } else if self.score < -TB_BOUND {
            Score::TbLoss((TB_WIN + self.score) as u32)
        } else if self.tablebase_root {
            Score::TbDraw
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

/// The alpha-beta engine. Holds its tables between searches: the
/// transposition table's entries carry over to the next timed search of
/// the game (see the module docs); [`Engine::new_game`] empties it.
pub struct AlphaBeta {
    config: AbConfig,
    eval: Box<dyn StaticEval>,
    tt: TranspositionTable,
    orderer: MoveOrderer,
    stop: StopHandle,
    tablebases: Option<Arc<Tablebases>>,
}

impl Default for AlphaBeta {
    fn default() -> Self {
        AlphaBeta::new(AbConfig::default())
    }
}

impl AlphaBeta {
    /// An engine with these settings and the hand evaluation.
    pub fn new(config: AbConfig) -> AlphaBeta {
        let eval = Box::new(HandEval::new(&config.weights));
        AlphaBeta::with_eval(config, eval)
    }

    /// An engine with these settings and another evaluation (a network).
    pub fn with_eval(config: AbConfig, eval: Box<dyn StaticEval>) -> AlphaBeta {
        AlphaBeta {
            eval,
            tt: TranspositionTable::new(config.tt_megabytes),
            orderer: MoveOrderer::new(),
            stop: StopHandle::new(),
            config,
            tablebases: None,
        }
    }

    /// Probes `tablebases` below the root (exact scores, `tb win|loss N`)
    /// and reports a root in them with the tables' own verdict; `None`
    /// switches that off. Games under other draw rules than the tables'
    /// are searched without them.
    pub fn with_tablebases(mut self, tablebases: Option<Arc<Tablebases>>) -> AlphaBeta {
        self.tablebases = tablebases;
        self
    }

    /// The settings.
    pub fn config(&self) -> &AbConfig {
        &self.config
    }

    /// The static evaluation of the game's current position (side to move's view).
    pub fn evaluate(&mut self, game: &Game) -> i32 {
        self.eval.reset(game.position());
        self.eval.evaluate(game.position())
    }

    /// Searches the current position of `game` within `limits`.
    pub fn search(&mut self, game: &Game, limits: &SearchLimits) -> AbResult {
        self.search_with_progress(game, limits, &mut |_| {})
    }

    /// Like [`AlphaBeta::search`], calling `progress` after each completed
    /// depth.
    // Long: iterative deepening with its aspiration windows and time checks,
    // the driver of the hot loop.
    pub fn search_with_progress(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        progress: &mut dyn FnMut(&AbResult),
    ) -> AbResult {
        let start = Instant::now();
        let budget = limits.time_budget(game.side_to_move());
        if budget.is_some() || limits.infinite {
            self.tt.age();
        } else {
            self.tt.forget();
        }
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
            tablebase_root: false,
        };
        if game.legal_moves().is_empty() {
            result.elapsed = start.elapsed();
            return result;
        }
        // A forced move under a time limit: one iteration for the score, then answer.
        let max_depth = if budget.is_some() && game.legal_moves().len() == 1 {
            1
        } else {
            max_depth
        };
        // Under a clock an iteration takes several times the previous one:
        // none is started past half the planned time (scaled, see
        // `iteration_clock`).
        let soft_stop = budget.filter(|b| b.soft != b.hard).map(|b| b.soft / 2);
        let clock = IterationClock::new(self.config.time_use, soft_stop);
        let stop = AtomicBool::new(false);
        let nodes = AtomicU64::new(0);
        let helper_best = Mutex::new(None);
        let busy = (self.config.threads > 1).then(BusyMoves::default);
        let shared = Shared {
            tt: &self.tt,
            stop: &stop,
            nodes: &nodes,
            node_limit: limits.nodes.filter(|_| !limits.infinite),
            deadline: budget.map(|b| start + b.hard),
            external_stop: Some(self.stop.clone()),
            tablebases: self
                .tablebases
                .as_deref()
                .filter(|tb| tb.follows(game.rules())),
            helper_best: &helper_best,
            busy: busy.as_ref(),
        };
        // A root in the tables reports their verdict and DTZ; the search
        // still picks the move (its children are probed).
        let root_score = shared
            .tablebases
            .and_then(|tb| tablebase::probe(tb, game).map(|p| tablebase_score(&p, None, 0)));
        let selectivity = self.config.selectivity;
        let helpers: Vec<Box<dyn StaticEval>> = (1..self.config.threads.max(1))
            .map(|_| self.eval.fork())
            .collect();
        let orderer = &mut self.orderer;
        let eval = &mut *self.eval;
        std::thread::scope(|scope| {
            for (index, mut helper_eval) in helpers.into_iter().enumerate() {
                let shared = &shared;
                let game = game.clone();
                scope.spawn(move || {
                    let mut orderer = MoveOrderer::new();
                    let mut searcher =
                        Searcher::new(game, shared, &mut orderer, &mut *helper_eval, selectivity);
                    search_helper(&mut searcher, max_depth, index + 1, shared.helper_best);
                });
            }
            let mut searcher = Searcher::new(game.clone(), &shared, orderer, eval, selectivity);
            iterate(
                &mut searcher,
                max_depth,
                start,
                clock,
                root_score,
                &mut result,
                progress,
            );
            // The helpers stop at their next check.
            stop.store(true, Ordering::Relaxed);
            searcher.flush_nodes();
        });
        let deepest = helper_best.lock().unwrap_or_else(|e| e.into_inner()).take();
        adopt_deeper(&mut result, deepest, root_score);
        result.nodes = nodes.load(Ordering::Relaxed);
        result.elapsed = start.elapsed();
        if let Some(tb) = shared.tablebases {
            tablebase::extend_line(tb, game, &mut result.pv);
        }
        result
    }
}

/// The main thread's iterative deepening: each completed depth becomes the
/// result and is reported.
fn iterate(
    searcher: &mut Searcher<'_>,
    max_depth: u32,
    start: Instant,
    mut clock: IterationClock,
    root_score: Option<i32>,
    result: &mut AbResult,
    progress: &mut dyn FnMut(&AbResult),
) {
    let mut previous = None;
    for depth in 1..=max_depth {
        // The first iteration always completes, so a move is always found.
        searcher.enforce_limits = depth > 1;
        let score = search_root(searcher, depth, previous);
        if searcher.stopped {
            break;
        }
        previous = Some(score);
        let pv = searcher.principal_variation(depth as usize);
        *result = AbResult {
            best_move: pv.first().copied(),
            // A game end the search saw itself stays a mate score.
            score: match root_score {
                Some(tb) if score.abs() <= MATE_BOUND => tb,
                _ => score,
            },
            pv,
            depth,
            nodes: searcher.total_nodes(),
            elapsed: start.elapsed(),
            tablebase_root: root_score.is_some(),
        };
        progress(result);
        // A game end within the nominal depth is proven: a deeper search
        // cannot find a shorter one.
        if score.abs() > MATE_BOUND && (MATE - score.abs()) as u32 <= depth {
            break;
        }
        clock.completed(result.best_move, score);
        if clock.should_stop(start.elapsed()) {
            break;
        }
    }
}

/// One iteration at the root: an aspiration window around the previous
/// score, widened (doubling) on the side that failed, until the score
/// falls inside it.
fn search_root(searcher: &mut Searcher<'_>, depth: u32, previous: Option<i32>) -> i32 {
    let depth_plies = depth as i32;
    let Some(previous) = previous.filter(|s| depth >= ASPIRATION_DEPTH && s.abs() < TB_BOUND)
    else {
        return searcher.negamax(depth_plies, -INFINITY, INFINITY, 0);
    };
    let mut delta = ASPIRATION_WINDOW;
    let (mut alpha, mut beta) = (previous - delta, previous + delta);
    loop {
        let score = searcher.negamax(depth_plies, alpha, beta, 0);
        if searcher.stopped {
            return score;
        }
        delta *= 2;
        if score <= alpha {
            alpha = if delta > ASPIRATION_GIVE_UP {
                -INFINITY
            } else {
                score - delta
            };
        } else if score >= beta {
            beta = if delta > ASPIRATION_GIVE_UP {
                INFINITY
            } else {
                score + delta
            };
        } else {
            return score;
        }
    }
}

/// Takes a helper's completed iteration when it is deeper than the main
/// thread's: the deepest finished search decides the move (as Stockfish's
/// thread voting does in its simplest form), so a helper one ply ahead is
/// not wasted when time runs out mid-iteration.
fn adopt_deeper(result: &mut AbResult, helper: Option<Completed>, root_score: Option<i32>) {
    let Some(helper) = helper.filter(|h| h.depth > result.depth && !h.pv.is_empty()) else {
        return;
    };
    result.best_move = Some(helper.pv[0]);
    result.score = match root_score {
        Some(tb) if helper.score.abs() <= MATE_BOUND => tb,
        _ => helper.score,
    };
    result.pv = helper.pv;
    result.depth = helper.depth;
}

/// A Lazy SMP helper: the same iterative deepening (odd helpers one ply
/// ahead, so the threads spread over depths), sharing the table and its
/// deepest completed iteration (`best`, see [`adopt_deeper`]); it ends when
/// the main thread sets the stop flag.
fn search_helper(
    searcher: &mut Searcher<'_>,
    max_depth: u32,
    index: usize,
    best: &Mutex<Option<Completed>>,
) {
    searcher.enforce_limits = true;
    let mut previous = None;
    for depth in (1 + (index % 2) as u32)..=max_depth {
        let score = search_root(searcher, depth, previous);
        if searcher.stopped {
            break;
        }
        previous = Some(score);
        let pv = searcher.principal_variation(depth as usize);
        let mut best = best.lock().unwrap_or_else(|e| e.into_inner());
        if best.as_ref().is_none_or(|b| b.depth < depth) {
            *best = Some(Completed { depth, score, pv });
        }
    }
    searcher.flush_nodes();
}

impl Engine for AlphaBeta {
    fn description(&self) -> String {
        match self.config.threads {
            0 | 1 => format!("alpha-beta ({} evaluation)", self.eval.name()),
            n => format!("alpha-beta ({} evaluation, {n} threads)", self.eval.name()),
        }
    }

    fn new_game(&mut self) {
        self.tt.forget();
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

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_rules::Position;

    fn result_at(depth: u32, mv: Move, score: i32) -> AbResult {
        AbResult {
            best_move: Some(mv),
            score,
            pv: vec![mv],
            depth,
            nodes: 0,
            elapsed: Duration::ZERO,
            tablebase_root: false,
        }
    }

    #[test]
    fn the_deepest_completed_iteration_decides() {
        let moves = Game::new(Position::startpos()).legal_moves();
        let (main_move, helper_move) = (moves[0], moves[1]);
        let helper = |depth| Completed {
            depth,
            score: 40,
            pv: vec![helper_move],
        };
        // A helper one ply deeper: its move, score, line and depth.
        let mut result = result_at(9, main_move, -10);
        adopt_deeper(&mut result, Some(helper(10)), None);
        assert_eq!(result.best_move, Some(helper_move));
        assert_eq!((result.depth, result.score), (10, 40));
        // As deep or shallower, or nothing: the main thread's result stays.
        for other in [Some(helper(9)), Some(helper(8)), None] {
            let mut result = result_at(9, main_move, -10);
            adopt_deeper(&mut result, other, None);
            assert_eq!(result.best_move, Some(main_move));
            assert_eq!((result.depth, result.score), (9, -10));
        }
        // A root in the tables keeps their verdict as the score.
        let mut result = result_at(3, main_move, TB_WIN - 5);
        adopt_deeper(&mut result, Some(helper(4)), Some(TB_WIN - 5));
        assert_eq!(result.score, TB_WIN - 5);
        assert_eq!(result.best_move, Some(helper_move));
    }
}
