//! Room on the disk: the free space a long writer leaves untouched (a
//! floor), so that a run stops cleanly, everything saved, before the disk
//! is full, instead of failing mid-write and taking whatever shares the
//! disk with it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The floor a long writer keeps unless told otherwise: room for the
/// system and whatever shares the disk, and for the writer's last save.
pub const DEFAULT_FLOOR_GB: f64 = 2.0;

/// Bytes in a gigabyte as the floors and budgets count them (10^9, as
/// `df -H` and disk makers do).
pub const GB: f64 = 1e9;

/// A size as people read it: `1.25 GB`, `3.2 MB`, `41 KB`.
pub fn size(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= GB {
        format!("{:.2} GB", b / GB)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.0} KB", b / 1e3)
    }
}

/// The free space that must remain on the disk holding `dir` before more
/// is written there.
#[derive(Clone, Debug)]
pub struct DiskFloor {
    dir: PathBuf,
    floor: u64,
}

impl DiskFloor {
    /// A floor of `gb` gigabytes on the disk of `dir`; 0 never stops.
    pub fn new(dir: impl Into<PathBuf>, gb: f64) -> DiskFloor {
        DiskFloor {
            dir: dir.into(),
            floor: (gb.max(0.0) * GB) as u64,
        }
    }

    /// A floor of `gb` gigabytes on the disk a writer's output goes to:
    /// the folder `out`, or with `file` the folder holding the file `out`.
    pub fn of_output(out: &Path, file: bool, gb: f64) -> DiskFloor {
        let dir = match out.parent() {
            _ if !file => out.to_path_buf(),
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        DiskFloor::new(dir, gb)
    }

    /// `Err` when the space free to this user on the disk is below the
    /// floor. A disk whose free space cannot be read (a folder not yet
    /// made, a filesystem without statistics) passes: the writes
    /// themselves then report what is wrong.
    pub fn check(&self) -> Result<(), LowDisk> {
        if self.floor == 0 {
            return Ok(());
        }
        match free_space(&self.dir) {
            Some(free) if free < self.floor => Err(LowDisk {
                dir: self.dir.clone(),
                free,
                floor: self.floor,
            }),
            _ => Ok(()),
        }
    }
}

/// The bytes free to this user on the disk holding `dir` (or its nearest
/// existing ancestor), if the system says.
pub fn free_space(dir: &Path) -> Option<u64> {
    let existing = dir.ancestors().find(|a| a.exists())?;
    fs4::available_space(existing).ok()
}

/// A writer stopped, everything saved, because the disk's free space fell
/// below its floor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowDisk {
    /// The folder whose disk is short.
    pub dir: PathBuf,
    /// Bytes free when it stopped.
    pub free: u64,
    /// The floor, in bytes.
    pub floor: u64,
}

impl fmt::Display for LowDisk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} free on the disk of {}, below the floor of {}: stopped with everything saved; \
             free at least {} there (or lower the floor), then resume",
            size(self.free),
            self.dir.display(),
            size(self.floor),
            size(self.floor - self.free),
        )
    }
}

impl std::error::Error for LowDisk {}

/// A floor watched from a thread of its own, for work that already stops
/// cleanly on a flag (`shashki relabel`, `shashki book`): below the floor
/// it raises the flag and remembers why.
pub struct FloorWatch {
    low: Arc<Mutex<Option<LowDisk>>>,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FloorWatch {
    /// Checks `floor` now (raising `stop` at once if it is not met) and
    /// then every `every` until [`FloorWatch::finish`].
    pub fn start(floor: DiskFloor, stop: Arc<AtomicBool>, every: Duration) -> FloorWatch {
        let low = Arc::new(Mutex::new(None));
        let done = Arc::new(AtomicBool::new(false));
        let watch = move |low: &Mutex<Option<LowDisk>>| match floor.check() {
            Ok(()) => false,
            Err(short) => {
                *low.lock().expect("never poisoned") = Some(short);
                stop.store(true, Ordering::SeqCst);
                true
            }
        };
        if watch(&low) {
            return FloorWatch {
                low,
                done,
                thread: None,
            };
        }
        let (low2, done2) = (Arc::clone(&low), Arc::clone(&done));
        let thread = std::thread::spawn(move || {
            while !done2.load(Ordering::SeqCst) {
                std::thread::park_timeout(every);
                if !done2.load(Ordering::SeqCst) && watch(&low2) {
                    return;
                }
            }
        });
        FloorWatch {
            low,
            done,
            thread: Some(thread),
        }
    }

    /// Ends the watch: `Err` if the floor stopped the work.
    pub fn finish(mut self) -> Result<(), LowDisk> {
        self.end();
        match self.low.lock().expect("never poisoned").take() {
            Some(low) => Err(low),
            None => Ok(()),
        }
    }

    fn end(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

impl Drop for FloorWatch {
    /// A watch dropped unfinished (the work failed) ends its thread too.
    fn drop(&mut self) {
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_floor_above_the_disk_stops_and_says_how_much_is_missing() {
        let dir = std::env::temp_dir();
        let free = free_space(&dir).expect("the temp dir's disk has statistics");
        let low = DiskFloor::new(&dir, (free as f64 + 5e9) / GB)
            .check()
            .expect_err("a floor 5 GB above the free space stops");
        assert_eq!(low.dir, dir);
        assert!(low.floor - low.free >= 4_990_000_000, "{low}");
        let text = low.to_string();
        assert!(text.contains("below the floor of"), "{text}");
        assert!(text.contains(" GB there (or lower the floor)"), "{text}");
        assert_eq!(DiskFloor::new(&dir, 0.001).check(), Ok(()));
        assert_eq!(DiskFloor::new(&dir, 0.0).check(), Ok(()));
    }

    #[test]
    fn a_watch_raises_the_stop_at_once_below_the_floor_and_never_above_it() {
        let dir = std::env::temp_dir();
        let stop = Arc::new(AtomicBool::new(false));
        let every = Duration::from_millis(5);
        let watch = FloorWatch::start(DiskFloor::new(&dir, 1e6), Arc::clone(&stop), every);
        assert!(stop.load(Ordering::SeqCst), "raised before start returns");
        assert!(watch.finish().is_err());
        let stop = Arc::new(AtomicBool::new(false));
        let watch = FloorWatch::start(DiskFloor::new(&dir, 0.0), Arc::clone(&stop), every);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(watch.finish(), Ok(()));
        assert!(!stop.load(Ordering::SeqCst));
    }

    #[test]
    fn a_folder_not_yet_made_is_measured_on_its_parents_disk() {
        let dir = std::env::temp_dir().join("not-made-yet/deeper");
        assert!(free_space(&dir).is_some());
        assert_eq!(size(1_250_000_000), "1.25 GB");
        assert_eq!(size(3_240_000), "3.2 MB");
        assert_eq!(size(41_400), "41 KB");
    }

    #[test]
    fn an_outputs_floor_watches_its_folder_or_the_folder_of_its_file() {
        let dir = |out: &str, file| DiskFloor::of_output(Path::new(out), file, 1.0).dir;
        assert_eq!(dir("runs/x/data", false), Path::new("runs/x/data"));
        assert_eq!(dir("runs/x/pool.jsonl", true), Path::new("runs/x"));
        assert_eq!(dir("pool.jsonl", true), Path::new("."));
    }
}
