//! Retrograde generation, one pair of signatures (a material and its
//! colour swap, which its quiet moves lead to) at a time, in an order where
//! every capture and promotion leads to a table already made.
//!
//! A node is a position (White to move after flipping) and, where 7.2.7
//! can run, the main-diagonal count left. Captures and promotions leave the
//! pair: they are judged at once by the smaller tables with fresh counts.
//! Then a level-synchronous retrograde pass (parallel over each level's
//! nodes) finds, for every node, the half-moves to the next capture,
//! promotion or end of the game with best play: a node is won at `n + 1`
//! when a successor is lost at `n`, lost at `n + 1` when its last
//! successor not yet known to be won turns out won at `n`. Nodes never
//! reached are draws.

use crate::Entry;
use crate::counting::{Counting, Unsupported, check_supported, main_diagonal_holds};
use crate::format::{self, TableError};
use crate::index::Indexer;
use crate::material::Material;
use crate::probe::{Table, Tablebases, Wdl, canonical};
use rayon::prelude::*;
use shashki_rules::bitboard::{Direction, NEIGHBOUR, NONE};
use shashki_rules::{Color, DrawRules, Position, king_vs_king_is_dead};
use std::path::Path;
use std::sync::atomic::{AtomicU8, AtomicU16, Ordering::Relaxed};
use std::time::Instant;

const UNKNOWN: u8 = 0;
const WIN: u8 = 1;
const LOSS: u8 = 2;
const DRAW: u8 = 3;

/// Generation failed.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The draw rules ask for more than the tables can represent.
    #[error("these draw rules cannot be represented exactly: {0}")]
    Unsupported(Unsupported),
    /// Writing a table failed.
    #[error(transparent)]
    Table(#[from] TableError),
    /// More pieces than the generator handles.
    #[error("at most {max} pieces per table are supported, asked for {asked}")]
    TooManyPieces {
        /// The request.
        asked: u8,
        /// The limit.
        max: u8,
    },
}

/// Largest table size the generator accepts (the index and counts are
/// sized for it; 7 pieces would need a wider counter per node too).
pub const MAX_PIECES: u8 = 6;

/// Progress of [`generate`], for a progress bar.
#[derive(Clone, Debug)]
pub enum Progress {
    /// A pair starts: its materials and nodes, and its place in the order.
    Start {
        /// 0-based index of the pair.
        pair: usize,
        /// Pairs in all.
        pairs: usize,
        /// The signatures of the pair.
        materials: Vec<Material>,
        /// Entries of the pair, all tables.
        entries: u64,
    },
    /// A pair is done (made or found on disk).
    Done(Vec<TableReport>),
}

/// What one table holds, for reports and benchmarks.
#[derive(Clone, Debug)]
pub struct TableReport {
    /// The signature.
    pub material: Material,
    /// Entries (positions times main-diagonal slots, unused ones included).
    pub entries: u64,
    /// Size of the file in bytes.
    pub bytes: u64,
    /// Entries won, drawn and lost for the side to move (fresh counts;
    /// unused indices count as draws).
    pub wins: u64,
    /// See `wins`.
    pub draws: u64,
    /// See `wins`.
    pub losses: u64,
    /// The longest stored distance.
    pub max_dtz: u32,
    /// Seconds spent making it (0 when read back from disk).
    pub seconds: f64,
    /// False when a valid file was already there (a resumed generation).
    pub generated: bool,
}

impl TableReport {
    fn of(table: &Table, seconds: f64, generated: bool) -> TableReport {
        let (mut wins, mut draws, mut losses, mut max_dtz) = (0, 0, 0, 0);
        for e in &table.entries {
            let (wdl, d) = e.decode();
            match wdl {
                Wdl::Win => wins += 1,
                Wdl::Draw => draws += 1,
                Wdl::Loss => losses += 1,
            }
            max_dtz = max_dtz.max(d);
        }
        TableReport {
            material: table.material,
            entries: table.entries.len() as u64,
            bytes: table.entries.len() as u64 + 52,
            wins,
            draws,
            losses,
            max_dtz,
            seconds,
            generated,
        }
    }
}

