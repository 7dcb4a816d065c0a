//! The replay window: the newest samples across the chunk files of a
//! directory, sampled uniformly into minibatches, with a cap on how often
//! each sample is used on average (KataGo trains on each row about 4 times).
//!
//! Or, with [`ReplayMode::All`], every sample the run has written (the
//! learners of engines that kept growing kept all their data): drawn from
//! the chunk files on disk, record by record, so memory does not grow with
//! the data; uniformly, or weighted towards the newest with a half-life.
//! Its chunks are ordered by the training step of the net that played
//! them (in their header), then by name (their writing time), so the
//! order, and with it every draw, follows the run's content.
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
use shashki_selfplay::chunk::HEADER_SIZE;
use shashki_selfplay::{Chunk, RECORD_SIZE, Sample, list_chunks, read_chunk, read_header};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which samples batches are drawn from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ReplayMode {
    /// The newest `window` samples, held in memory.
    Window,
    /// Every sample of the directory, read from disk as drawn; a sample
    /// `half_life` samples older than the newest is drawn half as often
    /// (0: all alike).
    All {
        /// In samples; 0 for a uniform draw.
        half_life: f64,
    },
}

/// Replay settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReplaySettings {
    /// Where batches come from.
    pub mode: ReplayMode,
    /// How many of the newest samples form the window (in
    /// [`ReplayMode::All`] it only bounds the reuse tokens' stock).
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
    /// Samples of chunks dropped from the disk (a disk budget), still
    /// counted as ingested.
    #[serde(default)]
    pub dropped: u64,
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
    /// The training step in the chunk's header (its order in `All` mode).
    net_step: u64,
    /// Loaded (and verified) only while the chunk overlaps the window;
    /// never in `All` mode, where records are read from the file.
    chunk: Option<Arc<Chunk>>,
    /// `All` mode: the whole file was verified once.
    verified: bool,
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
    /// `All` mode: open files of recently drawn entries, by entry index.
    files: HashMap<usize, File>,
}

