//! Move ordering: the transposition-table move first, then captures by how
//! much they take, then quiet moves by killer slots, promotion and history.

use shashki_rules::{Move, MoveList, Position};

/// Deepest ply the search tracks (killers, principal variation).
pub const MAX_PLY: usize = 128;

const TT_MOVE: i32 = 1 << 30;
const CAPTURE_BASE: i32 = 1 << 24;
const KILLER_0: i32 = 1 << 22;
const KILLER_1: i32 = KILLER_0 - 1;
const PROMOTION: i32 = 1 << 21;
/// History scores are halved when one reaches this, so they stay below the
/// killer and promotion bonuses.
const HISTORY_CAP: i32 = 1 << 20;

/// Killer moves and the history table of one search.
pub struct MoveOrderer {
    killers: Vec<[Option<Move>; 2]>,
    history: [[i32; 32]; 32],
}

impl Default for MoveOrderer {
    fn default() -> Self {
        MoveOrderer::new()
    }
}

impl MoveOrderer {
    /// Empty killer slots and history.
    pub fn new() -> MoveOrderer {
        MoveOrderer {
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: [[0; 32]; 32],
        }
    }

    /// Forgets everything (start of a search).
    pub fn clear(&mut self) {
        self.killers.fill([None; 2]);
        self.history = [[0; 32]; 32];
    }

    /// `(ordering key, index into moves)` for each move, written into
    /// `scored`; a higher key is tried earlier.
    pub fn score_moves(
        &self,
        pos: &Position,
        moves: &MoveList,
        tt_move: Option<usize>,
        ply: usize,
        scored: &mut Vec<(i32, usize)>,
    ) {
        scored.clear();
        let killers = self.killers[ply.min(MAX_PLY)];
        for (index, mv) in moves.iter().enumerate() {
            let key = if Some(index) == tt_move {
                TT_MOVE
            } else if mv.is_capture() {
                // Kings taken count triple, as in the evaluation.
                let kings = (mv.captured() & pos.kings()).count_ones() as i32;
                let men = mv.capture_count() as i32 - kings;
                CAPTURE_BASE + 16 * (men + 3 * kings) + i32::from(mv.promotes())
            } else if Some(*mv) == killers[0] {
                KILLER_0
            } else if Some(*mv) == killers[1] {
                KILLER_1
            } else if mv.promotes() {
                PROMOTION
            } else {
                self.history[mv.from().index()][mv.to().index()]
            };
            scored.push((key, index));
        }
    }

    /// Records a quiet move that caused a beta cut-off at `ply` after a search
    /// of `depth` plies.
    pub fn record_cutoff(&mut self, mv: &Move, ply: usize, depth: i32) {
        if mv.is_capture() {
            return;
        }
        let slot = &mut self.killers[ply.min(MAX_PLY)];
        if slot[0] != Some(*mv) {
            slot[1] = slot[0];
            slot[0] = Some(*mv);
        }
        let entry = &mut self.history[mv.from().index()][mv.to().index()];
        *entry += depth * depth;
        if *entry >= HISTORY_CAP {
            for row in self.history.iter_mut() {
                for value in row.iter_mut() {
                    *value /= 2;
                }
            }
        }
    }
}

/// Moves the highest-keyed entry among `index..` to `index` and returns its
/// move index (a selection-sort step: most nodes cut off after a move or two,
/// so sorting fully would be waste). Ties keep generation order.
pub fn pick_next(scored: &mut [(i32, usize)], index: usize) -> usize {
    let mut best = index;
    for i in index + 1..scored.len() {
        if scored[i].0 > scored[best].0 {
            best = i;
        }
    }
    scored.swap(index, best);
    scored[index].1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bigger_captures_come_first_and_tt_move_leads() {
        // Single captures (c3:a5) and double ones (c3:e5:g7, a3:c5:e3).
        let pos = Position::from_fen("W:Wc3,a3:Bd4,f6,b4,h8").unwrap();
        let moves = pos.legal_moves();
        assert!(moves.len() >= 2);
        let orderer = MoveOrderer::new();
        let mut scored = Vec::new();
        orderer.score_moves(&pos, &moves, None, 0, &mut scored);
        let first = &moves[pick_next(&mut scored, 0)];
        assert_eq!(first.capture_count(), 2);
        let single = moves.iter().position(|m| m.capture_count() == 1).unwrap();
        orderer.score_moves(&pos, &moves, Some(single), 0, &mut scored);
        assert_eq!(pick_next(&mut scored, 0), single);
    }
}
