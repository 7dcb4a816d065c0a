//! # shashki-selfplay
//!
//! Self-play for Shashki Zero: the games every training run learns from.
//!
//! - [`SelfPlayer`] ([`player`]): many MCTS games at once, their network
//!   calls gathered into batches, every searched move a training
//!   [`Sample`] ([`sample`]); reproducible from its seed whatever the
//!   thread count.
//! - [`AbSelfPlayer`] ([`ab_player`]): the alpha-beta engine's games (the
//!   data of an NNUE run) into the same samples; [`ab_data`] widens them
//!   (start books, multi-PV plies, tree samples, exact labels),
//!   [`drawish`] scales its evaluation in drawish material and
//!   [`surprise`] writes the samples that surprised the net more often.
//! - [`FinishedGame`] ([`finished`]): a game with its samples;
//!   [`SelfPlayStats`] ([`stats`]): the counters and rates of a call.
//! - [`chunk`]: samples on disk as checksummed chunk files, which
//!   [`ChunkSink`] ([`sink`]) fills from finished games. A directory of
//!   chunks is the interface to the learner (`shashki-train`).
//! - [`SelfPlayConfig`] ([`config`]): the `[selfplay]` settings;
//!   [`SelfPlayError`] ([`error`]): what can fail. Both players share a
//!   worker pool and the endgame tablebases (generated on first use).

pub mod ab_data;
pub mod ab_player;
pub mod chunk;
pub mod config;
pub mod drawish;
pub mod error;
pub mod finished;
pub mod player;
mod pool;
mod round;
pub mod sample;
pub mod sink;
pub mod stats;
pub mod surprise;
mod tablebases;

pub use ab_data::{AbDataOptions, MultiPv, TreeSamples};
pub use ab_player::{AbSelfPlayLimits, AbSelfPlayer, score_to_wdl};
pub use chunk::{
    Chunk, ChunkError, ChunkHeader, ChunkWriter, list_chunks, read_chunk, read_header,
};
pub use config::{AB_GAMES_PER_THREAD, SelfPlayConfig, available_cores};
pub use error::SelfPlayError;
pub use finished::FinishedGame;
pub use player::SelfPlayer;
pub use sample::{POLICY_CAP, PolicyEntry, RECORD_SIZE, Sample};
pub use sink::ChunkSink;
pub use stats::SelfPlayStats;
