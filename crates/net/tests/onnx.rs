//! `model.onnx` (crates/net/src/onnx.rs): ONNX Runtime runs the exported
//! graph of every kind (8x8, diagonal with five and nine taps, without the
//! plies head or pooling blocks) and gives our evaluator's W/D/L and
//! priors within 1e-4; `check_onnx` accepts what we write and names what
//! differs in a file that breaks the contract.
//!
//! The ONNX Runtime part is skipped (with a message) only when the
//! interpreter, numpy or onnxruntime is missing; CI installs them
//! (scripts/python_env.sh), and there a skip is a failure.

mod common;

#[path = "../../../tests/support/python.rs"]
mod python;

use common::{
    evaluate_all, largest_difference, random_batch_norm_net, random_positions, temp_dir,
    tiny_of_every_kind,
};
use shashki_net::{Checkpoint, Device, NetConfig, NetEvaluator, NetKind, check_onnx, export_onnx};
use shashki_onnx::proto::ModelProto;
use shashki_rules::Position;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tiny random net of `config` (batch norm statistics random too), as a
/// checkpoint at step 5.
fn checkpoint(config: &NetConfig) -> Checkpoint {
    let net = random_batch_norm_net(config, 11, &Device::flex());
    Checkpoint::from_net(&net, 5, None).unwrap()
}

fn configs() -> Vec<NetConfig> {
    let mut configs = tiny_of_every_kind();
    configs.push(NetConfig {
        plies_left_head: false,
        global_pool_every: 0,
        ..NetConfig::tiny()
    });
    configs.push(NetConfig {
        plies_left_head: false,
        ..NetConfig::tiny_of(NetKind::Diag32)
    });
    configs
}

#[test]
fn onnx_runtime_matches_the_evaluator_for_every_kind() {
    let Some(python) = python::python_with(&["numpy", "onnxruntime"], "onnx_runtime_matches")
    else {
        return;
    };
    let positions: Vec<Position> = random_positions(38, 200)
        .into_iter()
        .filter(|p| !p.legal_moves().is_empty())
        .collect();
    for (i, config) in configs().iter().enumerate() {
        let dir = temp_dir(&format!("onnx-kinds-{i}"));
        let checkpoint = checkpoint(config);
        let file = export_onnx(&checkpoint, &dir).unwrap();
        let summary = check_onnx(&file).unwrap();
        assert_eq!((&summary.config, summary.training_step), (config, 5));
        let lines = onnx_runtime(&python, &file, &positions, &dir);
        let net = checkpoint.inference_net(&Device::flex()).unwrap();
        let ours = evaluate_all(&NetEvaluator::new(net, 64), &positions);
        let worst = largest_difference(&lines, &ours, &positions);
        println!(
            "{} (jump taps {}, plies head {}): largest difference {worst:.2e}",
            config.kind, config.jump_taps, config.plies_left_head
        );
        assert!(worst < 1e-4, "{config:?}: onnxruntime differs by {worst}");
    }
}

/// scripts/onnx_forward.py's lines for `positions` (default draw state).
fn onnx_runtime(
    python: &Path,
    model: &Path,
    positions: &[Position],
    dir: &Path,
) -> Vec<serde_json::Value> {
    let file = dir.join("positions.jsonl");
    let lines: Vec<String> = positions
        .iter()
        .map(|p| serde_json::json!({"fen": p.to_fen()}).to_string())
        .collect();
    std::fs::write(&file, lines.join("\n")).unwrap();
    let out = Command::new(python)
        .arg(python::repo_root().join("scripts/onnx_forward.py"))
        .arg("--model")
        .arg(model)
        .arg("--positions")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "onnx_forward.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A valid tiny diagonal model, decoded.
fn valid_model(dir: &Path) -> ModelProto {
    use prost::Message;
    let file = export_onnx(&checkpoint(&NetConfig::tiny_of(NetKind::Diag32)), dir).unwrap();
    ModelProto::decode(std::fs::read(file).unwrap().as_slice()).unwrap()
}

/// `check_onnx`'s error on `model` written to `dir/name`.
fn check_error(model: &ModelProto, dir: &Path, name: &str) -> String {
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, shashki_onnx::encode(model)).unwrap();
    let err = check_onnx(&path).unwrap_err().to_string();
    assert!(err.starts_with(&path.display().to_string()), "{err}");
    err
}

