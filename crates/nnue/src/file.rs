//! The model folder: `model.json` (format, feature layout, architecture,
//! quantization scales, file sizes and SHA-256 checksums),
//! `model.safetensors` (float32 weights) and `quantized.safetensors` (the
//! integer weights the engine runs). `docs/MODEL.md` documents it;
//! `scripts/nnue_reference.py` reads it with numpy alone.

use crate::error::NnueError;
use crate::features::{FEATURE_LAYOUT, FEATURE_LAYOUT_VERSION, NUM_FEATURES};
use crate::network::{Architecture, EVAL_CP_PER_UNIT, FloatNet};
use crate::quant::{ACTIVATION_MAX, DENSE_SHIFT, FT_SCALE, OUTPUT_SCALE, QuantNet, WEIGHT_SCALE};
use safetensors::{Dtype, SafeTensors, tensor::TensorView};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The description file.
pub const MODEL_JSON_FILE: &str = "model.json";
/// The float weights.
pub const FLOAT_FILE: &str = "model.safetensors";
/// The quantized weights.
pub const QUANTIZED_FILE: &str = "quantized.safetensors";
/// `model.json`'s `format`.
pub const NNUE_FORMAT: &str = "shashki-nnue";
/// Version of the folder format this build writes for a net with output
/// stacks (`architecture.stacks`); a single-stack net is written as
/// version 1, which every earlier build reads. Both are read.
pub const NNUE_FORMAT_VERSION: u32 = 2;
/// The version without output stacks.
pub const NNUE_FORMAT_VERSION_SINGLE: u32 = 1;

/// The format version a net of `arch` is written with.
pub fn format_version_for(arch: &Architecture) -> u32 {
    if arch.stacks.is_single() {
        NNUE_FORMAT_VERSION_SINGLE
    } else {
        NNUE_FORMAT_VERSION
    }
}

/// The feature layout a file was trained for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutSpec {
    /// [`FEATURE_LAYOUT`].
    pub name: String,
    /// [`FEATURE_LAYOUT_VERSION`].
    pub version: u32,
    /// Features per perspective.
    pub features: usize,
}

/// The quantization scales (see the `quant` module).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuantizationSpec {
    /// Accumulator units per float unit (`ft.*` are i16).
    pub ft_scale: f32,
    /// Dense weight units per float unit (`l1/l2.weight` i8, `out.weight` i16).
    pub weight_scale: f32,
    /// Dense sums are shifted right by this before the clipped ReLU.
    pub dense_shift: u32,
    /// Activations are clipped to `0..=activation_max`.
    pub activation_max: i32,
    /// Output units per logit unit (biases are i32 at this scale).
    pub output_scale: i32,
    /// Centi-men per logit unit: `cp = floor(out * this / output_scale)`.
    pub eval_cp_per_unit: i32,
}

impl QuantizationSpec {
    /// The scales of this build.
    pub fn current() -> QuantizationSpec {
        QuantizationSpec {
            ft_scale: FT_SCALE,
            weight_scale: WEIGHT_SCALE,
            dense_shift: DENSE_SHIFT,
            activation_max: ACTIVATION_MAX,
            output_scale: OUTPUT_SCALE,
            eval_cp_per_unit: EVAL_CP_PER_UNIT,
        }
    }
}

/// One weights file: name, size and checksum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    /// File name inside the folder.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// SHA-256 of the content, lowercase hex.
    pub sha256: String,
}

/// A tensor's name, shape and type in the quantized file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorSpec {
    /// Name.
    pub name: String,
    /// Shape.
    pub shape: Vec<usize>,
    /// Type in `quantized.safetensors` (always f32 in `model.safetensors`).
    pub quantized_dtype: String,
}

/// The content of `model.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NnueModelJson {
    /// [`NNUE_FORMAT`].
    pub format: String,
    /// [`NNUE_FORMAT_VERSION`].
    pub format_version: u32,
    /// The input features.
    pub feature_layout: LayoutSpec,
    /// Layer sizes.
    pub architecture: Architecture,
    /// Integer scales.
    pub quantization: QuantizationSpec,
    /// Training steps behind the weights.
    pub training_step: u64,
    /// The float file, then the quantized file.
    pub files: Vec<FileSpec>,
    /// Every tensor, in file order.
    pub tensors: Vec<TensorSpec>,
}

