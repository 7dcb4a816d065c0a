//! One training sample and its fixed-size on-disk record (lc0 style).
//!
//! The position is stored as it is on the board (absolute masks and the side
//! to move), not as network input planes: the learner encodes it with the
//! network crate's current encoder, so the data outlives encoding changes.
//! Policy targets name moves by their absolute start and end squares; the
//! learner maps them to its policy layout (which is relative to the side to
//! move).
//!
//! # Record layout, format version 1 ([`RECORD_SIZE`] = 296 bytes, little-endian)
//!
//! | offset | type | field |
//! |-------:|------|-------|
//! | 0  | u32 | white pieces mask (square index = bit) |
//! | 4  | u32 | black pieces mask |
//! | 8  | u32 | kings mask (both colours) |
//! | 12 | u8  | side to move: 0 White, 1 Black |
//! | 13 | u8  | [`DrawState::repetitions`] |
//! | 14 | u16 | [`DrawState::plies_to_draw`], `0xFFFF` = no count running |
//! | 16 | i8  | game result from the side to move: +1 win, 0 draw, -1 loss |
//! | 17 | u8  | flags: bit 0 full search, bit 1 game ended by resignation, bit 2 adjudicated, bit 3 tablebase result, bit 4 tree sample, bit 5 exact label, bit 6 relabelled |
//! | 18 | u16 | plies left until the game ended |
//! | 20 | u16 | ply of this position in its game (0 = start) |
//! | 22 | u16 | number of legal moves in the position |
//! | 24 | 3 x f32 | root W/D/L of the search, side to move's view |
//! | 36 | u8  | number of policy entries used (<= [`POLICY_CAP`]) |
//! | 37 | 3 x u8 | reserved, zero |
//! | 40 | 64 x (u8, u8, u16) | policy entries: from square, to square, probability x 65535 |
//!
//! Moves that share start and end squares (different capture sets) are one
//! entry, with their probabilities summed: the network's policy index is
//! `from * 32 + to` anyway. A position with more than [`POLICY_CAP`] distinct
//! (from, to) pairs keeps the most probable ones, renormalised (such positions
//! are extremely rare: only many flying kings produce them).

use shashki_rules::{Color, DrawState, Move, Position};
use std::fmt;

/// Largest number of policy entries a record holds.
pub const POLICY_CAP: usize = 64;

/// Size in bytes of one encoded record.
pub const RECORD_SIZE: usize = 40 + 4 * POLICY_CAP;

/// Flag bit: the move was chosen by a full search (the policy target counts).
pub const FLAG_FULL_SEARCH: u8 = 1;
/// Flag bit: the game was ended by a resignation.
pub const FLAG_RESIGNED: u8 = 2;
/// Flag bit: the game was adjudicated at the maximum length.
pub const FLAG_ADJUDICATED: u8 = 4;
/// Flag bit: the game ended on reaching the endgame tablebases, with their
/// exact result.
pub const FLAG_TABLEBASE: u8 = 8;
/// Flag bit: a position from inside a search tree, off the game line
/// (alpha-beta self-play's tree samples): its result field is no game
/// result, only its score labels it.
pub const FLAG_TREE: u8 = 16;
/// Flag bit: the label is the tablebases' exact value (score and result).
pub const FLAG_EXACT: u8 = 32;
/// Flag bit: the root W/D/L is a deeper label than self-play's
/// (`shashki relabel`).
pub const FLAG_RELABELLED: u8 = 64;

/// One policy target entry: a move by its absolute squares and its probability.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PolicyEntry {
    /// Start square index (0..32, absolute board).
    pub from: u8,
    /// End square index (0..32, absolute board).
    pub to: u8,
    /// Target probability (the entries of a sample sum to about 1).
    pub prob: f32,
}

/// One training position with its targets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The position (absolute masks, side to move).
    pub position: Position,
    /// The draw-rule state of the position.
    pub draw_state: DrawState,
    /// Final game result from the side to move's view: +1 win, 0 draw, -1 loss.
    pub result: i8,
    /// Flags ([`FLAG_FULL_SEARCH`], [`FLAG_RESIGNED`], [`FLAG_ADJUDICATED`],
    /// [`FLAG_TABLEBASE`], [`FLAG_TREE`], [`FLAG_EXACT`], [`FLAG_RELABELLED`]).
    pub flags: u8,
    /// Half-moves from this position to the end of the game.
    pub plies_left: u16,
    /// Ply of this position in its game.
    pub ply: u16,
    /// Number of legal moves in the position.
    pub legal_moves: u16,
    /// The search's root win/draw/loss, side to move's view.
    pub root_wdl: [f32; 3],
    policy: [PolicyEntry; POLICY_CAP],
    policy_len: u8,
}

/// Why a record could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError(pub String);

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RecordError {}

impl Sample {
    /// A sample of `position` with an empty policy, a draw result and no flags.
    pub fn new(position: Position, draw_state: DrawState) -> Sample {
        Sample {
            position,
            draw_state,
            result: 0,
            flags: 0,
            plies_left: 0,
            ply: 0,
            legal_moves: 0,
            root_wdl: [0.0, 1.0, 0.0],
            policy: [PolicyEntry::default(); POLICY_CAP],
            policy_len: 0,
        }
    }

