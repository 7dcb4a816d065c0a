//! # shashki-rules
//!
//! The rules core of Shashki Zero: an exact, fast implementation of Russian
//! checkers (русские шашки) on 32-bit bitboards.
//!
//! - [`Position`]: copy-make position with an incremental Zobrist hash
//!   ([`zobrist`]); [`Square`]s in the 32-square layout, whose
//!   compile-time tables are in [`bitboard`].
//! - [`Position::legal_moves`]: every legal move, captures mandatory with free
//!   choice, flying kings, Turkish strike, promotion mid-capture.
//! - [`Move`]: path, captured set, promotion; `Display` is long notation.
//! - [`Position::from_fen`] / [`Position::to_fen`]: PDN FEN.
//! - [`Position::parse_move`]: long and short notation.
//! - [`perft`]: move-tree counts.
//! - [`Game`]: a game under the official draw rules ([`DrawRules`] and
//!   [`DrawCounters`] in [`draw`]), with undo; how it ends: an [`Outcome`]
//!   ([`GameResult`] and [`EndReason`]).
//! - [`pdn`]: reading and writing PDN game records (GameType 25).
//! - [`splitmix`]: the workspace's one 64-bit mixer (Zobrist keys, hash
//!   keys, derived seeds).

pub mod bitboard;
pub mod book;
pub mod draw;
mod fen;
pub mod game;
mod movegen;
mod moves;
mod notation;
mod outcome;
pub mod pdn;
pub mod perft;
mod position;
pub mod splitmix;
mod square;
pub mod zobrist;

pub use draw::{DrawCounters, DrawRules, king_vs_king_is_dead};
pub use fen::FenError;
pub use game::{DrawState, Game};
pub use movegen::PathMode;
pub use moves::{MAX_MOVES, MAX_PATH, Move, MoveList};
pub use notation::MoveError;
pub use outcome::{EndReason, GameResult, Outcome};
pub use pdn::{PdnError, PdnGame, read_pdn, write_pdn};
pub use position::{Color, Piece, Position, START_FEN};
pub use square::{Square, Squares};
