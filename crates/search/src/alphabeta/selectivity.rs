//! Which moves the alpha-beta search looks at less deeply, or more: the
//! selectivity techniques of draughts engines (Scan's `search.cpp` is the
//! model), each a switch so that each can be measured against the search
//! without it (docs/RESULTS.md, issue 52).
//!
//! Null move, razoring and static futility are absent on purpose: with
//! captures mandatory a "pass" tells little, and no strong draughts engine
//! uses them.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The switches, one per technique. [`Selectivity::NONE`] is the
/// full-width search of commit 3029653; [`Default`] is the measured set.
/// In a config file it is the text [`Selectivity::parse`] reads
/// (`"none"`, `"prune+lmr"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Selectivity {
    /// Reduced-depth fail-high pruning (Scan): a non-PV node at depth >= 3
    /// whose search at 40 % of the depth holds `beta + 10 * depth` returns
    /// at once.
    pub prune: bool,
    /// Late move reductions of quiet moves (Scan's rule): from the second
    /// move at a non-PV node (the fourth at a PV node) by one ply, by two
    /// from the fifth at a non-PV node; never a capture or promotion; a
    /// re-search at full depth when the reduced one fails high.
    pub lmr: bool,
    /// At the horizon, a quiet position where the opponent threatens a
    /// capture is searched one ply instead of evaluated.
    pub threat: bool,
    /// A node with one legal move is searched a ply deeper.
    pub single_reply: bool,
    /// Pruning that sees shots (issue 70): no pruning at a node reached by
    /// a capture (an exchange under way, where a sacrifice can turn into a
    /// multiple capture a few plies on), and the reduced search at 60 % of
    /// the depth instead of 40 %. Chosen on `tests/data/tactics.txt`, where
    /// with it the selective search solves as many as the full-width one
    /// at 1,000, 3,000 and 10,000 nodes (docs/RESULTS.md).
    pub shots: bool,
    /// Verification at the PV's children (issue 70): no pruning at a node
    /// whose parent is a PV node (the moves that could refute the line
    /// are searched in full), and the reduced search at 50 % of the depth.
    /// With it the selective search solves as many of
    /// `tests/data/tactics.txt` as the full-width one at 1,000, 3,000 and
    /// 10,000 nodes; it guards other nodes than [`Selectivity::shots`]
    /// (which guards every node reached by a capture) and probes less
    /// deep.
    pub verify: bool,
}

/// The names of the switches in a player's `sel=` option, in order.
pub const TECHNIQUES: [&str; 6] = ["prune", "lmr", "threat", "single", "shots", "verify"];

impl Selectivity {
    /// Every move to full depth: the search before issue 52.
    pub const NONE: Selectivity = Selectivity {
        prune: false,
        lmr: false,
        threat: false,
        single_reply: false,
        shots: false,
        verify: false,
    };

    fn flags(&self) -> [bool; 6] {
        [
            self.prune,
            self.lmr,
            self.threat,
            self.single_reply,
            self.shots,
            self.verify,
        ]
    }

    fn flag_mut(&mut self, name: &str) -> Option<&mut bool> {
        match name {
            "prune" => Some(&mut self.prune),
            "lmr" => Some(&mut self.lmr),
            "threat" => Some(&mut self.threat),
            "single" => Some(&mut self.single_reply),
            "shots" => Some(&mut self.shots),
            "verify" => Some(&mut self.verify),
            _ => None,
        }
    }

    /// Reads `none` or techniques joined by `+` (`prune+lmr`); the error
    /// names the unknown technique and the known ones.
    pub fn parse(text: &str) -> Result<Selectivity, String> {
        let mut selectivity = Selectivity::NONE;
        if text == "none" {
            return Ok(selectivity);
        }
        for name in text.split('+') {
            let known = TECHNIQUES.join(", ");
            let flag = selectivity.flag_mut(name).ok_or_else(|| {
                format!("unknown search technique '{name}' (known: none, {known})")
            })?;
            *flag = true;
        }
        Ok(selectivity)
    }

    /// Plies by which the move searched `searched`-th (0: the first) is
    /// reduced at a node of `depth`; `quiet`: neither capture nor promotion.
    pub fn reduction(&self, depth: i32, searched: usize, quiet: bool, pv_node: bool) -> i32 {
        let first_reduced = if pv_node { 3 } else { 1 };
        if !self.lmr || !quiet || depth < 2 || searched < first_reduced {
            return 0;
        }
        if !pv_node && searched >= 4 { 2 } else { 1 }
    }

    /// Depth of the reduced search of fail-high pruning at a node of
    /// `depth` (`None`: too shallow to prune) and the margin over beta it
    /// must hold.
    pub fn prune_probe(&self, depth: i32) -> Option<(i32, i32)> {
        let percent = match (self.shots, self.verify) {
            (true, _) => 60,
            (false, true) => 50,
            (false, false) => 40,
        };
        (depth >= 3).then(|| (depth * percent / 100, 10 * depth))
    }
}

impl TryFrom<String> for Selectivity {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        Selectivity::parse(&text)
    }
}

impl From<Selectivity> for String {
    fn from(selectivity: Selectivity) -> String {
        selectivity.to_string()
    }
}

impl Default for Selectivity {
    /// The techniques kept, each by a GSPRT against the search without it
    /// (docs/RESULTS.md, "Selectivity").
    fn default() -> Self {
        Selectivity {
            prune: true,
            lmr: true,
            ..Selectivity::NONE
        }
    }
}

impl fmt::Display for Selectivity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on: Vec<&str> = TECHNIQUES
            .iter()
            .zip(self.flags())
            .filter_map(|(name, on)| on.then_some(*name))
            .collect();
        if on.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&on.join("+"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_the_same_set() {
        for text in [
            "none",
            "prune",
            "prune+lmr",
            "lmr+threat+single",
            "prune+lmr+shots",
            "prune+lmr+verify",
        ] {
            assert_eq!(Selectivity::parse(text).unwrap().to_string(), text);
        }
        let err = Selectivity::parse("prune+nullmove").unwrap_err();
        assert!(
            err.contains("'nullmove'") && err.contains("threat"),
            "{err}"
        );
    }

    #[test]
    fn the_shot_guard_probes_deeper() {
        let plain = Selectivity::parse("prune").unwrap();
        let shots = Selectivity::parse("prune+shots").unwrap();
        assert_eq!(plain.prune_probe(10), Some((4, 100)));
        assert_eq!(shots.prune_probe(10), Some((6, 100)));
        assert_eq!(shots.prune_probe(2), None, "too shallow");
        let verify = Selectivity::parse("prune+verify").unwrap();
        assert_eq!(verify.prune_probe(10), Some((5, 100)));
    }

    #[test]
    fn reductions_follow_scans_rule() {
        let lmr = Selectivity::parse("lmr").unwrap();
        // Non-PV: the second and third move one ply, the fifth on two.
        let non_pv: Vec<i32> = (0..6).map(|i| lmr.reduction(5, i, true, false)).collect();
        assert_eq!(non_pv, [0, 1, 1, 1, 2, 2]);
        let pv: Vec<i32> = (0..6).map(|i| lmr.reduction(5, i, true, true)).collect();
        assert_eq!(pv, [0, 0, 0, 1, 1, 1]);
        assert_eq!(
            lmr.reduction(5, 5, false, false),
            0,
            "a capture or promotion"
        );
        assert_eq!(lmr.reduction(1, 5, true, false), 0, "too shallow");
        assert_eq!(Selectivity::NONE.reduction(9, 9, true, false), 0);
    }
}