/// Open chunk files kept between draws in `All` mode (well below the
/// usual limit of 1,024 descriptors).
const OPEN_FILES: usize = 256;

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
            files: HashMap::new(),
        }
    }

    fn all_data(&self) -> bool {
        matches!(self.settings.mode, ReplayMode::All { .. })
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
                        net_step: header.net_step,
                        chunk: None,
                        verified: false,
                    });
                }
                Err(e) => report.skipped.push(e.to_string()),
            }
        }
        if self.all_data() {
            self.entries
                .sort_by(|a, b| (a.net_step, &a.path).cmp(&(b.net_step, &b.path)));
            // Indices move when chunks are inserted.
            self.files.clear();
        } else {
            self.entries.sort_by(|a, b| a.path.cmp(&b.path));
        }
        // Load what the window needs; a chunk whose body fails verification
        // is dropped and the window recomputed without it.
        loop {
            self.place_window();
            let mut failed = None;
            let all = self.all_data();
            for i in self.first..self.entries.len() {
                if self.entries[i].chunk.is_some() || self.entries[i].verified {
                    continue;
                }
                match read_chunk(&self.entries[i].path) {
                    Ok(chunk) if chunk.len() == self.entries[i].count && all => {
                        self.entries[i].verified = true
                    }
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
                    self.files.clear();
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
        let total = self.total_samples() + self.state.dropped;
        if total > self.state.ingested {
            let new = (total - self.state.ingested) as f64;
            let cap = self.settings.max_reuse * self.settings.window as f64;
            self.state.tokens = (self.state.tokens + new * self.settings.max_reuse).min(cap);
            self.state.ingested = total;
        }
        Ok(report)
    }

    /// Forgets the oldest chunk if no draw can reach it any more (it lies
    /// wholly before the window; never in `All` mode, which draws from
    /// every chunk), its samples counted as dropped; its path, for the
    /// caller to delete.
    pub fn forget_oldest(&mut self) -> Option<PathBuf> {
        if self.all_data() || self.first == 0 {
            return None;
        }
        let entry = self.entries.remove(0);
        self.first -= 1;
        self.state.dropped += entry.count as u64;
        Some(entry.path)
    }

    /// Picks the oldest entry (and offset) of the window: the first of all
    /// in `All` mode.
    fn place_window(&mut self) {
        let mut need = if self.all_data() {
            usize::MAX
        } else {
            self.settings.window
        };
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

    /// Draws `batch` samples (with replacement) from the window: uniformly,
    /// or in `All` mode as its half-life weights them. The draw is a
    /// function of `seed` and the window contents only, so a resumed run
    /// draws what an uninterrupted one would. Spends the tokens; call
    /// [`ReplayWindow::can_draw`] first. Returns an empty batch if the
    /// window is empty; an error if a chunk file can no longer be read.
    pub fn draw(&mut self, seed: u64, batch: usize) -> std::io::Result<Vec<Sample>> {
        let len = self.len();
        if len == 0 {
            return Ok(Vec::new());
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::with_capacity(batch);
        for _ in 0..batch {
            let i = match self.settings.mode {
                ReplayMode::All { half_life } if half_life > 0.0 => {
                    len - 1 - age_by_half_life(rng.random::<f64>(), half_life, len)
                }
                _ => rng.random_range(0..len),
            };
            // The entry holding window index i.
            let k = self.prefix.partition_point(|&p| p <= i) - 1;
            let offset = if k == 0 { self.first_skip } else { 0 };
            out.push(self.record(self.first + k, i - self.prefix[k] + offset)?);
        }
        self.state.tokens = (self.state.tokens - batch as f64).max(0.0);
        self.state.drawn += batch as u64;
        Ok(out)
    }

    /// Record `index` of entry `entry`: from memory, or read from its file.
    fn record(&mut self, entry: usize, index: usize) -> std::io::Result<Sample> {
        if let Some(chunk) = &self.entries[entry].chunk {
            // Verified when the chunk was loaded.
            return Ok(Sample::decode(chunk.record(index)).expect("verified record"));
        }
        if self.files.len() >= OPEN_FILES && !self.files.contains_key(&entry) {
            self.files.clear();
        }
        let file = match self.files.entry(entry) {
            std::collections::hash_map::Entry::Occupied(open) => open.into_mut(),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(File::open(&self.entries[entry].path)?)
            }
        };
        let mut record = [0u8; RECORD_SIZE];
        file.read_exact_at(&mut record, (HEADER_SIZE + index * RECORD_SIZE) as u64)?;
        Sample::decode(&record).map_err(|e| {
            let path = self.entries[entry].path.display();
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{path}: record {index} changed since it was verified: {e}"),
            )
        })
    }
}

/// The age (0: the newest) of a sample drawn from `len` with weights
/// halving every `half_life` samples, from a uniform `u` in [0, 1): the
/// inverse of the truncated exponential's distribution function.
fn age_by_half_life(u: f64, half_life: f64, len: usize) -> usize {
    let rate = std::f64::consts::LN_2 / half_life;
    let mass = 1.0 - (-rate * len as f64).exp();
    let age = -(1.0 - u * mass).ln() / rate;
    (age as usize).min(len - 1)
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
            mode: ReplayMode::Window,
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
        let batch = replay.draw(7, 500).unwrap();
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
        assert_eq!(tags(a.draw(3, 20).unwrap()), tags(b.draw(3, 20).unwrap()));
        assert_ne!(tags(a.draw(4, 20).unwrap()), tags(b.draw(5, 20).unwrap()));
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
            drawn += replay.draw(drawn as u64, 8).unwrap().len();
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
        let tags: HashSet<u16> = replay.draw(1, 300).unwrap().iter().map(|s| s.ply).collect();
        assert!(tags.iter().all(|t| !(5..15).contains(t)));
        // Reported once only.
        assert!(replay.refresh().unwrap().skipped.is_empty());
        fs::remove_dir_all(dir).unwrap();
    }

    fn all_data(half_life: f64) -> ReplaySettings {
        ReplaySettings {
            mode: ReplayMode::All { half_life },
            window: 15,
            min_samples: 1,
            max_reuse: 4.0,
        }
    }

    #[test]
    fn all_data_draws_every_sample_from_disk_and_holds_none_in_memory() {
        let dir = temp_dir("all-data");
        let w = ChunkWriter::new(&dir).unwrap();
        for k in 0..4 {
            w.write(&tagged(10 * k, 10), u64::from(k)).unwrap();
        }
        let mut replay = ReplayWindow::new(&dir, all_data(0.0), ReplayState::default());
        replay.refresh().unwrap();
        assert_eq!(replay.len(), 40, "every sample, not the window of 15");
        assert!(
            replay
                .entries
                .iter()
                .all(|e| e.chunk.is_none() && e.verified)
        );
        // The token stock is still bounded by max_reuse * window.
        assert_eq!(replay.state().tokens, 4.0 * 15.0);
        let seen: HashSet<u16> = replay.draw(2, 800).unwrap().iter().map(|s| s.ply).collect();
        assert_eq!(seen.len(), 40, "the oldest chunk is drawn too");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn all_data_orders_chunks_by_their_net_step_and_weights_the_newest() {
        let dir = temp_dir("all-order");
        let w = ChunkWriter::new(&dir).unwrap();
        // Written first, but played by the newer net: the newest data.
        w.write(&tagged(100, 10), 9).unwrap();
        w.write(&tagged(0, 90), 1).unwrap();
        let mut replay = ReplayWindow::new(&dir, all_data(5.0), ReplayState::default());
        replay.refresh().unwrap();
        let batch = replay.draw(3, 1000).unwrap();
        let newest = batch.iter().filter(|s| s.ply >= 100).count();
        // Half-life 5 over 100 samples: the newest 10 hold 1 - 2^-2 of the mass.
        assert!(
            (700..=800).contains(&newest),
            "{newest} of 1000 from the newest chunk"
        );
        let mut uniform = ReplayWindow::new(&dir, all_data(0.0), ReplayState::default());
        uniform.refresh().unwrap();
        let newest = uniform
            .draw(3, 1000)
            .unwrap()
            .iter()
            .filter(|s| s.ply >= 100)
            .count();
        assert!((60..=140).contains(&newest), "{newest} of 1000 uniformly");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn all_data_draws_are_reproducible_and_a_vanished_chunk_is_an_error() {
        let dir = temp_dir("all-gone");
        let w = ChunkWriter::new(&dir).unwrap();
        let first = w.write(&tagged(0, 20), 0).unwrap();
        w.write(&tagged(20, 20), 1).unwrap();
        let mut a = ReplayWindow::new(&dir, all_data(8.0), ReplayState::default());
        let mut b = ReplayWindow::new(&dir, all_data(8.0), ReplayState::default());
        a.refresh().unwrap();
        b.refresh().unwrap();
        let tags = |v: Vec<Sample>| v.iter().map(|s| s.ply).collect::<Vec<_>>();
        assert_eq!(tags(a.draw(5, 64).unwrap()), tags(b.draw(5, 64).unwrap()));
        fs::remove_file(&first).unwrap();
        let mut fresh = ReplayWindow::new(&dir, all_data(0.0), ReplayState::default());
        fresh.refresh().unwrap();
        assert_eq!(fresh.len(), 20, "a removed chunk is no longer counted");
        // (An open file stays readable after it is removed: close them.)
        a.files.clear();
        let err = (0..20)
            .find_map(|seed| a.draw(seed, 64).err())
            .expect("a draw from the removed chunk fails");
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound, "{err}");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_half_life_draw_inverts_its_distribution() {
        assert_eq!(age_by_half_life(0.0, 10.0, 1000), 0);
        assert_eq!(age_by_half_life(0.999_999_999, 10.0, 50), 49);
        // With far more samples than the half-life, half the mass lies
        // within one half-life of the newest.
        let median = age_by_half_life(0.5, 1000.0, 10_000_000);
        assert!((998..=1001).contains(&median), "{median}");
    }
}
