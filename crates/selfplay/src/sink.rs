//! Gathers finished games into chunk files.

use crate::chunk::{ChunkError, ChunkWriter};
use crate::finished::FinishedGame;
use crate::sample::Sample;
use std::path::{Path, PathBuf};

/// Buffers the samples of finished games and writes a chunk every
/// `games_per_chunk` games (and on [`ChunkSink::flush`]).
#[derive(Debug)]
pub struct ChunkSink {
    writer: ChunkWriter,
    games_per_chunk: usize,
    buffer: Vec<Sample>,
    games: usize,
    net_step: u64,
}

impl ChunkSink {
    /// A sink writing into `dir` (created if missing).
    pub fn new(dir: impl Into<PathBuf>, games_per_chunk: usize) -> Result<ChunkSink, ChunkError> {
        Ok(ChunkSink {
            writer: ChunkWriter::new(dir)?,
            games_per_chunk: games_per_chunk.max(1),
            buffer: Vec::new(),
            games: 0,
            net_step: 0,
        })
    }

    /// The directory written to.
    pub fn dir(&self) -> &Path {
        self.writer.dir()
    }

    /// The training step recorded in the next chunks' headers.
    pub fn set_net_step(&mut self, step: u64) {
        self.net_step = step;
    }

    /// Adds a game; writes a chunk when enough games are buffered.
    pub fn push(&mut self, game: &FinishedGame) -> Result<Option<PathBuf>, ChunkError> {
        self.buffer.extend_from_slice(&game.samples);
        self.games += 1;
        if self.games >= self.games_per_chunk {
            return self.flush();
        }
        Ok(None)
    }

    /// Writes whatever is buffered (nothing if empty).
    pub fn flush(&mut self) -> Result<Option<PathBuf>, ChunkError> {
        if self.buffer.is_empty() {
            self.games = 0;
            return Ok(None);
        }
        let path = self.writer.write(&self.buffer, self.net_step)?;
        self.buffer.clear();
        self.games = 0;
        Ok(Some(path))
    }
}
