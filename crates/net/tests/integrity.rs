//! Corrupt weights never load silently: an exported model carries the
//! SHA-256 of its weights, and NaN or infinite weights are refused in
//! exported models and checkpoints alike, naming the file and the tensor.

mod common;

use common::{temp_dir, tiny};
use shashki_net::{Checkpoint, Device, Net, NetError, export_model, import_model};
use std::path::Path;

fn tiny_checkpoint() -> Checkpoint {
    let net = Net::init(&tiny(), 11, &Device::flex()).unwrap();
    Checkpoint::from_net(&net, 40, None).unwrap()
}

/// Offset of the first tensor value in safetensors bytes.
fn safetensors_data_start(bytes: &[u8]) -> usize {
    8 + u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize
}

/// Writes NaN over the first value of the tensor data.
fn poison(bytes: &mut [u8], data_start: usize) {
    bytes[data_start..data_start + 4].copy_from_slice(&f32::NAN.to_le_bytes());
}

fn import_error(model: &Path) -> String {
    import_model(model)
        .expect_err("a corrupt model must not load")
        .to_string()
}

#[test]
fn a_flipped_byte_in_an_exported_model_fails_its_checksum() {
    let dir = temp_dir("integrity-flip");
    let model = dir.join("model");
    export_model(&tiny_checkpoint(), &model).unwrap();
    let json = std::fs::read_to_string(model.join("model.json")).unwrap();
    assert!(json.contains("\"weights_sha256\""), "{json}");
    let path = model.join("model.safetensors");
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let err = import_error(&model);
    assert!(
        err.contains("model.safetensors") && err.contains("checksum mismatch"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn nan_weights_in_an_exported_model_are_refused() {
    let dir = temp_dir("integrity-nan-model");
    let model = dir.join("model");
    export_model(&tiny_checkpoint(), &model).unwrap();
    let path = model.join("model.safetensors");
    let mut bytes = std::fs::read(&path).unwrap();
    let start = safetensors_data_start(&bytes);
    poison(&mut bytes, start);
    std::fs::write(&path, &bytes).unwrap();
    // With the checksum: a mismatch. Without it (an export from before the
    // checksum, or one edited by hand): the NaN itself.
    assert!(import_error(&model).contains("checksum mismatch"));
    let json_path = model.join("model.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let mut json = json.as_object().unwrap().clone();
    json.remove("weights_sha256");
    std::fs::write(&json_path, serde_json::to_string(&json).unwrap()).unwrap();
    let err = import_error(&model);
    assert!(
        err.contains("model.safetensors") && err.contains("non-finite value (NaN)"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn nan_weights_are_neither_saved_nor_loaded_as_checkpoints() {
    let mut checkpoint = tiny_checkpoint();
    let good = checkpoint.to_bytes().unwrap();
    checkpoint.tensors[3].data[2] = f32::INFINITY;
    let name = checkpoint.tensors[3].name.clone();
    match checkpoint.to_bytes() {
        Err(NetError::NonFinite {
            tensor,
            index,
            value,
        }) => assert_eq!((tensor, index, value), (name, 2, f32::INFINITY)),
        other => panic!("expected a non-finite error, got {other:?}"),
    }
    let dir = temp_dir("integrity-nan-ckpt");
    assert!(export_model(&checkpoint, &dir.join("model")).is_err());

    // A file with a NaN and a valid CRC (written by a build without the
    // check, say) does not load either.
    let header_len = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
    let weights_start = 16 + header_len;
    let mut bytes = good[..good.len() - 4].to_vec();
    let start = weights_start + safetensors_data_start(&bytes[weights_start..]);
    poison(&mut bytes, start);
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    let path = dir.join("nan.shzk");
    std::fs::write(&path, &bytes).unwrap();
    let err = Checkpoint::load(&path).unwrap_err().to_string();
    assert!(
        err.contains("nan.shzk") && err.contains("non-finite value (NaN)"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
