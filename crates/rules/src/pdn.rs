//! PDN game records for Russian checkers (GameType 25).
//!
//! [`PdnGame`] is one game: its tags, start position, moves and result.
//! [`read_pdn`] reads a file of many games, each on its own (a broken game
//! yields an error that names the game, the line, the move number and the
//! text, and the other games still load); [`write_pdn`] writes games back.

mod read;
mod write;

pub use read::{MoveNumber, PdnError, read_pdn};
pub use write::{write_pdn, write_pdn_file};

use crate::draw::DrawRules;
use crate::game::Game;
use crate::moves::Move;
use crate::outcome::{EndReason, GameResult};
use crate::position::Position;
use thiserror::Error;

/// The tags every written game carries first, in this order (PDN's "seven
/// tag roster"; `Result` comes from [`PdnGame::result`]), with the value
/// written when a tag is missing.
pub const ROSTER: [(&str, &str); 6] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
];

/// The tag that records why a game ended, e.g. `[Termination "7.2.5 kings only"]`
/// (values are [`EndReason::label`]s).
pub const TERMINATION_TAG: &str = "Termination";

/// One game record.
///
/// `Result` and `FEN` are not kept in `tags`: they live in `result` and
/// `start`, so there is one source of truth; the writer derives both tags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnGame {
    /// Tags in file order (name, value), without `Result` and `FEN`.
    pub tags: Vec<(String, String)>,
    /// The start position (the `FEN` tag, else the standard start).
    pub start: Position,
    /// The moves, each legal in turn from `start`.
    pub moves: Vec<Move>,
    /// The recorded result; `None` for `*` (unfinished or unknown).
    pub result: Option<GameResult>,
}

impl PdnGame {
    /// The record of `game`: the roster tags set to `?`, `GameType "25"`,
    /// the result, and a `Termination` tag with the end reason if it ended.
    pub fn from_game(game: &Game) -> PdnGame {
        let mut tags: Vec<(String, String)> = ROSTER
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        tags.push(("GameType".into(), "25".into()));
        let outcome = game.outcome();
        if let Some(outcome) = outcome {
            tags.push((TERMINATION_TAG.into(), outcome.reason.label().into()));
        }
        PdnGame {
            tags,
            start: *game.start(),
            moves: game.moves().to_vec(),
            result: outcome.map(|o| o.result),
        }
    }

    /// The value of tag `name` (ASCII case ignored), if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Sets tag `name` to `value`, replacing it in place or appending it.
    /// `name` should be a PDN tag name (letters, digits, `_`). `Result` and
    /// `FEN` are set through `result` and `start` instead.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match self
            .tags
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            Some(tag) => tag.1 = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
    }

    /// The end reason of the `Termination` tag, if it holds one of ours.
    pub fn termination(&self) -> Option<EndReason> {
        self.tag(TERMINATION_TAG).and_then(EndReason::from_label)
    }

    /// Replays the moves in a [`Game`] judged by `rules`: its outcome is our
    /// arbiter's verdict, whatever the record's `result` says. Fails if a
    /// move is not legal (possible only if `moves` was edited by hand).
    pub fn replay(&self, rules: DrawRules) -> Result<Game, IllegalMoveError> {
        let mut game = Game::with_rules(self.start, rules);
        for (ply, mv) in self.moves.iter().enumerate() {
            if !game.legal_moves().iter().any(|m| m.key() == mv.key()) {
                return Err(IllegalMoveError {
                    ply,
                    mv: mv.to_string(),
                    fen: game.position().to_fen(),
                });
            }
            game.play(mv);
        }
        Ok(game)
    }
}

/// A move of a [`PdnGame`] that is not legal where it is played.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("half-move {ply}: {mv} is not legal in {fen}")]
pub struct IllegalMoveError {
    /// Half-moves before it (0 = the first move).
    pub ply: usize,
    /// The move in long notation.
    pub mv: String,
    /// The position it was tried in.
    pub fen: String,
}