fn set_meta(model: &mut ModelProto, key: &str, value: &str) {
    let entry = model
        .metadata_props
        .iter_mut()
        .find(|e| e.key.as_deref() == Some(key))
        .unwrap();
    entry.value = Some(value.into());
}

#[test]
fn check_onnx_names_an_unknown_opset_kind_or_shape() {
    let dir = temp_dir("onnx-check");
    let valid = valid_model(&dir);

    let mut model = valid.clone();
    model.opset_import[0].version = Some(18);
    let err = check_error(&model, &dir, "opset.onnx");
    assert!(
        err.contains(
            "unknown opset: the file imports ai.onnx 18; this build reads only ai.onnx version 17"
        ),
        "{err}"
    );

    let mut model = valid.clone();
    set_meta(&mut model, "kind", "transformer");
    let err = check_error(&model, &dir, "kind.onnx");
    assert!(
        err.contains("unknown network kind \"transformer\""),
        "{err}"
    );

    let mut model = valid.clone();
    set_meta(&mut model, "kind", "resnet8x8");
    let err = check_error(&model, &dir, "kind-mismatch.onnx");
    assert!(
        err.contains("\"kind\" is resnet8x8 but \"architecture\" describes a diag32 net"),
        "{err}"
    );

    let mut model = valid.clone();
    set_meta(&mut model, "encoding_version", "2");
    let err = check_error(&model, &dir, "encoding.onnx");
    assert!(
        err.contains("metadata \"encoding_version\": is \"2\", this build reads \"1\""),
        "{err}"
    );

    let mut model = valid.clone();
    let graph = model.graph.as_mut().unwrap();
    let dims = &mut graph.input[0]
        .r#type
        .as_mut()
        .unwrap()
        .tensor_type
        .as_mut()
        .unwrap();
    dims.shape.as_mut().unwrap().dim[1].dim_value = Some(6);
    let err = check_error(&model, &dir, "input.onnx");
    assert!(
        err.contains("input planes: has shape [batch, 6, 8, 8], the contract is [batch, 7, 8, 8]"),
        "{err}"
    );

    let mut model = valid.clone();
    let graph = model.graph.as_mut().unwrap();
    let policy = &mut graph.output[0]
        .r#type
        .as_mut()
        .unwrap()
        .tensor_type
        .as_mut()
        .unwrap();
    let batch = &mut policy.shape.as_mut().unwrap().dim[0];
    (batch.dim_value, batch.dim_param) = (Some(1), None);
    let err = check_error(&model, &dir, "fixed-batch.onnx");
    assert!(
        err.contains("output policy_logits: has shape [1, 1024], the contract is [batch, 1024]"),
        "{err}"
    );

    let mut model = valid.clone();
    let stem = model
        .graph
        .as_mut()
        .unwrap()
        .initializer
        .iter_mut()
        .find(|t| t.name.as_deref() == Some("stem.conv.weight"))
        .unwrap();
    stem.dims = vec![7, 5, 16];
    let err = check_error(&model, &dir, "weights.onnx");
    assert!(
        err.contains("initializers: stem.conv.weight has shape [7, 5, 16]"),
        "{err}"
    );

    let path = dir.join("garbage.onnx");
    std::fs::write(&path, b"\x08\x96\x01 this is not protobuf \xff\xff").unwrap();
    let err = check_onnx(&path).unwrap_err().to_string();
    assert!(err.contains("not an ONNX model"), "{err}");
}
