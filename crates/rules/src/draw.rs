//! The official draw rules (FMJD Section-64, 7.2.x) as settings, and the
//! counters that decide when each one fires.
//!
//! Every count is kept in half-moves ("plies"). The defaults follow
//! `docs/RULES.md` ("How the counts run"), which is what lidraughts does:
//!
//! | rule  | condition                                          | default |
//! |-------|----------------------------------------------------|---------|
//! | 7.2.3 | same position, same side to move, third time       | on      |
//! | 7.2.4 | three kings or more against a lone king            | 30      |
//! | 7.2.5 | only kings moved, no man moved, no capture         | 30      |
//! | 7.2.6 | both sides have kings, 4-5 / 6-7 pieces in all     | 30 / 60 |
//! | 7.2.7 | three pieces against a lone king on a1-h8          | 10      |
//! | 7.2.8 | 2-3 pieces in all, both sides have kings           | 10      |
//! | 2     | one king against one king, no capture forceable    | at once |
//!
//! A count starts when its condition first holds (at the start position or
//! right after the capture or promotion that created the balance); the next
//! half-move, whoever makes it, is the first one counted, and the draw is
//! declared right after the half-move that completes the count.

use crate::bitboard::MAIN_DIAGONAL;
use crate::moves::Move;
use crate::outcome::EndReason;
use crate::position::{Color, Position};
use serde::{Deserialize, Serialize};

/// Which draw rules apply and how many half-moves each count runs.
///
/// Every field has a default, so a config file names only what it changes:
///
/// ```toml
/// [draw_rules]
/// material_unchanged_plies_6_7 = 120   # count 60 moves of each player
/// max_plies = 400                      # adjudicate long self-play games
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DrawRules {
    /// 7.2.3: the same position (same pieces, same side to move) for the
    /// third time is a draw. The start position is its own first occurrence.
    pub repetition: bool,
    /// Rule 2: one king against one king is a draw at once unless a capture
    /// can be forced within 3 half-moves ([`king_vs_king_is_dead`]).
    pub insufficient_material: bool,
    /// 7.2.4: three kings or more against a lone enemy king.
    pub three_kings_vs_king: bool,
    /// 7.2.4: half-moves, counted from the capture or promotion that created
    /// the balance (default 30: 15 moves of each player).
    pub three_kings_vs_king_plies: u16,
    /// 7.2.5: only kings moved, no man moved and no capture (any number of
    /// pieces on the board).
    pub kings_only: bool,
    /// 7.2.5: half-moves since the last capture or man move (default 30).
    pub kings_only_plies: u16,
    /// 7.2.6: both sides have kings and the balance of forces (no capture, no
    /// promotion) did not change.
    pub material_unchanged: bool,
    /// 7.2.6: half-moves with 4 or 5 pieces on the board (default 30).
    pub material_unchanged_plies_4_5: u16,
    /// 7.2.6: half-moves with 6 or 7 pieces on the board (default 60).
    pub material_unchanged_plies_6_7: u16,
    /// 7.2.7: three pieces (any mix of kings and men) against a lone king that
    /// stands on the main diagonal a1-h8. If the king leaves the diagonal the
    /// count stops; it starts from zero when the king comes back.
    pub main_diagonal: bool,
    /// 7.2.7: half-moves (default 10: 5 moves of each player).
    pub main_diagonal_plies: u16,
    /// 7.2.8: 2 or 3 pieces on the board, both sides have kings, balance
    /// unchanged.
    pub few_pieces: bool,
    /// 7.2.8: half-moves (default 10: 5 moves of each player).
    pub few_pieces_plies: u16,
    /// Adjudicate a draw once this many half-moves have been played (not an
    /// official rule: it bounds self-play games). `None` (default): never.
    pub max_plies: Option<u32>,
}

impl Default for DrawRules {
    fn default() -> Self {
        DrawRules {
            repetition: true,
            insufficient_material: true,
            three_kings_vs_king: true,
            three_kings_vs_king_plies: 30,
            kings_only: true,
            kings_only_plies: 30,
            material_unchanged: true,
            material_unchanged_plies_4_5: 30,
            material_unchanged_plies_6_7: 60,
            main_diagonal: true,
            main_diagonal_plies: 10,
            few_pieces: true,
            few_pieces_plies: 10,
            max_plies: None,
        }
    }
}

impl DrawRules {
    /// No draw rule at all: a game ends only when a side has no move (or by
    /// resignation or agreement). For tests and analysis.
    pub fn none() -> DrawRules {
        DrawRules {
            repetition: false,
            insufficient_material: false,
            three_kings_vs_king: false,
            kings_only: false,
            material_unchanged: false,
            main_diagonal: false,
            few_pieces: false,
            max_plies: None,
            ..DrawRules::default()
        }
    }

