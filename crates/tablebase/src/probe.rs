//! Loaded tables and probes.

use crate::Entry;
use crate::counting::{Counting, main_diagonal_holds};
use crate::format::{self, TableError};
use crate::index::Indexer;
use crate::material::Material;
use shashki_rules::splitmix::SplitMix64;
use shashki_rules::{Color, DrawCounters, DrawRules, DrawState, Move, Position};
use std::path::Path;

/// Win, draw or loss for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Wdl {
    /// The side to move loses.
    Loss = -1,
    /// A draw.
    Draw = 0,
    /// The side to move wins.
    Win = 1,
}

impl Wdl {
    /// The value for the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }

    /// +1, 0 or -1 for the side to move.
    pub fn score(self) -> i32 {
        self as i32
    }
}

/// What a probe says about a position under its draw counters.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Probe {
    /// The result with best play under the official draw rules.
    pub wdl: Wdl,
    /// For a win or loss: half-moves to the next capture, promotion or end
    /// of the game with best play (the winner hurries, the loser delays).
    /// `None` for a draw.
    pub dtz: Option<u32>,
    /// A win or loss without this signature's counting rules that they
    /// turn into a draw ("cursed win" / "blessed loss").
    pub cursed: bool,
}

/// One loaded table.
#[derive(Clone, Debug)]
pub struct Table {
    pub(crate) material: Material,
    pub(crate) counting: Counting,
    pub(crate) indexer: Indexer,
    pub(crate) entries: Vec<Entry>,
}

impl Table {
    /// The signature.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Entries (positions times slots).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True for a table without entries (never for a real signature).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry of `pos` (its material, White to move) in `slot`.
    #[inline]
    pub(crate) fn entry(&self, pos: &Position, slot: usize) -> Entry {
        let idx = self.indexer.index(pos) as usize * self.counting.slots() + slot;
        self.entries[idx]
    }

    /// The raw entries (for the file writer and statistics).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Reads the table of `material` from `path` under `rules`.
    pub fn read(path: &Path, material: Material, rules: &DrawRules) -> Result<Table, TableError> {
        let bytes = std::fs::read(path).map_err(|source| TableError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let counting = Counting::of(material, rules);
        let indexer = Indexer::new(material);
        let expected = indexer.len() * counting.slots() as u64;
        let entries = format::decode(path, bytes, material, rules, expected)?;
        Ok(Table {
            material,
            counting,
            indexer,
            entries,
        })
    }

    /// The value of canonical `pos` (this material, White to move) under
    /// `counters`; `None` if the counters contradict the position.
    #[inline]
    pub(crate) fn probe(&self, pos: &Position, counters: &DrawCounters) -> Option<Probe> {
        let holds = self.counting.main_diagonal_limit.is_some() && main_diagonal_holds(pos);
        let slot = self.counting.slot(holds, counters)?;
        let (wdl, dtz) = self.entry(pos, slot).decode();
        let budget = self.counting.budget(counters);
        if wdl == Wdl::Draw {
            return Some(Probe {
                wdl,
                dtz: None,
                cursed: false,
            });
        }
        let in_time = budget.is_none_or(|b| dtz <= b);
        Some(Probe {
            wdl: if in_time { wdl } else { Wdl::Draw },
            dtz: in_time.then_some(dtz),
            cursed: !in_time,
        })
    }

    /// The value of canonical `pos` with every count fresh (right after the
    /// capture or promotion that made this material).
    #[inline]
    pub(crate) fn probe_fresh(&self, pos: &Position) -> Wdl {
        let counters = DrawCounters::start(pos);
        self.probe(pos, &counters).map_or(Wdl::Draw, |p| p.wdl)
    }
}

/// The position with White to move: `pos` itself or its colour flip.
#[inline]
pub(crate) fn canonical(pos: &Position) -> Position {
    if pos.side_to_move() == Color::White {
        *pos
    } else {
        pos.flipped()
    }
}

/// A set of loaded tables under one set of draw rules. `Send + Sync`: load
/// once, share behind an `Arc`, probe from any thread.
#[derive(Clone, Debug)]
pub struct Tablebases {
    rules: DrawRules,
    /// Indexed by [`slot_of`]: a dense array, so a probe hashes nothing.
    tables: Vec<Option<Table>>,
    max_pieces: u8,
}

/// Material codes: 3 bits per count, up to 7 of each.
const MATERIAL_SLOTS: usize = 1 << 12;

/// The place of `m` in [`Tablebases::tables`], if its counts fit.
#[inline]
fn slot_of(m: Material) -> Option<usize> {
    let b = m.to_bytes();
    b.iter()
        .all(|&n| n < 8)
        .then(|| b.iter().fold(0usize, |acc, &n| acc << 3 | usize::from(n)))
}

impl Tablebases {
    /// An empty set (every probe answers "not in the tablebase").
    pub fn empty(rules: DrawRules) -> Tablebases {
        Tablebases {
            rules,
            tables: vec![None; MATERIAL_SLOTS],
            max_pieces: 0,
        }
    }

