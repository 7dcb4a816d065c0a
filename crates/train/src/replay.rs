//! The replay window: the newest samples across the chunk files of a
//! directory, sampled uniformly into minibatches, with a cap on how often
//! each sample is used on average (KataGo trains on each row about 4 times).
//!
//! Reuse is metered with tokens: every newly seen sample adds `max_reuse`
//! tokens, every sample drawn into a batch spends one, and the stock of
//! tokens is capped at `max_reuse * window` so a big backlog of old data does
//! not buy unlimited training. When the tokens run out the learner must wait
//! for (or ask for) more self-play.
//!
//! A chunk that fails its checks (truncated, corrupted, foreign) is reported
//! once and skipped; the rest of the directory is used.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shashki_selfplay::{Chunk, RECORD_SIZE, Sample, list_chunks, read_chunk, read_header};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Replay settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReplaySettings {
    /// How many of the newest samples form the window.
    pub window: usize,
    /// No batch is drawn before this many samples exist.
    pub min_samples: usize,
    /// Average number of times each sample may be drawn.
    pub max_reuse: f64,
}

/// What the learner must remember across restarts to continue the reuse
/// accounting where it stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplayState {
    /// Samples counted so far (in all valid chunks seen).
    pub ingested: u64,
    /// Draw tokens left (see the module docs).
    pub tokens: f64,
    /// Samples drawn into batches so far.
    pub drawn: u64,
}

/// What one [`ReplayWindow::refresh`] found.
#[derive(Clone, Debug, Default)]
pub struct RefreshReport {
    /// Valid chunks found that were not known before.
    pub new_chunks: usize,
    /// Samples in them.
    pub new_samples: u64,
    /// Chunks that failed their checks, with the reason (each reported once).
    pub skipped: Vec<String>,
}

struct Entry {
    path: PathBuf,
    count: usize,
    /// Loaded (and verified) only while the chunk overlaps the window.
    chunk: Option<Arc<Chunk>>,
}

/// The sliding window over a chunk directory.
pub struct ReplayWindow {
    dir: PathBuf,
    settings: ReplaySettings,
    /// Valid chunks, oldest first.
    entries: Vec<Entry>,
    /// Every chunk path seen, valid or not.
    known: HashSet<PathBuf>,
    /// Index of the first entry inside the window, and how many records of it
    /// are skipped (the window may start inside a chunk).
    first: usize,
    first_skip: usize,
    /// Cumulative record counts of the window's entries (for sampling).
    prefix: Vec<usize>,
    state: ReplayState,
}

impl ReplayWindow {
    /// An empty window over `dir`, with reuse accounting continued from `state`.
    pub fn new(
        dir: impl Into<PathBuf>,
        settings: ReplaySettings,
        state: ReplayState,
    ) -> ReplayWindow {
        ReplayWindow {
            dir: dir.into(),
            settings,
            entries: Vec::new(),
            known: HashSet::new(),
            first: 0,
            first_skip: 0,
            prefix: vec![0],
            state,
        }
    }

    /// The directory read.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The reuse accounting (to save with a checkpoint).
    pub fn state(&self) -> ReplayState {
        self.state
    }

    /// Samples currently in the window.
    pub fn len(&self) -> usize {
        *self.prefix.last().unwrap_or(&0)
    }

    /// True if the window holds no sample.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Samples in all valid chunks seen (inside the window or older).
    pub fn total_samples(&self) -> u64 {
        self.entries.iter().map(|e| e.count as u64).sum()
    }

