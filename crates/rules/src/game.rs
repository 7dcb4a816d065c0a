//! A game under the official rules: moves played, positions seen, draw-rule
//! counters, and the arbiter that says when and how it ends.
//!
//! `play` and `undo` are O(1) apart from the repetition scan, which looks only
//! at same-side positions since the last capture or man move. Each half-move
//! pushes one small `Copy` record (position, counters, cached outcome), so
//! `undo` is a pop and `outcome`/`draw_state` read the last record.

use crate::bitboard::{Direction, shift};
use crate::draw::{DrawCounters, DrawRules};
use crate::moves::{Move, MoveList};
use crate::notation::MoveError;
use crate::outcome::{EndReason, GameResult, Outcome};
use crate::position::{Color, Position};

/// The draw-rule state that can change the value of a position (what the
/// network's input and the evaluation cache key need beyond the board).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct DrawState {
    /// How many times the current position has occurred (1 = first time).
    pub repetitions: u8,
    /// Half-moves until the nearest running counting rule (7.2.4-7.2.8)
    /// declares a draw; `None` when no count is running.
    pub plies_to_draw: Option<u16>,
}

/// What the game knows about one position of its history. `Copy`, so undo is
/// a pop and a clone is a memcpy.
#[derive(Clone, Copy, Debug)]
struct PlyRecord {
    position: Position,
    counters: DrawCounters,
    /// Occurrences of `position` so far, this one included.
    repetitions: u8,
    /// The outcome once the game has ended here or earlier.
    outcome: Option<Outcome>,
}

/// A game: start position, moves, history for repetitions, counters.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    rules: DrawRules,
    /// One record per position: `records[0]` is the start, `records[i]` the
    /// position after `moves[i - 1]`. Never empty.
    records: Vec<PlyRecord>,
    moves: Vec<Move>,
}

impl Game {
    /// A new game from `start` with the default draw rules.
    pub fn new(start: Position) -> Game {
        Game::with_rules(start, DrawRules::default())
    }

    /// A new game from `start` under `rules`. Every count starts at zero in
    /// `start`, and `start` is its own first occurrence.
    pub fn with_rules(start: Position, rules: DrawRules) -> Game {
        let mut record = PlyRecord {
            position: start,
            counters: DrawCounters::start(&start),
            repetitions: 1,
            outcome: None,
        };
        record.outcome = judge(&rules, &record, 0);
        let mut records = Vec::with_capacity(128);
        records.push(record);
        Game {
            start,
            rules,
            records,
            moves: Vec::with_capacity(128),
        }
    }

    /// The draw rules this game is judged by.
    pub fn rules(&self) -> &DrawRules {
        &self.rules
    }

    /// The current position.
    #[inline]
    pub fn position(&self) -> &Position {
        &self.last().position
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.position().side_to_move()
    }

    /// Legal moves of the current position.
    pub fn legal_moves(&self) -> MoveList {
        self.position().legal_moves()
    }

    /// Plays a legal move (the caller guarantees legality; checked in debug
    /// builds). A game that has ended stays ended with its first outcome:
    /// moves after it are recorded (to replay records that went on) but do
    /// not change [`Game::outcome`].
    pub fn play(&mut self, mv: &Move) {
        let prev = *self.last();
        debug_assert!(
            prev.position
                .legal_moves()
                .iter()
                .any(|m| m.key() == mv.key()),
            "illegal move {mv} in {}",
            prev.position.to_fen()
        );
        let position = prev.position.make_move(mv);
        let counters = prev.counters.after(&prev.position, mv, &position);
        let mut record = PlyRecord {
            position,
            counters,
            repetitions: self.occurrences(&position, counters.reversible),
            outcome: prev.outcome,
        };
        self.moves.push(*mv);
        if record.outcome.is_none() {
            record.outcome = judge(&self.rules, &record, self.moves.len());
        }
        self.records.push(record);
    }

    /// Reads `text` (long or short notation, algebraic or numeric) against
    /// the current position and plays it.
    pub fn play_notation(&mut self, text: &str) -> Result<Move, MoveError> {
        let mv = self.position().parse_move(text)?;
        self.play(&mv);
        Ok(mv)
    }