    pub(crate) fn insert(&mut self, table: Table) {
        self.max_pieces = self.max_pieces.max(table.material.pieces());
        let slot = slot_of(table.material).expect("tables hold at most 7 of a kind");
        self.tables[slot] = Some(table);
    }

    /// Loads every table of up to `max_pieces` pieces found in `dir` that
    /// was made for `rules`. A missing file leaves its signature out; a
    /// damaged one too, and is reported in the returned errors (probes of
    /// it answer `None`, never a wrong value).
    pub fn load(dir: &Path, rules: DrawRules, max_pieces: u8) -> (Tablebases, Vec<TableError>) {
        let mut tb = Tablebases::empty(rules);
        let mut errors = Vec::new();
        for material in Material::all_up_to(max_pieces) {
            let path = dir.join(material.file_name());
            if !path.exists() {
                continue;
            }
            match Table::read(&path, material, &rules) {
                Ok(table) => tb.insert(table),
                Err(e) => errors.push(e),
            }
        }
        (tb, errors)
    }

    /// The draw rules the tables follow. Their values hold only for games
    /// judged by the same counting rules: callers check
    /// [`Tablebases::follows`] first.
    pub fn rules(&self) -> &DrawRules {
        &self.rules
    }

    /// True if the tables' values hold for a game judged by `rules`
    /// (repetition and the length cap aside, which tables never cover).
    pub fn follows(&self, rules: &DrawRules) -> bool {
        format::rules_fingerprint(&self.rules) == format::rules_fingerprint(rules)
    }

    /// The most pieces of any loaded table.
    pub fn max_pieces(&self) -> u8 {
        self.max_pieces
    }

    /// Number of loaded tables.
    pub fn len(&self) -> usize {
        self.tables().count()
    }

    /// True when no table is loaded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The loaded table of `material`, if any.
    #[inline]
    pub fn table(&self, material: Material) -> Option<&Table> {
        self.tables.get(slot_of(material)?)?.as_ref()
    }

    /// Every loaded table.
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.tables.iter().flatten()
    }

    /// The value of `pos` under its draw counters (what
    /// [`shashki_rules::Game::counters`] returns), or `None` when the
    /// position is not in the loaded tables (too many pieces, a side
    /// without pieces, a missing or damaged file) or the counters
    /// contradict it. O(1): one index computation and one memory read.
    #[inline]
    pub fn probe(&self, pos: &Position, counters: &DrawCounters) -> Option<Probe> {
        if pos.pieces(Color::White) == 0 || pos.pieces(Color::Black) == 0 {
            return None;
        }
        let canon = canonical(pos);
        let table = self.table(Material::of(&canon))?;
        table.probe(&canon, counters)
    }

