//! A finished self-play game: what the player hands to the sink and the
//! statistics.

use crate::sample::{FLAG_ADJUDICATED, FLAG_RESIGNED, FLAG_TABLEBASE, FLAG_TREE, Sample};
use shashki_rules::{Color, EndReason, Game, GameResult, Outcome};

/// A finished game and its training samples.
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// Game number (its RNG stream).
    pub index: u64,
    /// The game, ended by the arbiter, the adjudication limit or a
    /// resignation.
    pub game: Game,
    /// How it ended.
    pub outcome: Outcome,
    /// One sample per searched move (random opening moves give none).
    pub samples: Vec<Sample>,
    /// Uniformly random half-moves played at the start.
    pub opening_plies: u32,
    /// True if resignation was disabled in this game to measure false
    /// resignations.
    pub playthrough: bool,
    /// In a play-through game: the side that would have resigned first.
    pub would_resign: Option<Color>,
}

impl FinishedGame {
    /// True if this play-through game shows a wrong resignation: the side
    /// that would have resigned did not lose.
    pub fn false_resignation(&self) -> bool {
        self.would_resign
            .is_some_and(|side| self.outcome.result != GameResult::win_for(side.opponent()))
    }
}

/// How a finished game ended: the tablebases' verdict when they ended it,
/// else the game's own outcome.
pub(crate) fn final_outcome(game: &Game, tablebase: Option<GameResult>) -> Outcome {
    let adjudicated = |result| Outcome {
        result,
        reason: EndReason::Adjudication,
    };
    tablebase
        .map(adjudicated)
        .or(game.outcome())
        // Unreachable: players stop only when the game is over.
        .unwrap_or(adjudicated(GameResult::Draw))
}

/// Labels the samples of a game that ended with `outcome` after
/// `final_ply` half-moves: each its result from its side to move's view,
/// its plies left, and the flags of how the game ended (`by_tablebase`:
/// the tablebases ended it). A tree sample is off the game line: the
/// game's result is not its own, so it keeps the one it has.
pub(crate) fn label_samples(
    samples: &mut [Sample],
    outcome: &Outcome,
    by_tablebase: bool,
    final_ply: usize,
) {
    let extra_flags = match outcome.reason {
        _ if by_tablebase => FLAG_TABLEBASE,
        EndReason::Resignation => FLAG_RESIGNED,
        EndReason::Adjudication => FLAG_ADJUDICATED,
        _ => 0,
    };
    for s in samples {
        if s.flags & FLAG_TREE == 0 {
            s.result = match outcome.result.winner() {
                None => 0,
                Some(w) if w == s.position.side_to_move() => 1,
                Some(_) => -1,
            };
        }
        s.plies_left = final_ply
            .saturating_sub(s.ply as usize)
            .min(u16::MAX as usize) as u16;
        s.flags |= extra_flags;
    }
}
