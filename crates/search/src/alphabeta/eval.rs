//! The hand-written evaluation: material (kings worth more), advancement of
//! men, centre control, kings on the main diagonal, and the back-rank guard.
//!
//! Terms are computed for White on White's orientation; Black's pieces are
//! first rotated by 180 degrees (`reverse_bits` on the 32-square layout), so
//! the evaluation is exactly colour-symmetric.

use super::static_eval::StaticEval;
use shashki_rules::bitboard::MAIN_DIAGONAL;
use shashki_rules::{Color, Move, Position, Square, Squares};

/// Weights of the evaluation, in units where a man is worth 100.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalWeights {
    /// A man.
    pub man: i32,
    /// A king.
    pub king: i32,
    /// Bonus of a man per rank advanced beyond the third (rank 4 = 1 step).
    pub advance_per_rank: i32,
    /// A man or king on one of the four central squares d4, f4, c5, e5.
    pub centre: i32,
    /// A king on the main diagonal a1-h8 (it controls the long diagonal).
    pub king_main_diagonal: i32,
    /// A man still guarding c1 or e1 (White's view) while the opponent has men
    /// that could break through.
    pub back_rank_guard: i32,
}

impl Default for EvalWeights {
    fn default() -> Self {
        EvalWeights {
            man: 100,
            king: 300,
            advance_per_rank: 4,
            centre: 6,
            king_main_diagonal: 15,
            back_rank_guard: 8,
        }
    }
}

/// Per-square tables built once from [`EvalWeights`].
#[derive(Clone, Debug)]
pub struct HandEval {
    man: [i32; 32],
    king: [i32; 32],
    guard: u32,
    guard_bonus: i32,
}

/// The four central squares; the set is symmetric under rotation.
fn centre_mask() -> u32 {
    ["d4", "f4", "c5", "e5"]
        .iter()
        .map(|name| Square::parse(name).expect("valid square").bit())
        .fold(0, |mask, bit| mask | bit)
}

impl HandEval {
    /// Builds the square tables for `weights`.
    pub fn new(weights: &EvalWeights) -> HandEval {
        let centre = centre_mask();
        let mut man = [0; 32];
        let mut king = [0; 32];
        for sq in Square::ALL {
            let bit = sq.bit();
            let in_centre = centre & bit != 0;
            let steps = (i32::from(sq.rank()) - 2).max(0);
            man[sq.index()] = weights.man
                + weights.advance_per_rank * steps
                + if in_centre { weights.centre } else { 0 };
            king[sq.index()] = weights.king
                + if in_centre { weights.centre } else { 0 }
                + if MAIN_DIAGONAL & bit != 0 {
                    weights.king_main_diagonal
                } else {
                    0
                };
        }
        let guard = ["c1", "e1"]
            .iter()
            .map(|name| Square::parse(name).expect("valid square").bit())
            .fold(0, |mask, bit| mask | bit);
        HandEval {
            man,
            king,
            guard,
            guard_bonus: weights.back_rank_guard,
        }
    }

    /// One side's terms, its pieces given in White's orientation.
    fn side_terms(&self, men: u32, kings: u32, opponent_has_men: bool) -> i32 {
        let mut total = 0;
        for sq in Squares(men) {
            total += self.man[sq.index()];
        }
        for sq in Squares(kings) {
            total += self.king[sq.index()];
        }
        if opponent_has_men {
            total += self.guard_bonus * (men & self.guard).count_ones() as i32;
        }
        total
    }

    /// The evaluation from the side to move's point of view.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let kings = pos.kings();
        let white = pos.white();
        // Rotating Black's pieces puts them in White's orientation.
        let black = pos.black().reverse_bits();
        let black_kings = (pos.black() & kings).reverse_bits();
        let white_men = white & !kings;
        let black_men = black & !black_kings;
        let white_score = self.side_terms(white_men, white & kings, black_men != 0)
            - self.side_terms(black_men, black_kings, white_men != 0);
        match pos.side_to_move() {
            Color::White => white_score,
            Color::Black => -white_score,
        }
    }
}

/// The hand evaluation needs no incremental state.
impl StaticEval for HandEval {
    fn name(&self) -> String {
        "hand".to_string()
    }

    fn reset(&mut self, _root: &Position) {}

    fn push(&mut self, _before: &Position, _mv: &Move, _after: &Position) {}

    fn pop(&mut self) {}

    fn evaluate(&mut self, pos: &Position) -> i32 {
        HandEval::evaluate(self, pos)
    }

    fn fork(&self) -> Box<dyn StaticEval> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced() {
        let eval = HandEval::new(&EvalWeights::default());
        assert_eq!(eval.evaluate(&Position::startpos()), 0);
    }

    #[test]
    fn evaluation_is_colour_symmetric() {
        let eval = HandEval::new(&EvalWeights::default());
        for fen in [
            "W:Wa1,c3,Ke5,g3:Bb6,Kd8,f6,h6",
            "B:Wc1,e1,d4,Kh2:Ba7,c5,Kb8",
            "W:Wf4,g5:Bh8,Kd2",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            assert_eq!(eval.evaluate(&pos), eval.evaluate(&pos.flipped()), "{fen}");
        }
    }

    #[test]
    fn material_dominates() {
        let eval = HandEval::new(&EvalWeights::default());
        // White to move, one man up.
        let pos = Position::from_fen("W:Wc3,e3:Bf6").unwrap();
        assert!(eval.evaluate(&pos) > 50);
        // A king outweighs two men.
        let pos = Position::from_fen("B:WKc3:Bb6,d6").unwrap();
        assert!(eval.evaluate(&pos) < 0);
    }
}