    /// The result of `pos` when only its [`DrawState`] is known (what the
    /// search and the network see): exact except where 7.2.7's count runs
    /// beside a balance count and `plies_to_draw` cannot tell which is
    /// nearer and the two readings differ; then `None`. Repetition is the
    /// caller's: a third occurrence has already ended the game.
    pub fn probe_draw_state(&self, pos: &Position, state: &DrawState) -> Option<Wdl> {
        if pos.pieces(Color::White) == 0 || pos.pieces(Color::Black) == 0 {
            return None;
        }
        let canon = canonical(pos);
        let table = self.table(Material::of(&canon))?;
        let c = table.counting;
        // Counters that leave `budget` half-moves to the balance rules and
        // `diagonal` counted half-moves to 7.2.7; `None` when the budget
        // contradicts the material.
        let with = |budget: Option<u32>, diagonal: Option<u32>| {
            let used = match (c.balance_limit, budget) {
                (Some(limit), Some(b)) => limit.saturating_sub(b),
                (None, None) => 0,
                _ => return None,
            };
            let counters = DrawCounters {
                reversible: used,
                balance: used,
                main_diagonal: diagonal,
            };
            table.probe(&canon, &counters).map(|p| p.wdl)
        };
        let p = state.plies_to_draw.map(u32::from);
        let holds = c.main_diagonal_limit.is_some() && main_diagonal_holds(&canon);
        if !holds {
            return with(p, None);
        }
        // 7.2.7 runs: plies_to_draw is the nearer of the two budgets.
        let md_limit = u32::from(c.main_diagonal_limit.expect("holds"));
        let p = p?;
        let counted = md_limit.saturating_sub(p);
        let Some(limit) = c.balance_limit else {
            return with(None, Some(counted));
        };
        let tight = with(Some(p), Some(counted))?;
        let diagonal_fresh = with(Some(p), Some(0))?;
        let balance_fresh = with(Some(limit), Some(counted))?;
        (tight == diagonal_fresh && tight == balance_fresh).then_some(tight)
    }

    /// The value of the position after a move, for the side to move there:
    /// a side left without pieces has lost.
    pub(crate) fn child_probe(&self, child: &Position, counters: &DrawCounters) -> Option<Probe> {
        if child.pieces(child.side_to_move()) == 0 {
            return Some(Probe {
                wdl: Wdl::Loss,
                dtz: Some(0),
                cursed: false,
            });
        }
        self.probe(child, counters)
    }

    /// The best moves of `pos` under `counters`, with the value each keeps:
    /// for a win the moves that win fastest to the next capture or
    /// promotion (or capture/promote now), for a loss those that delay it
    /// most, for a draw every drawing move, none when the side to move has
    /// no legal move (a loss). `None` if `pos` or a successor is not in the
    /// loaded tables.
    pub fn best_moves(
        &self,
        pos: &Position,
        counters: &DrawCounters,
    ) -> Option<(Probe, Vec<Move>)> {
        let here = self.probe(pos, counters)?;
        let mut scored = Vec::new();
        for mv in pos.legal_moves().iter() {
            let child = pos.make_move(mv);
            let after = counters.after(pos, mv, &child);
            let reply = self.child_probe(&child, &after)?;
            let zeroing = mv.is_capture() || mv.promotes() || reply.dtz == Some(0);
            let dtz = if zeroing {
                1
            } else {
                reply.dtz.map_or(0, |d| d + 1)
            };
            scored.push((*mv, reply.wdl.flip(), dtz));
        }
        let keep: Vec<Move> = match here.wdl {
            Wdl::Win => {
                let best = scored
                    .iter()
                    .filter(|s| s.1 == Wdl::Win)
                    .map(|s| s.2)
                    .min()?;
                scored
                    .iter()
                    .filter(|s| s.1 == Wdl::Win && s.2 == best)
                    .map(|s| s.0)
                    .collect()
            }
            Wdl::Draw => scored
                .iter()
                .filter(|s| s.1 == Wdl::Draw)
                .map(|s| s.0)
                .collect(),
            // No legal move at all is a loss with no best move to show.
            Wdl::Loss => {
                let worst = scored.iter().map(|s| s.2).max();
                scored
                    .iter()
                    .filter(|s| Some(s.2) == worst)
                    .map(|s| s.0)
                    .collect()
            }
        };
        Some((here, keep))
    }
}

