//! Opening book files: either PDN (each game's start position and moves are
//! one opening) or lines of text, each one of
//!
//! - `Name | 1. c3-d4 d6-c5 2. b2-c3 f6-g5` (moves from the standard start),
//! - `Name | W:W21,22,...:B1,2,...` (a position, PDN FEN),
//! - `Name | FEN | moves` (moves from that position),
//! - a bare FEN or a bare move list (named by its line number).
//!
//! Blank lines and lines starting with `#` are skipped. Every opening is
//! replayed with the rules when it is read: an illegal move, a bad FEN or
//! an opening after which the game is already over is an error naming the
//! file, the line and the text.
//!
//! The reader lives here, below every stage, so the arena's matches and
//! self-play's own start books read one format with one parser.

use crate::{DrawRules, Game, Move, Position, read_pdn};
use std::fmt::Write as _;
use std::path::Path;
use thiserror::Error;

/// An opening: a start position and the moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Its name (or where it came from).
    pub name: String,
    /// The position the moves start from.
    pub start: Position,
    /// The opening moves, each legal in turn.
    pub moves: Vec<Move>,
}

impl Opening {
    /// The standard start position with no moves.
    pub fn startpos() -> Opening {
        Opening {
            name: "start position".into(),
            start: Position::startpos(),
            moves: Vec::new(),
        }
    }

    /// The position after the opening moves: two openings that reach the
    /// same one are the same opening for a match.
    pub fn position(&self) -> Position {
        self.moves
            .iter()
            .fold(self.start, |pos, mv| pos.make_move(mv))
    }

    /// A game judged by `rules` with the opening moves already played.
    pub fn game(&self, rules: DrawRules) -> Game {
        let mut game = Game::with_rules(self.start, rules);
        for mv in &self.moves {
            game.play(mv);
        }
        game
    }

    /// An opening from its fields as a book line gives them: the start
    /// position's FEN (`None`: the standard start) and the moves played
    /// from it, replayed with the rules; an opening after which the game is
    /// over is an error.
    pub fn from_fields(name: String, fen: Option<&str>, moves: &str) -> Result<Opening, String> {
        let start = match fen {
            Some(f) => Position::from_fen(f).map_err(|e| format!("bad FEN: {e}"))?,
            None => Position::startpos(),
        };
        let moves = parse_moves(&start, moves)?;
        let opening = Opening { name, start, moves };
        check_playable(&opening)?;
        Ok(opening)
    }

    /// The opening as a line of a book file ([`parse_book_lines`] reads it
    /// back): `Name | moves` from the standard start, else
    /// `Name | FEN | moves`, or `Name | FEN` without moves. A `|` in the
    /// name would split the line, so it is written as `/`.
    pub fn to_line(&self) -> String {
        let name = self.name.replace('|', "/");
        let moves = self.moves_text();
        if self.start == Position::startpos() && !moves.is_empty() {
            format!("{name} | {moves}")
        } else if moves.is_empty() {
            format!("{name} | {}", self.start.to_fen())
        } else {
            format!("{name} | {} | {moves}", self.start.to_fen())
        }
    }

    /// The moves as a numbered move list (`1. c3-d4 d6-c5 2. ...`).
    pub fn moves_text(&self) -> String {
        let mut s = String::new();
        let mut pos = self.start;
        let mut number = 1;
        for (i, mv) in self.moves.iter().enumerate() {
            if !s.is_empty() {
                s.push(' ');
            }
            match pos.side_to_move() {
                crate::Color::White => {
                    let _ = write!(s, "{number}. ");
                }
                crate::Color::Black => {
                    if i == 0 {
                        let _ = write!(s, "{number}... ");
                    }
                    number += 1;
                }
            }
            let _ = write!(s, "{mv}");
            pos = pos.make_move(mv);
        }
        s
    }
}

/// An opening that could not be read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{source_name}:{line}: {reason} in {text:?}")]
pub struct OpeningError {
    /// The file (or `builtin:NAME`).
    pub source_name: String,
    /// Line number (1 = first), or the game number for PDN input.
    pub line: usize,
    /// The offending text.
    pub text: String,
    /// What is wrong.
    pub reason: String,
}

