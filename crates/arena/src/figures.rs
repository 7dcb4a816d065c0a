//! The figures a tester needs from one pairing, said once for `match`,
//! `rate` and the gate: games and pairs, W/D/L, score and draw rate,
//! pentanomial counts, logistic and normalized Elo each with its 95 %
//! interval (see [`crate::score`] for the formulas), the book and how many
//! distinct openings were played, and the SPRT's state when one ran. The
//! text is [`PairingFigures`]'s `Display`; the JSON outputs serialize the
//! same struct (an unbounded interval end is `null`).

use crate::score::{EloInterval, PairingSummary, Pentanomial, Wdl};
use crate::sprt::SprtStatus;
use serde::Serialize;
use std::fmt;

/// One pairing's figures, from the first player's point of view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairingFigures {
    /// The player whose view the figures take.
    pub first: String,
    /// Its opponent.
    pub second: String,
    /// Games counted.
    pub games: u64,
    /// Complete game pairs (one opening, colours swapped).
    pub pairs: u64,
    /// Wins, draws and losses of `first`.
    pub wdl: Wdl,
    /// Points per game of `first`, in `[0, 1]`.
    pub score: f64,
    /// Fraction of drawn games.
    pub draw_ratio: f64,
    /// Pairs in which `first` scored 0, 0.5, 1, 1.5 and 2 points.
    pub pentanomial: Pentanomial,
    /// Logistic Elo of `first` over `second`, 95 % interval.
    pub elo: EloInterval,
    /// Normalized Elo (fishtest's nElo), 95 % interval.
    pub normalized_elo: EloInterval,
    /// The opening book (`builtin:NAME` or its path).
    pub book: String,
    /// Openings in the book.
    pub book_openings: usize,
    /// Distinct openings (positions after the opening moves) among the
    /// pairs counted.
    pub distinct_openings: usize,
    /// The SPRT that could stop the pairing, if one ran.
    pub sprt: Option<SprtStatus>,
}

/// Where a pairing's openings came from and how many it used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpeningUse {
    /// The book's name.
    pub book: String,
    /// Openings in the book.
    pub book_openings: usize,
    /// Distinct openings among the pairs counted.
    pub distinct: usize,
}

impl PairingFigures {
    /// The figures of `summary` between `first` and `second`.
    pub fn new(
        first: &str,
        second: &str,
        summary: &PairingSummary,
        openings: &OpeningUse,
        sprt: Option<SprtStatus>,
    ) -> PairingFigures {
        let wdl = summary.wdl;
        PairingFigures {
            first: first.to_string(),
            second: second.to_string(),
            games: wdl.games(),
            pairs: summary.pentanomial.pairs(),
            wdl,
            score: wdl.score(),
            draw_ratio: wdl.draw_ratio(),
            pentanomial: summary.pentanomial,
            elo: summary.elo(),
            normalized_elo: summary.normalized_elo(),
            book: openings.book.clone(),
            book_openings: openings.book_openings,
            distinct_openings: openings.distinct,
            sprt,
        }
    }
}

impl fmt::Display for PairingFigures {
    /// Four lines (five with an SPRT), no trailing newline:
    ///
    /// ```text
    /// ab:depth=3 vs random: 40 games in 20 pairs, +38 =2 -0 (W/D/L), score 39.0/40 = 97.5%, draws 5.0%
    /// Elo difference ab:depth=3 - random (95% intervals): logistic +636.6 [+372.3, +inf], normalized +1234.5 [+980.0, +1489.0]
    /// Pentanomial (pairs scoring 0, 0.5, 1, 1.5, 2 for ab:depth=3): [0, 0, 0, 2, 18]
    /// Openings: 20 distinct in 20 pairs, from builtin:usual (17 openings)
    /// SPRT [0, 50] logistic Elo, alpha 0.05 beta 0.05: LLR 3.012 [-2.944, 2.944] after 40 games: H1 accepted (stronger)
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (first, second, w) = (&self.first, &self.second, &self.wdl);
        writeln!(
            f,
            "{first} vs {second}: {} games in {} pairs, {w} (W/D/L), score {:.1}/{} = {:.1}%, draws {:.1}%",
            self.games,
            self.pairs,
            w.points(),
            self.games,
            100.0 * self.score,
            100.0 * self.draw_ratio,
        )?;
        writeln!(
            f,
            "Elo difference {first} - {second} (95% intervals): logistic {}, normalized {}",
            self.elo, self.normalized_elo
        )?;
        writeln!(
            f,
            "Pentanomial (pairs scoring 0, 0.5, 1, 1.5, 2 for {first}): {}",
            self.pentanomial
        )?;
        write!(
            f,
            "Openings: {} distinct in {} pairs, from {} ({} openings)",
            self.distinct_openings, self.pairs, self.book, self.book_openings
        )?;
        if let Some(sprt) = &self.sprt {
            write!(f, "\n{sprt}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sprt::{EloModel, Sprt, SprtConfig, SprtDecision};

    #[test]
    fn the_text_shows_every_figure() {
        // The 30 pairs of issue 34's depth 11 against depth 10: 4 pairs LD,
        // 19 pairs of one point (say 15 DD and 4 WL), 7 pairs DW: +11 =41 -8.
        let summary = PairingSummary {
            wdl: Wdl::new(11, 41, 8),
            pentanomial: Pentanomial([0, 4, 19, 7, 0]),
        };
        let openings = OpeningUse {
            book: "openings8.txt".into(),
            book_openings: 150,
            distinct: 29,
        };
        let mut sprt = Sprt::new(
            SprtConfig {
                elo0: 0.0,
                elo1: 10.0,
                model: EloModel::Normalized,
                ..SprtConfig::default()
            },
            0,
            u64::MAX,
        );
        sprt.pentanomial = summary.pentanomial;
        sprt.wdl = summary.wdl;
        let figures = PairingFigures::new("d11", "d10", &summary, &openings, Some(sprt.status()));
        let text = figures.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert_eq!(
            lines[0],
            "d11 vs d10: 60 games in 30 pairs, +11 =41 -8 (W/D/L), score 31.5/60 = 52.5%, draws 68.3%"
        );
        // nElo of [0, 4, 19, 7, 0]: +41.1 [-47.6, +129.8] (see score.rs).
        assert!(
            lines[1].contains("normalized +41.1 [-47.6, +129.8]"),
            "{text}"
        );
        assert_eq!(
            lines[3],
            "Openings: 29 distinct in 30 pairs, from openings8.txt (150 openings)"
        );
        // LLR 0.178 (LLR_normalized_alt of these pairs for [0, 10], see sprt.rs).
        assert_eq!(
            lines[4],
            "SPRT [0, 10] normalized Elo, alpha 0.05 beta 0.05: LLR 0.178 [-2.944, 2.944] after 60 games: no decision (the games ran out first)"
        );
        assert_eq!(figures.sprt.unwrap().decision, SprtDecision::Continue);
        let json = serde_json::to_value(&figures).unwrap();
        assert_eq!(json["pentanomial"], serde_json::json!([0, 4, 19, 7, 0]));
        assert_eq!(json["wdl"]["draws"], 41);
        assert_eq!(json["distinct_openings"], 29);
        assert_eq!(json["sprt"]["config"]["model"], "normalized");
        assert!((json["normalized_elo"]["elo"].as_f64().unwrap() - 41.1198).abs() < 1e-3);
    }
}
