//! # shashki-arena
//!
//! Matches between players under the official rules, SPRT gating of a
//! candidate against the current best, and Elo ratings by maximum
//! likelihood with a plot of strength against training steps.
//!
//! - [`spec`]: a player's name and kind with its settings; [`kinds`]: the
//!   table of player kinds, one module each giving its prefix, its spec
//!   text and its players (`random`, `ab:depth=4`, `nnue:PATH@depth=6`,
//!   `mcts:sims=64`, `net:PATH@sims=64,gumbel`, `ext:"/path/engine"@movetime=100`).
//! - [`player`]: the [`Player`] trait, the failures that forfeit a game,
//!   [`PlayerMaker`]; [`factory`]: [`PlayerFactory`], a player prepared
//!   once per match (a network loaded once and served to every game through
//!   one batching service); [`external`]: the engine-protocol client;
//!   [`load_network`]: loading network checkpoints and models.
//! - [`roster`]: the players of a run from text: comma-separated lists,
//!   checkpoint wildcards, players files, the ladder.
//! - [`openings`]: the built-in books (the unbalanced default, the usual
//!   openings), PDN or FEN-per-line books; [`book`]: making unbalanced books from
//!   positions a deep search scores in a band (a resumable scored pool,
//!   then a cheap selection with a held-out split).
//! - [`matches`](mod@matches): parallel matches, each opening played with colours
//!   swapped, forfeits for failing engines, PDN output; [`clock`]: game
//!   clocks (`--tc 60+1`) and time forfeits.
//! - [`rating_run`]: a rating run's pairings and outputs, and the one call that
//!   plays a pairing for `match`, `rate` and the gate; [`journal`]: its
//!   resumable record (PDN and ratings file, written as each pair ends).
//! - [`gate`](mod@gate): candidate vs best by SPRT or a fixed number of games, and a
//!   training run's checkpoint gate.
//! - [`score`]: W/D/L, score, logistic and normalized Elo with 95 %
//!   intervals, pentanomial counts of game pairs; [`sprt`]: the
//!   fishtest-style GSPRT; [`figures`]: a pairing's figures as `match`,
//!   `rate` and the gate report them (text and JSON).
//! - [`elo`]: Bradley-Terry maximum-likelihood ratings with intervals;
//!   [`ratings_file`]: the accumulating ratings file and its table / CSV / JSON.
//! - [`tactics`]: suites of single-winning-move positions, made from game
//!   records and solved at a fixed budget.
//! - [`tournament`]: round-robin, gauntlet, the anchor ladder, training
//!   steps; [`plot`]: PNG of Elo against training steps (no system fonts
//!   needed).

#![warn(missing_docs)]

pub mod book;
pub mod clock;
pub mod elo;
pub mod external;
pub mod factory;
pub mod figures;
pub mod gate;
pub mod journal;
pub mod kinds;
pub mod load_network;
pub mod matches;
pub mod openings;
pub mod player;
pub mod plot;
pub mod rating_run;
pub mod ratings_file;
pub mod roster;
pub mod score;
pub mod spec;
pub mod sprt;
pub mod tactics;
pub mod tournament;

pub use clock::{GameClock, TimeControl};
pub use factory::PlayerFactory;
pub use figures::{OpeningUse, PairingFigures};
pub use gate::{CheckpointPlayers, GateConfig, GateMethod, GateOutcome, gate, gate_checkpoints};
pub use journal::Journal;
pub use matches::{Control, EndCause, GameRecord, MatchReport, MatchSettings, run_match};
pub use openings::{BuiltinBook, DEFAULT_BOOK, Opening, OpeningBook};
pub use player::{GameSetup, Player, PlayerError, PlayerFailure, PlayerMaker};
pub use rating_run::{Pairing, RatingError, RatingLog, RatingOutputs, play_pairing, rate_players};
pub use score::{EloInterval, PairingSummary, Pentanomial, Wdl};
pub use spec::{AbSearch, MctsSettings, PlayerKind, PlayerSpec, SpecError};
pub use sprt::{EloModel, Sprt, SprtConfig, SprtDecision, SprtStatus};
