//! The float NNUE as a self-contained ONNX file (`shashki export --model
//! NNUE-DIR --format onnx`): the two perspectives' feature vectors in,
//! each output stack's logit out, batch dimension dynamic. Front ends that
//! run ONNX get the float evaluation (the engine itself runs the quantized
//! integers; docs/MODEL.md states how far apart the two are).
//! [`check_nnue_onnx`] holds a file to the contract.

use crate::error::NnueError;
use crate::features::{FEATURE_LAYOUT, FEATURE_LAYOUT_VERSION, NUM_FEATURES};
use crate::layers::LayerId;
use crate::network::{Architecture, EVAL_CP_PER_UNIT, FloatNet};
use shashki_onnx::{Attr, Dim, GraphBuilder, OnnxFile, TensorSig, proto::ModelProto};
use shashki_tensor::transpose;
use std::path::{Path, PathBuf};

/// File name of the ONNX model in an export folder.
pub const NNUE_ONNX_FILE: &str = "model.onnx";
/// Value of the ONNX metadata's `format` entry.
pub const NNUE_ONNX_FORMAT: &str = "shashki-nnue-onnx";
/// Version of the NNUE's ONNX contract.
pub const NNUE_ONNX_FORMAT_VERSION: u32 = 1;

/// The input: `features` `[batch, 2, 128]`, row 0 the side to move's
/// perspective, row 1 the opponent's; 1 at each active feature.
pub fn nnue_onnx_inputs() -> Vec<TensorSig> {
    vec![TensorSig::new(
        "features",
        &[Dim::Batch, Dim::Fixed(2), Dim::Fixed(NUM_FEATURES as i64)],
    )]
}

/// The output: `logits` `[batch, buckets]`, the logit of each output
/// stack (one column for a single-stack net); a position reads its bucket's.
pub fn nnue_onnx_outputs(arch: &Architecture) -> Vec<TensorSig> {
    vec![TensorSig::new(
        "logits",
        &[Dim::Batch, Dim::Fixed(arch.buckets() as i64)],
    )]
}

