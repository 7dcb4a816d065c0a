//! The recursive negamax search: principal variation search (null windows
//! after the first move), the selectivity of [`Selectivity`] (fail-high
//! pruning and its guards, late move reductions, threat search at the horizon, single-reply
//! extension), capture quiescence, the shared transposition table and the
//! game arbiter at every node.

use super::busy::{self, BusyMoves};
use super::ordering::{MAX_PLY, MoveOrderer, pick_next};
use super::selectivity::Selectivity;
use super::static_eval::StaticEval;
use super::tt::{Bound, Entry, TranspositionTable};
use crate::limits::StopHandle;
use crate::tablebase::{self, Probe, Tablebases, TbWdl};
use shashki_rules::splitmix::splitmix64;
use shashki_rules::{Color, Game, GameResult, Move, MoveList, Outcome, PathMode};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// The score of a won game at the root; a win found `n` plies deep scores
/// `MATE - n`, so shorter wins score higher.
pub const MATE: i32 = 30_000;
/// Scores beyond this (in absolute value) are forced game ends.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Larger than any score.
pub const INFINITY: i32 = 32_000;
/// The score of a tablebase win at the root whose conversion (the next
/// capture, promotion or end of the game) comes at once: a tablebase win at
/// `ply` with distance `d` ([`tablebase::distance`]) scores
/// `TB_WIN - ply - d`. Below every forced game end the search sees itself,
/// above every evaluation.
pub const TB_WIN: i32 = 20_000;
/// Scores beyond this (in absolute value) are tablebase results or forced
/// game ends.
pub const TB_BOUND: i32 = TB_WIN - 1_000;
/// Evaluations are clamped to this, below the tablebase band.
pub const EVAL_LIMIT: i32 = 10_000;

/// The score of a tablebase probe at `ply` (side to move's view).
pub fn tablebase_score(probe: &Probe, last_move: Option<&Move>, ply: usize) -> i32 {
    let win = TB_WIN - ply as i32 - tablebase::distance(probe, last_move) as i32;
    match probe.wdl {
        TbWdl::Win => win,
        TbWdl::Loss => -win,
        TbWdl::Draw => 0,
    }
}

/// The table key of the game's current node: the position hash plus the
/// draw-rule state, since a repeated position or a running draw count can
/// change the value of the same board.
fn node_key(game: &Game) -> u64 {
    let state = game.draw_state();
    let mut key = game.position().hash();
    if state.repetitions > 1 {
        key ^= splitmix64(u64::from(state.repetitions));
    }
    if let Some(plies) = state.plies_to_draw {
        key ^= splitmix64(0x1_0000 + u64::from(plies));
    }
    key
}

/// The exact score of a finished game for the side to move at `ply`.
fn terminal_score(outcome: Outcome, side: Color, ply: usize) -> i32 {
    let winner = match outcome.result {
        GameResult::Draw => return 0,
        GameResult::WhiteWins => Color::White,
        GameResult::BlackWins => Color::Black,
    };
    let win = MATE - ply as i32;
    if winner == side { win } else { -win }
}

/// Mate and tablebase scores are stored relative to the node (distance
/// from it), not to the root, so the same entry is right at any ply.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score > TB_BOUND {
        score + ply as i32
    } else if score < -TB_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// The inverse of [`score_to_tt`].
fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score > TB_BOUND {
        score - ply as i32
    } else if score < -TB_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// What all threads of one search share: the table, the stop flag, the