    /// Scans the directory for new chunks, loads those in the window, drops
    /// the ones that fell out of it, and adds reuse tokens for new samples.
    pub fn refresh(&mut self) -> std::io::Result<RefreshReport> {
        let mut report = RefreshReport::default();
        let fresh: Vec<PathBuf> = list_chunks(&self.dir)?
            .into_iter()
            .filter(|p| !self.known.contains(p))
            .collect();
        for path in fresh {
            self.known.insert(path.clone());
            match read_header(&path) {
                Ok(header) => {
                    report.new_chunks += 1;
                    report.new_samples += header.count as u64;
                    self.entries.push(Entry {
                        path,
                        count: header.count as usize,
                        chunk: None,
                    });
                }
                Err(e) => report.skipped.push(e.to_string()),
            }
        }
        self.entries.sort_by(|a, b| a.path.cmp(&b.path));
        // Load what the window needs; a chunk whose body fails verification
        // is dropped and the window recomputed without it.
        loop {
            self.place_window();
            let mut failed = None;
            for i in self.first..self.entries.len() {
                if self.entries[i].chunk.is_some() {
                    continue;
                }
                match read_chunk(&self.entries[i].path) {
                    Ok(chunk) if chunk.len() == self.entries[i].count => {
                        self.entries[i].chunk = Some(Arc::new(chunk))
                    }
                    Ok(_) => {
                        failed = Some((
                            i,
                            format!("{}: changed while read", self.entries[i].path.display()),
                        ));
                        break;
                    }
                    Err(e) => {
                        failed = Some((i, e.to_string()));
                        break;
                    }
                }
            }
            match failed {
                Some((i, reason)) => {
                    let bad = self.entries.remove(i);
                    report.new_samples = report.new_samples.saturating_sub(bad.count as u64);
                    report.new_chunks = report.new_chunks.saturating_sub(1);
                    report.skipped.push(reason);
                }
                None => break,
            }
        }
        for e in &mut self.entries[..self.first] {
            e.chunk = None;
        }
        self.prefix.clear();
        self.prefix.push(0);
        for (k, e) in self.entries[self.first..].iter().enumerate() {
            let n = if k == 0 {
                e.count - self.first_skip
            } else {
                e.count
            };
            let last = *self.prefix.last().unwrap();
            self.prefix.push(last + n);
        }
        // Reuse tokens: only samples not counted before (a resumed learner
        // re-reads old chunks, its state already counted them).
        let total = self.total_samples();
        if total > self.state.ingested {
            let new = (total - self.state.ingested) as f64;
            let cap = self.settings.max_reuse * self.settings.window as f64;
            self.state.tokens = (self.state.tokens + new * self.settings.max_reuse).min(cap);
            self.state.ingested = total;
        }
        Ok(report)
    }

    /// Picks the oldest entry (and offset) of the window.
    fn place_window(&mut self) {
        let mut need = self.settings.window;
        self.first = self.entries.len();
        self.first_skip = 0;
        while self.first > 0 && need > 0 {
            let count = self.entries[self.first - 1].count;
            self.first -= 1;
            if count >= need {
                self.first_skip = count - need;
                need = 0;
            } else {
                need -= count;
            }
        }
    }

    /// True if a batch of `batch` samples may be drawn now: enough samples
    /// exist and the reuse budget allows it.
    pub fn can_draw(&self, batch: usize) -> bool {
        self.len() >= self.settings.min_samples.max(1) && self.state.tokens >= batch as f64
    }

    /// How many more samples must arrive before `batch` can be drawn again
    /// (0 if it can be drawn now).
    pub fn samples_needed(&self, batch: usize) -> u64 {
        let short_min = self.settings.min_samples.max(1).saturating_sub(self.len()) as u64;
        let short_tokens = ((batch as f64 - self.state.tokens).max(0.0)
            / self.settings.max_reuse.max(1e-9))
        .ceil() as u64;
        short_min.max(short_tokens)
    }

