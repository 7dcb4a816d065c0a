//! The endgame tablebases as the searches see them (docs/TABLEBASES.md).
//!
//! A position in the loaded tables has an exact value under the official
//! draw rules, given its draw counters: MCTS makes it a solved node, the
//! alpha-beta search an exact score. The tables' distance is a DTZ
//! (half-moves to the next capture, promotion or end of the game), not a
//! distance to the end of the game, so it is never reported as `mate N`:
//! reports say `tb win N` / `tb loss N` / `tb draw`
//! ([`Score::TbWin`] and its kin).

use crate::engine::Score;
use shashki_rules::{Color, Game, Move};
pub use shashki_tablebase::{Probe, Tablebases, Wdl as TbWdl};
use std::path::Path;
use std::sync::Arc;

/// The most pieces `--tablebase DIR` loads: every table the folder holds
/// (the generator makes up to 5 pieces under the official rules).
pub const MAX_TABLEBASE_PIECES: u8 = 5;

/// Probes the current position of `game` under its draw counters; `None`
/// when it is not in the loaded tables (too many pieces, a missing or
/// damaged table, a side without pieces: the arbiter has ended that game).
#[inline]
pub fn probe(tb: &Tablebases, game: &Game) -> Option<Probe> {
    let pos = game.position();
    let pieces = pos.pieces(Color::White).count_ones() + pos.pieces(Color::Black).count_ones();
    if pieces > u32::from(tb.max_pieces()) {
        return None;
    }
    tb.probe(pos, game.counters())
}

/// The distance a search gives a tablebase win or loss at a node reached
/// by `last_move`: its DTZ, or 0 when that move was itself a capture or
/// promotion (the conversion the DTZ counts to has just happened). Counted
/// this way, a winner who takes the shortest distance converts at once
/// when he can and otherwise lowers the DTZ every move, so it never
/// wanders between tables or into a repetition; at a tablebase root the
/// best move's distance plus one is the root's own DTZ.
pub fn distance(probe: &Probe, last_move: Option<&Move>) -> u32 {
    if last_move.is_some_and(|mv| mv.is_capture() || mv.promotes()) {
        0
    } else {
        probe.dtz.unwrap_or(0)
    }
}

/// Longest line [`extend_line`] adds.
pub const MAX_LINE_PLIES: usize = 40;

/// Lengthens a principal variation `line` from `game` through the tables:
/// once the line stands in them, the tables' best move follows (the
/// winner's fastest, the loser's slowest; the first in generator order),
/// until the game ends, the tables no longer cover it or say draw, or
/// [`MAX_LINE_PLIES`] are added. The searches stop at tablebase nodes, so
/// without this a line would end where the tables begin.
pub fn extend_line(tb: &Tablebases, game: &Game, line: &mut Vec<Move>) {
    let mut game = game.clone();
    for mv in line.iter() {
        game.play(mv);
    }
    for _ in 0..MAX_LINE_PLIES {
        if game.outcome().is_some() {
            break;
        }
        let Some((probe, moves)) = tb.best_moves(game.position(), game.counters()) else {
            break;
        };
        if probe.wdl == TbWdl::Draw {
            break; // any drawing move would do: no line to show
        }
        let Some(&mv) = moves.first() else {
            break;
        };
        game.play(&mv);
        line.push(mv);
    }
}

/// A probe as a report score: `tb win N`, `tb loss N` (N the DTZ) or
/// `tb draw`.
pub fn score_of(probe: &Probe) -> Score {
    match (probe.wdl, probe.dtz) {
        (TbWdl::Win, Some(d)) => Score::TbWin(d),
        (TbWdl::Loss, Some(d)) => Score::TbLoss(d),
        _ => Score::TbDraw,
    }
}

/// Loads the tables of up to `max_pieces` pieces in `dir` for searches of
/// games under `rules`, for `--tablebase DIR`: an error names the folder
/// when nothing usable is there or a table is damaged (a damaged table
/// would silently leave its positions out).
pub fn load(
    dir: &Path,
    rules: shashki_rules::DrawRules,
    max_pieces: u8,
) -> Result<Arc<Tablebases>, String> {
    if !dir.is_dir() {
        return Err(format!("{}: no such folder", dir.display()));
    }
    let (tb, errors) = Tablebases::load(dir, rules, max_pieces);
    if let Some(first) = errors.first() {
        return Err(format!(
            "{}: {} damaged table(s), first: {first} (regenerate with `shashki tb generate`)",
            dir.display(),
            errors.len()
        ));
    }
    if tb.is_empty() {
        return Err(format!(
            "{}: no tablebase file for these draw rules (make them with `shashki tb generate --out {}`)",
            dir.display(),
            dir.display()
        ));
    }
    Ok(Arc::new(tb))
}