/// Makes every table of up to `max_pieces` pieces under `rules` in `dir`.
/// Tables already there and valid are read back instead (so a killed run
/// restarts at the pair it was on); each new file is written atomically.
/// Returns every table loaded, ready to probe.
pub fn generate(
    dir: &Path,
    max_pieces: u8,
    rules: &DrawRules,
    progress: &mut dyn FnMut(Progress),
) -> Result<Tablebases, GenerateError> {
    if max_pieces > MAX_PIECES {
        return Err(GenerateError::TooManyPieces {
            asked: max_pieces,
            max: MAX_PIECES,
        });
    }
    check_supported(rules, max_pieces).map_err(GenerateError::Unsupported)?;
    let mut tb = Tablebases::empty(*rules);
    let pairs = Material::pairs_up_to(max_pieces);
    for (i, materials) in pairs.iter().enumerate() {
        let entries = materials
            .iter()
            .map(|&m| Indexer::new(m).len() * Counting::of(m, rules).slots() as u64)
            .sum();
        progress(Progress::Start {
            pair: i,
            pairs: pairs.len(),
            materials: materials.clone(),
            entries,
        });
        let existing: Option<Vec<Table>> = materials
            .iter()
            .map(|&m| Table::read(&dir.join(m.file_name()), m, rules).ok())
            .collect();
        let reports = match existing {
            Some(tables) => tables
                .into_iter()
                .map(|t| {
                    let report = TableReport::of(&t, 0.0, false);
                    tb.insert(t);
                    report
                })
                .collect(),
            None => {
                let start = Instant::now();
                let tables = solve_pair(materials, &tb, rules);
                let seconds = start.elapsed().as_secs_f64();
                let mut reports = Vec::new();
                for t in tables {
                    let path = dir.join(t.material.file_name());
                    let bytes =
                        format::encode(t.material, rules, t.counting.slots() as u32, &t.entries);
                    shashki_atomic::write_atomic(&path, &bytes)
                        .map_err(|source| TableError::Io { path, source })?;
                    reports.push(TableReport::of(&t, seconds, true));
                    tb.insert(t);
                }
                reports
            }
        };
        progress(Progress::Done(reports));
    }
    Ok(tb)
}

/// Re-reads every table up to `max_pieces` in `dir` (header, size,
/// checksum) and re-checks `samples` random positions of each against its
/// successors under the rules (one step of the game's recursion). Returns
/// a report per table found and the errors.
pub fn verify(
    dir: &Path,
    rules: &DrawRules,
    max_pieces: u8,
    samples: usize,
) -> (Vec<TableReport>, Vec<String>) {
    let (tb, load_errors) = Tablebases::load(dir, *rules, max_pieces);
    let mut errors: Vec<String> = load_errors.iter().map(|e| e.to_string()).collect();
    let mut reports = Vec::new();
    let mut materials: Vec<Material> = tb.tables().map(|t| t.material()).collect();
    materials.sort_by_key(|m| (m.pieces(), m.men(), *m));
    for m in materials {
        let table = tb.table(m).expect("listed");
        reports.push(TableReport::of(table, 0.0, false));
        if let Err(e) = crate::probe::check_sample(&tb, table, samples) {
            errors.push(format!("{}: {e}", m.file_name()));
        }
    }
    (reports, errors)
}

/// The nodes of one pair: per table its material, counting, indexer and
/// first node id.
struct Pair {
    tables: Vec<(Material, Counting, Indexer, u64)>,
    status: Vec<AtomicU8>,
    counter: Vec<AtomicU8>,
    dist: Vec<AtomicU16>,
}

impl Pair {
    fn table_of(&self, m: Material) -> usize {
        self.tables
            .iter()
            .position(|t| t.0 == m)
            .expect("a quiet move stays in the pair")
    }

    fn node(&self, t: usize, pos: &Position, slot: usize) -> usize {
        let (_, counting, indexer, offset) = &self.tables[t];
        *offset as usize + indexer.index(pos) as usize * counting.slots() + slot
    }
}

/// The slot after a quiet move from slot `from` (parent holds 7.2.7's
/// condition or not) to a child that holds it or not.
#[inline]
fn next_slot(limit: usize, parent_holds: bool, from: usize, child_holds: bool) -> usize {
    match (child_holds, parent_holds) {
        (false, _) => 0,
        (true, true) => from - 1,
        (true, false) => limit,
    }
}

/// The live slots of a position: the counts left while 7.2.7 runs (0 has
/// fired: a draw, no moves), else the single slot 0.
fn live_slots(limit: usize, holds: bool) -> std::ops::RangeInclusive<usize> {
    if holds { 1..=limit } else { 0..=0 }
}