fn metadata(arch: &Architecture, step: u64) -> Vec<(String, String)> {
    [
        ("format", NNUE_ONNX_FORMAT.to_string()),
        ("format_version", NNUE_ONNX_FORMAT_VERSION.to_string()),
        ("kind", "nnue".to_string()),
        (
            "architecture",
            serde_json::to_string(arch).expect("an architecture serialises"),
        ),
        ("stacks", arch.stacks.name().to_string()),
        ("feature_layout", FEATURE_LAYOUT.to_string()),
        ("feature_layout_version", FEATURE_LAYOUT_VERSION.to_string()),
        ("features", NUM_FEATURES.to_string()),
        ("training_step", step.to_string()),
        ("eval_cp_per_unit", EVAL_CP_PER_UNIT.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Bucket-major `[buckets * out, in]` -> `[buckets, in, out]` (a batched
/// matrix product's right-hand side).
fn stacked(data: &[f32], buckets: usize, dout: usize, din: usize) -> Vec<f32> {
    let per = dout * din;
    (0..buckets)
        .flat_map(|b| transpose(&data[b * per..(b + 1) * per], dout, din))
        .collect()
}

/// The ONNX model of `net` at training step `step`.
pub fn nnue_onnx_model(net: &FloatNet, step: u64) -> ModelProto {
    let arch = &net.arch;
    let (ft, [h1, h2], b) = (arch.ft, arch.hidden, arch.buckets());
    let mut g = GraphBuilder::new();
    let [input] = nnue_onnx_inputs().try_into().expect("one input");
    let x = g.input(&input);
    let clip = |g: &mut GraphBuilder, x: &str| g.node("Clip", &[x, "zero", "one"], vec![]);
    g.weight("zero", &[], &[0.0]);
    g.weight("one", &[], &[1.0]);
    // Accumulators: [n, 2, 128] x [128, ft] -> [n, 2, ft], clipped, side by side.
    let w = g.weight(
        LayerId::Ft.weight_name(),
        &[NUM_FEATURES, ft],
        &net.ft.weight,
    );
    let bias = g.weight(LayerId::Ft.bias_name(), &[ft], &net.ft.bias);
    let acc = g.node("MatMul", &[&x, &w], vec![]);
    let acc = g.node("Add", &[&acc, &bias], vec![]);
    let acc = clip(&mut g, &acc);
    let shape = g.ints("shape.accumulators", &[2], &[-1, 2 * ft as i64]);
    let x0 = g.node("Reshape", &[&acc, &shape], vec![]);
    // Every stack's first layer at once: [n, 2 ft] -> [n, b * h1] -> [b, n, h1].
    let w = g.weight(
        LayerId::L1.weight_name(),
        &[2 * ft, b * h1],
        &transpose(&net.l1.weight, b * h1, 2 * ft),
    );
    let bias = g.weight(LayerId::L1.bias_name(), &[b * h1], &net.l1.bias);
    let x1 = g.node("Gemm", &[&x0, &w, &bias], vec![]);
    let x1 = clip(&mut g, &x1);
    let shape = g.ints("shape.stacks", &[3], &[-1, b as i64, h1 as i64]);
    let x1 = g.node("Reshape", &[&x1, &shape], vec![]);
    let x1 = g.node("Transpose", &[&x1], vec![Attr::Ints("perm", vec![1, 0, 2])]);
    // Each stack's own layers: batched products over the stacks.
    let w = g.weight(
        LayerId::L2.weight_name(),
        &[b, h1, h2],
        &stacked(&net.l2.weight, b, h2, h1),
    );
    let bias = g.weight(LayerId::L2.bias_name(), &[b, 1, h2], &net.l2.bias);
    let x2 = g.node("MatMul", &[&x1, &w], vec![]);
    let x2 = g.node("Add", &[&x2, &bias], vec![]);
    let x2 = clip(&mut g, &x2);
    let w = g.weight(
        LayerId::Out.weight_name(),
        &[b, h2, 1],
        &stacked(&net.out.weight, b, 1, h2),
    );
    let bias = g.weight(LayerId::Out.bias_name(), &[b, 1, 1], &net.out.bias);
    let out = g.node("MatMul", &[&x2, &w], vec![]);
    let out = g.node("Add", &[&out, &bias], vec![]);
    // [b, n, 1] -> [n, b]
    let out = g.node(
        "Transpose",
        &[&out],
        vec![Attr::Ints("perm", vec![1, 0, 2])],
    );
    let shape = g.ints("shape.logits", &[2], &[-1, b as i64]);
    let logits = g.node("Reshape", &[&out, &shape], vec![]);
    let [output] = nnue_onnx_outputs(arch).try_into().expect("one output");
    g.output(&logits, &output);
    let doc = "Shashki Zero float NNUE (docs/MODEL.md, \"The NNUE as ONNX\")";
    g.finish("shashki-nnue", doc, &metadata(arch, step))
}

/// Writes `net` as `dir/model.onnx` (the folder created if needed);
/// returns the file's path.
pub fn export_nnue_onnx(net: &FloatNet, step: u64, dir: &Path) -> Result<PathBuf, NnueError> {
    std::fs::create_dir_all(dir).map_err(|e| NnueError::io(dir, e))?;
    let path = dir.join(NNUE_ONNX_FILE);
    let bytes = shashki_onnx::encode(&nnue_onnx_model(net, step));
    shashki_atomic::write_atomic(&path, &bytes).map_err(|e| NnueError::io(&path, e))?;
    Ok(path)
}

/// Holds an NNUE ONNX file to its contract (opset, metadata, input and
/// output shapes, weights of the architecture named); returns the
/// architecture and the training step.
pub fn check_nnue_onnx(path: &Path) -> Result<(Architecture, u64), NnueError> {
    let bytes = std::fs::read(path).map_err(|e| NnueError::io(path, e))?;
    let fail = |reason: String| NnueError::format(path, reason);
    let text = |e: shashki_onnx::OnnxError| e.to_string();
    let file = OnnxFile::decode(&bytes).map_err(|e| fail(text(e)))?;
    let check = || -> Result<(Architecture, u64), String> {
        file.expect_meta("format", NNUE_ONNX_FORMAT).map_err(text)?;
        let version = NNUE_ONNX_FORMAT_VERSION.to_string();
        file.expect_meta("format_version", &version).map_err(text)?;
        file.expect_meta("kind", "nnue").map_err(text)?;
        file.expect_meta("feature_layout", FEATURE_LAYOUT)
            .map_err(text)?;
        let layout = FEATURE_LAYOUT_VERSION.to_string();
        file.expect_meta("feature_layout_version", &layout)
            .map_err(text)?;
        let arch: Architecture = serde_json::from_str(&file.meta("architecture").map_err(text)?)
            .map_err(|e| format!("metadata \"architecture\": not an NNUE architecture: {e}"))?;
        arch.validate()
            .map_err(|e| format!("metadata \"architecture\": {e}"))?;
        let step = file.meta("training_step").map_err(text)?;
        let step = step
            .parse()
            .map_err(|_| format!("metadata \"training_step\": {step:?} is not a step count"))?;
        file.expect_interface(&nnue_onnx_inputs(), &nnue_onnx_outputs(&arch))
            .map_err(text)?;
        let zeros = FloatNet::random(&arch, 0).map_err(|e| e.to_string())?;
        let expected: Vec<(String, Vec<i64>)> = nnue_onnx_model(&zeros, 0)
            .graph
            .expect("written with a graph")
            .initializer
            .into_iter()
            .map(|t| (t.name.unwrap_or_default(), t.dims))
            .collect();
        file.expect_initializers(&expected).map_err(text)?;
        Ok((arch, step))
    };
    check().map_err(fail)
}