    /// The policy target entries.
    pub fn policy(&self) -> &[PolicyEntry] {
        &self.policy[..self.policy_len as usize]
    }

    /// True if the move was chosen by a full search (its policy is a target).
    pub fn is_full_search(&self) -> bool {
        self.flags & FLAG_FULL_SEARCH != 0
    }

    /// True if the sample carries a policy target: a full search with at
    /// least one entry.
    pub fn has_policy_target(&self) -> bool {
        self.is_full_search() && !self.policy().is_empty()
    }

    /// The policy target spread over `moves` (the position's legal moves,
    /// in the order given) into `probs` (cleared first): each entry's
    /// probability goes to the first move with its squares (moves sharing
    /// squares share one policy index anyway), renormalised. All zero when
    /// the sample has no policy target (not a full search, or no entry).
    /// What the learner trains the policy on.
    pub fn move_probabilities(&self, moves: &[Move], probs: &mut Vec<f32>) {
        probs.clear();
        probs.resize(moves.len(), 0.0);
        if !self.has_policy_target() {
            return;
        }
        for e in self.policy() {
            if let Some(i) = moves.iter().position(|m| {
                m.from().index() == e.from as usize && m.to().index() == e.to as usize
            }) {
                probs[i] += e.prob;
            }
        }
        let total: f32 = probs.iter().sum();
        if total > 0.0 {
            probs.iter_mut().for_each(|p| *p /= total);
        }
    }

    /// Sets the policy target from moves and their probabilities (same order).
    /// Moves with the same start and end squares are merged; beyond
    /// [`POLICY_CAP`] entries the least probable are dropped and the rest
    /// renormalised.
    pub fn set_policy(&mut self, moves: &[Move], probs: &[f32]) {
        debug_assert_eq!(moves.len(), probs.len());
        let mut entries: Vec<PolicyEntry> = Vec::with_capacity(moves.len());
        for (mv, &p) in moves.iter().zip(probs) {
            let (from, to) = (mv.from().index() as u8, mv.to().index() as u8);
            let p = if p.is_finite() { p.max(0.0) } else { 0.0 };
            match entries.iter_mut().find(|e| e.from == from && e.to == to) {
                Some(e) => e.prob += p,
                None => entries.push(PolicyEntry { from, to, prob: p }),
            }
        }
        if entries.len() > POLICY_CAP {
            entries.sort_by(|a, b| b.prob.total_cmp(&a.prob));
            entries.truncate(POLICY_CAP);
        }
        let total: f32 = entries.iter().map(|e| e.prob).sum();
        let n = entries.len();
        for (slot, e) in self.policy.iter_mut().zip(&entries) {
            let prob = if total > 0.0 {
                e.prob / total
            } else {
                1.0 / n as f32
            };
            *slot = PolicyEntry { prob, ..*e };
        }
        self.policy_len = n as u8;
    }

