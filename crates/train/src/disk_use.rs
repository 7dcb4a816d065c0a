//! What a run costs on disk, shown as it goes: its size after each
//! generation (the progress line, tensorboard's `disk/run_gb`) and, after
//! the first generation of each sitting, the bytes a generation and an hour
//! at that pace, so a user sees how long the disk lasts before it matters.

use crate::observer::Observer;
use shashki_atomic::room::{GB, size};
use std::path::{Path, PathBuf};

/// The bytes of every file under `dir`, its subfolders included (entries
/// that vanish or cannot be read while it counts are skipped: a writer
/// renames its temporary files as it goes).
pub fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&entry.path()),
            Ok(t) if t.is_file() => entry.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// A run's size, and what its first generation of this sitting added.
pub(crate) struct DiskUse {
    root: PathBuf,
    data: PathBuf,
    /// The run's and its chunks' bytes at the sitting's start, until the
    /// first generation's cost is reported.
    before: Option<(u64, u64)>,
}

impl DiskUse {
    /// Measures the run at `root` (chunks in `data`) as it is now.
    pub(crate) fn new(root: &Path, data: &Path) -> DiskUse {
        DiskUse {
            root: root.to_path_buf(),
            data: data.to_path_buf(),
            before: Some((dir_bytes(root), dir_bytes(data))),
        }
    }

    /// The run's bytes after a generation that took `seconds`; after the
    /// sitting's first, a line of what a generation and an hour cost.
    pub(crate) fn after_generation(&mut self, seconds: f64, observer: &mut dyn Observer) -> u64 {
        let total = dir_bytes(&self.root);
        if let Some((run_before, data_before)) = self.before.take() {
            let chunks = dir_bytes(&self.data).saturating_sub(data_before);
            let grew = total.saturating_sub(run_before);
            observer.message(&cost_line(grew, chunks, seconds, total));
        }
        total
    }
}

/// `disk: 3.2 MB a generation (3.1 MB of chunks), about 1.40 GB of chunks
/// an hour at this pace; the run holds 2.21 GB`. The hour counts chunks
/// only: what else a generation writes (its checkpoint) replaces an older
/// one once `keep_checkpoints` are there.
fn cost_line(generation: u64, chunks: u64, seconds: f64, total: u64) -> String {
    let hour = chunks as f64 * 3600.0 / seconds.max(1e-3);
    format!(
        "disk: {} a generation ({} of chunks), about {} of chunks an hour at this pace; \
         the run holds {}",
        size(generation),
        size(chunks),
        size(hour as u64),
        size(total),
    )
}

/// A size for tensorboard, in gigabytes.
pub(crate) fn as_gb(bytes: u64) -> f64 {
    bytes as f64 / GB
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_atomic::testing::temp_dir;

    #[test]
    fn the_cost_line_scales_a_generation_to_an_hour() {
        let line = cost_line(3_200_000, 3_100_000, 8.0, 2_210_000_000);
        assert_eq!(
            line,
            "disk: 3.2 MB a generation (3.1 MB of chunks), about 1.40 GB of chunks an hour at \
             this pace; the run holds 2.21 GB"
        );
    }

    #[test]
    fn a_folders_bytes_count_its_subfolders() {
        let dir = temp_dir("disk-use");
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::fs::write(dir.join("a"), [0u8; 100]).unwrap();
        std::fs::write(dir.join("data/b"), [0u8; 50]).unwrap();
        assert_eq!(dir_bytes(&dir), 150);
        assert_eq!(dir_bytes(&dir.join("data")), 50);
        assert_eq!(dir_bytes(&dir.join("missing")), 0);
        let mut disk = DiskUse::new(&dir, &dir.join("data"));
        std::fs::write(dir.join("data/c"), [0u8; 25]).unwrap();
        let mut lines = Vec::new();
        struct Lines<'a>(&'a mut Vec<String>);
        impl Observer for Lines<'_> {
            fn message(&mut self, line: &str) {
                self.0.push(line.to_string());
            }
        }
        assert_eq!(disk.after_generation(1.0, &mut Lines(&mut lines)), 175);
        assert_eq!(disk.after_generation(1.0, &mut Lines(&mut lines)), 175);
        assert_eq!(lines.len(), 1, "one cost line a sitting: {lines:?}");
        assert!(lines[0].starts_with("disk: 0 KB a generation"), "{lines:?}");
    }
}