    /// The counting rule (7.2.4-7.2.8) or rule 2 that has fired in `pos`,
    /// given its counters; `None` if none has. Repetition and adjudication
    /// need the game's history and are judged by [`crate::Game`].
    pub fn counting_verdict(&self, pos: &Position, counters: &DrawCounters) -> Option<EndReason> {
        // Every rule here needs a king on the board (7.2.5's count cannot
        // grow without one): the opening and middlegame stop here.
        if pos.kings() == 0 {
            return None;
        }
        let m = Material::of(pos);
        if self.insufficient_material && m.is_king_vs_king() && !capture_can_be_forced(pos) {
            return Some(EndReason::InsufficientMaterial);
        }
        // Nearest-firing first; when two fire on the same half-move any
        // reason is correct (RULES.md), this order just makes it stable.
        if self.main_diagonal
            && counters
                .main_diagonal
                .is_some_and(|n| n >= u32::from(self.main_diagonal_plies))
        {
            return Some(EndReason::MainDiagonal);
        }
        if let Some(limit) = self.few_pieces_limit(&m)
            && counters.balance >= limit
        {
            return Some(EndReason::FewPieces);
        }
        if let Some(limit) = self.three_kings_limit(&m)
            && counters.balance >= limit
        {
            return Some(EndReason::ThreeKingsVsKing);
        }
        if self.kings_only && counters.reversible >= u32::from(self.kings_only_plies) {
            return Some(EndReason::KingsOnly);
        }
        if let Some(limit) = self.material_unchanged_limit(&m)
            && counters.balance >= limit
        {
            return Some(EndReason::MaterialUnchanged);
        }
        None
    }

    /// Half-moves until the nearest running count (7.2.4-7.2.8) fires, or
    /// `None` when none runs. 7.2.5 counts as running once both sides have a
    /// king (before that, every turn of the side without one resets it).
    pub fn plies_to_draw(&self, pos: &Position, counters: &DrawCounters) -> Option<u16> {
        if pos.kings() == 0 {
            return None;
        }
        let m = Material::of(pos);
        let left = |limit: u32, count: u32| limit.saturating_sub(count);
        let mut nearest: Option<u32> = None;
        let mut consider = |plies: u32| {
            nearest = Some(nearest.map_or(plies, |n| n.min(plies)));
        };
        if self.main_diagonal
            && let Some(n) = counters.main_diagonal
        {
            consider(left(self.main_diagonal_plies.into(), n));
        }
        for limit in [
            self.few_pieces_limit(&m),
            self.three_kings_limit(&m),
            self.material_unchanged_limit(&m),
        ]
        .into_iter()
        .flatten()
        {
            consider(left(limit, counters.balance));
        }
        if self.kings_only && m.both_have_kings() {
            consider(left(self.kings_only_plies.into(), counters.reversible));
        }
        nearest.map(|n| n.min(u32::from(u16::MAX)) as u16)
    }

    /// The nearest limit among the rules that count `balance` (7.2.4, 7.2.6,
    /// 7.2.8) for the material of `pos`, or `None` when none applies.
    /// Endgame tablebases use it: within one material every such count
    /// only grows, and a capture or promotion leaves the material.
    pub fn balance_limit(&self, pos: &Position) -> Option<u32> {
        let m = Material::of(pos);
        [
            self.few_pieces_limit(&m),
            self.three_kings_limit(&m),
            self.material_unchanged_limit(&m),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// 7.2.8's limit if its condition holds for this material.
    fn few_pieces_limit(&self, m: &Material) -> Option<u32> {
        (self.few_pieces && m.both_have_kings() && (2..=3).contains(&m.total()))
            .then_some(self.few_pieces_plies.into())
    }

    /// 7.2.4's limit if its condition holds for this material.
    fn three_kings_limit(&self, m: &Material) -> Option<u32> {
        (self.three_kings_vs_king
            && m.lone_king_side()
                .is_some_and(|weak| m.kings(weak.opponent()) >= 3))
        .then_some(self.three_kings_vs_king_plies.into())
    }

    /// 7.2.6's limit if its condition holds for this material.
    fn material_unchanged_limit(&self, m: &Material) -> Option<u32> {
        if !self.material_unchanged || !m.both_have_kings() {
            return None;
        }
        match m.total() {
            4 | 5 => Some(self.material_unchanged_plies_4_5.into()),
            6 | 7 => Some(self.material_unchanged_plies_6_7.into()),
            _ => None,
        }
    }
}

/// The draw-rule counters of one position, in half-moves. `Copy`, 12 bytes.
///
/// Material changes only by a capture or a promotion, so one `balance`
/// counter serves 7.2.4, 7.2.6 and 7.2.8: their conditions depend on the
/// material alone and each restarts on every capture and promotion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DrawCounters {
    /// Half-moves since the last capture or man move (7.2.5). Also the window
    /// in which a position can repeat: older positions had other men.
    pub reversible: u32,
    /// Half-moves since the last capture or promotion (7.2.4, 7.2.6, 7.2.8).
    pub balance: u32,
    /// Half-moves for which 7.2.7's condition (three pieces against a lone
    /// king on a1-h8) has held without a break; `None` while it does not hold.
    pub main_diagonal: Option<u32>,
}

impl DrawCounters {
    /// The counters of a game's start position: every count at zero.
    pub fn start(pos: &Position) -> DrawCounters {
        DrawCounters {
            reversible: 0,
            balance: 0,
            main_diagonal: main_diagonal_holds(pos).then_some(0),
        }
    }

