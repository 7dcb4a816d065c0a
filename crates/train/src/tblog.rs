//! Tensorboard logging that cannot crash training.
//!
//! tensorboard-rs 0.5.9 writes through a background thread that panics on
//! any I/O error (the next call then panics in the caller), and names its
//! event file `events.out.tfevents.<unix seconds>.<host>.<pid>.0`, so two
//! writers of one process opened in the same second write the same file. This
//! wrapper checks that the directory is writable before opening, allows one
//! writer per directory per process, waits for a fresh second when the name
//! would be reused, and turns every panic inside the library into an error.
//!
//! [`read_scalars`] parses event files back (TFRecord framing with its masked
//! CRC-32C checks, then the few protobuf fields scalars use), for tests and
//! for tools that want the numbers without TensorBoard.

use std::collections::HashSet;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tensorboard_rs::masked_crc32c::masked_crc32c;
use tensorboard_rs::summary_writer::SummaryWriter;

/// Directories with an open writer in this process.
static OPEN_DIRS: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// A tensorboard failure.
#[derive(Debug, thiserror::Error)]
pub enum TbError {
    /// The log directory cannot be created or written.
    #[error("tensorboard log directory {path}: {error}")]
    Io {
        /// The directory or file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// Another writer of this process already logs into the directory.
    #[error("tensorboard log directory {0} already has a writer in this process")]
    Busy(PathBuf),
    /// The library failed (it panicked, most likely on an I/O error such as a
    /// full disk); no further scalars are written by this logger.
    #[error("tensorboard writer for {0} failed (disk full or directory removed?); logging stopped")]
    Failed(PathBuf),
    /// An event file does not parse.
    #[error("{path}: {reason}")]
    BadEventFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// A scalar series writer into one run directory.
pub struct TbLogger {
    dir: PathBuf,
    writer: Option<SummaryWriter>,
}

impl TbLogger {
    /// Opens a writer into `dir` (created if missing).
    pub fn open(dir: impl Into<PathBuf>) -> Result<TbLogger, TbError> {
        let dir = dir.into();
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |error| TbError::Io { path, error }
        };
        fs::create_dir_all(&dir).map_err(io(&dir))?;
        let probe = dir.join(format!(".write-probe-{}", std::process::id()));
        fs::write(&probe, b"probe").map_err(io(&probe))?;
        fs::remove_file(&probe).map_err(io(&probe))?;
        let key = fs::canonicalize(&dir).map_err(io(&dir))?;
        {
            let mut open = OPEN_DIRS.lock().unwrap_or_else(|e| e.into_inner());
            if !open.get_or_insert_with(HashSet::new).insert(key.clone()) {
                return Err(TbError::Busy(dir));
            }
        }
        wait_for_fresh_file_name(&dir);
        let dir_for_writer = dir.clone();
        match catch_unwind(move || SummaryWriter::new(dir_for_writer)) {
            Ok(writer) => Ok(TbLogger {
                dir,
                writer: Some(writer),
            }),
            Err(_) => {
                release(&key);
                Err(TbError::Failed(dir))
            }
        }
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// True once the writer has failed (nothing more is written).
    pub fn is_failed(&self) -> bool {
        self.writer.is_none()
    }

    /// Adds one scalar at a step.
    pub fn scalar(&mut self, tag: &str, value: f64, step: u64) -> Result<(), TbError> {
        self.guarded(|w| w.add_scalar(tag, value as f32, step as usize))
    }

    /// Adds several scalars at one step.
    pub fn scalars(&mut self, values: &[(&str, f64)], step: u64) -> Result<(), TbError> {
        for (tag, value) in values {
            self.scalar(tag, *value, step)?;
        }
        Ok(())
    }

    /// Asks the writer thread to flush what it holds.
    pub fn flush(&mut self) -> Result<(), TbError> {
        self.guarded(|w| w.flush())
    }

    /// Closes the writer, waiting until everything is written.
    pub fn close(mut self) -> Result<(), TbError> {
        self.shut_down()
    }

    fn guarded(&mut self, f: impl FnOnce(&mut SummaryWriter)) -> Result<(), TbError> {
        let Some(writer) = self.writer.as_mut() else {
            return Err(TbError::Failed(self.dir.clone()));
        };
        if catch_unwind(AssertUnwindSafe(|| f(writer))).is_err() {
            // The writer is in an unknown state: stop using it.
            self.shut_down().ok();
            return Err(TbError::Failed(self.dir.clone()));
        }
        Ok(())
    }

    fn shut_down(&mut self) -> Result<(), TbError> {
        let Some(writer) = self.writer.take() else {
            return Ok(());
        };
        // Dropping joins the writer thread and panics if it had died.
        let clean = catch_unwind(AssertUnwindSafe(move || drop(writer))).is_ok();
        if let Ok(key) = fs::canonicalize(&self.dir) {
            release(&key);
        }
        if clean {
            Ok(())
        } else {
            Err(TbError::Failed(self.dir.clone()))
        }
    }
}

impl Drop for TbLogger {
    fn drop(&mut self) {
        let _ = self.shut_down();
    }
}

fn release(key: &Path) {
    let mut open = OPEN_DIRS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(set) = open.as_mut() {
        set.remove(key);
    }
}

fn unix_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Waits (at most a bit over a second) until this process's event file name
/// for the current second is unused, so a reopened writer never truncates
/// the file of an earlier one.
fn wait_for_fresh_file_name(dir: &Path) {
    let pid = std::process::id();
    for _ in 0..30 {
        let prefix = format!("events.out.tfevents.{:010}.", unix_seconds());
        let suffix = format!(".{pid}.0");
        let taken = fs::read_dir(dir)
            .map(|entries| {
                entries.flatten().any(|e| {
                    let name = e.file_name();
                    let name = name.to_string_lossy();
                    name.starts_with(&prefix) && name.ends_with(&suffix)
                })
            })
            .unwrap_or(false);
        if !taken {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One scalar read back from an event file.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarEvent {
    /// The tag.
    pub tag: String,
    /// The step.
    pub step: i64,
    /// The value.
    pub value: f32,
}

/// The event files of a directory, sorted by name.
pub fn event_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)?
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("events.out.tfevents.")
        })
        .map(|e| e.path())
        .collect();
    files.sort();
    Ok(files)
}

/// Reads every scalar of an event file, checking the TFRecord checksums. A
/// record cut off at the end (a writer killed mid-write) ends the file
/// quietly, as TensorBoard does; a checksum mismatch is an error.
pub fn read_scalars(path: &Path) -> Result<Vec<ScalarEvent>, TbError> {
    let bad = |reason: String| TbError::BadEventFile {
        path: path.to_path_buf(),
        reason,
    };
    let bytes = fs::read(path).map_err(|error| TbError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    let mut out = Vec::new();
    let mut at = 0usize;
    let mut record = 0usize;
    while at + 12 <= bytes.len() {
        let len_bytes = &bytes[at..at + 8];
        let len = u64::from_le_bytes(len_bytes.try_into().unwrap()) as usize;
        let len_crc = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap());
        if masked_crc32c(len_bytes) != len_crc {
            return Err(bad(format!("record {record}: length checksum mismatch")));
        }
        let Some(end) = (at + 12).checked_add(len).filter(|&e| e + 4 <= bytes.len()) else {
            break;
        };
        let data = &bytes[at + 12..end];
        let data_crc = u32::from_le_bytes(bytes[end..end + 4].try_into().unwrap());
        if masked_crc32c(data) != data_crc {
            return Err(bad(format!("record {record}: data checksum mismatch")));
        }
        parse_event(data, &mut out).map_err(|e| bad(format!("record {record}: {e}")))?;
        at = end + 4;
        record += 1;
    }
    Ok(out)
}

/// One protobuf field: number and value.
enum Field<'a> {
    Varint(u64),
    /// A 64-bit field (the wall time): skipped.
    Fixed64,
    Bytes(&'a [u8]),
    Fixed32(u32),
}

fn read_varint(data: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *data.get(*at).ok_or("varint runs past the end")?;
        *at += 1;
        value |= ((byte & 0x7F) as u64) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("varint too long".into())
}

fn fields(data: &[u8]) -> Result<Vec<(u64, Field<'_>)>, String> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < data.len() {
        let key = read_varint(data, &mut at)?;
        let take = |at: &mut usize, n: usize| -> Result<&[u8], String> {
            let slice = data.get(*at..*at + n).ok_or("field runs past the end")?;
            *at += n;
            Ok(slice)
        };
        let field = match key & 7 {
            0 => Field::Varint(read_varint(data, &mut at)?),
            1 => {
                take(&mut at, 8)?;
                Field::Fixed64
            }
            2 => {
                let n = read_varint(data, &mut at)? as usize;
                Field::Bytes(take(&mut at, n)?)
            }
            5 => Field::Fixed32(u32::from_le_bytes(take(&mut at, 4)?.try_into().unwrap())),
            w => return Err(format!("unsupported wire type {w}")),
        };
        out.push((key >> 3, field));
    }
    Ok(out)
}

