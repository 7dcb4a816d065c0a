//! A finished self-play game: what the player hands to the sink and the
//! statistics.

use crate::sample::Sample;
use shashki_rules::{Color, Game, GameResult, Outcome};

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
