//! The table file: a fixed header, one byte per entry, a CRC-32 of all that
//! came before. Little-endian throughout.
//!
//! | offset | size | field                                                  |
//! |--------|------|--------------------------------------------------------|
//! | 0      | 8    | magic `SHKZTB\r\n`                                     |
//! | 8      | 4    | format version ([`FORMAT_VERSION`])                    |
//! | 12     | 4    | rules version ([`RULES_VERSION`])                      |
//! | 16     | 4    | signature: our men, our kings, their men, their kings  |
//! | 20     | 16   | draw-rule settings the values depend on ([`rules_fingerprint`]) |
//! | 36     | 4    | entries per position (slots)                           |
//! | 40     | 8    | number of entries                                      |
//! | 48     | n    | entries ([`crate::Entry`] codes)                       |
//! | 48 + n | 4    | CRC-32 (IEEE) of bytes 0..48 + n                       |

use crate::Entry;
use crate::material::Material;
use shashki_rules::DrawRules;
use std::path::{Path, PathBuf};

/// Bumped whenever the layout or the meaning of an entry changes.
pub const FORMAT_VERSION: u32 = 1;
/// Bumped whenever the rules the tables follow change (RULES.md; version 1
/// includes rule 2's corner case of one king against one king).
pub const RULES_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"SHKZTB\r\n";
const HEADER_LEN: usize = 48;

/// Why a table file was not used. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Shorter than its header says (an interrupted copy).
    #[error("{path}: truncated: {found} bytes, the header needs {expected}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Bytes the header announces.
        expected: u64,
        /// Bytes present.
        found: u64,
    },
    /// Not a table file.
    #[error("{path}: not a Shashki tablebase file (bad magic)")]
    BadMagic {
        /// The file.
        path: PathBuf,
    },
    /// Written by another format version.
    #[error("{path}: format version {found}, this build reads version {expected}")]
    FormatVersion {
        /// The file.
        path: PathBuf,
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// Generated for other rules or other draw-rule settings.
    #[error(
        "{path}: generated for other rules (rules version {found}, settings {settings}); regenerate it"
    )]
    Rules {
        /// The file.
        path: PathBuf,
        /// Rules version in the file.
        found: u32,
        /// Whether the draw-rule settings matched.
        settings: &'static str,
    },
    /// The header's signature is not the one the file name promised.
    #[error("{path}: holds signature {found}, expected {expected}")]
    Signature {
        /// The file.
        path: PathBuf,
        /// Signature in the header.
        found: Material,
        /// Signature asked for.
        expected: Material,
    },
    /// Header fields that cannot belong to this signature.
    #[error("{path}: header says {found} entries, signature {material} has {expected}")]
    Size {
        /// The file.
        path: PathBuf,
        /// The signature.
        material: Material,
        /// Entries in the header.
        found: u64,
        /// Entries the signature has.
        expected: u64,
    },
    /// The checksum does not match: the file is corrupted.
    #[error("{path}: checksum mismatch (stored {stored:08x}, computed {computed:08x}): corrupted")]
    Checksum {
        /// The file.
        path: PathBuf,
        /// CRC in the file.
        stored: u32,
        /// CRC of the contents.
        computed: u32,
    },
}

/// The draw-rule settings the tables depend on, as 16 bytes: a table made
/// under other counts must not be read as if made under these.
pub fn rules_fingerprint(rules: &DrawRules) -> [u8; 16] {
    let clamp = |n: u16| n.min(255) as u8;
    [
        u8::from(rules.insufficient_material),
        u8::from(rules.three_kings_vs_king),
        clamp(rules.three_kings_vs_king_plies),
        u8::from(rules.kings_only),
        clamp(rules.kings_only_plies),
        u8::from(rules.material_unchanged),
        clamp(rules.material_unchanged_plies_4_5),
        clamp(rules.material_unchanged_plies_6_7),
        u8::from(rules.main_diagonal),
        clamp(rules.main_diagonal_plies),
        u8::from(rules.few_pieces),
        clamp(rules.few_pieces_plies),
        0,
        0,
        0,
        0,
    ]
}

/// Serialises one table.
pub fn encode(material: Material, rules: &DrawRules, slots: u32, entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + entries.len() + 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&RULES_VERSION.to_le_bytes());
    out.extend_from_slice(&material.to_bytes());
    out.extend_from_slice(&rules_fingerprint(rules));
    out.extend_from_slice(&slots.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    out.extend(entries.iter().map(|e| e.0));
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Checks `bytes` (the file at `path`) as the table of `material` under
/// `rules` with `expected` entries, and returns its entries.
pub fn decode(
    path: &Path,
    bytes: Vec<u8>,
    material: Material,
    rules: &DrawRules,
    expected: u64,
) -> Result<Vec<Entry>, TableError> {
    let path_buf = || path.to_path_buf();
    let found = bytes.len() as u64;
    if bytes.len() < HEADER_LEN {
        return Err(if bytes.len() >= 8 && &bytes[..8] != MAGIC {
            TableError::BadMagic { path: path_buf() }
        } else {
            TableError::Truncated {
                path: path_buf(),
                expected: HEADER_LEN as u64 + 4,
                found,
            }
        });
    }
    if &bytes[..8] != MAGIC {
        return Err(TableError::BadMagic { path: path_buf() });
    }
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
    let version = u32_at(8);
    if version != FORMAT_VERSION {
        return Err(TableError::FormatVersion {
            path: path_buf(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let rules_version = u32_at(12);
    let same_settings = bytes[20..36] == rules_fingerprint(rules);
    if rules_version != RULES_VERSION || !same_settings {
        return Err(TableError::Rules {
            path: path_buf(),
            found: rules_version,
            settings: if same_settings { "same" } else { "different" },
        });
    }
    let in_file = Material::from_bytes(bytes[16..20].try_into().expect("4 bytes"));
    if in_file != material {
        return Err(TableError::Signature {
            path: path_buf(),
            found: in_file,
            expected: material,
        });
    }
    let entries = u64::from_le_bytes(bytes[40..48].try_into().expect("8 bytes"));
    if entries != expected {
        return Err(TableError::Size {
            path: path_buf(),
            material,
            found: entries,
            expected,
        });
    }
    let total = HEADER_LEN as u64 + entries + 4;
    if found != total {
        return Err(TableError::Truncated {
            path: path_buf(),
            expected: total,
            found,
        });
    }
    let body_end = HEADER_LEN + entries as usize;
    let stored = u32_at(body_end);
    let computed = crc32fast::hash(&bytes[..body_end]);
    if stored != computed {
        return Err(TableError::Checksum {
            path: path_buf(),
            stored,
            computed,
        });
    }
    let mut bytes = bytes;
    bytes.truncate(body_end);
    bytes.drain(..HEADER_LEN);
    // `Entry` is a transparent u8: reuse the buffer.
    Ok(bytes.into_iter().map(Entry).collect())
}
