//! # shashki-selfplay
//!
//! Self-play for Shashki Zero: many games at once, their network calls
//! gathered into batches, every move a training [`Sample`], samples written
//! to disk as checksummed [`chunk`] files; [`ab_player`] plays the
//! alpha-beta engine's games (the data of an NNUE run) into the same chunks. A directory of chunks is the
//! interface to the learner (`shashki-train`).

pub mod ab_player;
pub mod chunk;
pub mod config;
pub mod player;
mod round;
pub mod sample;
pub mod sink;
pub mod stats;

pub use ab_player::{AbSelfPlayLimits, AbSelfPlayer, score_to_wdl};
pub use chunk::{
    Chunk, ChunkError, ChunkHeader, ChunkWriter, list_chunks, read_chunk, read_header,
};
pub use config::SelfPlayConfig;
pub use player::{FinishedGame, SelfPlayError, SelfPlayer};
pub use sample::{POLICY_CAP, PolicyEntry, RECORD_SIZE, Sample};
pub use sink::ChunkSink;
pub use stats::SelfPlayStats;
