//! The static evaluation scaled down in drawish material (Scan and the
//! draughts engines do this): with kings on both boards a small material
//! edge rarely wins in Russian checkers, and two pieces against a lone
//! king is a book draw, yet a plain evaluation scores them like any other
//! edge. [`DrawishEval`] wraps any evaluation and divides its score by
//! [`drawish_divisor`] there, so self-play's search scores (the labels of
//! an NNUE run) say "drawn" where the material says so.
//!
//! The rule is deliberately coarse (a heuristic, measured before it is
//! kept: `[nnue] drawish_scale`, off by default):
//! - both sides have a king and the side ahead has at most one piece
//!   more: divided by 4;
//! - one side has a lone king and the other at most two pieces: divided
//!   by 8.

use shashki_rules::{Color, Move, Position};
use shashki_search::alphabeta::StaticEval;

/// How much the evaluation of `pos` is divided by (1: not drawish).
pub fn drawish_divisor(pos: &Position) -> i32 {
    let count = |c: Color| pos.pieces(c).count_ones();
    let kings = |c: Color| (pos.pieces(c) & pos.kings()).count_ones();
    let (white, black) = (count(Color::White), count(Color::Black));
    let lone_king = |c: Color, other: u32| count(c) == 1 && kings(c) == 1 && other <= 2;
    if lone_king(Color::White, black) || lone_king(Color::Black, white) {
        return 8;
    }
    if kings(Color::White) > 0 && kings(Color::Black) > 0 && white.abs_diff(black) <= 1 {
        return 4;
    }
    1
}

/// An evaluation scaled down in drawish material.
pub struct DrawishEval {
    inner: Box<dyn StaticEval>,
}

impl DrawishEval {
    /// Wraps `inner`.
    pub fn new(inner: Box<dyn StaticEval>) -> DrawishEval {
        DrawishEval { inner }
    }
}

impl StaticEval for DrawishEval {
    fn name(&self) -> String {
        format!("{} (drawish-scaled)", self.inner.name())
    }

    fn reset(&mut self, root: &Position) {
        self.inner.reset(root);
    }

    fn push(&mut self, before: &Position, mv: &Move, after: &Position) {
        self.inner.push(before, mv, after);
    }

    fn pop(&mut self) {
        self.inner.pop();
    }

    fn evaluate(&mut self, pos: &Position) -> i32 {
        self.inner.evaluate(pos) / drawish_divisor(pos)
    }

    fn fork(&self) -> Box<dyn StaticEval> {
        Box::new(DrawishEval::new(self.inner.fork()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_search::alphabeta::{EvalWeights, HandEval};

    #[test]
    fn drawish_material_is_scaled_and_the_rest_is_not() {
        // Two white kings against one black king: a book draw.
        let two_v_one = Position::from_fen("W:WKc1,Ke1:BKh8").unwrap();
        assert_eq!(drawish_divisor(&two_v_one), 8);
        // Kings on both sides, one piece apart.
        let kings = Position::from_fen("W:WKc1,e3,g3:BKh8,a7").unwrap();
        assert_eq!(drawish_divisor(&kings), 4);
        // A man up without kings, and the start: plain.
        let men = Position::from_fen("W:Wc3,e3:Bh8").unwrap();
        assert_eq!(drawish_divisor(&men), 1);
        assert_eq!(drawish_divisor(&Position::startpos()), 1);

        let hand = HandEval::new(&EvalWeights::default());
        let mut plain: Box<dyn StaticEval> = Box::new(hand.clone());
        let mut scaled = DrawishEval::new(Box::new(hand));
        plain.reset(&two_v_one);
        scaled.reset(&two_v_one);
        let full = plain.evaluate(&two_v_one);
        assert!(full > 100, "{full}");
        assert_eq!(scaled.evaluate(&two_v_one), full / 8);
        let mut forked = scaled.fork();
        forked.reset(&men);
        plain.reset(&men);
        assert_eq!(forked.evaluate(&men), plain.evaluate(&men));
    }
}
