//! The evaluator trait: the network (or any stand-in) behind the search.
//!
//! CONTRACT shared by `shashki-search` and `shashki-net`: the net implements
//! this trait; search never imports the net.

use shashki_rules::{DrawState, Move, Position};

/// Win/draw/loss probabilities from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Wdl {
    /// Probability that the side to move wins.
    pub win: f32,
    /// Probability of a draw.
    pub draw: f32,
    /// Probability that the side to move loses.
    pub loss: f32,
}

impl Wdl {
    /// A certain win for the side to move.
    pub const WIN: Wdl = Wdl {
        win: 1.0,
        draw: 0.0,
        loss: 0.0,
    };
    /// A certain draw.
    pub const DRAW: Wdl = Wdl {
        win: 0.0,
        draw: 1.0,
        loss: 0.0,
    };
    /// A certain loss for the side to move.
    pub const LOSS: Wdl = Wdl {
        win: 0.0,
        draw: 0.0,
        loss: 1.0,
    };

    /// Scalar value in [-1, 1]: win minus loss.
    #[inline]
    pub fn value(self) -> f32 {
        self.win - self.loss
    }

    /// The same evaluation from the opponent's point of view.
    #[inline]
    pub fn flipped(self) -> Wdl {
        Wdl {
            win: self.loss,
            draw: self.draw,
            loss: self.win,
        }
    }
}

/// One position to evaluate.
#[derive(Clone, Copy, Debug)]
pub struct EvalRequest<'a> {
    /// The position (side to move included).
    pub position: &'a Position,
    /// Draw-rule state (repetitions, plies to a counting draw).
    pub draw_state: DrawState,
    /// The legal moves, in the order the priors must follow.
    pub moves: &'a [Move],
}

/// The evaluator's answer for one position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluation {
    /// One prior per legal move, in the request's order, summing to 1.
    pub priors: Vec<f32>,
    /// Win/draw/loss from the side to move's view.
    pub wdl: Wdl,
    /// Expected half-moves until the game ends, if the evaluator predicts it.
    pub plies_left: Option<f32>,
}

impl Evaluation {
    /// Overwrites `self` with `other`, reusing the priors' allocation.
    pub fn copy_from(&mut self, other: &Evaluation) {
        self.priors.clear();
        self.priors.extend_from_slice(&other.priors);
        self.wdl = other.wdl;
        self.plies_left = other.plies_left;
    }

    /// Sets uniform priors over `n` moves (reusing the allocation) and `wdl`.
    pub fn set_uniform(&mut self, n: usize, wdl: Wdl) {
        self.priors.clear();
        self.priors
            .resize(n, if n == 0 { 0.0 } else { 1.0 / n as f32 });
        self.wdl = wdl;
        self.plies_left = None;
    }
}

/// Evaluates batches of positions. Implementations must be thread-safe so
/// one evaluator can serve many games.
pub trait Evaluator: Send + Sync {
    /// Evaluates `batch` into `out` (`out.len() == batch.len()`). Reuse the
    /// capacity of `out[i].priors` rather than allocating anew.
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]);

    /// The batch size this evaluator runs best at (what a batching service
    /// should try to fill).
    fn preferred_batch(&self) -> usize {
        1
    }
}
