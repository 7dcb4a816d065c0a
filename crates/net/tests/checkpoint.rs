//! Checkpoints and exported models: round trips and every kind of bad file.

mod common;

use common::{evaluate_all, random_positions, temp_dir, tiny};
use shashki_atomic::FileError;
use shashki_net::{
    Checkpoint, CheckpointHeader, Device, ModelJson, Net, NetConfig, NetError, NetEvaluator,
    SampleBatch, adam, export_model, import_model, optimizer_from_bytes, optimizer_to_bytes,
    train_step,
};
use shashki_rules::DrawState;
use std::path::Path;

fn evaluator(checkpoint: &Checkpoint) -> NetEvaluator {
    NetEvaluator::new(checkpoint.inference_net(&Device::flex()).unwrap(), 16)
}

fn tiny_checkpoint(seed: u64) -> Checkpoint {
    let net = Net::init(&tiny(), seed, &Device::flex()).unwrap();
    Checkpoint::from_net(&net, 123, None).unwrap()
}

/// Rewrites a checkpoint's JSON header with `edit` and fixes the lengths and
/// checksum, so only the edited field is wrong.
fn with_header(bytes: &[u8], edit: impl FnOnce(&mut CheckpointHeader)) -> Vec<u8> {
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut header: CheckpointHeader = serde_json::from_slice(&bytes[16..16 + header_len]).unwrap();
    edit(&mut header);
    let new_header = serde_json::to_vec(&header).unwrap();
    let mut out = bytes[..12].to_vec();
    out.extend_from_slice(&(new_header.len() as u32).to_le_bytes());
    out.extend_from_slice(&new_header);
    out.extend_from_slice(&bytes[16 + header_len..bytes.len() - 4]);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fn load_error(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let err = Checkpoint::load(&path).expect_err("bad file must not load");
    let text = err.to_string();
    assert!(text.contains(name), "error {text:?} must name the file");
    text
}

#[test]
fn save_and_load_give_identical_outputs() {
    let dir = temp_dir("roundtrip");
    let checkpoint = tiny_checkpoint(1);
    let path = dir.join("net.ckpt");
    checkpoint.save(&path).unwrap();
    let loaded = Checkpoint::load(&path).unwrap();
    assert!(loaded == checkpoint, "loaded checkpoint differs");
    assert_eq!(loaded.step, 123);
    let positions = random_positions(1, 50);
    assert!(
        evaluate_all(&evaluator(&checkpoint), &positions)
            == evaluate_all(&evaluator(&loaded), &positions)
    );
    // Saving again replaces the file in place.
    checkpoint.save(&path).unwrap();
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
}

#[test]
fn optimizer_state_survives_a_checkpoint() {
    let dir = temp_dir("optimizer");
    let device = Device::flex().autodiff();
    let positions = random_positions(2, 16);
    let mut samples = SampleBatch::with_capacity(16);
    for position in &positions {
        let moves = position.legal_moves();
        let probs = vec![1.0 / moves.len().max(1) as f32; moves.len()];
        samples.push(
            position,
            DrawState::default(),
            moves.as_slice(),
            &probs,
            [0.2, 0.5, 0.3],
            30.0,
        );
    }
    let batch = samples.to_tensors(&device);
    let weights = Default::default();
    let mut net = Net::init(&tiny(), 2, &device).unwrap();
    let mut optimizer = adam();
    for _ in 0..2 {
        net = train_step(net, &mut optimizer, &batch, 1e-3, &weights)
            .unwrap()
            .0;
    }
    let path = dir.join("train.ckpt");
    let state = optimizer_to_bytes(&optimizer).unwrap();
    Checkpoint::from_net(&net, 2, Some(state))
        .unwrap()
        .save(&path)
        .unwrap();

    let loaded = Checkpoint::load_expecting(&path, &tiny()).unwrap();
    assert_eq!(loaded.step, 2);
    let mut restored_net = loaded.net(&device).unwrap();
    let mut restored_opt =
        optimizer_from_bytes(adam(), loaded.optimizer.as_ref().unwrap()).unwrap();
    // The next step is the same whether or not we went through the file.
    net = train_step(net, &mut optimizer, &batch, 1e-3, &weights)
        .unwrap()
        .0;
    restored_net = train_step(restored_net, &mut restored_opt, &batch, 1e-3, &weights)
        .unwrap()
        .0;
    let a = net.to_tensors().unwrap();
    let b = restored_net.to_tensors().unwrap();
    let worst = a
        .iter()
        .zip(&b)
        .flat_map(|(x, y)| x.data.iter().zip(&y.data).map(|(p, q)| (p - q).abs()))
        .fold(0.0f32, f32::max);
    for (x, y) in a.iter().zip(&b) {
        let d = x
            .data
            .iter()
            .zip(&y.data)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0f32, f32::max);
        if d > 1e-6 {
            eprintln!("{} differs by {d}", x.name);
        }
    }
    assert!(worst < 1e-6, "weights differ by {worst}");
    // A fresh optimizer would have taken a different step.
    let mut fresh_net = loaded.net(&device).unwrap();
    fresh_net = train_step(fresh_net, &mut adam(), &batch, 1e-3, &weights)
        .unwrap()
        .0;
    let c = fresh_net.to_tensors().unwrap();
    assert!(a != c, "a fresh optimizer must step differently");
}

