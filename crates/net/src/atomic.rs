//! Atomic file writes: a temporary file in the same folder, fsync, rename.

use crate::error::NetError;
use std::fs::{self, File};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` so that readers see the old file or the whole
/// new one, never a partial write.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), NetError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| NetError::format(path, "not a file path"))?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        // Persist the rename itself; not every platform can open a folder.
        if let Ok(dir) = File::open(dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    result.map_err(|source| {
        let _ = fs::remove_file(&tmp);
        NetError::io(path, source)
    })
}