/// Integer tensor types of the quantized file, by tensor name.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `dir` itself, or the folder of a `model.json` path.
fn model_dir(path: &Path) -> PathBuf {
    if path.is_file() && path.file_name().is_some_and(|n| n == MODEL_JSON_FILE) {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        path.to_path_buf()
    }
}

fn serialize(tensors: Vec<(String, Dtype, Vec<usize>, Vec<u8>)>) -> Result<Vec<u8>, String> {
    let views = tensors
        .iter()
        .map(|(name, dtype, shape, data)| {
            TensorView::new(*dtype, shape.clone(), data)
                .map(|v| (name.clone(), v))
                .map_err(|e| format!("tensor {name}: {e}"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let metadata = HashMap::from([("format".to_string(), NNUE_FORMAT.to_string())]);
    safetensors::serialize(views, Some(metadata)).map_err(|e| e.to_string())
}

/// The float weights as a safetensors buffer (what `model.safetensors`
/// holds; training checkpoints embed the same bytes).
pub(crate) fn float_safetensors(net: &FloatNet) -> Result<Vec<u8>, String> {
    serialize(
        net.tensors()
            .into_iter()
            .map(|(name, shape, values)| {
                let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                (name.to_string(), Dtype::F32, shape, bytes)
            })
            .collect(),
    )
}

/// Float weights of `arch` from a safetensors buffer (`path` names it in errors).
pub(crate) fn float_from_safetensors(
    arch: &Architecture,
    bytes: &[u8],
    path: &Path,
) -> Result<FloatNet, NnueError> {
    let reader = TensorReader::new(bytes, path.to_path_buf())?;
    reader.check_names(arch)?;
    FloatNet::from_tensors(arch, |name, shape| {
        let raw = reader.raw(name, shape, Dtype::F32)?;
        Ok(raw
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    })
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), NnueError> {
    shashki_atomic::write_atomic(path, bytes).map_err(|e| NnueError::io(path, e))
}

/// Writes `net` (and its quantization) into the folder `dir`, created if
/// needed; each file atomically, `model.json` last.
pub fn save_model(net: &FloatNet, training_step: u64, dir: &Path) -> Result<(), NnueError> {
    net.arch.validate()?;
    std::fs::create_dir_all(dir).map_err(|e| NnueError::io(dir, e))?;
    let float = float_safetensors(net).map_err(|e| NnueError::format(dir.join(FLOAT_FILE), e))?;
    let quant = QuantNet::quantize(net).tensors();
    let tensors: Vec<TensorSpec> = quant
        .iter()
        .map(|(name, dtype, shape, _)| TensorSpec {
            name: name.to_string(),
            shape: shape.clone(),
            quantized_dtype: format!("{dtype:?}").to_lowercase(),
        })
        .collect();
    let quantized = serialize(
        quant
            .into_iter()
            .map(|(name, dtype, shape, bytes)| (name.to_string(), dtype, shape, bytes))
            .collect(),
    )
    .map_err(|e| NnueError::format(dir.join(QUANTIZED_FILE), e))?;
    write(&dir.join(FLOAT_FILE), &float)?;
    write(&dir.join(QUANTIZED_FILE), &quantized)?;
    let spec = |name: &str, bytes: &[u8]| FileSpec {
        name: name.to_string(),
        bytes: bytes.len() as u64,
        sha256: sha256_hex(bytes),
    };
    let json = NnueModelJson {
        format: NNUE_FORMAT.to_string(),
        format_version: format_version_for(&net.arch),
        feature_layout: LayoutSpec {
            name: FEATURE_LAYOUT.to_string(),
            version: FEATURE_LAYOUT_VERSION,
            features: NUM_FEATURES,
        },
        architecture: net.arch.clone(),
        quantization: QuantizationSpec::current(),
        training_step,
        files: vec![spec(FLOAT_FILE, &float), spec(QUANTIZED_FILE, &quantized)],
        tensors,
    };
    let mut text = serde_json::to_string_pretty(&json).expect("model.json serialises");
    text.push('\n');
    write(&dir.join(MODEL_JSON_FILE), text.as_bytes())
}

/// Reads and checks `model.json`: format, versions, feature layout,
/// quantization scales and architecture.
pub fn read_model_json(path: &Path) -> Result<NnueModelJson, NnueError> {
    let json_path = model_dir(path).join(MODEL_JSON_FILE);
    let text = std::fs::read_to_string(&json_path).map_err(|e| NnueError::io(&json_path, e))?;
    parse_model_json(&text, &json_path)
}

/// Parses and checks the text of a `model.json`; errors name `json_path`.
pub fn parse_model_json(text: &str, json_path: &Path) -> Result<NnueModelJson, NnueError> {
    let json_path = json_path.to_path_buf();
    let json: NnueModelJson = serde_json::from_str(text)
        .map_err(|e| NnueError::format(&json_path, format!("not an NNUE model.json: {e}")))?;
    let version = |what, found: String, expected: String| {
        if found == expected {
            Ok(())
        } else {
            Err(NnueError::Version {
                path: json_path.clone(),
                what,
                found,
                expected,
            })
        }
    };
    version("format", json.format.clone(), NNUE_FORMAT.to_string())?;
    if !(NNUE_FORMAT_VERSION_SINGLE..=NNUE_FORMAT_VERSION).contains(&json.format_version) {
        version(
            "format version",
            json.format_version.to_string(),
            format!("{NNUE_FORMAT_VERSION_SINGLE} or {NNUE_FORMAT_VERSION}"),
        )?;
    }
    if json.format_version < NNUE_FORMAT_VERSION && !json.architecture.stacks.is_single() {
        return Err(NnueError::format(
            &json_path,
            format!(
                "format version {} has no output stacks, but the architecture names {}",
                json.format_version, json.architecture.stacks
            ),
        ));
    }
    let layout = &json.feature_layout;
    version(
        "feature layout",
        format!(
            "{} v{} ({} features)",
            layout.name, layout.version, layout.features
        ),
        format!("{FEATURE_LAYOUT} v{FEATURE_LAYOUT_VERSION} ({NUM_FEATURES} features)"),
    )?;
    version(
        "quantization",
        format!("{:?}", json.quantization),
        format!("{:?}", QuantizationSpec::current()),
    )?;
    json.architecture
        .validate()
        .map_err(|e| NnueError::format(&json_path, e.to_string()))?;
    Ok(json)
}

/// Reads one weights file, checking its size and checksum against `model.json`.
fn read_checked(dir: &Path, json: &NnueModelJson, name: &str) -> Result<Vec<u8>, NnueError> {
    let path = dir.join(name);
    let spec = file_spec(json, name, dir)?;
    let bytes = std::fs::read(&path).map_err(|e| NnueError::io(&path, e))?;
    check_bytes(bytes, spec, &path)
}

/// `model.json`'s entry for the weights file `name` of the folder `dir`.
fn file_spec<'a>(
    json: &'a NnueModelJson,
    name: &str,
    dir: &Path,
) -> Result<&'a FileSpec, NnueError> {
    json.files.iter().find(|f| f.name == name).ok_or_else(|| {
        NnueError::format(dir.join(MODEL_JSON_FILE), format!("lists no file {name}"))
    })
}

/// Checks a weights file's bytes against its size and checksum in `model.json`.
fn check_bytes(bytes: Vec<u8>, spec: &FileSpec, path: &Path) -> Result<Vec<u8>, NnueError> {
    if bytes.len() as u64 != spec.bytes {
        return Err(NnueError::format(
            path,
            format!(
                "{} bytes, model.json says {} (truncated or replaced)",
                bytes.len(),
                spec.bytes
            ),
        ));
    }
    if sha256_hex(&bytes) != spec.sha256 {
        return Err(NnueError::format(
            path,
            "SHA-256 checksum does not match model.json (corrupt file)",
        ));
    }
    Ok(bytes)
}

/// Takes tensors by name from a safetensors buffer, checking type and shape.
struct TensorReader<'a> {
    file: SafeTensors<'a>,
    path: PathBuf,
}

impl<'a> TensorReader<'a> {
    fn new(bytes: &'a [u8], path: PathBuf) -> Result<TensorReader<'a>, NnueError> {
        let file = SafeTensors::deserialize(bytes)
            .map_err(|e| NnueError::format(&path, format!("not a valid safetensors file: {e}")))?;
        Ok(TensorReader { file, path })
    }

    fn check_names(&self, arch: &Architecture) -> Result<(), NnueError> {
        let expected: Vec<&str> = arch.tensor_shapes().iter().map(|(n, _)| *n).collect();
        let mut extra: Vec<String> = self
            .file
            .names()
            .into_iter()
            .filter(|n| !expected.contains(n))
            .map(str::to_string)
            .collect();
        extra.sort();
        if extra.is_empty() {
            Ok(())
        } else {
            Err(NnueError::format(
                &self.path,
                format!("tensors not in this architecture: {}", extra.join(", ")),
            ))
        }
    }

    fn raw(&self, name: &str, shape: &[usize], dtype: Dtype) -> Result<Vec<u8>, NnueError> {
        let view = self
            .file
            .tensor(name)
            .map_err(|_| NnueError::format(&self.path, format!("tensor {name} is missing")))?;
        if view.dtype() != dtype || view.shape() != shape {
            return Err(NnueError::format(
                &self.path,
                format!(
                    "tensor {name} is {:?} {:?}, the architecture needs {dtype:?} {shape:?}",
                    view.dtype(),
                    view.shape()
                ),
            ));
        }
        Ok(view.data().to_vec())
    }
}

/// Reads the float weights of a model folder (or its `model.json`).
pub fn load_float(path: &Path) -> Result<(FloatNet, NnueModelJson), NnueError> {
    let dir = model_dir(path);
    let json = read_model_json(&dir)?;
    let bytes = read_checked(&dir, &json, FLOAT_FILE)?;
    let net = float_from_safetensors(&json.architecture, &bytes, &dir.join(FLOAT_FILE))?;
    Ok((net, json))
}

/// Reads the quantized weights of a model folder (or its `model.json`):
/// what the engine runs.
pub fn load_quantized(path: &Path) -> Result<QuantNet, NnueError> {
    let dir = model_dir(path);
    let json = read_model_json(&dir)?;
    let bytes = read_checked(&dir, &json, QUANTIZED_FILE)?;
    quantized_from_bytes(&json, &bytes, &dir.join(QUANTIZED_FILE))
}

/// The quantized network from a model folder's two files held in memory
/// (a model built into a program): the same checks as [`load_quantized`],
/// with errors naming `origin`.
pub fn load_quantized_bytes(
    model_json: &str,
    quantized: &[u8],
    origin: &Path,
) -> Result<QuantNet, NnueError> {
    let json = parse_model_json(model_json, &origin.join(MODEL_JSON_FILE))?;
    let path = origin.join(QUANTIZED_FILE);
    let spec = file_spec(&json, QUANTIZED_FILE, origin)?;
    let bytes = check_bytes(quantized.to_vec(), spec, &path)?;
    quantized_from_bytes(&json, &bytes, &path)
}

/// Decodes and checks the quantized safetensors file of `json`'s model.
fn quantized_from_bytes(
    json: &NnueModelJson,
    bytes: &[u8],
    path: &Path,
) -> Result<QuantNet, NnueError> {
    let reader = TensorReader::new(bytes, path.to_path_buf())?;
    reader.check_names(&json.architecture)?;
    let net = QuantNet::read_tensors(&json.architecture, &mut |name, shape, dtype| {
        reader.raw(name, shape, dtype)
    })?;
    net.check_lengths()
        .map_err(|e| NnueError::format(path, e))?;
    Ok(net)
}
