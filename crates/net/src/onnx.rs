//! The network as a self-contained ONNX file (`shashki export --format
//! onnx`), for front ends that run ONNX Runtime (or any ONNX backend):
//! input planes in, policy logits over the documented move layout, W/D/L
//! logits and plies left out, batch dimension dynamic, batch norm folded.
//! The graph is read off the [`ModelDesc`], the same description the
//! trainable and the folded nets are built from; docs/MODEL.md documents
//! the contract and [`check_onnx`] holds a file to it.
//!
//! `diag32`'s diagonal convolution has no ONNX operator; it is written as
//! what the burn net does: a zero row appended (`Pad`), each square's taps
//! gathered (`Gather`), one matrix product (`MatMul`).

use crate::checkpoint::Checkpoint;
use crate::config::{NetConfig, NetKind};
use crate::desc::{ConvDesc, ModelDesc, Span};
use crate::diag::{SQUARES, tap_index, to_tap_major};
use crate::encoding::{
    BOARD, CELL_OF_SQUARE, ENCODING_VERSION, INPUT_PLANES, PLIES_TO_DRAW_HORIZON,
    POLICY_LAYOUT_VERSION, POLICY_LEN, Plane,
};
use crate::error::NetError;
use crate::fold::Folder;
use crate::kinds::{describe, tensor_shapes};
use crate::output::PLIES_LEFT_SCALE;
use crate::weights::NamedTensor;
use burn::tensor::Device;
use shashki_atomic::write_atomic;
use shashki_onnx::{Attr, Dim, GraphBuilder, OnnxFile, TensorSig, proto::ModelProto};
use std::path::Path;

/// File name of the ONNX model in an export folder.
pub const ONNX_FILE: &str = "model.onnx";
/// Value of the ONNX metadata's `format` entry.
pub const ONNX_FORMAT: &str = "shashki-zero-onnx";
/// Version of the ONNX contract (inputs, outputs, metadata).
pub const ONNX_FORMAT_VERSION: u32 = 1;

/// The graph's inputs: the planes of docs/MODEL.md, `[batch, 7, 8, 8]`.
pub fn onnx_inputs() -> Vec<TensorSig> {
    let board = Dim::Fixed(BOARD as i64);
    vec![TensorSig::new(
        "planes",
        &[Dim::Batch, Dim::Fixed(INPUT_PLANES as i64), board, board],
    )]
}

/// The graph's outputs for `config`: `policy_logits` `[batch, 1024]`,
/// `wdl_logits` `[batch, 3]`, and `plies_left` `[batch, 1]` with the head.
pub fn onnx_outputs(config: &NetConfig) -> Vec<TensorSig> {
    let mut out = vec![
        TensorSig::new(
            "policy_logits",
            &[Dim::Batch, Dim::Fixed(POLICY_LEN as i64)],
        ),
        TensorSig::new("wdl_logits", &[Dim::Batch, Dim::Fixed(3)]),
    ];
    if config.plies_left_head {
        out.push(TensorSig::new("plies_left", &[Dim::Batch, Dim::Fixed(1)]));
    }
    out
}

