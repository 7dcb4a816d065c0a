//! What the official counting rules mean for one material signature, and
//! the check that the tables' model of them is exact for the rules asked.
//!
//! Within one signature no capture or promotion happens (each leaves it),
//! so every count that restarts on them only grows. Per signature:
//!
//! - **Balance budget** (7.2.4, 7.2.6, 7.2.8 and, where no man is left,
//!   7.2.5): the nearest of their limits, `L`. A position with balance count
//!   `b` has `L - b` half-moves left in which the winner must capture,
//!   promote or leave the loser without a move. 7.2.5 counts half-moves
//!   since the last capture or man move, never more than the balance count,
//!   so with men on the board it fires no earlier than the balance rules
//!   as long as its limit is not below theirs ([`check_supported`]).
//! - **Main-diagonal count** (7.2.7, three pieces against a lone king on
//!   a1-h8): a second count that stops when the king leaves the diagonal
//!   and restarts from zero when it comes back. It is part of the table's
//!   state (one entry per remaining count), because the defender chooses
//!   whether to keep it running.
//!
//! A side with men only moves a man every turn, so 7.2.5 never runs there;
//! no balance rule applies unless both sides have kings.

use crate::material::Material;
use shashki_rules::{Color, DrawCounters, DrawRules, Position};
use std::fmt;

/// The counting rules of one signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counting {
    /// Half-moves allowed within the signature by the balance rules (and
    /// 7.2.5), from a fresh count; `None` when none runs.
    pub balance_limit: Option<u32>,
    /// 7.2.5's limit where it can run (both sides have kings), else `None`.
    pub kings_only_limit: Option<u32>,
    /// 7.2.7's limit when the signature is three pieces against a lone king.
    pub main_diagonal_limit: Option<u8>,
}

/// The draw rules ask for something the tables cannot represent exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The signature.
    pub material: Material,
    /// Why.
    pub reason: String,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.material, self.reason)
    }
}

/// A position of `material` (White to move) to ask the rules about: men
/// on ranks 2-7, kings after them.
pub fn sample_position(material: Material) -> Position {
    let mut free = (4..28).map(|s| 1u32 << s);
    let mut take = |n: u8| (0..n).fold(0, |acc, _| acc | free.next().expect("24 squares"));
    let wm = take(material.us.men);
    let bm = take(material.them.men);
    let wk = take(material.us.kings);
    let bk = take(material.them.kings);
    Position::from_masks(wm | wk, bm | bk, wk | bk, Color::White).expect("valid sample")
}

impl Counting {
    /// The counting rules of `material` under `rules`.
    pub fn of(material: Material, rules: &DrawRules) -> Counting {
        let pos = sample_position(material);
        let both_kings = material.us.kings > 0 && material.them.kings > 0;
        let kings_only_limit =
            (rules.kings_only && both_kings).then_some(u32::from(rules.kings_only_plies));
        let mut balance_limit = rules.balance_limit(&pos);
        if material.men() == 0 {
            // No man to move: 7.2.5 counts exactly what the balance counts.
            balance_limit = match (balance_limit, kings_only_limit) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        let lone = |s: crate::material::Side| s.men == 0 && s.kings == 1;
        let main_diagonal = rules.main_diagonal
            && ((lone(material.them) && material.us.pieces() == 3)
                || (lone(material.us) && material.them.pieces() == 3));
        Counting {
            balance_limit,
            kings_only_limit,
            main_diagonal_limit: main_diagonal.then_some(rules.main_diagonal_plies.min(250) as u8),
        }
    }

    /// Entries per position: one per remaining main-diagonal count (0 = the
    /// count has fired) where 7.2.7 can run, else one.
    pub fn slots(&self) -> usize {
        self.main_diagonal_limit.map_or(1, |l| usize::from(l) + 1)
    }

    /// Half-moves left before a balance rule or 7.2.5 fires, under
    /// `counters`; `None` when none runs.
    pub fn budget(&self, counters: &DrawCounters) -> Option<u32> {
        let balance = self
            .balance_limit
            .map(|l| l.saturating_sub(counters.balance));
        let kings_only = self
            .kings_only_limit
            .map(|l| l.saturating_sub(counters.reversible));
        match (balance, kings_only) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The table slot of a position where 7.2.7's condition holds
    /// (`holds`), given its count; `None` if the counters contradict the
    /// position (the condition holds but no count runs).
    pub fn slot(&self, holds: bool, counters: &DrawCounters) -> Option<usize> {
        match (self.main_diagonal_limit, holds) {
            (Some(limit), true) => {
                let n = counters.main_diagonal?;
                Some(u32::from(limit).saturating_sub(n) as usize)
            }
            _ => Some(0),
        }
    }
}

/// True if 7.2.7's condition holds in `pos` under `rules`.
#[inline]
pub fn main_diagonal_holds(pos: &Position) -> bool {
    DrawCounters::start(pos).main_diagonal.is_some()
}

/// Checks that the tables can be exact under `rules` for every signature
/// up to `max_pieces`: where men and kings on both sides meet, 7.2.5 must
/// not fire before the balance rules (its count never exceeds theirs), and
/// where both sides have kings some balance rule must run (else 7.2.5
/// would need a count of its own).
pub fn check_supported(rules: &DrawRules, max_pieces: u8) -> Result<(), Unsupported> {
    for material in Material::all_up_to(max_pieces) {
        let c = Counting::of(material, rules);
        let fail = |reason: String| Err(Unsupported { material, reason });
        if let Some(ko) = c.kings_only_limit
            && material.men() > 0
        {
            match rules.balance_limit(&sample_position(material)) {
                Some(b) if ko >= b => {}
                Some(b) => {
                    return fail(format!(
                        "7.2.5 fires after {ko} half-moves, before the balance rules' {b}: \
                         it would need a count of its own"
                    ));
                }
                None => return fail("7.2.5 runs but no balance rule does".into()),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material::Side;

    fn m(uk: u8, um: u8, tk: u8, tm: u8) -> Material {
        Material {
            us: Side { men: um, kings: uk },
            them: Side { men: tm, kings: tk },
        }
    }

    #[test]
    fn official_limits_per_signature() {
        let r = DrawRules::default();
        assert_eq!(Counting::of(m(1, 0, 1, 0), &r).balance_limit, Some(10));
        assert_eq!(Counting::of(m(2, 0, 1, 0), &r).balance_limit, Some(10));
        assert_eq!(Counting::of(m(1, 1, 1, 0), &r).balance_limit, Some(10));
        assert_eq!(Counting::of(m(3, 0, 1, 0), &r).balance_limit, Some(30));
        assert_eq!(
            Counting::of(m(3, 0, 1, 0), &r).main_diagonal_limit,
            Some(10)
        );
        assert_eq!(Counting::of(m(0, 3, 1, 0), &r).balance_limit, None);
        assert_eq!(
            Counting::of(m(0, 3, 1, 0), &r).main_diagonal_limit,
            Some(10)
        );
        assert_eq!(Counting::of(m(2, 0, 2, 0), &r).main_diagonal_limit, None);
        assert_eq!(Counting::of(m(1, 0, 0, 2), &r).balance_limit, None);
        assert_eq!(Counting::of(m(2, 1, 1, 1), &r).balance_limit, Some(30));
        assert!(check_supported(&r, 5).is_ok());
        // 6 pieces with men: 7.2.6 gives 60, 7.2.5 fires at 30 first.
        assert!(check_supported(&r, 6).is_err());
    }
}
