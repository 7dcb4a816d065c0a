//! The held-out set: quiet positions labelled by a deeper search (or the
//! tablebases), kept fixed across checkpoints so their losses compare.
//!
//! One JSON file (`format = "shashki-nnue-heldout"`, version 1), written
//! atomically: how it was made (`meta`) and one entry per position with
//! its FEN, the label (the expected score of the side to move in [0, 1])
//! and where the label came from. Entries taken from self-play chunks also
//! keep the sample's stored search score and game result, so the label
//! noise of the training targets can be measured against the deep label.

use super::FileError;
use serde::{Deserialize, Serialize};
use shashki_rules::Position;
use std::path::Path;

/// `format` of the file.
pub const HELD_OUT_FORMAT: &str = "shashki-nnue-heldout";
/// Version of the file format.
pub const HELD_OUT_VERSION: u32 = 1;

/// How a set was made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeldOutMeta {
    /// Nominal alpha-beta depth of the labels.
    pub depth: u32,
    /// The evaluation behind the labelling search (`hand`, `nnue PATH`).
    pub eval: String,
    /// Largest piece count the tablebases labelled (0: none loaded).
    pub tablebase_pieces: u8,
    /// Seed of the sampling.
    pub seed: u64,
    /// The files positions were drawn from.
    pub sources: Vec<String>,
}

/// Where a label came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelSource {
    /// The deep search's score.
    Search,
    /// The tablebases' exact value.
    Tablebase,
}

/// One labelled position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Labelled {
    /// The position (PDN FEN).
    pub fen: String,
    /// Expected score of the side to move, in [0, 1].
    pub label: f32,
    /// Where the label came from.
    pub source: LabelSource,
    /// The deep search's score in centi-men (absent for tablebase labels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_cp: Option<i32>,
    /// The self-play sample's own search score as an expected score
    /// (`W + D/2` of its root W/D/L), when the position came from a chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_score: Option<f32>,
    /// The game result of that sample (1, 1/2, 0 for the side to move).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_result: Option<f32>,
}

impl Labelled {
    /// The position (the FEN was checked on load).
    pub fn position(&self) -> Position {
        Position::from_fen(&self.fen).expect("FENs are checked when a set is read")
    }

    /// Pieces on the board.
    pub fn pieces(&self) -> u32 {
        let pos = self.position();
        (pos.white() | pos.black()).count_ones()
    }
}

/// A held-out set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeldOutSet {
    /// [`HELD_OUT_FORMAT`].
    pub format: String,
    /// [`HELD_OUT_VERSION`].
    pub version: u32,
    /// How it was made.
    pub meta: HeldOutMeta,
    /// The positions.
    pub positions: Vec<Labelled>,
}

impl HeldOutSet {
    /// A set of `positions` made as `meta` says.
    pub fn new(meta: HeldOutMeta, positions: Vec<Labelled>) -> HeldOutSet {
        HeldOutSet {
            format: HELD_OUT_FORMAT.to_string(),
            version: HELD_OUT_VERSION,
            meta,
            positions,
        }
    }

    /// Writes the set atomically (a crash leaves the old file or none).
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        let mut text = serde_json::to_string_pretty(self).expect("a held-out set serialises");
        text.push('\n');
        shashki_atomic::write_atomic(path, text.as_bytes()).map_err(|e| FileError::io(path, e))
    }

    /// Reads and checks a set: format, version, every FEN and label.
    pub fn load(path: &Path) -> Result<HeldOutSet, FileError> {
        let text = std::fs::read_to_string(path).map_err(|e| FileError::io(path, e))?;
        let bad = |reason: String| FileError::Format {
            path: path.to_path_buf(),
            reason,
        };
        let set: HeldOutSet =
            serde_json::from_str(&text).map_err(|e| bad(format!("not a held-out set: {e}")))?;
        if set.format != HELD_OUT_FORMAT || set.version != HELD_OUT_VERSION {
            return Err(bad(format!(
                "format {} v{}, this build reads {HELD_OUT_FORMAT} v{HELD_OUT_VERSION}",
                set.format, set.version
            )));
        }
        for (i, entry) in set.positions.iter().enumerate() {
            Position::from_fen(&entry.fen)
                .map_err(|e| bad(format!("position {i}: bad FEN {:?}: {e}", entry.fen)))?;
            if !(0.0..=1.0).contains(&entry.label) {
                return Err(bad(format!(
                    "position {i}: label {} is outside [0, 1]",
                    entry.label
                )));
            }
        }
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> HeldOutSet {
        HeldOutSet::new(
            HeldOutMeta {
                depth: 11,
                eval: "hand".into(),
                tablebase_pieces: 4,
                seed: 3,
                sources: vec!["games.pdn".into()],
            },
            vec![Labelled {
                fen: Position::startpos().to_fen(),
                label: 0.55,
                source: LabelSource::Search,
                score_cp: Some(40),
                sample_score: Some(0.6),
                sample_result: Some(1.0),
            }],
        )
    }

    #[test]
    fn a_set_reads_back_identical_and_bad_files_name_the_problem() {
        let dir = std::env::temp_dir().join(format!("heldout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("set.json");
        set().save(&path).unwrap();
        assert_eq!(HeldOutSet::load(&path).unwrap(), set());

        let mut bad = set();
        bad.positions[0].label = 1.5;
        bad.save(&path).unwrap();
        let err = HeldOutSet::load(&path).unwrap_err().to_string();
        assert!(
            err.contains("position 0") && err.contains("set.json"),
            "{err}"
        );

        std::fs::write(&path, "{\"format\": \"other\"").unwrap();
        let err = HeldOutSet::load(&path).unwrap_err().to_string();
        assert!(err.contains("not a held-out set"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
