//! The exported model for other front ends: a folder with
//! `model.safetensors` (float32 weights under stable names, batch norm as
//! separate tensors) and `model.json` (architecture, versions, shapes).
//! `docs/MODEL.md` documents both; `scripts/reference_forward.py` reads them
//! with numpy alone.

use crate::checkpoint::Checkpoint;
use crate::config::NetConfig;
use crate::desc::BATCH_NORM_EPSILON;
use crate::encoding::{
    BOARD, ENCODING_VERSION, INPUT_PLANES, PLIES_TO_DRAW_HORIZON, POLICY_LAYOUT_VERSION,
    POLICY_LEN, Plane,
};
use crate::error::NetError;
use crate::kinds::{check_tensors, tensor_shapes};
use crate::output::PLIES_LEFT_SCALE;
use crate::weights::{check_finite, from_safetensors, to_safetensors};
use serde::{Deserialize, Serialize};
use shashki_atomic::write_atomic;
use std::collections::BTreeMap;
use std::path::Path;

/// File name of the weights in an exported model folder.
pub const WEIGHTS_FILE: &str = "model.safetensors";
/// File name of the description in an exported model folder.
pub const MODEL_JSON_FILE: &str = "model.json";
/// Value of `model.json`'s `format` field.
pub const MODEL_FORMAT: &str = "shashki-zero-model";
/// Version of the exported model format.
pub const MODEL_FORMAT_VERSION: u32 = 1;

/// A named tensor shape; `-1` stands for the batch dimension.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorSpec {
    /// Name.
    pub name: String,
    /// Shape.
    pub shape: Vec<i64>,
}

/// How batch norm is stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchNormSpec {
    /// Epsilon inside the square root.
    pub epsilon: f64,
    /// False: each batch norm is four tensors (gamma, beta, running_mean,
    /// running_var) to apply after its convolution.
    pub folded: bool,
}

/// The content of `model.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelJson {
    /// Always [`MODEL_FORMAT`].
    pub format: String,
    /// [`MODEL_FORMAT_VERSION`].
    pub format_version: u32,
    /// Input encoding version.
    pub encoding_version: u32,
    /// Policy layout version.
    pub policy_layout_version: u32,
    /// Architecture.
    pub architecture: NetConfig,
    /// Training step of the exported weights.
    pub training_step: u64,
    /// SHA-256 of `model.safetensors` (lowercase hex), checked on import.
    /// Exports before it was added lack it; they load unchecked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_sha256: Option<String>,
    /// Batch norm storage.
    pub batch_norm: BatchNormSpec,
    /// The plies-left output times this is plies.
    pub plies_left_scale: f32,
    /// Draw-count plane horizon (plies).
    pub plies_to_draw_horizon: f32,
    /// Names of the input planes, in order.
    pub input_planes: Vec<String>,
    /// The input tensor.
    pub input: TensorSpec,
    /// The output tensors.
    pub outputs: Vec<TensorSpec>,
    /// Every tensor of `model.safetensors`, in build order.
    pub tensors: Vec<TensorSpec>,
}

impl ModelJson {
    /// The description of a checkpoint's model.
    pub fn describe(config: &NetConfig, training_step: u64) -> ModelJson {
        let spec = |name: &str, shape: Vec<i64>| TensorSpec {
            name: name.into(),
            shape,
        };
        let mut outputs = vec![
            spec("policy_logits", vec![-1, POLICY_LEN as i64]),
            spec("wdl_logits", vec![-1, 3]),
        ];
        if config.plies_left_head {
            outputs.push(spec("plies_left", vec![-1, 1]));
        }
        ModelJson {
            format: MODEL_FORMAT.into(),
            format_version: MODEL_FORMAT_VERSION,
            encoding_version: ENCODING_VERSION,
            policy_layout_version: POLICY_LAYOUT_VERSION,
            architecture: config.clone(),
            training_step,
            weights_sha256: None,
            batch_norm: BatchNormSpec {
                epsilon: BATCH_NORM_EPSILON,
                folded: false,
            },
            plies_left_scale: PLIES_LEFT_SCALE,
            plies_to_draw_horizon: PLIES_TO_DRAW_HORIZON,
            input_planes: Plane::NAMES.iter().map(|s| s.to_string()).collect(),
            input: spec(
                "planes",
                vec![-1, INPUT_PLANES as i64, BOARD as i64, BOARD as i64],
            ),
            outputs,
            tensors: tensor_shapes(config)
                .into_iter()
                .map(|(name, shape)| TensorSpec {
                    name,
                    shape: shape.into_iter().map(|d| d as i64).collect(),
                })
                .collect(),
        }
    }
}