    /// Takes back the last move; `None` at the start. A resignation or draw
    /// agreement declared after that move goes with it.
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        self.records.pop();
        Some(mv)
    }

    /// Moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Number of half-moves played.
    pub fn ply(&self) -> usize {
        self.moves().len()
    }

    /// The position after `ply` half-moves (0 = the start), if played.
    pub fn position_at(&self, ply: usize) -> Option<&Position> {
        self.records.get(ply).map(|r| &r.position)
    }

    /// `None` while the game goes on, else how it ended.
    #[inline]
    pub fn outcome(&self) -> Option<Outcome> {
        self.last().outcome
    }

    /// The outcome as it stood after `ply` half-moves (`None` if the game
    /// was still going on then, or `ply` was not played).
    pub fn outcome_at(&self, ply: usize) -> Option<Outcome> {
        self.records.get(ply).and_then(|r| r.outcome)
    }

    /// The half-move after which the game ended (0: it was over at the
    /// start), or `None` while it goes on.
    pub fn ended_at(&self) -> Option<usize> {
        self.outcome()?;
        // Outcomes are sticky, so the records with one form a suffix.
        Some(self.records.partition_point(|r| r.outcome.is_none()))
    }

    /// True once the game has ended.
    pub fn is_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// The draw-rule state of the current position.
    pub fn draw_state(&self) -> DrawState {
        let last = self.last();
        DrawState {
            repetitions: last.repetitions,
            plies_to_draw: self.rules.plies_to_draw(&last.position, &last.counters),
        }
    }

    /// The draw-rule counters of the current position.
    pub fn counters(&self) -> &DrawCounters {
        &self.last().counters
    }

    /// `color` resigns: the other side wins. Returns false (and changes
    /// nothing) if the game is already over.
    pub fn resign(&mut self, color: Color) -> bool {
        self.declare(Outcome {
            result: GameResult::win_for(color.opponent()),
            reason: EndReason::Resignation,
        })
    }

    /// The players agree a draw. Returns false (and changes nothing) if the
    /// game is already over.
    pub fn agree_draw(&mut self) -> bool {
        self.declare(Outcome::draw(EndReason::Agreed))
    }

    fn declare(&mut self, outcome: Outcome) -> bool {
        let last = self.records.last_mut().expect("records never empty");
        if last.outcome.is_some() {
            return false;
        }
        last.outcome = Some(outcome);
        true
    }

    #[inline]
    fn last(&self) -> &PlyRecord {
        // `records` always holds the start record.
        &self.records[self.records.len() - 1]
    }

    /// How many times `position` has occurred, counting itself as the newest
    /// (it is not yet in `records`). Only positions with the same side to move
    /// (every second one back) within the last `reversible` half-moves can be
    /// equal; the hash filters, full equality confirms.
    fn occurrences(&self, position: &Position, reversible: u32) -> u8 {
        let newest = self.records.len(); // index `position` will get
        let oldest = newest.saturating_sub(reversible as usize);
        let mut count = 1u8;
        let mut i = newest;
        while i >= oldest + 2 {
            i -= 2;
            let seen = &self.records[i].position;
            if seen.hash() == position.hash() && seen == position {
                count = count.saturating_add(1);
            }
        }
        count
    }
}

/// The arbiter: how the game stands in `record`'s position after `ply`
/// half-moves, or `None` while it goes on.
fn judge(rules: &DrawRules, record: &PlyRecord, ply: usize) -> Option<Outcome> {
    let pos = &record.position;
    if !has_legal_move(pos) {
        return Some(Outcome {
            result: GameResult::win_for(pos.side_to_move().opponent()),
            reason: EndReason::NoMoves,
        });
    }
    if rules.repetition && record.repetitions >= 3 {
        return Some(Outcome::draw(EndReason::Repetition));
    }
    if let Some(reason) = rules.counting_verdict(pos, &record.counters) {
        return Some(Outcome::draw(reason));
    }
    if rules
        .max_plies
        .is_some_and(|max| ply as u64 >= u64::from(max))
    {
        return Some(Outcome::draw(EndReason::Adjudication));
    }
    None
}

/// True if the side to move has a legal move, without generating them: any
/// free square next to a king or ahead of a man means a quiet move or, if a
/// capture exists, a mandatory capture.
#[inline]
fn has_legal_move(pos: &Position) -> bool {
    let side = pos.side_to_move();
    let us = pos.pieces(side);
    let empty = pos.empty();
    let men = us & !pos.kings();
    let kings = us & pos.kings();
    let forward = match side {
        Color::White => [Direction::UpLeft, Direction::UpRight],
        Color::Black => [Direction::DownLeft, Direction::DownRight],
    };
    forward.iter().any(|&d| shift(men, d) & empty != 0)
        || Direction::ALL.iter().any(|&d| shift(kings, d) & empty != 0)
        || pos.has_capture()
}