/// node count and the limits.
pub struct Shared<'a> {
    /// The transposition table.
    pub tt: &'a TranspositionTable,
    /// Set when the search must end (a limit hit, or the main thread done).
    pub stop: &'a AtomicBool,
    /// Nodes flushed by all threads (each adds its count every
    /// [`FLUSH_NODES`] nodes and at the end).
    pub nodes: &'a AtomicU64,
    /// Stop after this many nodes (all threads together).
    pub node_limit: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop when this flag is set (the protocol's `stop`).
    pub external_stop: Option<StopHandle>,
    /// Endgame tables probed below the root (`None`: off).
    pub tablebases: Option<&'a Tablebases>,
    /// The deepest iteration a Lazy SMP helper completed.
    pub helper_best: &'a Mutex<Option<Completed>>,
    /// The moves threads are inside (`None` on one thread).
    pub busy: Option<&'a BusyMoves>,
}

/// A completed iteration of one thread: its depth, score and line.
#[derive(Clone, Debug)]
pub struct Completed {
    /// Nominal depth.
    pub depth: u32,
    /// Score for the side to move at the root.
    pub score: i32,
    /// The principal variation (first move: the thread's choice).
    pub pv: Vec<Move>,
}

/// How often a thread adds its node count to the shared one and reads the clock.
pub const FLUSH_NODES: u64 = 1024;

/// The state of one search thread: the game walked with play/undo, the
/// evaluator told of each move, the node count and the principal variation.
pub struct Searcher<'a> {
    game: Game,
    shared: &'a Shared<'a>,
    orderer: &'a mut MoveOrderer,
    eval: &'a mut dyn StaticEval,
    selectivity: Selectivity,
    /// True inside the reduced search of fail-high pruning: no pruning
    /// below it (as in Scan), so the probe stays cheap and sound.
    probing: bool,
    /// `pv_nodes[ply]`: whether the node on the current path at `ply` is
    /// a PV node (read by its children for [`Selectivity::verify`]).
    pv_nodes: Vec<bool>,
    /// While false (the main thread's first iteration), limits are ignored
    /// so that a move is always found.
    pub enforce_limits: bool,
    /// Set once a limit is hit; the current iteration's result is then void.
    pub stopped: bool,
    /// Nodes this thread visited.
    pub nodes: u64,
    /// Nodes not yet added to the shared count.
    unflushed: u64,
    /// Triangular principal-variation table: `pv[ply]` is the line from `ply`.
    pv: Vec<Vec<Move>>,
    /// Per-ply move lists, generated in place (a `MoveList` is too big to
    /// return by value at every node).
    move_lists: Vec<MoveList>,
    /// Per-ply buffers of `(ordering key, move index)`.
    scratch: Vec<Vec<(i32, usize)>>,
    /// Per-ply moves put off because another thread is inside them.
    deferred: Vec<Vec<Candidate>>,
}

/// A move of a node's list, in the order it comes up.
#[derive(Clone, Copy)]
struct Candidate {
    /// Its place in the searched order (0: the first, searched with the full window).
    rank: usize,
    /// Its index in the node's move list.
    index: usize,
    /// Its key in the table of moves threads are inside (`None`: not shared).
    busy_key: Option<u64>,
}

/// What a node's move loop knows: its place, depth and window, the best
/// score and move so far.
struct NodeState {
    ply: usize,
    depth: i32,
    alpha: i32,
    beta: i32,
    pv_node: bool,
    key: u64,
    best_score: i32,
    best_move: Option<usize>,
}