/// Reads a book file: PDN if it has tags or a `.pdn` extension, else lines.
pub fn read_book(path: &Path) -> Result<Vec<Opening>, OpeningError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| OpeningError {
        source_name: name.clone(),
        line: 0,
        text: String::new(),
        reason: format!("cannot read: {e}"),
    })?;
    let is_pdn = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pdn"))
        || text.lines().any(|l| l.trim_start().starts_with('['));
    if is_pdn {
        parse_book_pdn(&text, &name)
    } else {
        parse_book_lines(&text, &name)
    }
}

/// Reads the line format (see the module docs).
pub fn parse_book_lines(text: &str, source_name: &str) -> Result<Vec<Opening>, OpeningError> {
    let mut openings = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |reason: String| OpeningError {
            source_name: source_name.to_string(),
            line: i + 1,
            text: line.to_string(),
            reason,
        };
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let (name, fen, moves) = match parts.as_slice() {
            [one] if is_fen(one) => (None, Some(*one), ""),
            [one] => (None, None, *one),
            [name, two] if is_fen(two) => (Some(*name), Some(*two), ""),
            [name, two] => (Some(*name), None, *two),
            [name, fen, moves] => (Some(*name), Some(*fen), *moves),
            _ => return Err(err("more than three '|'-separated fields".into())),
        };
        let name = name
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| format!("{source_name} line {}", i + 1));
        openings.push(Opening::from_fields(name, fen, moves).map_err(err)?);
    }
    non_empty(openings, source_name, "no opening found")
}

/// Reads a PDN file: each game's start and moves form an opening, named
/// by its `Opening` or `Event` tag. Any broken game is an error.
pub fn parse_book_pdn(text: &str, source_name: &str) -> Result<Vec<Opening>, OpeningError> {
    let mut openings = Vec::new();
    for (i, game) in read_pdn(text).into_iter().enumerate() {
        let game = game.map_err(|e| OpeningError {
            source_name: source_name.to_string(),
            line: e.line,
            text: e.text.clone(),
            reason: format!("game {}: {}", e.game, e.reason),
        })?;
        let name = game
            .tag("Opening")
            .or_else(|| game.tag("Event").filter(|e| *e != "?"))
            .map(str::to_string)
            .unwrap_or_else(|| format!("{source_name} game {}", i + 1));
        let opening = Opening {
            name,
            start: game.start,
            moves: game.moves,
        };
        check_playable(&opening).map_err(|reason| OpeningError {
            source_name: source_name.to_string(),
            line: i + 1,
            text: opening.moves_text(),
            reason: format!("game {}: {reason}", i + 1),
        })?;
        openings.push(opening);
    }
    non_empty(openings, source_name, "no game found")
}

fn non_empty(
    openings: Vec<Opening>,
    source_name: &str,
    reason: &str,
) -> Result<Vec<Opening>, OpeningError> {
    if openings.is_empty() {
        return Err(OpeningError {
            source_name: source_name.to_string(),
            line: 0,
            text: String::new(),
            reason: reason.into(),
        });
    }
    Ok(openings)
}

/// True if `text` looks like a PDN FEN (`W:...` or `B:...`).
fn is_fen(text: &str) -> bool {
    let t = text.trim_start_matches('"');
    (t.starts_with("W:") || t.starts_with("B:") || t.starts_with("w:") || t.starts_with("b:"))
        && t.len() > 2
}

/// Parses a numbered move list from `start`; move numbers (`1.`, `1...`,
/// also glued to the move as `1.c3-d4`) are skipped.
fn parse_moves(start: &Position, text: &str) -> Result<Vec<Move>, String> {
    let mut pos = *start;
    let mut moves = Vec::new();
    for token in text.split_whitespace() {
        let mv_text = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if mv_text.is_empty() {
            continue;
        }
        let mv = pos
            .parse_move(mv_text)
            .map_err(|e| format!("move {} ({mv_text}): {e}", moves.len() + 1))?;
        moves.push(mv);
        pos = pos.make_move(&mv);
    }
    Ok(moves)
}

/// Errors if the game is already over after the opening.
fn check_playable(opening: &Opening) -> Result<(), String> {
    match opening.game(DrawRules::default()).outcome() {
        None => Ok(()),
        Some(o) => Err(format!("the game is over after the opening ({o})")),
    }
}
