//! How a game ends: the result ([`GameResult`]), the rule that ended it
//! ([`EndReason`]), and both together ([`Outcome`]).

use crate::position::Color;
use serde::{Deserialize, Serialize};
use std::fmt;

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

impl GameResult {
    /// The win of `color`.
    pub fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// The winner, or `None` for a draw.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw => None,
        }
    }

    /// +1 for a win of `color`, 0 for a draw, -1 for a loss.
    pub fn score_for(self, color: Color) -> f32 {
        match self.winner() {
            None => 0.0,
            Some(w) if w == color => 1.0,
            Some(_) => -1.0,
        }
    }

    /// Match points for `color`: 1 for a win, 0.5 for a draw, 0 for a loss.
    pub fn points_for(self, color: Color) -> f64 {
        f64::from(self.score_for(color) + 1.0) / 2.0
    }

    /// The PDN result for GameType 25: `2-0`, `1-1` or `0-2`.
    pub fn pdn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "2-0",
            GameResult::Draw => "1-1",
            GameResult::BlackWins => "0-2",
        }
    }

    /// Reads a PDN result: `2-0`/`1-1`/`0-2`, also the international
    /// `1-0`/`0-1`/`1/2-1/2`. `*` and anything else give `None`.
    pub fn from_pdn(text: &str) -> Option<GameResult> {
        match text.trim() {
            "2-0" | "1-0" => Some(GameResult::WhiteWins),
            "0-2" | "0-1" => Some(GameResult::BlackWins),
            "1-1" | "1/2-1/2" => Some(GameResult::Draw),
            _ => None,
        }
    }
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

impl EndReason {
    /// Every reason, in declaration order.
    pub const ALL: [EndReason; 11] = [
        EndReason::NoMoves,
        EndReason::Repetition,
        EndReason::ThreeKingsVsKing,
        EndReason::KingsOnly,
        EndReason::MaterialUnchanged,
        EndReason::MainDiagonal,
        EndReason::FewPieces,
        EndReason::InsufficientMaterial,
        EndReason::Agreed,
        EndReason::Resignation,
        EndReason::Adjudication,
    ];

    /// The label used in the PDN `Termination` tag and in JSON output, e.g.
    /// `7.2.5 kings only`.
    pub fn label(self) -> &'static str {
        match self {
            EndReason::NoMoves => "no legal moves",
            EndReason::Repetition => "7.2.3 threefold repetition",
            EndReason::ThreeKingsVsKing => "7.2.4 three kings vs lone king",
            EndReason::KingsOnly => "7.2.5 kings only",
            EndReason::MaterialUnchanged => "7.2.6 balance unchanged",
            EndReason::MainDiagonal => "7.2.7 lone king on main diagonal",
            EndReason::FewPieces => "7.2.8 few pieces",
            EndReason::InsufficientMaterial => "insufficient material",
            EndReason::Agreed => "agreed draw",
            EndReason::Resignation => "resignation",
            EndReason::Adjudication => "adjudication",
        }
    }

    /// The reason with this [`label`](EndReason::label) (ASCII case ignored).
    pub fn from_label(text: &str) -> Option<EndReason> {
        let text = text.trim();
        EndReason::ALL
            .into_iter()
            .find(|r| r.label().eq_ignore_ascii_case(text))
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Outcome {
    /// Who won, or a draw.
    pub result: GameResult,
    /// Which rule ended the game.
    pub reason: EndReason,
}

impl Outcome {
    /// A draw for `reason`.
    pub fn draw(reason: EndReason) -> Outcome {
        Outcome {
            result: GameResult::Draw,
            reason,
        }
    }
}

/// `2-0 (no legal moves)`.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.result.pdn(), self.reason)
    }
}