/// Writes `checkpoint`'s model into `dir` (created if needed).
pub fn export_model(checkpoint: &Checkpoint, dir: &Path) -> Result<(), NetError> {
    std::fs::create_dir_all(dir).map_err(|e| NetError::io(dir, e))?;
    let metadata = BTreeMap::from([
        ("format".to_string(), MODEL_FORMAT.to_string()),
        ("encoding_version".to_string(), ENCODING_VERSION.to_string()),
        (
            "policy_layout_version".to_string(),
            POLICY_LAYOUT_VERSION.to_string(),
        ),
    ]);
    for tensor in &checkpoint.tensors {
        check_finite(tensor)?;
    }
    let weights = to_safetensors(&checkpoint.tensors, Some(metadata))?;
    let weights_path = dir.join(WEIGHTS_FILE);
    write_atomic(&weights_path, &weights).map_err(|e| NetError::io(&weights_path, e))?;
    let json = ModelJson {
        weights_sha256: Some(sha256_hex(&weights)),
        ..ModelJson::describe(&checkpoint.config, checkpoint.step)
    };
    let mut text = serde_json::to_string_pretty(&json).expect("model.json serialises");
    text.push('\n');
    let json_path = dir.join(MODEL_JSON_FILE);
    write_atomic(&json_path, text.as_bytes()).map_err(|e| NetError::io(&json_path, e))
}

/// SHA-256 of `bytes` as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The checkpoint file at `path`, or the exported model if `path` is a
/// folder (`model.safetensors` + `model.json`).
pub fn load_checkpoint_or_model(path: &Path) -> Result<Checkpoint, NetError> {
    if path.is_dir() {
        import_model(path)
    } else {
        Checkpoint::load(path)
    }
}

/// Reads an exported model folder back into a checkpoint (no optimiser state).
pub fn import_model(dir: &Path) -> Result<Checkpoint, NetError> {
    let json_path = dir.join(MODEL_JSON_FILE);
    let text = std::fs::read_to_string(&json_path).map_err(|e| NetError::io(&json_path, e))?;
    let json: ModelJson = serde_json::from_str(&text)
        .map_err(|e| NetError::format(&json_path, format!("not a valid model.json: {e}")))?;
    if json.format != MODEL_FORMAT {
        return Err(NetError::format(
            &json_path,
            format!("format is {:?}, expected {MODEL_FORMAT:?}", json.format),
        ));
    }
    let versions = [
        ("model format", json.format_version, MODEL_FORMAT_VERSION),
        ("input encoding", json.encoding_version, ENCODING_VERSION),
        (
            "policy layout",
            json.policy_layout_version,
            POLICY_LAYOUT_VERSION,
        ),
    ];
    for (what, found, expected) in versions {
        if found != expected {
            return Err(NetError::VersionMismatch {
                path: json_path,
                what,
                found: found.into(),
                expected: expected.into(),
            });
        }
    }
    if json.batch_norm.folded {
        return Err(NetError::format(
            &json_path,
            "folded batch norm cannot be imported into a trainable checkpoint",
        ));
    }
    json.architecture
        .validate()
        .map_err(|e| NetError::format(&json_path, e.to_string()))?;
    let weights_path = dir.join(WEIGHTS_FILE);
    let bytes = std::fs::read(&weights_path).map_err(|e| NetError::io(&weights_path, e))?;
    if let Some(expected) = &json.weights_sha256 {
        let found = sha256_hex(&bytes);
        if !found.eq_ignore_ascii_case(expected) {
            return Err(NetError::format(
                &weights_path,
                format!(
                    "checksum mismatch: SHA-256 is {found}, {MODEL_JSON_FILE} says {expected}: the file is corrupt or not the one exported with it"
                ),
            ));
        }
    }
    let tensors = from_safetensors(&bytes, &weights_path)?;
    let tensors = check_tensors(&json.architecture, tensors)
        .map_err(|e| NetError::format(&weights_path, e.to_string()))?;
    Ok(Checkpoint {
        config: json.architecture,
        step: json.training_step,
        tensors,
        optimizer: None,
    })
}