fn solve_pair(materials: &[Material], smaller: &Tablebases, rules: &DrawRules) -> Vec<Table> {
    let mut tables = Vec::new();
    let mut offset = 0u64;
    for &m in materials {
        let counting = Counting::of(m, rules);
        let indexer = Indexer::new(m);
        tables.push((m, counting, indexer, offset));
        offset += indexer.len() * counting.slots() as u64;
    }
    let n = offset as usize;
    let pair = Pair {
        tables,
        status: (0..n).map(|_| AtomicU8::new(DRAW)).collect(),
        counter: (0..n).map(|_| AtomicU8::new(0)).collect(),
        dist: (0..n).map(|_| AtomicU16::new(0)).collect(),
    };
    let mut levels = initialise(&pair, smaller, rules);
    let mut level = 0;
    let mut frontier = std::mem::take(&mut levels[0]);
    while !frontier.is_empty() || level + 1 < levels.len() {
        let mut next: Vec<usize> = frontier
            .par_iter()
            .fold(Vec::new, |mut out, &node| {
                propagate(&pair, node, level, &mut out);
                out
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
        level += 1;
        if let Some(seeds) = levels.get_mut(level) {
            next.append(seeds);
        }
        frontier = next;
    }
    pair.tables
        .iter()
        .map(|&(material, counting, indexer, offset)| {
            let len = indexer.len() as usize * counting.slots();
            let range = offset as usize..offset as usize + len;
            let entries = range
                .into_par_iter()
                .map(|i| {
                    let d = u32::from(pair.dist[i].load(Relaxed));
                    match pair.status[i].load(Relaxed) {
                        WIN => Entry::win(d),
                        LOSS => Entry::loss(d),
                        _ => Entry::DRAW,
                    }
                })
                .collect();
            Table {
                material,
                counting,
                indexer,
                entries,
            }
        })
        .collect()
}

/// Judges every node's moves that leave the pair and counts the others.
/// Returns the nodes decided outright, by distance: `[0]` lost (no move),
/// `[1]` won by a capture or promotion, or lost because every move is one
/// that loses.
fn initialise(pair: &Pair, smaller: &Tablebases, rules: &DrawRules) -> Vec<Vec<usize>> {
    let mut levels = vec![Vec::new(), Vec::new()];
    for &(material, counting, indexer, _) in &pair.tables {
        let t = pair.table_of(material);
        let limit = counting.main_diagonal_limit.map_or(0, usize::from);
        let found = (0..indexer.len())
            .into_par_iter()
            .fold(
                || [Vec::new(), Vec::new()],
                |mut out, idx| {
                    if let Some(pos) = indexer.position(idx) {
                        let holds = limit > 0 && main_diagonal_holds(&pos);
                        let first = pair.node(t, &pos, 0);
                        init_position(pair, smaller, rules, &pos, first, holds, limit, &mut out);
                    }
                    out
                },
            )
            .reduce(
                || [Vec::new(), Vec::new()],
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        x.extend(y);
                    }
                    a
                },
            );
        for (level, nodes) in levels.iter_mut().zip(found) {
            level.extend(nodes);
        }
    }
    levels
}

#[allow(clippy::too_many_arguments)]
fn init_position(
    pair: &Pair,
    smaller: &Tablebases,
    rules: &DrawRules,
    pos: &Position,
    first: usize,
    holds: bool,
    limit: usize,
    out: &mut [Vec<usize>; 2],
) {
    let set = |node: usize, status: u8, dist: u16| {
        pair.status[node].store(status, Relaxed);
        pair.dist[node].store(dist, Relaxed);
    };
    let moves = pos.legal_moves();
    if moves.is_empty() {
        // Judged before any count, so every slot (a fired one too) is lost.
        let slots = if holds { 0..=limit } else { 0..=0 };
        for slot in slots {
            set(first + slot, LOSS, 0);
            out[0].push(first + slot);
        }
        return;
    }
    if rules.insufficient_material && king_vs_king_is_dead(pos) {
        return; // rule 2: a draw at once (status stays DRAW)
    }
    let (mut win_exit, mut draw_exit, mut quiet) = (false, false, 0u8);
    for mv in moves.iter() {
        if mv.is_capture() || mv.promotes() {
            match exit_value(smaller, &pos.make_move(mv)) {
                Wdl::Loss => win_exit = true,
                Wdl::Draw => draw_exit = true,
                Wdl::Win => {}
            }
        } else {
            quiet += 1;
        }
    }
    for slot in live_slots(limit, holds) {
        let node = first + slot;
        if win_exit {
            set(node, WIN, 1);
            out[1].push(node);
        } else if quiet == 0 && !draw_exit {
            set(node, LOSS, 1);
            out[1].push(node);
        } else {
            // A drawing exit is one successor that never turns won.
            pair.counter[node].store(quiet + u8::from(draw_exit), Relaxed);
            pair.status[node].store(UNKNOWN, Relaxed);
        }
    }
}

