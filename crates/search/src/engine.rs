//! The common face of every engine (alpha-beta with the hand evaluation or
//! a net, MCTS with rollouts or a net): what `shashki engine`, `analyse`,
//! `play` and the arena drive.

use crate::limits::{SearchLimits, StopHandle};
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
    /// A draw proven by the search (every line ends in a draw or worse for
    /// the side that could deviate).
    ProvenDraw,
    /// A win known from the endgame tablebases (exact under the draw
    /// rules), with the half-moves to the next capture, promotion or end of
    /// the game the tables promise (their DTZ; counted from this position
    /// along the line that enters the tables): not a distance to mate.
    TbWin(u32),
    /// A loss known from the endgame tablebases; the distance as for
    /// [`Score::TbWin`].
    TbLoss(u32),
    /// A draw known from the endgame tablebases.
    TbDraw,
}

/// Protocol spelling: `cp 35`, `mate 7`, `mate -4`, `value 0.250`,
/// `value 0.000 proven`, `tb win 12`, `tb loss 9`, `tb draw`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Centi(cp) => write!(f, "cp {cp}"),
            Score::Mate(plies) => write!(f, "mate {plies}"),
            Score::Value(v) => write!(f, "value {v:.3}"),
            Score::ProvenDraw => f.write_str("value 0.000 proven"),
            Score::TbWin(plies) => write!(f, "tb win {plies}"),
            Score::TbLoss(plies) => write!(f, "tb loss {plies}"),
            Score::TbDraw => f.write_str("tb draw"),
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

/// An engine that chooses moves in a game. `Send`, so a protocol session
/// can run its search on another thread while it keeps reading commands.
pub trait Engine: Send {
    /// A short description such as `alpha-beta` or `mcts (rollouts)`.
    fn description(&self) -> String;

    /// Forgets everything tied to the previous game (tables, trees).
    fn new_game(&mut self);

    /// A handle that stops the running search from another thread (the
    /// protocol's `stop`); the search then answers its best move at once.
    /// `None` if the engine cannot be stopped (it then refuses `infinite`).
    fn stop_handle(&self) -> Option<StopHandle> {
        None
    }

    /// Engine-specific counters since the engine was made, one line, for
    /// benchmarks and logs (MCTS: evaluations, forced moves passed through,
    /// cache hits). `None` if it keeps none.
    fn statistics(&self) -> Option<String> {
        None
    }

    /// Searches the current position of `game` within `limits`. `progress`
    /// receives intermediate reports (e.g. each completed depth). The search
    /// returns within its time limit plus a small overhead
    /// ([`MOVE_OVERHEAD`](crate::limits::MOVE_OVERHEAD) is what a clocked
    /// search keeps in hand for it), and as soon as its stop handle is set.
    fn go(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport;
}
