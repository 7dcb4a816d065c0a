//! Atomic file writes: a temporary file beside the target, fsync, rename, so
//! a reader never sees a half-written file (PDN, checkpoint, chunk, ratings,
//! plot). Its own crate at the bottom of the stack, because every stage
//! writes files and none should reach into another's for it. [`FileError`]
//! is the error of a file every stage's own error wraps; [`room`] the
//! free-space floor a long writer keeps.

mod file_error;
pub mod room;
#[cfg(feature = "testing")]
pub mod testing;

pub use file_error::FileError;
pub use room::{DiskFloor, FloorWatch, LowDisk};

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The temporary path used while writing `path`: `NAME.tmpPID.EXT`, keeping
/// the extension because some writers (the PNG encoder) choose the format
/// by it.
fn temp_path(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let mut name = format!(".{stem}.tmp{}", std::process::id());
    if let Some(ext) = path.extension() {
        name.push('.');
        name.push_str(&ext.to_string_lossy());
    }
    path.with_file_name(name)
}

/// Writes `bytes` to `path` atomically (creating parent folders).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |tmp| {
        let mut file = File::create(tmp)?;
        file.write_all(bytes)?;
        file.sync_all()
    })
}

/// Lets `write` fill a temporary file, then fsyncs it and renames it over
/// `path`. On error the temporary file is removed.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        fs::create_dir_all(parent)?;
    }
    let tmp = temp_path(path);
    let result = write(&tmp).and_then(|()| File::open(&tmp)?.sync_all());
    if let Err(err) = result {
        let _ = fs::remove_file(&tmp);
        return Err(err);
    }
    fs::rename(&tmp, path)?;
    // Persist the rename itself (best effort: not every platform can open a
    // directory).
    if let Some(parent) = path.parent()
        && let Ok(dir) = File::open(if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        })
    {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces_without_leftovers() {
        let dir = std::env::temp_dir().join(format!("rules-atomic-{}", std::process::id()));
        let path = dir.join("sub/file.txt");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let failed = write_atomic_with(&path, |_| Err(io::Error::other("boom")));
        assert!(failed.is_err());
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left behind");
        fs::remove_dir_all(&dir).unwrap();
    }
}