impl<'a> Searcher<'a> {
    /// A searcher over a private copy of `game`; `eval` is reset to its
    /// current position.
    pub fn new(
        game: Game,
        shared: &'a Shared<'a>,
        orderer: &'a mut MoveOrderer,
        eval: &'a mut dyn StaticEval,
        selectivity: Selectivity,
    ) -> Searcher<'a> {
        eval.reset(game.position());
        Searcher {
            game,
            shared,
            orderer,
            eval,
            selectivity,
            probing: false,
            pv_nodes: vec![false; MAX_PLY + 1],
            enforce_limits: false,
            stopped: false,
            nodes: 0,
            unflushed: 0,
            pv: vec![Vec::new(); MAX_PLY + 2],
            move_lists: (0..=MAX_PLY).map(|_| MoveList::new()).collect(),
            scratch: vec![Vec::new(); MAX_PLY + 1],
            deferred: vec![Vec::new(); MAX_PLY + 1],
        }
    }

    /// Adds this thread's unflushed nodes to the shared count.
    pub fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
    }

    /// All threads' nodes as far as this thread knows.
    pub fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + self.unflushed
    }

    fn count_node(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
    }

    fn limit_reached(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if !self.enforce_limits {
            return false;
        }
        if let Some(limit) = self.shared.node_limit
            && self.total_nodes() > limit
        {
            self.stopped = true;
        }
        // Reading the clock and the shared state is cheap but not free.
        if self.unflushed >= FLUSH_NODES {
            self.flush_nodes();
            if self.shared.stop.load(Ordering::Relaxed)
                || self.shared.deadline.is_some_and(|d| Instant::now() >= d)
                || self
                    .shared
                    .external_stop
                    .as_ref()
                    .is_some_and(StopHandle::is_stopped)
            {
                self.stopped = true;
            }
        }
        if self.stopped {
            self.shared.stop.store(true, Ordering::Relaxed);
        }
        self.stopped
    }

    fn play(&mut self, mv: &Move) {
        let before = *self.game.position();
        self.game.play(mv);
        self.eval.push(&before, mv, self.game.position());
    }

    fn undo(&mut self) {
        self.game.undo();
        self.eval.pop();
    }

    /// Negamax value of the current node from the side to move's view,
    /// searched `depth` plies deep (then captures only, until quiet). A
    /// window wider than one is a principal-variation node.
    // Long: the hot loop of the alpha-beta search (pruning, move loop and
    // re-searches in one body, as in every engine of its kind).
    pub fn negamax(&mut self, depth: i32, alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        // A search already stopped (a re-search asked after the stop) visits nothing.
        if self.stopped {
            return 0;
        }
        self.count_node();
        if self.limit_reached() {
            return 0;
        }
        // An inner node probes the table after its move generation: start
        // the load now (a quiet leaf never probes, nor computes the key).
        let early_key = (depth > 0).then(|| node_key(&self.game));
        if let Some(key) = early_key {
            self.shared.tt.prefetch(key);
        }
        let side = self.game.side_to_move();
        // The root is searched even if a draw rule already ended the game, so
        // that a caller asking for a move still gets a legal one.
        if ply > 0
            && let Some(outcome) = self.game.outcome()
        {
            return terminal_score(outcome, side, ply);
        }
        // A position in the tables has its exact value under the draw
        // counters (every move is complete, so no capture is half-done).
        if ply > 0
            && let Some(probe) = self
                .shared
                .tablebases
                .and_then(|tb| tablebase::probe(tb, &self.game))
        {
            return tablebase_score(&probe, self.game.moves().last(), ply);
        }
        let pos = *self.game.position();
        pos.generate(&mut self.move_lists[ply], PathMode::Distinct);
        let moves = &self.move_lists[ply];
        if moves.is_empty() {
            return -(MATE - ply as i32);
        }
        // Captures are mandatory, so a position with one is never a quiet
        // leaf; nor, with the threat search, is one the opponent threatens
        // to capture in, reached at the horizon (not after a capture).
        if ply >= MAX_PLY || (depth <= 0 && !moves[0].is_capture()) {
            let threatened = depth == 0 && self.selectivity.threat && pos.threatened();
            if ply >= MAX_PLY || !threatened {
                return self.eval.evaluate(&pos).clamp(-EVAL_LIMIT, EVAL_LIMIT);
            }
        }
        let depth = if depth == 0 && !moves[0].is_capture() {
            1
        } else {
            depth.max(0)
        };
        let pv_node = beta - alpha > 1;
        self.pv_nodes[ply] = pv_node;

        let key = early_key.unwrap_or_else(|| node_key(&self.game));
        let (tt_move, cutoff) = self.probe_table(key, depth, alpha, beta, ply);
        if let Some(score) = cutoff {
            return score;
        }
        if let Some(score) = self.prune(depth, beta, ply, pv_node) {
            return score;
        }
        if self.stopped {
            return 0;
        }
        self.orderer.score_moves(
            &pos,
            &self.move_lists[ply],
            tt_move,
            ply,
            &mut self.scratch[ply],
        );
        let mut node = NodeState {
            ply,
            depth,
            alpha,
            beta,
            pv_node,
            key,
            best_score: -INFINITY,
            best_move: None,
        };
        self.search_moves(&mut node);
        if self.stopped {
            return 0;
        }
        let (best_score, best_move) = (node.best_score, node.best_move);

        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared.tt.store(
            key,
            Entry {
                best_move: best_move.map(|i| i as u8),
                score: score_to_tt(best_score, ply),
                depth: depth.min(i32::from(u8::MAX)) as u8,
                bound,
            },
        );
        best_score
    }

    /// The table's move for the node (an index into this ply's move list),
    /// and its score when the stored result settles the node: a non-PV
    /// node below the root, searched as deep, with a bound that holds.
    fn probe_table(
        &self,
        key: u64,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> (Option<usize>, Option<i32>) {
        let Some(entry) = self.shared.tt.probe(key) else {
            return (None, None);
        };
        let tt_move = entry
            .best_move
            .map(usize::from)
            .filter(|&i| i < self.move_lists[ply].len());
        let pv_node = beta - alpha > 1;
        if ply == 0 || pv_node || i32::from(entry.depth) < depth {
            return (tt_move, None);
        }
        let score = score_from_tt(entry.score, ply);
        let usable = match entry.bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        };
        (tt_move, usable.then_some(score))
    }

    /// The node's moves in order; with other threads, the later moves one
    /// of them is inside come last (see [`busy`]).
    fn search_moves(&mut self, node: &mut NodeState) {
        let ply = node.ply;
        let busy = self.shared.busy.filter(|_| node.depth >= busy::MIN_DEPTH);
        self.deferred[ply].clear();
        for rank in 0..self.scratch[ply].len() {
            let index = pick_next(&mut self.scratch[ply], rank);
            let candidate = Candidate {
                rank,
                index,
                busy_key: busy.map(|_| busy::move_key(node.key, index)),
            };
            // The first move is never put off: some thread must search it.
            let taken = rank > 0
                && busy
                    .zip(candidate.busy_key)
                    .is_some_and(|(b, k)| b.is_busy(k));
            if taken {
                self.deferred[ply].push(candidate);
            } else if self.search_move(node, candidate, busy) {
                return;
            }
        }
        for k in 0..self.deferred[ply].len() {
            let candidate = self.deferred[ply][k];
            if self.search_move(node, candidate, busy) {
                return;
            }
        }
    }

    /// Searches one move of the node and updates its best score, window and
    /// line; true when the node is done (a cut-off, or the search stopped).
    fn search_move(
        &mut self,
        node: &mut NodeState,
        candidate: Candidate,
        busy: Option<&BusyMoves>,
    ) -> bool {
        let (ply, depth, beta) = (node.ply, node.depth, node.beta);
        // Copy the move out: the lists are reused by the plies below.
        let mv = self.move_lists[ply][candidate.index];
        let shared = busy.zip(candidate.busy_key);
        if let Some((busy, key)) = shared {
            busy.enter(key);
        }
        self.play(&mv);
        let alpha = node.alpha;
        // A forced reply is searched a ply deeper (not in quiescence).
        let single = self.selectivity.single_reply && depth > 0 && self.move_lists[ply].len() == 1;
        let new_depth = depth - 1 + i32::from(single);
        let score = if candidate.rank == 0 {
            -self.negamax(new_depth, -beta, -alpha, ply + 1)
        } else {
            let quiet = !mv.is_capture() && !mv.promotes();
            let reduction = self
                .selectivity
                .reduction(depth, candidate.rank, quiet, node.pv_node);
            // Null window first: most later moves only need to be shown worse.
            let mut score = -self.negamax(new_depth - reduction, -alpha - 1, -alpha, ply + 1);
            if score > alpha && reduction > 0 {
                score = -self.negamax(new_depth, -alpha - 1, -alpha, ply + 1);
            }
            if score > alpha && score < beta {
                score = -self.negamax(new_depth, -beta, -alpha, ply + 1);
            }
            score
        };
        self.undo();
        if let Some((busy, key)) = shared {
            busy.leave(key);
        }
        if self.stopped {
            return true;
        }
        if score > node.best_score {
            node.best_score = score;
            node.best_move = Some(candidate.index);
            if score > node.alpha {
                node.alpha = score;
                self.update_pv(ply, mv);
                if score >= beta {
                    self.orderer.record_cutoff(&mv, ply, depth);
                    return true;
                }
            }
        }
        false
    }

    /// Reduced-depth fail-high pruning (Scan's): a non-PV node whose
    /// null-window search at 40 % of the depth holds beta plus a margin is
    /// taken to fail high, and returns that score less the margin. Only
    /// with beta among evaluations: a won or lost bound (tables, game ends)
    /// is never pruned towards.
    fn prune(&mut self, depth: i32, beta: i32, ply: usize, pv_node: bool) -> Option<i32> {
        if !self.selectivity.prune || self.probing || pv_node || ply == 0 {
            return None;
        }
        let (probe_depth, margin) = self.selectivity.prune_probe(depth)?;
        if self.selectivity.shots && self.game.moves().last().is_some_and(Move::is_capture) {
            return None;
        }
        if self.selectivity.verify && self.pv_nodes[ply - 1] {
            return None;
        }
        if beta.abs() >= EVAL_LIMIT {
            return None;
        }
        let probe_beta = beta + margin;
        // The same node, searched shallower: it reuses this ply's move list
        // (generated again, in the same order) and the table.
        self.probing = true;
        let score = self.negamax(probe_depth, probe_beta - 1, probe_beta, ply);
        self.probing = false;
        (score >= probe_beta && !self.stopped).then_some(score - margin)
    }

    /// `pv[ply] = mv` followed by the line below it.
    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&tail[0]);
    }

    /// The principal variation of the last completed iteration, lengthened
    /// from the table where cut-offs shortened it, up to `max_len` moves.
    pub fn principal_variation(&self, max_len: usize) -> Vec<Move> {
        let mut line = self.pv[0].clone();
        let mut game = self.game.clone();
        for mv in &line {
            game.play(mv);
        }
        while line.len() < max_len && game.outcome().is_none() {
            let Some(index) = self
                .shared
                .tt
                .probe(node_key(&game))
                .and_then(|e| e.best_move)
            else {
                break;
            };
            let moves = game.legal_moves();
            let Some(&mv) = moves.as_slice().get(usize::from(index)) else {
                break;
            };
            game.play(&mv);
            line.push(mv);
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tt_scores_round_trip_and_shift_mates() {
        for ply in [0, 1, 7, 40] {
            for score in [0, 55, -300, MATE - 9, -(MATE - 12)] {
                assert_eq!(score_from_tt(score_to_tt(score, ply), ply), score);
            }
        }
        // A win 3 plies below a node at ply 5 is a win in 3 from that node.
        assert_eq!(score_to_tt(MATE - 8, 5), MATE - 3);
        // Tablebase scores shift the same way.
        assert_eq!(score_to_tt(TB_WIN - 12, 5), TB_WIN - 7);
        assert_eq!(score_to_tt(-(TB_WIN - 12), 5), -(TB_WIN - 7));
        assert_eq!(score_from_tt(score_to_tt(TB_WIN - 12, 5), 5), TB_WIN - 12);
    }
}
