//! The recursive negamax search with alpha-beta pruning, capture quiescence,
//! the transposition table and the game arbiter at every node.

use super::eval::HandEval;
use super::ordering::{MAX_PLY, MoveOrderer, pick_next};
use super::tt::{Bound, Entry, TranspositionTable};
use crate::limits::StopHandle;
use shashki_rules::{Color, Game, GameResult, Move, MoveList, Outcome, PathMode};
use std::time::Instant;

/// The score of a won game at the root; a win found `n` plies deep scores
/// `MATE - n`, so shorter wins score higher.
pub const MATE: i32 = 30_000;
/// Scores beyond this (in absolute value) are forced game ends.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Larger than any score.
pub const INFINITY: i32 = 32_000;

/// Mixes a small number into a well-spread 64-bit key (splitmix64 finaliser).
fn mix(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The table key of the game's current node: the position hash plus the
/// draw-rule state, since a repeated position or a running draw count can
/// change the value of the same board.
fn node_key(game: &Game) -> u64 {
    let state = game.draw_state();
    let mut key = game.position().hash();
    if state.repetitions > 1 {
        key ^= mix(u64::from(state.repetitions));
    }
    if let Some(plies) = state.plies_to_draw {
        key ^= mix(0x1_0000 + u64::from(plies));
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

/// Mate scores are stored relative to the node (distance from it), not to
/// the root, so the same entry is right at any ply.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// The inverse of [`score_to_tt`].
fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// When the search must stop early.
pub struct StopRule {
    /// Stop after this many nodes.
    pub nodes: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop when this flag is set (the protocol's `stop`).
    pub stop: Option<StopHandle>,
}

/// The state of one search: the game walked with play/undo, the tables, the
/// node count and the principal variation.
pub struct Searcher<'a> {
    game: Game,
    tt: &'a mut TranspositionTable,
    orderer: &'a mut MoveOrderer,
    eval: &'a HandEval,
    stop_rule: StopRule,
    /// While false (the first iteration), limits are ignored so that a move
    /// is always found.
    pub enforce_limits: bool,
    /// Set once a limit is hit; the current iteration's result is then void.
    pub stopped: bool,
    /// Nodes visited so far.
    pub nodes: u64,
    /// Triangular principal-variation table: `pv[ply]` is the line from `ply`.
    pv: Vec<Vec<Move>>,
    /// Per-ply move lists, generated in place (a `MoveList` is too big to
    /// return by value at every node).
    move_lists: Vec<MoveList>,
    /// Per-ply buffers of `(ordering key, move index)`.
    scratch: Vec<Vec<(i32, usize)>>,
}

impl<'a> Searcher<'a> {
    /// A searcher over a private copy of `game`.
    pub fn new(
        game: Game,
        tt: &'a mut TranspositionTable,
        orderer: &'a mut MoveOrderer,
        eval: &'a HandEval,
        stop_rule: StopRule,
    ) -> Searcher<'a> {
        Searcher {
            game,
            tt,
            orderer,
            eval,
            stop_rule,
            enforce_limits: false,
            stopped: false,
            nodes: 0,
            pv: vec![Vec::new(); MAX_PLY + 2],
            move_lists: (0..=MAX_PLY).map(|_| MoveList::new()).collect(),
            scratch: vec![Vec::new(); MAX_PLY + 1],
        }
    }

    fn limit_reached(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if !self.enforce_limits {
            return false;
        }
        if let Some(limit) = self.stop_rule.nodes
            && self.nodes > limit
        {
            self.stopped = true;
        }
        // Reading the clock is cheap but not free: every 1024 nodes.
        if self.nodes.is_multiple_of(1024)
            && (self.stop_rule.deadline.is_some_and(|d| Instant::now() >= d)
                || self
                    .stop_rule
                    .stop
                    .as_ref()
                    .is_some_and(StopHandle::is_stopped))
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Negamax value of the current node from the side to move's view,
    /// searched `depth` plies deep (then captures only, until quiet).
    pub fn negamax(&mut self, depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        if self.limit_reached() {
            return 0;
        }
        let side = self.game.side_to_move();
        // The root is searched even if a draw rule already ended the game, so
        // that a caller asking for a move still gets a legal one.
        if ply > 0
            && let Some(outcome) = self.game.outcome()
        {
            return terminal_score(outcome, side, ply);
        }
        let pos = *self.game.position();
        pos.generate(&mut self.move_lists[ply], PathMode::Distinct);
        let moves = &self.move_lists[ply];
        if moves.is_empty() {
            return -(MATE - ply as i32);
        }
        // Captures are mandatory, so a position with one is never a quiet leaf.
        if ply >= MAX_PLY || (depth <= 0 && !moves[0].is_capture()) {
            return self.eval.evaluate(&pos);
        }
        let depth = depth.max(0);

        let key = node_key(&self.game);
        let mut tt_move = None;
        if let Some(entry) = self.tt.probe(key) {
            tt_move = entry.best_move;
            if ply > 0 && i32::from(entry.depth) >= depth {
                let score = score_from_tt(entry.score, ply);
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    return score;
                }
            }
        }

        self.orderer.score_moves(
            &pos,
            &self.move_lists[ply],
            tt_move,
            ply,
            &mut self.scratch[ply],
        );
        let alpha_at_entry = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        for i in 0..self.scratch[ply].len() {
            // Copy the move out: the lists are reused by the plies below.
            let mv = self.move_lists[ply][pick_next(&mut self.scratch[ply], i)];
            self.game.play(&mv);
            let score = -self.negamax(depth - 1, -beta, -alpha, ply + 1);
            self.game.undo();
            if self.stopped {
                break;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        self.orderer.record_cutoff(&mv, ply, depth);
                        break;
                    }
                }
            }
        }
        if self.stopped {
            return 0;
        }

        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > alpha_at_entry {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(Entry {
            key,
            best_move,
            score: score_to_tt(best_score, ply),
            depth: depth.min(i32::from(u8::MAX)) as u8,
            bound,
            generation: 0,
        });
        best_score
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
            let Some(mv) = self.tt.probe(node_key(&game)).and_then(|e| e.best_move) else {
                break;
            };
            if !game.legal_moves().iter().any(|m| *m == mv) {
                break;
            }
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
    }
}