impl Tablebases {
    /// Checks the probe of `pos` under `counters` against one step of the
    /// game under the rules: no legal move loses, a count that has fired
    /// (or rule 2) draws, else the best of the successors' probes (with the
    /// counters [`DrawCounters::after`] gives). Together over all
    /// positions and counters this is the game's full recursion: the
    /// counts make every line finite, so the only values that pass are the
    /// true ones.
    pub fn check(&self, pos: &Position, counters: &DrawCounters) -> Result<(), String> {
        let got = self
            .probe(pos, counters)
            .ok_or_else(|| format!("{} not in the tablebase", pos.to_fen()))?;
        let moves = pos.legal_moves();
        let expected = if moves.is_empty() {
            Wdl::Loss
        } else if self.rules.counting_verdict(pos, counters).is_some() {
            Wdl::Draw
        } else {
            let mut best = Wdl::Loss;
            for mv in moves.iter() {
                let child = pos.make_move(mv);
                let after = counters.after(pos, mv, &child);
                let reply = self.child_probe(&child, &after).ok_or_else(|| {
                    format!("{} (after {mv}) not in the tablebase", child.to_fen())
                })?;
                if reply.wdl.flip().score() > best.score() {
                    best = reply.wdl.flip();
                }
            }
            best
        };
        if got.wdl == expected {
            Ok(())
        } else {
            Err(format!(
                "{} with {counters:?}: table says {:?}, its moves say {expected:?}",
                pos.to_fen(),
                got.wdl
            ))
        }
    }
}

/// Counters a game can have in a position of `table`'s material: balance
/// anywhere up to its limit, 7.2.5's count no larger (equal without men),
/// 7.2.7's no larger than the balance count.
pub(crate) fn sample_counters(
    table: &Table,
    pos: &Position,
    mut rand: impl FnMut(u32) -> u32,
) -> DrawCounters {
    let c = &table.counting;
    let limit = c.balance_limit.or(c.kings_only_limit).unwrap_or(12);
    let balance = rand(limit + 2);
    let reversible = if table.material.men() == 0 {
        balance
    } else {
        rand(balance + 1)
    };
    let main_diagonal = (c.main_diagonal_limit.is_some() && main_diagonal_holds(pos))
        .then(|| rand(balance.min(u32::from(c.main_diagonal_limit.unwrap_or(0))) + 1));
    DrawCounters {
        reversible,
        balance,
        main_diagonal,
    }
}

/// [`Tablebases::check`] on `samples` positions of `table` (White to move
/// and flipped), drawn reproducibly, with counters a game can have.
pub(crate) fn check_sample(tb: &Tablebases, table: &Table, samples: usize) -> Result<(), String> {
    // SplitMix64 seeded by the signature: the same sample every run.
    let mut rng = SplitMix64::new(u64::from(u32::from_le_bytes(table.material.to_bytes())));
    let mut next = move || rng.next_u64();
    let len = table.indexer.len();
    let mut checked = 0;
    let mut tries = 0;
    while checked < samples && tries < samples * 20 {
        tries += 1;
        let Some(pos) = table.indexer.position(next() % len) else {
            continue;
        };
        let counters = sample_counters(table, &pos, |n| (next() % u64::from(n.max(1))) as u32);
        tb.check(&pos, &counters)?;
        tb.check(&pos.flipped(), &counters)?;
        checked += 1;
    }
    Ok(())
}