    /// Draws `batch` samples uniformly (with replacement) from the window.
    /// The draw is a function of `seed` and the window contents only, so a
    /// resumed run draws what an uninterrupted one would. Spends the tokens;
    /// call [`ReplayWindow::can_draw`] first. Returns an empty batch if the
    /// window is empty.
    pub fn draw(&mut self, seed: u64, batch: usize) -> Vec<Sample> {
        let len = self.len();
        if len == 0 {
            return Vec::new();
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::with_capacity(batch);
        for _ in 0..batch {
            let i = rng.random_range(0..len);
            // The entry holding window index i.
            let k = self.prefix.partition_point(|&p| p <= i) - 1;
            let entry = &self.entries[self.first + k];
            let offset = if k == 0 { self.first_skip } else { 0 };
            let chunk = entry.chunk.as_ref().expect("window chunks are loaded");
            let record = chunk.record(i - self.prefix[k] + offset);
            debug_assert_eq!(record.len(), RECORD_SIZE);
            // Verified when the chunk was loaded.
            out.push(Sample::decode(record).expect("verified record"));
        }
        self.state.tokens = (self.state.tokens - batch as f64).max(0.0);
        self.state.drawn += batch as u64;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_rules::{DrawState, Position};
    use shashki_selfplay::ChunkWriter;
    use std::fs;

    use shashki_atomic::testing::temp_dir;

    /// Samples tagged by their `ply` field, so tests can tell them apart.
    fn tagged(from: u16, n: u16) -> Vec<Sample> {
        (from..from + n)
            .map(|tag| {
                let mut s = Sample::new(Position::startpos(), DrawState::default());
                s.ply = tag;
                s
            })
            .collect()
    }

    fn settings(window: usize) -> ReplaySettings {
        ReplaySettings {
            window,
            min_samples: 1,
            max_reuse: 4.0,
        }
    }

    #[test]
    fn window_holds_the_newest_samples_only() {
        let dir = temp_dir("newest");
        let w = ChunkWriter::new(&dir).unwrap();
        w.write(&tagged(0, 10), 0).unwrap();
        w.write(&tagged(10, 10), 0).unwrap();
        w.write(&tagged(20, 10), 0).unwrap();
        let mut replay = ReplayWindow::new(&dir, settings(15), ReplayState::default());
        let report = replay.refresh().unwrap();
        assert_eq!((report.new_chunks, report.new_samples), (3, 30));
        assert_eq!(replay.len(), 15);
        assert_eq!(replay.total_samples(), 30);
        let batch = replay.draw(7, 500);
        assert!(batch.iter().all(|s| s.ply >= 15), "only the newest 15");
        let seen: HashSet<u16> = batch.iter().map(|s| s.ply).collect();
        assert_eq!(seen.len(), 15, "every sample of the window is reachable");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn draws_are_reproducible_from_the_seed() {
        let dir = temp_dir("seed");
        let w = ChunkWriter::new(&dir).unwrap();
        w.write(&tagged(0, 50), 0).unwrap();
        let mut a = ReplayWindow::new(&dir, settings(100), ReplayState::default());
        let mut b = ReplayWindow::new(&dir, settings(100), ReplayState::default());
        a.refresh().unwrap();
        b.refresh().unwrap();
        let tags = |v: Vec<Sample>| v.iter().map(|s| s.ply).collect::<Vec<_>>();
        assert_eq!(tags(a.draw(3, 20)), tags(b.draw(3, 20)));
        assert_ne!(tags(a.draw(4, 20)), tags(b.draw(5, 20)));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn reuse_budget_stops_drawing_until_new_data_arrives() {
        let dir = temp_dir("budget");
        let w = ChunkWriter::new(&dir).unwrap();
        w.write(&tagged(0, 10), 0).unwrap();
        let mut replay = ReplayWindow::new(&dir, settings(100), ReplayState::default());
        replay.refresh().unwrap();
        // 10 samples x 4 uses = 40 draws.
        let mut drawn = 0;
        while replay.can_draw(8) {
            drawn += replay.draw(drawn as u64, 8).len();
        }
        assert_eq!(drawn, 40);
        assert_eq!(replay.samples_needed(8), 2);
        w.write(&tagged(10, 2), 0).unwrap();
        replay.refresh().unwrap();
        assert!(replay.can_draw(8));
        // A resumed window with the saved state does not count old data again.
        let mut resumed = ReplayWindow::new(&dir, settings(100), replay.state());
        resumed.refresh().unwrap();
        assert_eq!(resumed.state(), replay.state());
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_corrupted_chunk_is_reported_and_skipped() {
        let dir = temp_dir("corrupt");
        let w = ChunkWriter::new(&dir).unwrap();
        w.write(&tagged(0, 5), 0).unwrap();
        let bad = w.write(&tagged(5, 5), 0).unwrap();
        let truncated = w.write(&tagged(10, 5), 0).unwrap();
        w.write(&tagged(15, 5), 0).unwrap();
        let mut bytes = fs::read(&bad).unwrap();
        bytes[40] ^= 0xFF;
        fs::write(&bad, bytes).unwrap();
        let bytes = fs::read(&truncated).unwrap();
        fs::write(&truncated, &bytes[..bytes.len() - 9]).unwrap();

        let mut replay = ReplayWindow::new(&dir, settings(100), ReplayState::default());
        let report = replay.refresh().unwrap();
        assert_eq!(report.skipped.len(), 2, "{:?}", report.skipped);
        assert!(
            report
                .skipped
                .iter()
                .any(|r| r.contains("checksum mismatch"))
        );
        assert!(report.skipped.iter().any(|r| r.contains("truncated")));
        assert_eq!((report.new_chunks, replay.len()), (2, 10));
        let tags: HashSet<u16> = replay.draw(1, 300).iter().map(|s| s.ply).collect();
        assert!(tags.iter().all(|t| !(5..15).contains(t)));
        // Reported once only.
        assert!(replay.refresh().unwrap().skipped.is_empty());
        fs::remove_dir_all(dir).unwrap();
    }
}