    /// The counters after `mv` was played in `before`, giving `after`.
    #[inline]
    pub fn after(&self, before: &Position, mv: &Move, after: &Position) -> DrawCounters {
        let capture = mv.is_capture();
        let man_move = before.kings() & mv.from().bit() == 0;
        let balance_changed = capture || mv.promotes();
        DrawCounters {
            reversible: if capture || man_move {
                0
            } else {
                self.reversible.saturating_add(1)
            },
            balance: if balance_changed {
                0
            } else {
                self.balance.saturating_add(1)
            },
            main_diagonal: if !main_diagonal_holds(after) {
                None
            } else if balance_changed {
                Some(0)
            } else {
                // Held before too: one more counted half-move. Else the lone
                // king just came back to the diagonal: start from zero.
                Some(self.main_diagonal.map_or(0, |n| n.saturating_add(1)))
            },
        }
    }
}

/// Rule 2 of RULES.md: one king against one king where neither side can
/// force a capture within 3 half-moves, so neither can win (a draw at once
/// when the rule is on). False for any other material.
pub fn king_vs_king_is_dead(pos: &Position) -> bool {
    Material::of(pos).is_king_vs_king() && !capture_can_be_forced(pos)
}

/// One king against one king: a capture happens within 3 half-moves
/// whatever the defender does. The side to move can capture now; or every
/// move it has is captured (a king in the a1 or h8 corner facing the enemy
/// king on a1-h8); or it has a move that puts the other side in that
/// corner. A 3-half-move search of two kings decides it exactly.
fn capture_can_be_forced(pos: &Position) -> bool {
    pos.has_capture()
        || every_move_is_captured(pos)
        || pos
            .legal_moves()
            .iter()
            .any(|mv| every_move_is_captured(&pos.make_move(mv)))
}

/// Every legal move of the side to move leaves a position where the other
/// side can capture (false when there is no move).
fn every_move_is_captured(pos: &Position) -> bool {
    let moves = pos.legal_moves();
    !moves.is_empty() && moves.iter().all(|mv| pos.make_move(mv).has_capture())
}

/// 7.2.7's condition: one side has exactly three pieces, the other a single
/// king standing on the main diagonal a1-h8.
fn main_diagonal_holds(pos: &Position) -> bool {
    if pos.kings() & MAIN_DIAGONAL == 0 {
        return false;
    }
    let m = Material::of(pos);
    match m.lone_king_side() {
        Some(weak) => m.pieces(weak.opponent()) == 3 && pos.pieces(weak) & MAIN_DIAGONAL != 0,
        None => false,
    }
}

/// Piece counts by side and kind.
#[derive(Clone, Copy, Debug)]
struct Material {
    men: [u32; 2],
    kings: [u32; 2],
}

impl Material {
    #[inline]
    fn of(pos: &Position) -> Material {
        let (w, b, k) = (pos.white(), pos.black(), pos.kings());
        Material {
            men: [(w & !k).count_ones(), (b & !k).count_ones()],
            kings: [(w & k).count_ones(), (b & k).count_ones()],
        }
    }

    fn kings(&self, side: Color) -> u32 {
        self.kings[side as usize]
    }

    fn pieces(&self, side: Color) -> u32 {
        self.men[side as usize] + self.kings[side as usize]
    }

    fn total(&self) -> u32 {
        self.pieces(Color::White) + self.pieces(Color::Black)
    }

    fn both_have_kings(&self) -> bool {
        self.kings[0] > 0 && self.kings[1] > 0
    }

    fn is_king_vs_king(&self) -> bool {
        self.kings == [1, 1] && self.men == [0, 0]
    }

    /// The side whose only piece is a king, if exactly one side is so.
    fn lone_king_side(&self) -> Option<Color> {
        let lone = |c: Color| self.kings(c) == 1 && self.men[c as usize] == 0;
        match (lone(Color::White), lone(Color::Black)) {
            (true, false) => Some(Color::White),
            (false, true) => Some(Color::Black),
            _ => None,
        }
    }
}
