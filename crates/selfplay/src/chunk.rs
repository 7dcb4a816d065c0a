//! Chunk files: a batch of sample records with a versioned header and a
//! checksum, written atomically. A directory of chunks is the interface
//! between self-play (any number of processes or machines) and the learner.
//!
//! # File layout, format version 1 (little-endian)
//!
//! | offset | type | field |
//! |-------:|------|-------|
//! | 0  | 8 bytes | magic `SHZCHNK\0` |
//! | 8  | u32 | format version ([`FORMAT_VERSION`]) |
//! | 12 | u32 | record size ([`RECORD_SIZE`]) |
//! | 16 | u32 | number of records |
//! | 20 | u32 | reserved, zero |
//! | 24 | u64 | training step of the network that played the games |
//! | 32 | count x record | the records ([`crate::sample`]) |
//! | end - 4 | u32 | CRC-32 (IEEE) of everything before it |
//!
//! Names: `chunk-<unix nanoseconds, 20 digits>-<pid>-<counter>-<random>.shzc`,
//! so names sort by creation time and never collide between processes. A
//! chunk is written to `.tmp-<name>` in the same directory, synced, renamed
//! and the directory synced: a reader sees a whole chunk or none.

use crate::sample::{RECORD_SIZE, Sample};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The first 8 bytes of every chunk file.
pub const MAGIC: [u8; 8] = *b"SHZCHNK\0";
/// The chunk format version this code writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Header size in bytes.
pub const HEADER_SIZE: usize = 32;
/// File name extension of finished chunks.
pub const EXTENSION: &str = "shzc";

/// What is wrong with a chunk file.
#[derive(Debug, thiserror::Error)]
pub enum ChunkError {
    /// The file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The file does not start with the chunk magic.
    #[error("{path}: not a Shashki Zero chunk (bad magic bytes)")]
    BadMagic {
        /// The file.
        path: PathBuf,
    },
    /// A format version this code does not read.
    #[error("{path}: chunk format version {found}, this build reads version {FORMAT_VERSION}")]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version in the header.
        found: u32,
    },
    /// The header's record size does not match this build's.
    #[error("{path}: record size {found} bytes, expected {RECORD_SIZE}")]
    RecordSize {
        /// The file.
        path: PathBuf,
        /// The record size in the header.
        found: u32,
    },
    /// The file is shorter or longer than its header says (truncated write).
    #[error("{path}: {actual} bytes, the header promises {expected} (truncated or padded file)")]
    Length {
        /// The file.
        path: PathBuf,
        /// Size implied by the header.
        expected: u64,
        /// Actual size.
        actual: u64,
    },
    /// The checksum does not match the contents (corruption).
    #[error(
        "{path}: checksum mismatch (stored {stored:08x}, computed {computed:08x}): corrupted chunk"
    )]
    Checksum {
        /// The file.
        path: PathBuf,
        /// Checksum in the trailer.
        stored: u32,
        /// Checksum of the contents.
        computed: u32,
    },
    /// A record passed the checksum but holds an impossible value.
    #[error("{path}: record {index}: {reason}")]
    BadRecord {
        /// The file.
        path: PathBuf,
        /// Record number (0-based).
        index: usize,
        /// What is wrong.
        reason: String,
    },
}

/// The decoded header of a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkHeader {
    /// Number of records.
    pub count: u32,
    /// Training step of the network that produced the games.
    pub net_step: u64,
}

/// A verified chunk: its header and raw records (decode them with
/// [`Sample::decode`] or [`Chunk::samples`]).
#[derive(Clone, Debug)]
pub struct Chunk {
    /// The header.
    pub header: ChunkHeader,
    /// `count * RECORD_SIZE` bytes of records.
    pub records: Vec<u8>,
}

impl Chunk {
    /// Number of records.
    pub fn len(&self) -> usize {
        self.header.count as usize
    }

    /// True if the chunk holds no records.
    pub fn is_empty(&self) -> bool {
        self.header.count == 0
    }

    /// The raw bytes of record `i`.
    pub fn record(&self, i: usize) -> &[u8] {
        &self.records[i * RECORD_SIZE..(i + 1) * RECORD_SIZE]
    }

    /// Decodes every record.
    pub fn samples(&self) -> Result<Vec<Sample>, String> {
        (0..self.len())
            .map(|i| Sample::decode(self.record(i)).map_err(|e| format!("record {i}: {e}")))
            .collect()
    }
}

