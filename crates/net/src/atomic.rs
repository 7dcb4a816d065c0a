//! Atomic file writes (the shared implementation), with the net crate's error.

use crate::error::NetError;
use std::path::Path;

/// Writes `bytes` to `path` so that readers see the old file or the whole
/// new one, never a partial write.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), NetError> {
    shashki_rules::atomic::write_atomic(path, bytes).map_err(|source| NetError::io(path, source))
}
