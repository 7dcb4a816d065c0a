//! A game under the official rules: moves played, positions seen, draw-rule
//! counters, and the arbiter that says when and how it ends.
//!
//! CONTRACT (issue 3 fills in the bodies; other crates code against these
//! signatures, so keep them).

use crate::moves::{Move, MoveList};
use crate::position::{Color, Position};
use serde::{Deserialize, Serialize};

/// The result of a finished game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum GameResult {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// Drawn.
    Draw,
}

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum EndReason {
    /// The side to move has no legal move (no pieces, or all blocked): it loses.
    NoMoves,
    /// 7.2.3: the same position (same side to move) for the third time.
    Repetition,
    /// 7.2.4: three kings or more against a lone king, not won in time.
    ThreeKingsVsKing,
    /// 7.2.5: only kings moved, no man moved and no capture, for the count.
    KingsOnly,
    /// 7.2.6: both sides have kings and the balance did not change (30/60).
    MaterialUnchanged,
    /// 7.2.7: lone king on the main diagonal against three pieces.
    MainDiagonal,
    /// 7.2.8: 2-3 pieces with kings on both sides, balance unchanged.
    FewPieces,
    /// Neither side can win (one king against one king, no capture).
    InsufficientMaterial,
    /// The players agreed a draw.
    Agreed,
    /// A side resigned.
    Resignation,
    /// Adjudicated at the configured maximum game length.
    Adjudication,
}

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Outcome {
    /// Who won, or a draw.
    pub result: GameResult,
    /// Which rule ended the game.
    pub reason: EndReason,
}

/// The draw-rule state that can change the value of a position (what the
/// network's input and the evaluation cache key need beyond the board).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct DrawState {
    /// How many times the current position has occurred (1 = first time).
    pub repetitions: u8,
    /// Half-moves until the nearest running counting rule (7.2.4-7.2.8)
    /// declares a draw; `None` when no count is running.
    pub plies_to_draw: Option<u16>,
}

/// A game: start position, moves, history for repetitions, counters.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
}

#[allow(unused_variables)]
impl Game {
    /// A new game from `start` with the default draw rules.
    pub fn new(start: Position) -> Game {
        todo!()
    }
    /// The current position.
    pub fn position(&self) -> &Position {
        todo!()
    }
    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }
    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.position().side_to_move()
    }
    /// Legal moves of the current position.
    pub fn legal_moves(&self) -> MoveList {
        self.position().legal_moves()
    }
    /// Plays a legal move.
    pub fn play(&mut self, mv: &Move) {
        todo!()
    }
    /// Takes back the last move; `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        todo!()
    }
    /// Moves played so far.
    pub fn moves(&self) -> &[Move] {
        todo!()
    }
    /// Number of half-moves played.
    pub fn ply(&self) -> usize {
        self.moves().len()
    }
    /// `None` while the game goes on, else how it ended.
    pub fn outcome(&self) -> Option<Outcome> {
        todo!()
    }
    /// The draw-rule state of the current position.
    pub fn draw_state(&self) -> DrawState {
        todo!()
    }
}
