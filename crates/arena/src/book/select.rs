//! The cheap part of making a book: the pool's deep scores in a band of
//! advantage, one held-out part, written as a book `match --openings`
//! reads. Each line is named by what the pool knows of it, e.g.
//! `+112 white d15 line ply 6 #3f2a9c1b`: White's advantage in centi-men,
//! the side it favours, the depth of the deep search, the source and the
//! position's key, so a book can be re-cut or checked without searching
//! again.

use super::pool::{PoolContents, Scored};
use super::{BookError, Part, ScoreBand};
use crate::openings::OpeningBook;
use shashki_rules::Color;
use std::fmt::Write as _;
use std::path::Path;

/// Which positions go into a book.
#[derive(Clone, Debug)]
pub struct Selection {
    /// The band of advantage (the absolute deep score, centi-men).
    pub band: ScoreBand,
    /// Only positions that favour this side; `None`: either side.
    pub favours: Option<Color>,
    /// Only this held-out part; `None`: both.
    pub part: Option<Part>,
    /// The share of all positions in the test part ([`Part::of`]).
    pub test_share: f64,
    /// Only deep scores of at least this depth.
    pub min_depth: u32,
}

/// The pool's deep-scored positions that `selection` takes, by advantage
/// then key (so the same pool and selection give the same file).
pub fn select<'a>(pool: &'a PoolContents, selection: &Selection) -> Vec<&'a Scored> {
    let mut chosen: Vec<&Scored> = pool
        .deep
        .iter()
        .filter(|r| r.depth >= selection.min_depth)
        .filter(|r| {
            r.white_cp
                .is_some_and(|cp| selection.band.contains(cp.abs()))
        })
        .filter(|r| match selection.favours {
            None => true,
            Some(Color::White) => r.favours == "white",
            Some(Color::Black) => r.favours == "black",
        })
        .filter(|r| {
            selection.part.is_none_or(|part| {
                r.position()
                    .is_ok_and(|p| Part::of(&p, selection.test_share) == part)
            })
        })
        .collect();
    chosen.sort_by_key(|r| (r.white_cp.map(i32::abs), r.key.clone()));
    chosen
}

/// The book's line for `record`: its opening, named by score, side,
/// depth, source and key.
fn book_line(record: &Scored) -> Result<String, String> {
    let cp = record.white_cp.unwrap_or(0);
    let name = format!(
        "{cp:+} {} d{} {} #{}",
        record.favours,
        record.depth,
        record.source,
        &record.key[..8.min(record.key.len())]
    );
    Ok(record.opening(name)?.to_line())
}

/// Writes `chosen` as a book file at `path` (atomically), `heading` as its
/// first comment lines, and checks that it reads back as a book of as many
/// openings.
pub fn write_book(path: &Path, chosen: &[&Scored], heading: &str) -> Result<(), BookError> {
    let mut text = String::new();
    for line in heading.lines() {
        let _ = writeln!(text, "# {line}");
    }
    for record in chosen {
        let line = book_line(record).map_err(|reason| BookError::Input {
            path: path.to_path_buf(),
            reason: format!("pool position {}: {reason}", record.key),
        })?;
        let _ = writeln!(text, "{line}");
    }
    let book = OpeningBook::parse_lines(&text, &path.display().to_string()).map_err(|e| {
        BookError::Input {
            path: path.to_path_buf(),
            reason: format!("the book does not read back: {e}"),
        }
    })?;
    if book.len() != chosen.len() {
        return Err(BookError::Input {
            path: path.to_path_buf(),
            reason: format!(
                "{} openings read back of {} written",
                book.len(),
                chosen.len()
            ),
        });
    }
    shashki_atomic::write_atomic(path, text.as_bytes()).map_err(|e| BookError::io(path, e))
}

/// How many deep-scored positions of each held-out part lie in each band
/// of advantage `step` wide (the last band takes everything above), and
/// how many are won or lost: what a band choice would yield.
pub fn histogram(pool: &PoolContents, step: i32, top: i32, test_share: f64) -> String {
    let step = step.max(1);
    let bands = (top / step).max(1) as usize;
    // [band][test, train]
    let mut counts = vec![[0usize; 2]; bands + 1];
    let mut decided = [0usize; 2];
    for record in &pool.deep {
        let Ok(position) = record.position() else {
            continue;
        };
        let part = usize::from(Part::of(&position, test_share) == Part::Train);
        match record.white_cp {
            Some(cp) => counts[((cp.abs() / step) as usize).min(bands)][part] += 1,
            None => decided[part] += 1,
        }
    }
    let mut out = format!(
        "{} deep scores, {} screened\nadvantage   test  train\n",
        pool.deep.len(),
        pool.screen.len()
    );
    for (i, [test, train]) in counts.iter().enumerate() {
        let low = i as i32 * step;
        let band = if i == bands {
            format!("{low}..")
        } else {
            format!("{low}..{}", low + step)
        };
        let _ = writeln!(out, "{band:<10} {test:>5} {train:>6}");
    }
    let _ = writeln!(
        out,
        "{:<10} {:>5} {:>6}",
        "won/lost", decided[0], decided[1]
    );
    out
}
