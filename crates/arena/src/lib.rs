//! # shashki-arena
//!
//! Matches between players under the official rules, SPRT gating of a
//! candidate against the current best, and Elo ratings by maximum
//! likelihood with a plot of strength against training steps.
//!
//! - [`spec`]: players from text (`random`, `ab:depth=4`, `mcts:sims=64`,
//!   `net:PATH@sims=64,gumbel`, `ext:"/path/engine"@movetime=100`).
//! - [`player`]: the [`Player`] trait, built-in players, [`PlayerFactory`]
//!   (a network is loaded once per match and served to every game through
//!   one batching service); [`external`]: the engine-protocol client.
//! - [`openings`]: the built-in balloted opening book (`data/openings.txt`),
//!   PDN or FEN-per-line books.
//! - [`matches`](mod@matches): parallel matches, each opening played with colours
//!   swapped, forfeits for failing engines, PDN output; [`clock`]: game
//!   clocks (`--tc 60+1`) and time forfeits.
//! - [`gate`](mod@gate): candidate vs best by SPRT or a fixed number of games.
//! - [`score`]: W/D/L, score, Elo difference with a 95 % interval, pentanomial
//!   counts of game pairs; [`sprt`]: the fishtest-style GSPRT.
//! - [`elo`]: Bradley-Terry maximum-likelihood ratings with intervals;
//!   [`ratings`]: the accumulating ratings file and its table / CSV / JSON.
//! - [`tournament`]: round-robin, gauntlet, the anchor ladder; [`plot`]: PNG
//!   of Elo against training steps (no system fonts needed).

#![warn(missing_docs)]

pub use shashki_rules::atomic;
pub mod clock;
pub mod elo;
pub mod external;
pub mod gate;
pub mod matches;
pub mod net;
pub mod openings;
pub mod player;
pub mod plot;
pub mod ratings;
pub mod score;
pub mod spec;
pub mod sprt;
pub mod tournament;

pub use clock::{GameClock, TimeControl};
pub use gate::{GateConfig, GateMethod, GateOutcome, gate};
pub use matches::{Control, EndCause, GameRecord, MatchReport, MatchSettings, run_match};
pub use openings::{Opening, OpeningBook};
pub use player::{Player, PlayerError, PlayerFactory, PlayerFailure};
pub use score::{EloInterval, PairingSummary, Pentanomial, Wdl};
pub use spec::{MctsSettings, PlayerKind, PlayerSpec};
pub use sprt::{EloModel, Sprt, SprtConfig, SprtDecision};
