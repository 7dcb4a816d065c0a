//! The evaluation interface of the alpha-beta search: told of every move
//! made and taken back along the searched line, so an implementation can
//! keep incremental state (an NNUE accumulator) instead of evaluating each
//! leaf from scratch.
//!
//! The hand evaluation ([`HandEval`](super::HandEval)) implements it without
//! state; the network implements it in `shashki-nnue` (search never imports
//! it; the command line wires them together).

use shashki_rules::{Move, Position};

/// A static evaluation driven by the search's make/unmake.
///
/// The search calls [`reset`](StaticEval::reset) with the root, then
/// [`push`](StaticEval::push) after each move it plays and
/// [`pop`](StaticEval::pop) after taking one back, so the evaluator always
/// knows the current node; [`evaluate`](StaticEval::evaluate) is called at
/// the current node only.
pub trait StaticEval: Send {
    /// A short name for reports, e.g. `hand` or `nnue models/x`.
    fn name(&self) -> String;

    /// Starts from `root` (forgets all pushed moves).
    fn reset(&mut self, root: &Position);

    /// The search played `mv` in `before`, reaching `after`.
    fn push(&mut self, before: &Position, mv: &Move, after: &Position);

    /// The search took back the last pushed move.
    fn pop(&mut self);

    /// The score of the current node `pos` from the side to move's view, in
    /// centi-men (a man is about 100); well inside `+-MATE_BOUND`.
    fn evaluate(&mut self, pos: &Position) -> i32;

    /// A fresh evaluator with the same weights, for another search thread.
    fn fork(&self) -> Box<dyn StaticEval>;
}
