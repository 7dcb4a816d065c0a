//! The loss of a predictor on a held-out set: the mean squared error of
//! its expected score against the labels (what training minimises), and
//! how often it picks the right side, overall and by where the labels came
//! from and by game phase.

use super::held_out::{HeldOutSet, LabelSource};
use shashki_nnue::QuantNet;
use shashki_nnue::quant::OUTPUT_SCALE;
use shashki_rules::Position;
use shashki_search::alphabeta::{EvalWeights, HandEval};
use std::fmt;

/// A label or prediction within this of 1/2 counts as "even" for the sign
/// agreement: only decisive labels are scored.
pub const EVEN_BAND: f32 = 0.05;

/// `1 / (1 + e^-x)`.
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The expected score the engine's integer network gives `pos` (side to
/// move's view), exactly as the engine computes it.
pub fn quant_expected_score(net: &QuantNet, pos: &Position) -> f32 {
    sigmoid(net.reference_output(pos) as f32 / OUTPUT_SCALE as f32)
}

/// The hand evaluation read on the network's scale (200 centi-men per
/// logit unit): a baseline for the learned nets.
pub fn hand_expected_score(pos: &Position) -> f32 {
    let cp = HandEval::new(&EvalWeights::default()).evaluate(pos);
    sigmoid(cp as f32 / shashki_nnue::EVAL_CP_PER_UNIT as f32)
}

/// Squared error and sign agreement over a group of positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LossStats {
    /// Positions.
    pub count: usize,
    /// Sum of squared errors.
    pub squared: f64,
    /// Positions with a decisive label.
    pub decisive: usize,
    /// Of those, predicted on the same side of 1/2.
    pub agree: usize,
}

impl LossStats {
    /// Adds one prediction of `label`.
    pub fn add(&mut self, predicted: f32, label: f32) {
        self.count += 1;
        self.squared += f64::from((predicted - label).powi(2));
        if (label - 0.5).abs() > EVEN_BAND {
            self.decisive += 1;
            if (predicted - 0.5) * (label - 0.5) > 0.0 {
                self.agree += 1;
            }
        }
    }

    /// Mean squared error (NaN when empty).
    pub fn mse(&self) -> f64 {
        self.squared / self.count as f64
    }

    /// Share of decisive labels predicted on their side (NaN when none).
    pub fn sign_agreement(&self) -> f64 {
        self.agree as f64 / self.decisive as f64
    }
}

impl fmt::Display for LossStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.count == 0 {
            return write!(f, "{:>6} {:>8} {:>7}", 0, "-", "-");
        }
        let agree = if self.decisive == 0 {
            "-".to_string()
        } else {
            format!("{:.1}%", 100.0 * self.sign_agreement())
        };
        write!(f, "{:>6} {:>8.4} {:>7}", self.count, self.mse(), agree)
    }
}

/// Game phases of the report (and of the phase-bucketed output stacks).
pub const PHASES: [&str; 4] = ["men only, >16", "men only, <=16", "kings, >8", "<=8"];

/// The report phase of a position: piece count and kings on the board.
pub fn phase_of(pos: &Position) -> usize {
    let pieces = (pos.white() | pos.black()).count_ones();
    match (pos.kings() != 0, pieces) {
        (_, 0..=8) => 3,
        (true, _) => 2,
        (false, 17..) => 0,
        (false, _) => 1,
    }
}

/// A predictor's losses on a set.
#[derive(Clone, Debug, PartialEq)]
pub struct LossReport {
    /// What was scored.
    pub name: String,
    /// All positions.
    pub all: LossStats,
    /// Search-labelled positions.
    pub search: LossStats,
    /// Tablebase-labelled positions.
    pub tablebase: LossStats,
    /// By [`PHASES`].
    pub phases: [LossStats; 4],
}

/// Scores `predict` on every position of `set`.
pub fn evaluate_set(
    name: &str,
    set: &HeldOutSet,
    mut predict: impl FnMut(&Position) -> f32,
) -> LossReport {
    let mut report = LossReport {
        name: name.to_string(),
        all: LossStats::default(),
        search: LossStats::default(),
        tablebase: LossStats::default(),
        phases: [LossStats::default(); 4],
    };
    for entry in &set.positions {
        let pos = entry.position();
        let predicted = predict(&pos);
        report.all.add(predicted, entry.label);
        match entry.source {
            LabelSource::Search => report.search.add(predicted, entry.label),
            LabelSource::Tablebase => report.tablebase.add(predicted, entry.label),
        }
        report.phases[phase_of(&pos)].add(predicted, entry.label);
    }
    report
}

/// The header of [`LossReport`]'s table line.
pub fn table_header() -> String {
    let col = |title: &str| format!("{:>6} {:>8} {:>7}", title, "mse", "sign");
    format!(
        "{:<40} {} | {} | {}",
        "model",
        col("all"),
        col("search"),
        col("tb")
    )
}

impl fmt::Display for LossReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:<40} {} | {} | {}",
            self.name, self.all, self.search, self.tablebase
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::held_out::{HeldOutMeta, Labelled};
    use shashki_nnue::{Architecture, FloatNet};

    fn set(entries: &[(&str, f32)]) -> HeldOutSet {
        HeldOutSet::new(
            HeldOutMeta {
                depth: 1,
                eval: "hand".into(),
                tablebase_pieces: 0,
                seed: 0,
                sources: vec![],
            },
            entries
                .iter()
                .map(|(fen, label)| Labelled {
                    fen: fen.to_string(),
                    label: *label,
                    source: LabelSource::Search,
                    score_cp: None,
                    sample_score: None,
                    sample_result: None,
                })
                .collect(),
        )
    }

    #[test]
    fn material_labels_are_learned_by_the_hand_eval_not_by_a_random_net() {
        // White to move two men up wins; Black to move two men down loses.
        let set = set(&[
            ("W:Wa1,c1,e1:Bh8", 1.0),
            ("B:Wa1,c1,e1:Bh8", 0.0),
            ("W:Wa1:Bd8,f8,h8", 0.0),
            ("W:Wc3:Bf6", 0.5),
        ]);
        let hand = evaluate_set("hand", &set, hand_expected_score);
        assert_eq!(hand.all.count, 4);
        assert_eq!(hand.all.decisive, 3);
        assert_eq!(hand.all.agree, 3);
        assert!(hand.all.mse() < 0.1, "{}", hand.all.mse());
        let constant = evaluate_set("half", &set, |_| 0.5);
        assert!((constant.all.mse() - 0.75 / 4.0).abs() < 1e-6);
        assert_eq!(constant.all.agree, 0);
        let net = QuantNet::quantize(&FloatNet::random(&Architecture::default(), 1).unwrap());
        let random = evaluate_set("random", &set, |p| quant_expected_score(&net, p));
        assert!(random.all.mse() > hand.all.mse());
        assert_eq!(phase_of(&Position::startpos()), 0);
        assert_eq!(phase_of(&Position::from_fen("W:Wc3:Bf6").unwrap()), 3);
    }
}
