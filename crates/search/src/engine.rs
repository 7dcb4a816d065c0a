//! The common face of every engine (alpha-beta, MCTS, later the network):
//! what `shashki engine`, `analyse` and `play` drive.

use crate::limits::SearchLimits;
use shashki_rules::{Game, Move};
use std::fmt;
use std::time::Duration;

/// An evaluation from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    /// Hand-evaluation units: a man is worth 100.
    Centi(i32),
    /// A forced end of the game in this many half-moves: positive when the
    /// side to move wins, negative when it loses.
    Mate(i32),
    /// An expected outcome in [-1, 1] (win minus loss), as MCTS reports it.
    Value(f32),
}

/// Protocol spelling: `cp 35`, `mate 7`, `mate -4`, `value 0.250`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Centi(cp) => write!(f, "cp {cp}"),
            Score::Mate(plies) => write!(f, "mate {plies}"),
            Score::Value(v) => write!(f, "value {v:.3}"),
        }
    }
}

/// What a search found so far (sent after each iteration) or in the end.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchReport {
    /// The move to play; `None` only when there is no legal move.
    pub best_move: Option<Move>,
    /// The evaluation of the position.
    pub score: Score,
    /// Depth reached (alpha-beta plies; for MCTS the principal variation's length).
    pub depth: u32,
    /// Nodes (alpha-beta) or simulations (MCTS) spent.
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
    /// The expected line, best move first.
    pub pv: Vec<Move>,
}

/// An engine that chooses moves in a game.
pub trait Engine {
    /// A short description such as `alpha-beta` or `mcts (rollouts)`.
    fn description(&self) -> String;

    /// Forgets everything tied to the previous game (tables, trees).
    fn new_game(&mut self);

    /// Searches the current position of `game` within `limits`. `progress`
    /// receives intermediate reports (e.g. each completed depth).
    fn go(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport;
}
