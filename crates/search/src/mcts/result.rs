//! What a search returns.

use super::tree::Proof;
use crate::evaluator::Wdl;
use shashki_rules::Move;

/// The numbers behind one root move.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildStats {
    /// The move.
    pub mv: Move,
    /// Its prior from the evaluator (before any root noise).
    pub prior: f32,
    /// Visits in the tree (reused ones included).
    pub visits: u32,
    /// Mean W/D/L after the move, from the root mover's view; `None` if the
    /// move was never visited.
    pub wdl: Option<Wdl>,
}

impl ChildStats {
    /// Mean value (win minus loss) for the root mover, if visited.
    pub fn q(&self) -> Option<f32> {
        self.wdl.map(Wdl::value)
    }
}

/// The outcome of one search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play.
    pub best_move: Move,
    /// The policy target over exactly the legal moves, in generator order,
    /// summing to 1: the visit distribution (PUCT) or the improved policy
    /// `softmax(logits + sigma(completed Q))` (Gumbel). Train only on
    /// results with `full_search` set.
    pub policy: Vec<(Move, f32)>,
    /// Mean backed-up W/D/L at the root, from the side to move's view.
    pub wdl: Wdl,
    /// `wdl.win - wdl.loss`.
    pub value: f32,
    /// The expected line, `best_move` first.
    pub principal_variation: Vec<Move>,
    /// Simulations run by this search (reused visits not counted).
    pub simulations: u32,
    /// True for a full search (playout cap randomisation); false for a fast
    /// one or a forced move, whose policy should not be trained on.
    pub full_search: bool,
    /// Per root move statistics, in generator order.
    pub children: Vec<ChildStats>,
    /// The root's value if the solver proved it (terminal results
    /// propagated up the tree); then `best_move` follows the proof.
    pub proof: Proof,
}
