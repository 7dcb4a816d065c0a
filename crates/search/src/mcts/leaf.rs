//! A leaf awaiting evaluation: what the evaluator needs, and where in the
//! tree its answer goes.

use super::tree::NodeId;
use crate::evaluator::EvalRequest;
use shashki_rules::{DrawState, Move, Position};

/// Marks a leaf that is the root itself (no root edge on its path).
pub(crate) const NO_EDGE: u32 = u32::MAX;

/// One position selected by [`Search::select_leaves`](super::Search::select_leaves).
///
/// Its buffers are reused from one batch to the next, so gathering leaves
/// does not allocate once the search has warmed up.
#[derive(Clone, Debug)]
pub struct LeafRequest {
    pub(crate) position: Position,
    pub(crate) draw_state: DrawState,
    pub(crate) moves: Vec<Move>,
    /// The tree node to expand.
    pub(crate) node: NodeId,
    /// Index of the root edge the descent took (`NO_EDGE` for the root).
    pub(crate) root_edge: u32,
    /// Nodes from the root to this leaf, both included.
    pub(crate) path: Vec<NodeId>,
}

impl Default for LeafRequest {
    fn default() -> Self {
        LeafRequest {
            position: Position::startpos(),
            draw_state: DrawState::default(),
            moves: Vec::new(),
            node: 0,
            root_edge: NO_EDGE,
            path: Vec::new(),
        }
    }
}

impl LeafRequest {
    /// The request to hand to an [`Evaluator`](crate::Evaluator).
    pub fn eval_request(&self) -> EvalRequest<'_> {
        EvalRequest {
            position: &self.position,
            draw_state: self.draw_state,
            moves: &self.moves,
        }
    }

    /// The position to evaluate.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Its draw-rule state.
    pub fn draw_state(&self) -> DrawState {
        self.draw_state
    }

    /// Its legal moves, in the order the priors must follow.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Depth below the root (0 for the root).
    pub fn depth(&self) -> usize {
        self.path.len().saturating_sub(1)
    }
}
