//! Reading moves in notation against the legal moves of a position.
//!
//! Accepted: the long form (`c3-d4`, `a3:c5:e7:g5`), the short capture form
//! (`a3:g5`) and any form naming the start, the end and some landing squares
//! in between, in algebraic or numeric squares, with `-`, `:` or `x`.
//! A text that is exactly some move's full path names that move; otherwise
//! the squares must appear in order along exactly one move's path.

use crate::movegen::PathMode;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::square::Square;
use thiserror::Error;

/// Why a move text was rejected.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not a sequence of squares.
    #[error("cannot read move {text:?}: {reason}")]
    Syntax {
        /// The text given.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// No legal move matches.
    #[error("illegal move {text:?}; legal moves: {legal}")]
    Illegal {
        /// The text given.
        text: String,
        /// The legal moves, space separated.
        legal: String,
    },
    /// Several legal moves match the short form.
    #[error("ambiguous move {text:?}: it could be {candidates}")]
    Ambiguous {
        /// The text given.
        text: String,
        /// The matching moves in long notation.
        candidates: String,
    },
}

impl Position {
    /// The legal move written as `text`, or why there is none.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let trimmed = text.trim();
        let syntax = |reason: &str| MoveError::Syntax {
            text: trimmed.to_string(),
            reason: reason.to_string(),
        };
        if trimmed.is_empty() {
            return Err(syntax("empty move"));
        }
        let quiet_sep = trimmed.contains('-');
        let capture_sep = trimmed.contains([':', 'x', 'X']);
        if quiet_sep && capture_sep {
            return Err(syntax("mixes '-' with ':'/'x'"));
        }
        let mut squares = Vec::with_capacity(4);
        for token in trimmed.split(['-', ':', 'x', 'X']) {
            match Square::parse(token) {
                Some(sq) => squares.push(sq),
                None => return Err(syntax(&format!("{token:?} is not a dark square"))),
            }
        }
        if squares.len() < 2 {
            return Err(syntax("a move names at least two squares"));
        }
        let mut paths = MoveList::new();
        self.generate(&mut paths, PathMode::AllPaths);
        // The full path of a move names that move, even when it is also a
        // subsequence of a longer move's path (`b4:d6:b8` inside
        // `b4:d6:f8:h6:f4:d6:b8`). A path fixes the captured pieces, so at
        // most one move matches exactly.
        let exact = paths
            .iter()
            .find(|mv| !(quiet_sep && mv.is_capture()) && mv.path().eq(squares.iter().copied()));
        if let Some(mv) = exact {
            return Ok(self.canonical(mv));
        }
        let mut matches: Vec<Move> = Vec::new();
        for mv in &paths {
            if quiet_sep && mv.is_capture() {
                continue;
            }
            if is_subsequence(&squares, mv) && !matches.iter().any(|m| m.key() == mv.key()) {
                matches.push(*mv);
            }
        }
        match matches.len() {
            0 => {
                let mut legal = self.legal_moves();
                legal.sort_by_notation();
                let legal: Vec<String> = legal.iter().map(Move::to_string).collect();
                Err(MoveError::Illegal {
                    text: trimmed.to_string(),
                    legal: legal.join(" "),
                })
            }
            1 => Ok(self.canonical(&matches[0])),
            _ => Err(MoveError::Ambiguous {
                text: trimmed.to_string(),
                candidates: matches
                    .iter()
                    .map(|m| self.canonical(m).to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// The move with the same (start, end, captured set) as generated under
    /// rule 9, so every spelling of a move yields the same `Move`.
    fn canonical(&self, mv: &Move) -> Move {
        *self
            .legal_moves()
            .iter()
            .find(|m| m.key() == mv.key())
            .expect("every path belongs to a legal move")
    }
}

/// True if `squares` starts at the move's start, ends at its end and the rest
/// appear along its path in order.
fn is_subsequence(squares: &[Square], mv: &Move) -> bool {
    let path: Vec<Square> = mv.path().collect();
    if squares[0] != path[0] || squares[squares.len() - 1] != path[path.len() - 1] {
        return false;
    }
    let mut rest = path[1..path.len() - 1].iter();
    squares[1..squares.len() - 1]
        .iter()
        .all(|sq| rest.any(|p| p == sq))
}