/// Serialises samples into the bytes of a chunk file.
pub fn encode_chunk(samples: &[Sample], net_step: u64) -> Vec<u8> {
    let mut bytes = vec![0u8; HEADER_SIZE + samples.len() * RECORD_SIZE + 4];
    bytes[0..8].copy_from_slice(&MAGIC);
    bytes[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes[12..16].copy_from_slice(&(RECORD_SIZE as u32).to_le_bytes());
    bytes[16..20].copy_from_slice(&(samples.len() as u32).to_le_bytes());
    bytes[24..32].copy_from_slice(&net_step.to_le_bytes());
    for (i, s) in samples.iter().enumerate() {
        let at = HEADER_SIZE + i * RECORD_SIZE;
        s.encode(&mut bytes[at..at + RECORD_SIZE]);
    }
    let body = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// Parses and verifies the bytes of a chunk file (`path` is for messages).
/// Checks magic, version, record size, length and checksum, then decodes
/// every record once so a bad value is found here rather than in training.
pub fn decode_chunk(path: &Path, bytes: Vec<u8>) -> Result<Chunk, ChunkError> {
    let path_buf = || path.to_path_buf();
    if bytes.len() < HEADER_SIZE + 4 {
        return Err(ChunkError::Length {
            path: path_buf(),
            expected: (HEADER_SIZE + 4) as u64,
            actual: bytes.len() as u64,
        });
    }
    if bytes[0..8] != MAGIC {
        return Err(ChunkError::BadMagic { path: path_buf() });
    }
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
    let version = u32_at(8);
    if version != FORMAT_VERSION {
        return Err(ChunkError::UnsupportedVersion {
            path: path_buf(),
            found: version,
        });
    }
    let record_size = u32_at(12);
    if record_size as usize != RECORD_SIZE {
        return Err(ChunkError::RecordSize {
            path: path_buf(),
            found: record_size,
        });
    }
    let count = u32_at(16);
    let expected = (HEADER_SIZE + 4) as u64 + count as u64 * RECORD_SIZE as u64;
    if bytes.len() as u64 != expected {
        return Err(ChunkError::Length {
            path: path_buf(),
            expected,
            actual: bytes.len() as u64,
        });
    }
    let body = bytes.len() - 4;
    let stored = u32_at(body);
    let computed = crc32fast::hash(&bytes[..body]);
    if stored != computed {
        return Err(ChunkError::Checksum {
            path: path_buf(),
            stored,
            computed,
        });
    }
    let net_step = u64::from_le_bytes(bytes[24..32].try_into().unwrap());
    let mut records = bytes;
    records.truncate(body);
    records.drain(..HEADER_SIZE);
    let chunk = Chunk {
        header: ChunkHeader { count, net_step },
        records,
    };
    for index in 0..chunk.len() {
        if let Err(e) = Sample::decode(chunk.record(index)) {
            return Err(ChunkError::BadRecord {
                path: path_buf(),
                index,
                reason: e.0,
            });
        }
    }
    Ok(chunk)
}

/// Reads and verifies a chunk file.
pub fn read_chunk(path: &Path) -> Result<Chunk, ChunkError> {
    let bytes = fs::read(path).map_err(|error| ChunkError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    decode_chunk(path, bytes)
}

/// Reads only the header of a chunk and checks that the file has the length
/// it promises (cheap: no checksum). For counting samples in chunks too old
/// to be loaded; [`read_chunk`] verifies everything.
pub fn read_header(path: &Path) -> Result<ChunkHeader, ChunkError> {
    use std::io::Read;
    let io = |error| ChunkError::Io {
        path: path.to_path_buf(),
        error,
    };
    let mut file = File::open(path).map_err(io)?;
    let actual = file.metadata().map_err(io)?.len();
    let mut head = vec![0u8; HEADER_SIZE];
    let got = file.read(&mut head).map_err(io)?;
    head.truncate(got);
    if head.len() < HEADER_SIZE {
        return Err(ChunkError::Length {
            path: path.to_path_buf(),
            expected: (HEADER_SIZE + 4) as u64,
            actual,
        });
    }
    // Reuse the full checks on a header-only view: validate everything except
    // the record bodies and checksum.
    if head[0..8] != MAGIC {
        return Err(ChunkError::BadMagic {
            path: path.to_path_buf(),
        });
    }
    let u32_at = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().unwrap());
    if u32_at(8) != FORMAT_VERSION {
        return Err(ChunkError::UnsupportedVersion {
            path: path.to_path_buf(),
            found: u32_at(8),
        });
    }
    if u32_at(12) as usize != RECORD_SIZE {
        return Err(ChunkError::RecordSize {
            path: path.to_path_buf(),
            found: u32_at(12),
        });
    }
    let count = u32_at(16);
    let expected = (HEADER_SIZE + 4) as u64 + count as u64 * RECORD_SIZE as u64;
    if actual != expected {
        return Err(ChunkError::Length {
            path: path.to_path_buf(),
            expected,
            actual,
        });
    }
    Ok(ChunkHeader {
        count,
        net_step: u64::from_le_bytes(head[24..32].try_into().unwrap()),
    })
}

/// The finished chunk files of a directory, oldest first (by name). Temporary
/// files of writers still at work are not listed. A missing directory has no
/// chunks.
pub fn list_chunks(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut chunks = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("chunk-") && name.ends_with(&format!(".{EXTENSION}")) {
            chunks.push(entry.path());
        }
    }
    chunks.sort();
    Ok(chunks)
}

use shashki_atomic::write_atomic;

/// Writes chunks with unique, time-ordered names into one directory.
#[derive(Debug)]
pub struct ChunkWriter {
    dir: PathBuf,
    counter: AtomicU64,
    salt: u32,
}

impl ChunkWriter {
    /// A writer into `dir` (created if missing).
    pub fn new(dir: impl Into<PathBuf>) -> Result<ChunkWriter, ChunkError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(|error| ChunkError::Io {
            path: dir.clone(),
            error,
        })?;
        Ok(ChunkWriter {
            dir,
            counter: AtomicU64::new(0),
            // Only for names: two writers in one process and nanosecond
            // never collide. Not part of any reproducible result.
            salt: rand::random(),
        })
    }

    /// The directory written to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes one chunk of `samples` and returns its path.
    pub fn write(&self, samples: &[Sample], net_step: u64) -> Result<PathBuf, ChunkError> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let counter = self.counter.fetch_add(1, Ordering::Relaxed);
        let salt = self
            .salt
            .wrapping_add((counter as u32).wrapping_mul(0x9E37_79B9));
        let name = format!(
            "chunk-{nanos:020}-{}-{counter:06}-{salt:08x}.{EXTENSION}",
            std::process::id()
        );
        let path = self.dir.join(name);
        write_atomic(&path, &encode_chunk(samples, net_step)).map_err(|error| ChunkError::Io {
            path: path.clone(),
            error,
        })?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_rules::{DrawState, Position};

    use shashki_atomic::testing::temp_dir;

    fn samples(n: usize) -> Vec<Sample> {
        let mut pos = Position::startpos();
        let mut out = Vec::new();
        for ply in 0..n {
            let moves = pos.legal_moves();
            let mut s = Sample::new(
                pos,
                DrawState {
                    repetitions: 1,
                    plies_to_draw: None,
                },
            );
            s.set_policy(moves.as_slice(), &vec![1.0; moves.len()]);
            s.ply = ply as u16;
            s.result = [1, 0, -1][ply % 3];
            out.push(s);
            pos = pos.make_move(&moves[0]);
        }
        out
    }

    #[test]
    fn written_chunk_reads_back_identical() {
        let dir = temp_dir("roundtrip");
        let writer = ChunkWriter::new(&dir).unwrap();
        let data = samples(9);
        let path = writer.write(&data, 42).unwrap();
        let chunk = read_chunk(&path).unwrap();
        assert_eq!(
            chunk.header,
            ChunkHeader {
                count: 9,
                net_step: 42
            }
        );
        assert_eq!(read_header(&path).unwrap(), chunk.header);
        let back = chunk.samples().unwrap();
        for (a, b) in back.iter().zip(&data) {
            assert_eq!(a.position, b.position);
            assert_eq!((a.ply, a.result), (b.ply, b.result));
        }
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn names_sort_in_write_order_and_temp_files_are_hidden() {
        let dir = temp_dir("order");
        let writer = ChunkWriter::new(&dir).unwrap();
        let written: Vec<PathBuf> = (0..5)
            .map(|_| writer.write(&samples(1), 0).unwrap())
            .collect();
        fs::write(dir.join(".tmp-123-chunk-x.shzc"), b"partial").unwrap();
        assert_eq!(list_chunks(&dir).unwrap(), written);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn corruption_and_truncation_are_detected_not_panics() {
        let dir = temp_dir("corrupt");
        let path = ChunkWriter::new(&dir)
            .unwrap()
            .write(&samples(4), 0)
            .unwrap();
        let good = fs::read(&path).unwrap();

        let mut flipped = good.clone();
        flipped[HEADER_SIZE + 5] ^= 0x10;
        fs::write(&path, &flipped).unwrap();
        let err = read_chunk(&path).unwrap_err();
        assert!(matches!(err, ChunkError::Checksum { .. }), "{err}");
        assert!(err.to_string().contains("checksum mismatch"));

        for cut in [0, 7, HEADER_SIZE, good.len() - 1] {
            fs::write(&path, &good[..cut]).unwrap();
            let err = read_chunk(&path).unwrap_err();
            assert!(
                matches!(err, ChunkError::Length { .. } | ChunkError::BadMagic { .. }),
                "{err}"
            );
            assert!(read_header(&path).is_err());
        }

        let mut foreign = good.clone();
        foreign[0] = b'X';
        fs::write(&path, &foreign).unwrap();
        assert!(matches!(
            read_chunk(&path).unwrap_err(),
            ChunkError::BadMagic { .. }
        ));

        let mut future = good;
        future[8] = 9;
        fs::write(&path, &future).unwrap();
        let err = read_chunk(&path).unwrap_err();
        assert!(err.to_string().contains("version 9"), "{err}");
        fs::remove_dir_all(dir).unwrap();
    }
}