/// The metadata entries of a model of `config` at `step`.
fn metadata(config: &NetConfig, step: u64) -> Vec<(String, String)> {
    [
        ("format", ONNX_FORMAT.to_string()),
        ("format_version", ONNX_FORMAT_VERSION.to_string()),
        ("kind", config.kind.name().to_string()),
        ("architecture", config.to_json()),
        ("encoding_version", ENCODING_VERSION.to_string()),
        ("policy_layout_version", POLICY_LAYOUT_VERSION.to_string()),
        ("training_step", step.to_string()),
        ("input_planes", Plane::NAMES.join(",")),
        ("plies_left_scale", PLIES_LEFT_SCALE.to_string()),
        ("plies_to_draw_horizon", PLIES_TO_DRAW_HORIZON.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Writes the graph of one net: layer by layer, weights folded on the host.
struct Writer<'a> {
    g: GraphBuilder,
    folder: Folder<'a>,
    kind: NetKind,
}

impl Writer<'_> {
    fn ints(&mut self, name: &str, values: &[i64]) -> String {
        self.g.ints(name, &[values.len()], values)
    }

    fn relu(&mut self, x: &str) -> String {
        self.g.node("Relu", &[x], vec![])
    }

    /// The planes as the kind's activations: `[n, 7, 8, 8]` on the board,
    /// `[n, 32, 7]` (square-major) on the squares.
    fn input(&mut self, planes: &str) -> String {
        match self.kind {
            NetKind::Resnet8x8 => planes.to_string(),
            NetKind::Diag32 => {
                let cells = self.cells_of_squares(planes, INPUT_PLANES);
                self.g.node(
                    "Transpose",
                    &[&cells],
                    vec![Attr::Ints("perm", vec![0, 2, 1])],
                )
            }
        }
    }

    /// `[n, c, 8, 8]` -> `[n, c, 32]`, the dark cells in square order.
    fn cells_of_squares(&mut self, x: &str, channels: usize) -> String {
        let shape = self.ints(
            &format!("shape.cells{channels}"),
            &[-1, channels as i64, 64],
        );
        let flat = self.g.node("Reshape", &[x, &shape], vec![]);
        let cells: Vec<i64> = CELL_OF_SQUARE.iter().map(|&c| c as i64).collect();
        let index = self.ints("index.dark_cells", &cells);
        self.g
            .node("Gather", &[&flat, &index], vec![Attr::Int("axis", 2)])
    }

    /// Convolution `desc` with folded `weight` (exported layout) and `bias`.
    fn conv(
        &mut self,
        x: &str,
        desc: &ConvDesc,
        span: Span,
        weight: &[f32],
        bias: &[f32],
    ) -> String {
        let (name, cin, cout) = (&desc.name, desc.cin, desc.cout);
        let b = self.g.weight(&format!("{name}.bias"), &[cout], bias);
        match self.kind {
            NetKind::Resnet8x8 => {
                let w = self
                    .g
                    .weight(&format!("{name}.weight"), &desc.weight, weight);
                let (k, pad) = match span {
                    Span::Wide => (desc.weight[2] as i64, desc.weight[2] as i64 / 2),
                    Span::Point => (1, 0),
                };
                let attrs = vec![
                    Attr::Ints("kernel_shape", vec![k, k]),
                    Attr::Ints("pads", vec![pad; 4]),
                ];
                self.g.node("Conv", &[x, &w, &b], attrs)
            }
            NetKind::Diag32 => {
                let taps = desc.weight[2];
                let matrix = to_tap_major(weight, cout, cin, taps);
                let w = self
                    .g
                    .weight(&format!("{name}.weight"), &[taps * cin, cout], &matrix);
                let gathered = if taps == 1 {
                    x.to_string()
                } else {
                    self.gather_taps(x, cin, taps)
                };
                let y = self.g.node("MatMul", &[&gathered, &w], vec![]);
                self.g.node("Add", &[&y, &b], vec![])
            }
        }
    }

    /// `[n, 32, c]` -> `[n, 32, taps * c]`: each square's taps side by side
    /// (an off-board tap reads the appended zero row).
    fn gather_taps(&mut self, x: &str, channels: usize, taps: usize) -> String {
        let pads = self.ints("pads.off_board", &[0, 0, 0, 0, 1, 0]);
        let padded = self.g.node("Pad", &[x, &pads], vec![]);
        let index = tap_index(taps);
        let index = self
            .g
            .ints(&format!("index.taps{taps}"), &[SQUARES * taps], &index);
        let gathered = self
            .g
            .node("Gather", &[&padded, &index], vec![Attr::Int("axis", 1)]);
        let shape = (SQUARES as i64, (taps * channels) as i64);
        let shape = self.ints(
            &format!("shape.taps{taps}x{channels}"),
            &[-1, shape.0, shape.1],
        );
        self.g.node("Reshape", &[&gathered, &shape], vec![])
    }

    fn conv_bn(
        &mut self,
        x: &str,
        desc: &crate::desc::ConvBnDesc,
        span: Span,
    ) -> Result<String, NetError> {
        let (weight, bias) = self.folder.conv_bn(desc)?;
        Ok(self.conv(x, &desc.conv, span, &weight, &bias))
    }

    /// `[mean, max]` over the board or the squares: `[n, 2c]`.
    fn pool(&mut self, x: &str) -> String {
        let axes: &[i64] = match self.kind {
            NetKind::Resnet8x8 => &[2, 3],
            NetKind::Diag32 => &[1],
        };
        let attrs = || vec![Attr::Ints("axes", axes.to_vec()), Attr::Int("keepdims", 0)];
        let mean = self.g.node("ReduceMean", &[x], attrs());
        let max = self.g.node("ReduceMax", &[x], attrs());
        self.g
            .node("Concat", &[&mean, &max], vec![Attr::Int("axis", 1)])
    }

    /// `x + bias` per channel, `bias` `[n, c]`.
    fn add_channel_bias(&mut self, x: &str, bias: &str) -> String {
        let axes = match self.kind {
            NetKind::Resnet8x8 => self.ints("axes.board", &[2, 3]),
            NetKind::Diag32 => self.ints("axes.squares", &[1]),
        };
        let bias = self.g.node("Unsqueeze", &[bias, &axes], vec![]);
        self.g.node("Add", &[x, &bias], vec![])
    }

    fn linear(&mut self, x: &str, desc: &crate::desc::LinearDesc) -> Result<String, NetError> {
        let (weight, bias) = self.folder.dense_host(desc)?;
        let w = self.g.weight(
            &format!("{}.weight", desc.name),
            &[desc.din, desc.dout],
            &weight,
        );
        let b = self
            .g
            .weight(&format!("{}.bias", desc.name), &[desc.dout], &bias);
        Ok(self.g.node("Gemm", &[x, &w, &b], vec![]))
    }

    /// The trunk: stem and residual blocks.
    fn trunk(&mut self, desc: &ModelDesc, planes: &str) -> Result<String, NetError> {
        let x = self.input(planes);
        let stem = self.conv_bn(&x, &desc.trunk.stem, Span::Wide)?;
        let mut x = self.relu(&stem);
        for block in &desc.trunk.blocks {
            let h = self.conv_bn(&x, &block.conv1, Span::Wide)?;
            let mut h = self.relu(&h);
            if let Some(pool) = &block.pool {
                let pooled = self.pool(&h);
                let bias = self.linear(&pooled, pool)?;
                h = self.add_channel_bias(&h, &bias);
            }
            let y = self.conv_bn(&h, &block.conv2, Span::Wide)?;
            let sum = self.g.node("Add", &[&y, &x], vec![]);
            x = self.relu(&sum);
        }
        Ok(x)
    }

    /// Policy logits `[n, 1024]`, index `from * 32 + to`.
    fn policy(&mut self, desc: &ModelDesc, x: &str) -> Result<String, NetError> {
        let h = self.conv_bn(x, &desc.policy.conv, Span::Point)?;
        let h = self.relu(&h);
        let (weight, bias) = self.folder.conv(&desc.policy.out)?;
        let out = self.conv(&h, &desc.policy.out, Span::Point, &weight, &bias);
        let from_to = match self.kind {
            // [n, 32 to, 8, 8] -> [n, 32 to, 32 from] -> [n, from, to]
            NetKind::Resnet8x8 => {
                let to_from = self.cells_of_squares(&out, desc.policy.out.cout);
                self.g.node(
                    "Transpose",
                    &[&to_from],
                    vec![Attr::Ints("perm", vec![0, 2, 1])],
                )
            }
            // already [n, 32 from, 32 to]
            NetKind::Diag32 => out,
        };
        let shape = self.ints("shape.policy", &[-1, POLICY_LEN as i64]);
        Ok(self.g.node("Reshape", &[&from_to, &shape], vec![]))
    }

    /// The value head: W/D/L logits and plies left (if the head exists).
    fn value(&mut self, desc: &ModelDesc, x: &str) -> Result<(String, Option<String>), NetError> {
        let h = self.conv_bn(x, &desc.value.conv, Span::Point)?;
        let h = self.relu(&h);
        let pooled = self.pool(&h);
        let hidden = self.linear(&pooled, &desc.value.fc)?;
        let hidden = self.relu(&hidden);
        let wdl = self.linear(&hidden, &desc.value.wdl)?;
        let plies = match &desc.value.plies {
            Some(plies) => Some(self.linear(&hidden, plies)?),
            None => None,
        };
        Ok((wdl, plies))
    }
}

/// The ONNX model of a net of `config` with `tensors` (exported layout,
/// batch norm unfolded) at training step `step`.
pub fn onnx_model(
    config: &NetConfig,
    tensors: Vec<NamedTensor>,
    step: u64,
) -> Result<ModelProto, NetError> {
    let desc = describe(config);
    let device = Device::flex();
    let mut w = Writer {
        g: GraphBuilder::new(),
        folder: Folder::new(tensors, &device),
        kind: config.kind,
    };
    let [planes] = onnx_inputs().try_into().expect("one input");
    let input = w.g.input(&planes);
    let x = w.trunk(&desc, &input)?;
    let policy = w.policy(&desc, &x)?;
    let (wdl, plies) = w.value(&desc, &x)?;
    let outputs = onnx_outputs(config);
    w.g.output(&policy, &outputs[0]);
    w.g.output(&wdl, &outputs[1]);
    if let (Some(plies), Some(sig)) = (plies, outputs.get(2)) {
        w.g.output(&plies, sig);
    }
    w.folder.finish()?;
    let doc = format!(
        "Shashki Zero {} policy/value network (docs/MODEL.md, \"ONNX model\")",
        config.kind
    );
    Ok(w.g.finish("shashki-zero", &doc, &metadata(config, step)))
}

/// Writes `checkpoint`'s net as `dir/model.onnx` (the folder created if
/// needed); returns the file's path.
pub fn export_onnx(checkpoint: &Checkpoint, dir: &Path) -> Result<std::path::PathBuf, NetError> {
    let model = onnx_model(
        &checkpoint.config,
        checkpoint.tensors.clone(),
        checkpoint.step,
    )?;
    std::fs::create_dir_all(dir).map_err(|e| NetError::io(dir, e))?;
    let path = dir.join(ONNX_FILE);
    write_atomic(&path, &shashki_onnx::encode(&model)).map_err(|e| NetError::io(&path, e))?;
    Ok(path)
}

/// What [`check_onnx`] found in a valid file.
#[derive(Clone, Debug, PartialEq)]
pub struct OnnxSummary {
    /// The architecture.
    pub config: NetConfig,
    /// The training step of the weights.
    pub training_step: u64,
}

/// Holds an ONNX file to the contract of docs/MODEL.md: opset, metadata
/// (format, kind, architecture, versions, step), the inputs and outputs
/// with their shapes and dynamic batch, and initializers exactly those of
/// the architecture. Every error names the file and what differs.
pub fn check_onnx(path: &Path) -> Result<OnnxSummary, NetError> {
    let bytes = std::fs::read(path).map_err(|e| NetError::io(path, e))?;
    let at = |e: shashki_onnx::OnnxError| NetError::format(path, e.to_string());
    let file = OnnxFile::decode(&bytes).map_err(at)?;
    check_contract(&file).map_err(|reason| NetError::format(path, reason))
}

fn check_contract(file: &OnnxFile) -> Result<OnnxSummary, String> {
    let text = |e: shashki_onnx::OnnxError| e.to_string();
    file.expect_meta("format", ONNX_FORMAT).map_err(text)?;
    file.expect_meta("format_version", &ONNX_FORMAT_VERSION.to_string())
        .map_err(text)?;
    let kind_name = file.meta("kind").map_err(text)?;
    let kind: NetKind = serde_json::from_value(serde_json::Value::String(kind_name.clone()))
        .map_err(|_| {
            format!(
                "metadata \"kind\": unknown network kind {kind_name:?} (this build knows {} and {})",
                NetKind::Resnet8x8,
                NetKind::Diag32
            )
        })?;
    let architecture = file.meta("architecture").map_err(text)?;
    let config: NetConfig = serde_json::from_str(&architecture)
        .map_err(|e| format!("metadata \"architecture\": not a network configuration: {e}"))?;
    config
        .validate()
        .map_err(|e| format!("metadata \"architecture\": {e}"))?;
    if config.kind != kind {
        return Err(format!(
            "metadata \"kind\" is {kind} but \"architecture\" describes a {} net",
            config.kind
        ));
    }
    file.expect_meta("encoding_version", &ENCODING_VERSION.to_string())
        .map_err(text)?;
    file.expect_meta("policy_layout_version", &POLICY_LAYOUT_VERSION.to_string())
        .map_err(text)?;
    let step = file.meta("training_step").map_err(text)?;
    let training_step = step
        .parse()
        .map_err(|_| format!("metadata \"training_step\": {step:?} is not a step count"))?;
    file.expect_interface(&onnx_inputs(), &onnx_outputs(&config))
        .map_err(text)?;
    file.expect_initializers(&expected_initializers(&config)?)
        .map_err(text)?;
    Ok(OnnxSummary {
        config,
        training_step,
    })
}

/// Names and shapes of the initializers a model of `config` has: those of
/// the graph written for zero weights.
fn expected_initializers(config: &NetConfig) -> Result<Vec<(String, Vec<i64>)>, String> {
    let zeros = tensor_shapes(config)
        .into_iter()
        .map(|(name, shape)| NamedTensor {
            data: vec![0.0; shape.iter().product()],
            name,
            shape,
        })
        .collect();
    let model = onnx_model(config, zeros, 0).map_err(|e| e.to_string())?;
    Ok(model
        .graph
        .expect("written with a graph")
        .initializer
        .into_iter()
        .map(|t| (t.name.unwrap_or_default(), t.dims))
        .collect())
}
