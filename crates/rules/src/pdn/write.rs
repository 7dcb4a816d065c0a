//! Writing PDN: the roster tags, `GameType`, `FEN` when needed, the other
//! tags, then `1. c3-d4 d6-c5 2. ...` in long notation and the result.

use super::{PdnGame, ROSTER};
use crate::position::{Color, Position};
use std::fmt::{self, Write as _};
use std::io;
use std::path::Path;

/// Movetext lines are wrapped before this many characters.
const LINE_WIDTH: usize = 79;

/// Writes one game, ending with a blank line.
impl fmt::Display for PdnGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, default) in ROSTER {
            write_tag(f, name, self.tag(name).unwrap_or(default))?;
        }
        let result = self.result.map_or("*", |r| r.pdn());
        write_tag(f, "Result", result)?;
        if self.tag("GameType").is_none() {
            write_tag(f, "GameType", "25")?;
        }
        if self.start != Position::startpos() {
            write_tag(f, "FEN", &self.start.to_fen())?;
        }
        for (name, value) in &self.tags {
            let in_roster = ROSTER.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
            let derived = name.eq_ignore_ascii_case("Result") || name.eq_ignore_ascii_case("FEN");
            if !in_roster && !derived {
                write_tag(f, name, value)?;
            }
        }
        f.write_str("\n")?;
        let mut line = String::new();
        let mut push = |f: &mut fmt::Formatter<'_>, token: &str| -> fmt::Result {
            if !line.is_empty() && line.len() + 1 + token.len() > LINE_WIDTH {
                writeln!(f, "{line}")?;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(token);
            Ok(())
        };
        let mut number = 1u32;
        let mut side = self.start.side_to_move();
        for (i, mv) in self.moves.iter().enumerate() {
            let mut token = String::new();
            match side {
                Color::White => {
                    let _ = write!(token, "{number}. ");
                }
                Color::Black if i == 0 => {
                    let _ = write!(token, "{number}... ");
                }
                Color::Black => {}
            }
            let _ = write!(token, "{mv}");
            push(f, &token)?;
            if side == Color::Black {
                number += 1;
            }
            side = side.opponent();
        }
        push(f, result)?;
        writeln!(f, "{line}")?;
        writeln!(f)
    }
}

/// `[Name "value"]` with `\` and `"` escaped; line breaks become spaces
/// (a tag holds one line).
fn write_tag(f: &mut fmt::Formatter<'_>, name: &str, value: &str) -> fmt::Result {
    let escaped = value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace(['\n', '\r'], " ");
    writeln!(f, "[{name} \"{escaped}\"]")
}

/// All `games` as one PDN text, each followed by a blank line.
pub fn write_pdn(games: &[PdnGame]) -> String {
    let mut out = String::new();
    for game in games {
        let _ = write!(out, "{game}");
    }
    out
}

/// Writes `games` to `path` atomically: a temporary file in the same folder
/// is written, synced and renamed over `path`, so a reader never sees half a
/// file.
pub fn write_pdn_file(path: &Path, games: &[PdnGame]) -> io::Result<()> {
    shashki_atomic::write_atomic(path, write_pdn(games).as_bytes())
}