/// The value, for its side to move, of the position after a capture or
/// promotion: counts start afresh there.
fn exit_value(smaller: &Tablebases, child: &Position) -> Wdl {
    if child.pieces(child.side_to_move()) == 0 {
        return Wdl::Loss;
    }
    let canon = canonical(child);
    smaller
        .table(crate::Material::of(&canon))
        .expect("smaller tables are made first")
        .probe_fresh(&canon)
}

/// Hands the result of `node` (decided at `level`) to its predecessors.
fn propagate(pair: &Pair, node: usize, level: usize, out: &mut Vec<usize>) {
    let won = pair.status[node].load(Relaxed) == WIN;
    let next = (level + 1).min(u16::MAX as usize) as u16;
    for_each_predecessor(pair, node, |parent| {
        if pair.status[parent].load(Relaxed) != UNKNOWN {
            return;
        }
        if !won {
            if pair.status[parent]
                .compare_exchange(UNKNOWN, WIN, Relaxed, Relaxed)
                .is_ok()
            {
                pair.dist[parent].store(next, Relaxed);
                out.push(parent);
            }
        } else if pair.counter[parent].fetch_sub(1, Relaxed) == 1
            && pair.status[parent]
                .compare_exchange(UNKNOWN, LOSS, Relaxed, Relaxed)
                .is_ok()
        {
            pair.dist[parent].store(next, Relaxed);
            out.push(parent);
        }
    });
}

/// Calls `visit` with every node that has a quiet move to `node`: the
/// colour-flipped position before one of Black's quiet moves, where that
/// move was legal (no capture available), in each slot that leads here.
fn for_each_predecessor(pair: &Pair, node: usize, mut visit: impl FnMut(usize)) {
    let t = pair
        .tables
        .iter()
        .rposition(|tab| tab.3 as usize <= node)
        .expect("node in pair");
    let (material, counting, indexer, offset) = pair.tables[t];
    let slots = counting.slots();
    let local = node - offset as usize;
    let (idx, slot) = (local / slots, local % slots);
    let child = indexer
        .position(idx as u64)
        .expect("decided nodes are positions");
    let limit = counting.main_diagonal_limit.map_or(0, usize::from);
    let child_holds = limit > 0 && main_diagonal_holds(&child);
    let parent_table = pair.table_of(material.swapped());
    let (white, black, kings) = (child.white(), child.black(), child.kings());
    let empty = child.empty();
    let mut unmove = |from: u32, to: u32| {
        // Black's piece stood on `from` and moved to `to`.
        let moved = from | to;
        let black_before = black ^ moved;
        let kings_before = if kings & to != 0 {
            kings ^ moved
        } else {
            kings
        };
        let Ok(parent) = Position::from_masks(
            black_before.reverse_bits(),
            white.reverse_bits(),
            kings_before.reverse_bits(),
            Color::White,
        ) else {
            return;
        };
        if parent.has_capture() {
            return; // the quiet move was not legal there
        }
        let parent_holds = limit > 0 && main_diagonal_holds(&parent);
        let first = pair.node(parent_table, &parent, 0);
        for from_slot in live_slots(limit, parent_holds) {
            if next_slot(limit, parent_holds, from_slot, child_holds) == slot {
                visit(first + from_slot);
            }
        }
    };
    let mut rest = black;
    while rest != 0 {
        let sq = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let to = 1u32 << sq;
        if kings & to != 0 {
            for dir in Direction::ALL {
                let mut s = NEIGHBOUR[sq][dir as usize];
                while s != NONE && empty & (1 << s) != 0 {
                    unmove(1 << s, to);
                    s = NEIGHBOUR[s as usize][dir as usize];
                }
            }
        } else {
            // A Black man moves down: it came from above.
            for dir in [Direction::UpLeft, Direction::UpRight] {
                let s = NEIGHBOUR[sq][dir as usize];
                if s != NONE && empty & (1 << s) != 0 {
                    unmove(1 << s, to);
                }
            }
        }
    }
}
