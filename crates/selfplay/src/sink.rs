//! Gathers finished games into chunk files.

use crate::chunk::{ChunkError, ChunkWriter, encode_chunk};
use crate::finished::FinishedGame;
use crate::sample::Sample;
use shashki_atomic::write_atomic;
use std::path::{Path, PathBuf};

/// Buffers the samples of finished games and writes a chunk every
/// `games_per_chunk` games (and on [`ChunkSink::flush`]); or, made by
/// [`ChunkSink::to_file`], every game into one chunk file.
#[derive(Debug)]
pub struct ChunkSink {
    writer: ChunkWriter,
    games_per_chunk: usize,
    buffer: Vec<Sample>,
    games: usize,
    net_step: u64,
    /// The one file every game goes to (`None`: named chunks in `dir`).
    file: Option<PathBuf>,
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
            file: None,
        })
    }

    /// A sink writing every game it is given into the one chunk file
    /// `path`: each flush rewrites it atomically with all the games so far,
    /// so it is always whole and holds every game flushed (one process's
    /// games as one file, e.g. a round returned to a cluster driver).
    pub fn to_file(path: impl Into<PathBuf>) -> Result<ChunkSink, ChunkError> {
        let path = path.into();
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut sink = ChunkSink::new(dir, usize::MAX)?;
        sink.file = Some(path);
        Ok(sink)
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
        if let Some(path) = &self.file {
            if self.games == 0 {
                return Ok(None);
            }
            // The buffer keeps every game: the file is rewritten whole.
            let bytes = encode_chunk(&self.buffer, self.net_step);
            write_atomic(path, &bytes).map_err(|error| ChunkError::Io {
                path: path.clone(),
                error,
            })?;
            self.games = 0;
            return Ok(Some(path.clone()));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::read_chunk;
    use shashki_rules::{DrawState, EndReason, Game, Outcome, Position};

    fn game(samples: usize) -> FinishedGame {
        let sample = Sample::new(Position::startpos(), DrawState::default());
        FinishedGame {
            index: 0,
            game: Game::new(Position::startpos()),
            outcome: Outcome::draw(EndReason::Adjudication),
            samples: vec![sample; samples],
            opening_plies: 0,
            playthrough: false,
            would_resign: None,
        }
    }

    #[test]
    fn a_file_sink_writes_every_game_into_its_one_file() {
        let dir = std::env::temp_dir().join(format!("shashki-sink-file-{}", std::process::id()));
        let path = dir.join("round.shzc");
        let mut sink = ChunkSink::to_file(&path).unwrap();
        sink.set_net_step(7);
        for _ in 0..5 {
            assert_eq!(sink.push(&game(3)).unwrap(), None, "no chunk per game");
        }
        assert_eq!(sink.flush().unwrap(), Some(path.clone()));
        sink.push(&game(2)).unwrap();
        sink.flush().unwrap();
        let chunk = read_chunk(&path).unwrap();
        assert_eq!(chunk.len(), 17, "both flushes' games, in one whole file");
        assert_eq!(chunk.header.net_step, 7);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no other file");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
