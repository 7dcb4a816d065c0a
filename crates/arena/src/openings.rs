//! Opening books: the built-in book of the usual Russian checkers openings
//! (`data/openings.txt`), or a user file, either PDN (each game's start
//! position and moves are one opening) or lines of text, each one of
//!
//! - `Name | 1. c3-d4 d6-c5 2. b2-c3 f6-g5` (moves from the standard start),
//! - `Name | W:W21,22,...:B1,2,...` (a position, PDN FEN),
//! - `Name | FEN | moves` (moves from that position),
//! - a bare FEN or a bare move list (named by its line number).
//!
//! Blank lines and lines starting with `#` are skipped. Every opening is
//! replayed with the rules when it is loaded: an illegal move, a bad FEN or
//! an opening after which the game is already over is an error naming the
//! file, the line and the text.
//!
//! Openings are balloted: [`OpeningBook::ballot`] shuffles the book with a
//! seed, and the match runner plays each drawn opening twice with colours
//! swapped.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use shashki_rules::{DrawRules, Game, Move, Position, read_pdn};
use std::fmt::Write as _;
use std::path::Path;
use thiserror::Error;

/// The built-in book.
const BUILTIN_BOOK: &str = include_str!("../data/openings.txt");

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

    /// The opening as a line of a book file ([`OpeningBook::parse_lines`]
    /// reads it back): `Name | moves` from the standard start, else
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
                shashki_rules::Color::White => {
                    let _ = write!(s, "{number}. ");
                }
                shashki_rules::Color::Black => {
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
    /// The file (or "built-in book").
    pub source_name: String,
    /// Line number (1 = first), or the game number for PDN input.
    pub line: usize,
    /// The offending text.
    pub text: String,
    /// What is wrong.
    pub reason: String,
}

/// A list of openings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningBook {
    /// Where the book comes from, for reports: `built-in book`, or the
    /// file's path.
    pub name: String,
    /// The openings, in file order.
    pub openings: Vec<Opening>,
}

impl OpeningBook {
    /// The built-in book of the usual openings (validated by a test).
    pub fn builtin() -> OpeningBook {
        match OpeningBook::parse_lines(BUILTIN_BOOK, "built-in book") {
            Ok(book) => book,
            // The file is part of the crate and checked by its tests.
            Err(e) => unreachable!("the built-in opening book is broken: {e}"),
        }
    }

    /// A book of one opening: the standard start.
    pub fn startpos() -> OpeningBook {
        OpeningBook {
            name: "start position".into(),
            openings: vec![Opening::startpos()],
        }
    }

