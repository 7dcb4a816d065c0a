//! PDN FEN: `W:Wa1,c1,Ke5:Bh8,Kb6` (algebraic) or `W:W21,22,K23:B1,2`
//! (numeric, 1 = b8 ... 32 = g1, ranges like `1-12` allowed).

use crate::bitboard::{RANK_1, RANK_8};
use crate::position::{Color, Position};
use crate::square::{Square, Squares};
use std::fmt::Write as _;
use thiserror::Error;

/// Why a FEN was rejected; names the offending token.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("bad FEN {fen:?}: {reason} (at {token:?})")]
pub struct FenError {
    /// The whole input.
    pub fen: String,
    /// The token that could not be read.
    pub token: String,
    /// What is wrong with it.
    pub reason: String,
}

impl Position {
    /// Reads a PDN FEN (algebraic or numeric squares). Surrounding quotes,
    /// spaces and a final `.` are ignored.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let err = |token: &str, reason: &str| FenError {
            fen: fen.to_string(),
            token: token.to_string(),
            reason: reason.to_string(),
        };
        // The final '.' may stand inside or outside the quotes.
        let text = fen
            .trim()
            .trim_end_matches('.')
            .trim_matches('"')
            .trim()
            .trim_end_matches('.');
        let mut parts = text.split(':');
        let side_token = parts.next().unwrap_or("").trim();
        let side = match side_token {
            "W" | "w" => Color::White,
            "B" | "b" => Color::Black,
            _ => return Err(err(side_token, "side to move must be W or B")),
        };
        let (mut masks, mut seen) = ([0u32; 2], [false; 2]);
        let mut kings = 0u32;
        for part in parts {
            let part = part.trim();
            let (color, list) = match part.chars().next() {
                Some('W') | Some('w') => (0, &part[1..]),
                Some('B') | Some('b') => (1, &part[1..]),
                None => return Err(err(part, "empty section between ':'")),
                _ => return Err(err(part, "piece list must start with W or B")),
            };
            if seen[color] {
                return Err(err(part, "this side's pieces are listed twice"));
            }
            seen[color] = true;
            for token in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                let (king, squares_text) = match token.strip_prefix(['K', 'k']) {
                    Some(rest) => (true, rest),
                    None => (false, token),
                };
                let squares = parse_squares(squares_text)
                    .ok_or_else(|| err(token, "not a dark square or range of squares"))?;
                if (masks[0] | masks[1]) & squares != 0 {
                    return Err(err(token, "square already occupied"));
                }
                if !king && squares & MAN_FORBIDDEN[color] != 0 {
                    return Err(err(
                        token,
                        "a man cannot stand on its promotion rank (mark it K)",
                    ));
                }
                masks[color] |= squares;
                if king {
                    kings |= squares;
                }
            }
        }
        for (color, letter) in [(0, 'W'), (1, 'B')] {
            if !seen[color] {
                return Err(err(text, &format!("the {letter} piece list is missing")));
            }
            let count = masks[color].count_ones();
            if count > MAX_PIECES_PER_SIDE {
                return Err(err(
                    text,
                    &format!(
                        "{letter} has {count} pieces; a side has at most {MAX_PIECES_PER_SIDE} (men and kings)"
                    ),
                ));
            }
        }
        Position::from_masks(masks[0], masks[1], kings, side).map_err(|reason| err(text, &reason))
    }

    /// Writes the algebraic PDN FEN, squares in index order (a1 first).
    pub fn to_fen(&self) -> String {
        let mut out = String::new();
        out.push(match self.side_to_move() {
            Color::White => 'W',
            Color::Black => 'B',
        });
        for (letter, mask) in [('W', self.white()), ('B', self.black())] {
            out.push(':');
            out.push(letter);
            for (i, sq) in Squares(mask).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if self.kings() & sq.bit() != 0 {
                    out.push('K');
                }
                let _ = write!(out, "{sq}");
            }
        }
        out
    }
}

/// A side starts with 12 men and never gains pieces (promotion turns a man
/// into a king).
const MAX_PIECES_PER_SIDE: u32 = 12;

/// Where men of each colour (white, black) cannot stand: their promotion rank.
const MAN_FORBIDDEN: [u32; 2] = [RANK_8, RANK_1];

/// One square (`c3`, `22`) or a numeric range (`1-12`) as a mask.
fn parse_squares(text: &str) -> Option<u32> {
    if let Some((a, b)) = text.split_once('-') {
        let (a, b) = (a.trim().parse::<u8>().ok()?, b.trim().parse::<u8>().ok()?);
        if a == 0 || a > b || b > 32 {
            return None;
        }
        return Some(
            (a..=b)
                .map(|n| Square::from_number(n).map_or(0, |s| s.bit()))
                .fold(0, |m, b| m | b),
        );
    }
    Square::parse(text).map(Square::bit)
}