    /// Encodes into exactly [`RECORD_SIZE`] bytes.
    pub fn encode(&self, out: &mut [u8]) {
        assert_eq!(out.len(), RECORD_SIZE, "record buffer size");
        out.fill(0);
        let p = &self.position;
        out[0..4].copy_from_slice(&p.white().to_le_bytes());
        out[4..8].copy_from_slice(&p.black().to_le_bytes());
        out[8..12].copy_from_slice(&p.kings().to_le_bytes());
        out[12] = match p.side_to_move() {
            Color::White => 0,
            Color::Black => 1,
        };
        out[13] = self.draw_state.repetitions;
        let to_draw = self
            .draw_state
            .plies_to_draw
            .map_or(u16::MAX, |n| n.min(u16::MAX - 1));
        out[14..16].copy_from_slice(&to_draw.to_le_bytes());
        out[16] = self.result as u8;
        out[17] = self.flags;
        out[18..20].copy_from_slice(&self.plies_left.to_le_bytes());
        out[20..22].copy_from_slice(&self.ply.to_le_bytes());
        out[22..24].copy_from_slice(&self.legal_moves.to_le_bytes());
        for (i, v) in self.root_wdl.iter().enumerate() {
            out[24 + 4 * i..28 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        out[36] = self.policy_len;
        for (i, e) in self.policy().iter().enumerate() {
            let at = 40 + 4 * i;
            out[at] = e.from;
            out[at + 1] = e.to;
            let q = (e.prob.clamp(0.0, 1.0) * 65535.0).round() as u16;
            out[at + 2..at + 4].copy_from_slice(&q.to_le_bytes());
        }
    }

    /// Decodes a record, checking every field.
    pub fn decode(rec: &[u8]) -> Result<Sample, RecordError> {
        if rec.len() != RECORD_SIZE {
            return Err(RecordError(format!(
                "record is {} bytes, expected {RECORD_SIZE}",
                rec.len()
            )));
        }
        let u32_at = |i: usize| u32::from_le_bytes(rec[i..i + 4].try_into().unwrap());
        let u16_at = |i: usize| u16::from_le_bytes(rec[i..i + 2].try_into().unwrap());
        let f32_at = |i: usize| f32::from_le_bytes(rec[i..i + 4].try_into().unwrap());
        let side = match rec[12] {
            0 => Color::White,
            1 => Color::Black,
            s => {
                return Err(RecordError(format!(
                    "side to move byte is {s}, expected 0 or 1"
                )));
            }
        };
        let position = Position::from_masks(u32_at(0), u32_at(4), u32_at(8), side)
            .map_err(|e| RecordError(format!("invalid position: {e}")))?;
        let to_draw = u16_at(14);
        let draw_state = DrawState {
            repetitions: rec[13],
            plies_to_draw: (to_draw != u16::MAX).then_some(to_draw),
        };
        let result = rec[16] as i8;
        if !(-1..=1).contains(&result) {
            return Err(RecordError(format!(
                "result is {result}, expected -1, 0 or 1"
            )));
        }
        let root_wdl = [f32_at(24), f32_at(28), f32_at(32)];
        if root_wdl.iter().any(|v| !v.is_finite()) {
            return Err(RecordError("root W/D/L is not finite".into()));
        }
        let policy_len = rec[36];
        if policy_len as usize > POLICY_CAP {
            return Err(RecordError(format!(
                "{policy_len} policy entries, at most {POLICY_CAP}"
            )));
        }
        let mut sample = Sample {
            position,
            draw_state,
            result,
            flags: rec[17],
            plies_left: u16_at(18),
            ply: u16_at(20),
            legal_moves: u16_at(22),
            root_wdl,
            policy: [PolicyEntry::default(); POLICY_CAP],
            policy_len,
        };
        for i in 0..policy_len as usize {
            let at = 40 + 4 * i;
            let (from, to) = (rec[at], rec[at + 1]);
            if from >= 32 || to >= 32 {
                return Err(RecordError(format!(
                    "policy entry {i} names square {from} -> {to}, squares are 0..32"
                )));
            }
            sample.policy[i] = PolicyEntry {
                from,
                to,
                prob: u16_at(at + 2) as f32 / 65535.0,
            };
        }
        Ok(sample)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_at_start() -> Sample {
        let pos = Position::startpos();
        let moves = pos.legal_moves();
        let mut s = Sample::new(
            pos,
            DrawState {
                repetitions: 1,
                plies_to_draw: None,
            },
        );
        let probs: Vec<f32> = (0..moves.len()).map(|i| (i + 1) as f32).collect();
        s.set_policy(moves.as_slice(), &probs);
        s.result = -1;
        s.flags = FLAG_FULL_SEARCH;
        s.plies_left = 77;
        s.ply = 3;
        s.legal_moves = moves.len() as u16;
        s.root_wdl = [0.25, 0.5, 0.25];
        s
    }

    #[test]
    fn record_round_trip_keeps_every_field() {
        let s = sample_at_start();
        let mut buf = [0u8; RECORD_SIZE];
        s.encode(&mut buf);
        let back = Sample::decode(&buf).unwrap();
        assert_eq!(back.position, s.position);
        assert_eq!(back.draw_state, s.draw_state);
        assert_eq!(
            (back.result, back.flags, back.plies_left, back.ply),
            (-1, 1, 77, 3)
        );
        assert_eq!(back.legal_moves, 7);
        assert_eq!(back.root_wdl, s.root_wdl);
        assert_eq!(back.policy().len(), 7);
        for (a, b) in back.policy().iter().zip(s.policy()) {
            assert_eq!((a.from, a.to), (b.from, b.to));
            assert!((a.prob - b.prob).abs() < 1e-4);
        }
        let total: f32 = back.policy().iter().map(|e| e.prob).sum();
        assert!((total - 1.0).abs() < 1e-3);
    }

    #[test]
    fn plies_to_draw_survives_encoding() {
        let mut s = sample_at_start();
        s.draw_state.plies_to_draw = Some(29);
        let mut buf = [0u8; RECORD_SIZE];
        s.encode(&mut buf);
        assert_eq!(
            Sample::decode(&buf).unwrap().draw_state.plies_to_draw,
            Some(29)
        );
    }

    #[test]
    fn corrupt_fields_are_rejected_with_a_reason() {
        let mut buf = [0u8; RECORD_SIZE];
        sample_at_start().encode(&mut buf);
        let mut bad = buf;
        bad[12] = 7;
        assert!(Sample::decode(&bad).unwrap_err().0.contains("side to move"));
        let mut bad = buf;
        bad[16] = 5;
        assert!(Sample::decode(&bad).unwrap_err().0.contains("result"));
        let mut bad = buf;
        bad[40] = 40;
        assert!(Sample::decode(&bad).unwrap_err().0.contains("square"));
        let mut bad = buf;
        bad[4..8].copy_from_slice(&0xFFFu32.to_le_bytes());
        assert!(
            Sample::decode(&bad)
                .unwrap_err()
                .0
                .contains("invalid position")
        );
        assert!(Sample::decode(&buf[..10]).is_err());
    }
}