    /// Loads a file: PDN if it has tags or a `.pdn` extension, else lines.
    pub fn load(path: &Path) -> Result<OpeningBook, OpeningError> {
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
            OpeningBook::parse_pdn(&text, &name)
        } else {
            OpeningBook::parse_lines(&text, &name)
        }
    }

    /// Reads the line format (see the module docs).
    pub fn parse_lines(text: &str, source_name: &str) -> Result<OpeningBook, OpeningError> {
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
        if openings.is_empty() {
            return Err(OpeningError {
                source_name: source_name.to_string(),
                line: 0,
                text: String::new(),
                reason: "no opening found".into(),
            });
        }
        Ok(OpeningBook {
            name: source_name.to_string(),
            openings,
        })
    }

    /// Reads a PDN file: each game's start and moves form an opening, named
    /// by its `Opening` or `Event` tag. Any broken game is an error.
    pub fn parse_pdn(text: &str, source_name: &str) -> Result<OpeningBook, OpeningError> {
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
        if openings.is_empty() {
            return Err(OpeningError {
                source_name: source_name.to_string(),
                line: 0,
                text: String::new(),
                reason: "no game found".into(),
            });
        }
        Ok(OpeningBook {
            name: source_name.to_string(),
            openings,
        })
    }

    /// Number of openings.
    pub fn len(&self) -> usize {
        self.openings.len()
    }

    /// True if the book is empty (never, for a loaded book).
    pub fn is_empty(&self) -> bool {
        self.openings.is_empty()
    }

    /// Draws `count` openings by lot: the book shuffled with `seed`, then
    /// reshuffled each time it is used up, so every opening is played about
    /// equally often.
    pub fn ballot(&self, count: usize, seed: u64) -> Vec<&Opening> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut order: Vec<usize> = (0..self.openings.len()).collect();
        let mut out = Vec::with_capacity(count);
        while out.len() < count && !order.is_empty() {
            order.shuffle(&mut rng);
            for &i in &order {
                if out.len() == count {
                    break;
                }
                out.push(&self.openings[i]);
            }
        }
        out
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_book_replays_with_the_rules() {
        let book = OpeningBook::parse_lines(BUILTIN_BOOK, "built-in book").unwrap();
        assert!(book.len() >= 15, "{} openings", book.len());
        let names: Vec<&str> = book.openings.iter().map(|o| o.name.as_str()).collect();
        for name in [
            "Городская партия",
            "Отыгрыш",
            "Кол",
            "Тычок",
            "Игра Бодянского",
        ] {
            assert!(names.contains(&name), "{name} missing");
        }
        // Spot check: Городская партия ends with Black's f6-g5, White to move.
        let gorod = &book.openings[0];
        assert_eq!(gorod.moves_text(), "1. c3-d4 d6-c5 2. b2-c3 f6-g5");
        let pos = gorod.game(DrawRules::default()).position().to_fen();
        assert_eq!(pos, Position::from_fen(&pos).unwrap().to_fen());
        // Openings with captures really capture: Тычок trades two for two.
        let tychok = book.openings.iter().find(|o| o.name == "Тычок").unwrap();
        let p = *tychok.game(DrawRules::default()).position();
        assert_eq!(p.white().count_ones(), 10);
        assert_eq!(p.black().count_ones(), 10);
        // Every opening is distinct.
        let mut fens: Vec<String> = book
            .openings
            .iter()
            .map(|o| o.game(DrawRules::default()).position().to_fen())
            .collect();
        fens.sort();
        fens.dedup();
        assert_eq!(fens.len(), book.len());
    }

    #[test]
    fn line_format_accepts_fens_and_numbered_moves() {
        let text = "# comment\n\nA | 1.c3-d4 d6-c5\nW:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12\nB | W:Wc3:Bh8 | 1. c3-d4\n";
        let book = OpeningBook::parse_lines(text, "t").unwrap();
        assert_eq!(book.len(), 3);
        assert_eq!(book.openings[0].moves.len(), 2);
        assert_eq!(book.openings[1].name, "t line 4");
        assert_eq!(book.openings[1].start, Position::startpos());
        assert_eq!(book.openings[2].moves_text(), "1. c3-d4");
    }

    #[test]
    fn book_lines_read_back_as_written() {
        let from_start = Opening::from_fields("a".into(), None, "1. c3-d4 d6-c5").unwrap();
        let fen = "W:Wc3,e3:Bd6,f6";
        let position_only = Opening::from_fields("b|c".into(), Some(fen), "").unwrap();
        let fen_and_moves = Opening::from_fields("d".into(), Some(fen), "c3-d4").unwrap();
        let text: String = [&from_start, &position_only, &fen_and_moves]
            .iter()
            .map(|o| o.to_line() + "\n")
            .collect();
        assert_eq!(
            text,
            "a | 1. c3-d4 d6-c5\nb/c | W:Wc3,e3:Bd6,f6\nd | W:Wc3,e3:Bd6,f6 | 1. c3-d4\n"
        );
        let book = OpeningBook::parse_lines(&text, "t").unwrap();
        assert_eq!(book.openings[0], from_start);
        assert_eq!(book.openings[2], fen_and_moves);
        assert_eq!(book.openings[1].name, "b/c");
        assert_eq!(
            fen_and_moves.position(),
            Position::from_fen("B:Wd4,e3:Bd6,f6").unwrap()
        );
    }

    #[test]
    fn bad_openings_name_the_line() {
        let e =
            OpeningBook::parse_lines("ok | 1. c3-d4\nbad | 1. c3-d4 d6-d5\n", "f.txt").unwrap_err();
        assert_eq!((e.source_name.as_str(), e.line), ("f.txt", 2));
        assert!(e.to_string().contains("f.txt:2"), "{e}");
        let e = OpeningBook::parse_lines("x | W:Wz9:B1", "f").unwrap_err();
        assert!(e.reason.contains("FEN"), "{e}");
        // A position where White has no move: the game is over at once.
        let e = OpeningBook::parse_lines("over | W:Wh2:Bg3,f4", "f").unwrap_err();
        assert!(e.reason.contains("over"), "{e}");
        assert!(OpeningBook::parse_lines("# nothing\n", "f").is_err());
    }

    #[test]
    fn pdn_books_load() {
        let text = "[Event \"Sample\"]\n[Result \"*\"]\n\n1. c3-d4 d6-c5 2. b2-c3 *\n\n[Opening \"Named\"]\n\n1. g3-h4 *\n";
        let book = OpeningBook::parse_pdn(text, "b.pdn").unwrap();
        assert_eq!(book.len(), 2);
        assert_eq!(book.openings[0].name, "Sample");
        assert_eq!(book.openings[0].moves.len(), 3);
        assert_eq!(book.openings[1].name, "Named");
        let e = OpeningBook::parse_pdn("1. c3-c4 *\n", "b.pdn").unwrap_err();
        assert!(e.to_string().contains("b.pdn"), "{e}");
    }

    #[test]
    fn ballot_is_seeded_and_covers_the_book() {
        let book = OpeningBook::builtin();
        let a: Vec<&str> = book.ballot(40, 5).iter().map(|o| o.name.as_str()).collect();
        let b: Vec<&str> = book.ballot(40, 5).iter().map(|o| o.name.as_str()).collect();
        let c: Vec<&str> = book.ballot(40, 6).iter().map(|o| o.name.as_str()).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        // The first len() draws are a permutation of the book.
        let mut first: Vec<&str> = a[..book.len()].to_vec();
        first.sort();
        first.dedup();
        assert_eq!(first.len(), book.len());
    }
}
