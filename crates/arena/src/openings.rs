//! Opening books: the built-in books ([`BuiltinBook`]: the unbalanced book
//! that `match`, `rate` and the gate use by default, and the usual Russian
//! checkers openings), or a user file, either PDN (each game's start
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
//! The formats are read by `shashki_rules::book` (self-play's start books
//! read them too). Openings are balloted: [`OpeningBook::ballot`] shuffles
//! the book with a seed, and the match runner plays each drawn opening
//! twice with colours swapped.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use shashki_rules::book;
use std::path::Path;

pub use shashki_rules::book::{Opening, OpeningError};

/// The usual openings (`data/openings.txt`).
const USUAL_BOOK: &str = include_str!("../data/openings.txt");
/// The unbalanced book of issue 34, cut by `shashki book select` from the
/// scored pool (provenance in `books/README.md`).
const UNBALANCED_BOOK: &str = include_str!("../../../books/unbalanced.txt");

/// How a built-in book is named where a book file could be: `builtin:usual`.
pub const BUILTIN_PREFIX: &str = "builtin:";

/// The books compiled into the binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinBook {
    /// Positions a deep search scores inside a band of advantage for one
    /// side (the held-out test part, never self-play starts): most games
    /// are decided, so a match resolves a difference in far fewer games.
    /// The default of `match`, `rate` and the training gate.
    Unbalanced,
    /// The 17 usual openings of Russian checkers; most games between good
    /// engines are drawn (kept for matches where that is the convention).
    Usual,
}

impl BuiltinBook {
    /// Every built-in book.
    pub const ALL: [BuiltinBook; 2] = [BuiltinBook::Unbalanced, BuiltinBook::Usual];

    /// The name after [`BUILTIN_PREFIX`].
    pub fn name(self) -> &'static str {
        match self {
            BuiltinBook::Unbalanced => "unbalanced",
            BuiltinBook::Usual => "usual",
        }
    }

    fn text(self) -> &'static str {
        match self {
            BuiltinBook::Unbalanced => UNBALANCED_BOOK,
            BuiltinBook::Usual => USUAL_BOOK,
        }
    }

    /// The book a `builtin:NAME` source names, if it is one.
    pub fn from_source(source: &str) -> Option<Result<BuiltinBook, OpeningError>> {
        let name = source.strip_prefix(BUILTIN_PREFIX)?;
        Some(
            BuiltinBook::ALL
                .into_iter()
                .find(|b| b.name() == name)
                .ok_or_else(|| OpeningError {
                    source_name: "--openings".into(),
                    line: 0,
                    text: source.to_string(),
                    reason: format!(
                        "no built-in book named `{name}` (the built-in books: {})",
                        BuiltinBook::ALL.map(|b| b.name()).join(", ")
                    ),
                }),
        )
    }
}

/// The book `match`, `rate` and the gate open from when none is named.
pub const DEFAULT_BOOK: BuiltinBook = BuiltinBook::Unbalanced;

/// A list of openings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningBook {
    /// Where the book comes from, for reports: `builtin:NAME`, or the
    /// file's path.
    pub name: String,
    /// The openings, in file order.
    pub openings: Vec<Opening>,
}

impl OpeningBook {
    /// A built-in book (each validated by a test), named `builtin:NAME`.
    pub fn builtin(which: BuiltinBook) -> OpeningBook {
        let name = format!("{BUILTIN_PREFIX}{}", which.name());
        match OpeningBook::parse_lines(which.text(), &name) {
            Ok(book) => book,
            // The files are part of the crate and checked by its tests.
            Err(e) => unreachable!("the built-in opening book is broken: {e}"),
        }
    }

    /// The default book ([`DEFAULT_BOOK`]).
    pub fn default_book() -> OpeningBook {
        OpeningBook::builtin(DEFAULT_BOOK)
    }

    /// The book a command line names: `builtin:NAME` or a file ([`load`](Self::load)).
    pub fn open(source: &Path) -> Result<OpeningBook, OpeningError> {
        match source.to_str().and_then(BuiltinBook::from_source) {
            Some(which) => Ok(OpeningBook::builtin(which?)),
            None => OpeningBook::load(source),
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
        Ok(OpeningBook {
            name: path.display().to_string(),
            openings: book::read_book(path)?,
        })
    }

    /// Reads the line format (see the module docs).
    pub fn parse_lines(text: &str, source_name: &str) -> Result<OpeningBook, OpeningError> {
        Ok(OpeningBook {
            name: source_name.to_string(),
            openings: book::parse_book_lines(text, source_name)?,
        })
    }

    /// Reads a PDN file: each game's start and moves form an opening, named
    /// by its `Opening` or `Event` tag. Any broken game is an error.
    pub fn parse_pdn(text: &str, source_name: &str) -> Result<OpeningBook, OpeningError> {
        Ok(OpeningBook {
            name: source_name.to_string(),
            openings: book::parse_book_pdn(text, source_name)?,
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

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_rules::{DrawRules, Position};

    #[test]
    fn usual_book_replays_with_the_rules() {
        let book = OpeningBook::parse_lines(USUAL_BOOK, "builtin:usual").unwrap();
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

    /// The band the book was cut at, centi-men (docs/RESULTS.md, issue 34).
    const UNBALANCED_BAND: std::ops::Range<i32> = 80..140;

    #[test]
    fn unbalanced_book_is_large_distinct_and_unbalanced() {
        let book = OpeningBook::default_book();
        assert_eq!(book.name, "builtin:unbalanced");
        // No opening repeats within a deterministic pairing of 1,000 games.
        assert!(book.len() >= 500, "{} openings", book.len());
        let mut positions: Vec<Position> = book.openings.iter().map(|o| o.position()).collect();
        positions.sort_by_key(|p| p.to_fen());
        positions.dedup();
        assert_eq!(positions.len(), book.len());
        // Every line keeps its deep score and depth: `-80 black d15 ...`.
        for o in &book.openings {
            let fields: Vec<&str> = o.name.split_whitespace().collect();
            let advantage: i32 = fields[0].parse().unwrap();
            assert!(UNBALANCED_BAND.contains(&advantage.abs()), "{}", o.name);
            assert_eq!(fields[2], "d15", "{}", o.name);
        }
    }

    #[test]
    fn builtin_books_open_by_name_and_unknown_names_are_errors() {
        let usual = OpeningBook::open(Path::new("builtin:usual")).unwrap();
        assert_eq!((usual.name.as_str(), usual.len()), ("builtin:usual", 17));
        let default = OpeningBook::open(Path::new("builtin:unbalanced")).unwrap();
        assert_eq!(default, OpeningBook::default_book());
        let e = OpeningBook::open(Path::new("builtin:uho")).unwrap_err();
        assert!(e.to_string().contains("unbalanced, usual"), "{e}");
        let e = OpeningBook::open(Path::new("no/such/book.txt")).unwrap_err();
        assert!(e.to_string().contains("no/such/book.txt"), "{e}");
    }

    #[test]
    fn ballot_is_seeded_and_covers_the_book() {
        let book = OpeningBook::builtin(BuiltinBook::Usual);
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