/// Event { step = 2 (int64), summary = 5 { value = 1 { tag = 1, simple_value = 2 } } }.
fn parse_event(data: &[u8], out: &mut Vec<ScalarEvent>) -> Result<(), String> {
    let event = fields(data)?;
    let step = event
        .iter()
        .find_map(|(n, f)| match (n, f) {
            (2, Field::Varint(v)) => Some(*v as i64),
            _ => None,
        })
        .unwrap_or(0);
    for (n, f) in &event {
        let (5, Field::Bytes(summary)) = (n, f) else {
            continue;
        };
        for (n, f) in fields(summary)? {
            let (1, Field::Bytes(value)) = (n, f) else {
                continue;
            };
            let mut tag = None;
            let mut simple = None;
            for (n, f) in fields(value)? {
                match (n, f) {
                    (1, Field::Bytes(t)) => tag = Some(String::from_utf8_lossy(t).into_owned()),
                    (2, Field::Fixed32(v)) => simple = Some(f32::from_bits(v)),
                    _ => {}
                }
            }
            if let (Some(tag), Some(value)) = (tag, simple) {
                out.push(ScalarEvent { tag, step, value });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use shashki_atomic::testing::temp_dir;

    #[test]
    fn scalars_written_are_read_back() {
        let dir = temp_dir("roundtrip");
        let mut log = TbLogger::open(&dir).unwrap();
        log.scalar("loss/policy", 2.5, 1).unwrap();
        log.scalars(&[("loss/value", 0.75), ("lr", 0.01)], 2)
            .unwrap();
        log.close().unwrap();
        let files = event_files(&dir).unwrap();
        assert_eq!(files.len(), 1);
        let events = read_scalars(&files[0]).unwrap();
        let want = [
            ("loss/policy", 1, 2.5),
            ("loss/value", 2, 0.75),
            ("lr", 2, 0.01),
        ];
        assert_eq!(events.len(), 3);
        for (e, (tag, step, value)) in events.iter().zip(want) {
            assert_eq!((e.tag.as_str(), e.step), (tag, step));
            assert!((e.value - value as f32).abs() < 1e-7);
        }
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn one_writer_per_directory_and_reopening_keeps_old_files() {
        let dir = temp_dir("busy");
        let mut first = TbLogger::open(&dir).unwrap();
        assert!(matches!(TbLogger::open(&dir), Err(TbError::Busy(_))));
        first.scalar("a", 1.0, 1).unwrap();
        first.close().unwrap();
        let mut second = TbLogger::open(&dir).unwrap();
        second.scalar("a", 2.0, 2).unwrap();
        second.close().unwrap();
        let files = event_files(&dir).unwrap();
        assert_eq!(
            files.len(),
            2,
            "the second writer must not overwrite the first"
        );
        let values: Vec<f32> = files
            .iter()
            .flat_map(|f| read_scalars(f).unwrap())
            .map(|e| e.value)
            .collect();
        assert_eq!(values, [1.0, 2.0]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_unwritable_directory_is_an_error() {
        let dir = temp_dir("unwritable");
        let file = dir.join("not-a-dir");
        fs::write(&file, b"x").unwrap();
        let err = TbLogger::open(file.join("sub")).err().expect("must fail");
        assert!(matches!(err, TbError::Io { .. }), "{err}");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_corrupted_event_file_is_an_error() {
        let dir = temp_dir("corrupt");
        let mut log = TbLogger::open(&dir).unwrap();
        log.scalar("x", 1.0, 1).unwrap();
        log.close().unwrap();
        let file = &event_files(&dir).unwrap()[0];
        let mut bytes = fs::read(file).unwrap();
        let n = bytes.len();
        bytes[n - 6] ^= 0x55;
        fs::write(file, bytes).unwrap();
        let err = read_scalars(file).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
        fs::remove_dir_all(dir).unwrap();
    }
}