#[test]
fn bad_checkpoints_give_clear_errors() {
    let dir = temp_dir("bad");
    let good = tiny_checkpoint(3).to_bytes().unwrap();

    // Truncated anywhere.
    for cut in [0, 5, 12, 20, 100, good.len() / 2, good.len() - 1] {
        let text = load_error(&dir, "cut.ckpt", &good[..cut]);
        assert!(
            text.contains("truncated") || text.contains("not a Shashki Zero checkpoint"),
            "cut at {cut}: {text}"
        );
    }
    // One flipped bit in the weights.
    let mut corrupt = good.clone();
    let at = corrupt.len() - 200;
    corrupt[at] ^= 0x10;
    assert!(load_error(&dir, "flip.ckpt", &corrupt).contains("checksum"));
    // Extra bytes at the end.
    let mut long = good.clone();
    long.extend_from_slice(b"junk");
    assert!(load_error(&dir, "long.ckpt", &long).contains("corrupt"));
    // Foreign files.
    assert!(
        load_error(&dir, "a.json", b"{\"blocks\": 6}").contains("not a Shashki Zero checkpoint")
    );
    assert!(load_error(&dir, "empty.ckpt", b"").contains("not a Shashki Zero checkpoint"));
    // Another encoding, another format version.
    let other = with_header(&good, |h| h.encoding_version = 99);
    let text = load_error(&dir, "enc.ckpt", &other);
    assert!(text.contains("input encoding version 99"), "{text}");
    let mut newer = good.clone();
    newer[8] = 7;
    assert!(load_error(&dir, "fmt.ckpt", &newer).contains("checkpoint format version 7"));
    // A header whose architecture does not fit the weights.
    let wrong = with_header(&good, |h| h.config.channels = 24);
    assert!(load_error(&dir, "arch.ckpt", &wrong).contains("shape"));
    // Missing file.
    let err = Checkpoint::load(&dir.join("missing.ckpt")).unwrap_err();
    assert!(matches!(err, NetError::File(FileError::Io { .. })));
    assert!(err.to_string().contains("missing.ckpt"));
}

#[test]
fn loading_another_architecture_is_refused() {
    let dir = temp_dir("arch");
    let path = dir.join("tiny.ckpt");
    tiny_checkpoint(4).save(&path).unwrap();
    let err = Checkpoint::load_expecting(&path, &NetConfig::default()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, NetError::ArchitectureMismatch { .. }));
    assert!(
        text.contains("tiny.ckpt") && text.contains("\"channels\":16"),
        "{text}"
    );
}

#[test]
fn export_and_import_give_identical_outputs() {
    let dir = temp_dir("export");
    let checkpoint = tiny_checkpoint(5);
    let model = dir.join("model");
    export_model(&checkpoint, &model).unwrap();
    let json: ModelJson =
        serde_json::from_str(&std::fs::read_to_string(model.join("model.json")).unwrap()).unwrap();
    let weights = std::fs::read(model.join("model.safetensors")).unwrap();
    assert_eq!(
        json,
        ModelJson {
            weights_sha256: Some(shashki_net::sha256_hex(&weights)),
            ..ModelJson::describe(&tiny(), 123)
        }
    );
    assert_eq!(json.input.shape, [-1, 7, 8, 8]);
    assert_eq!(json.tensors.len(), checkpoint.tensors.len());
    let imported = import_model(&model).unwrap();
    assert!(imported == checkpoint, "imported checkpoint differs");
    let positions = random_positions(5, 50);
    assert!(
        evaluate_all(&evaluator(&checkpoint), &positions)
            == evaluate_all(&evaluator(&imported), &positions)
    );
}

#[test]
fn bad_model_folders_give_clear_errors() {
    let dir = temp_dir("badmodel");
    let err = import_model(&dir.join("nothing")).unwrap_err().to_string();
    assert!(err.contains("model.json"), "{err}");

    let model = dir.join("m");
    export_model(&tiny_checkpoint(6), &model).unwrap();
    let json_path = model.join("model.json");
    let text = std::fs::read_to_string(&json_path).unwrap();
    // Another architecture than the weights hold.
    std::fs::write(
        &json_path,
        text.replace("\"channels\": 16", "\"channels\": 32"),
    )
    .unwrap();
    let err = import_model(&model).unwrap_err().to_string();
    assert!(
        err.contains("model.safetensors") && err.contains("shape"),
        "{err}"
    );
    // Another encoding version.
    std::fs::write(
        &json_path,
        text.replace("\"encoding_version\": 1", "\"encoding_version\": 2"),
    )
    .unwrap();
    let err = import_model(&model).unwrap_err().to_string();
    assert!(err.contains("input encoding version 2"), "{err}");
    // Not JSON at all.
    std::fs::write(&json_path, "garbage").unwrap();
    let err = import_model(&model).unwrap_err().to_string();
    assert!(
        err.contains("model.json") && err.contains("not a valid"),
        "{err}"
    );
    // Truncated weights.
    std::fs::write(&json_path, &text).unwrap();
    let weights_path = model.join("model.safetensors");
    let weights = std::fs::read(&weights_path).unwrap();
    std::fs::write(&weights_path, &weights[..weights.len() / 2]).unwrap();
    let err = import_model(&model).unwrap_err().to_string();
    assert!(err.contains("model.safetensors"), "{err}");
}
