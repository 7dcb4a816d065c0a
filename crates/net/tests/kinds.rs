//! Both network kinds (`resnet8x8`, `diag32`): shapes, folding, the
//! diagonal geometry, training, checkpoints, export, and the errors when a
//! file of one kind is loaded as the other.

mod common;

use burn::module::Module;
use burn::tensor::{Tensor, TensorData};
use common::{
    evaluate_all, inputs, max_abs, overfit_fixed_batch, random_batch_norm_net, random_positions,
    temp_dir, tiny_of_every_kind, values,
};
use shashki_net::kinds::{kind_of_tensors, tensor_shapes};
use shashki_net::{
    Checkpoint, Device, INPUT_LEN, InferenceNet, Net, NetConfig, NetError, NetEvaluator, NetKind,
    POLICY_LEN, export_model, import_model, parameter_count,
};
use std::path::PathBuf;

fn diag() -> NetConfig {
    NetConfig::tiny_of(NetKind::Diag32)
}

#[test]
fn every_kind_has_the_same_outputs_and_lists_its_tensors() {
    let device = Device::flex();
    for config in tiny_of_every_kind() {
        let net = Net::init(&config, 1, &device).unwrap();
        assert_eq!(net.config(), &config);
        let out = net.forward(inputs(&random_positions(1, 5), &device));
        assert_eq!(out.policy.dims(), [5, POLICY_LEN]);
        assert_eq!(out.wdl.dims(), [5, 3]);
        assert_eq!(out.plies_left.unwrap().dims(), [5, 1]);
        let tensors = net.to_tensors().unwrap();
        let listed: Vec<(String, Vec<usize>)> = tensors
            .iter()
            .map(|t| (t.name.clone(), t.shape.clone()))
            .collect();
        assert_eq!(listed, tensor_shapes(&config));
        assert_eq!(kind_of_tensors(&tensors), Some(config.kind));
        let all: usize = listed
            .iter()
            .map(|(_, s)| s.iter().product::<usize>())
            .sum();
        assert_eq!(all, net.num_params());
    }
    // Diagonal convolution weights are [out, in, taps].
    let shapes = tensor_shapes(&diag());
    assert!(shapes.contains(&("blocks.0.conv1.weight".into(), vec![16, 16, 5])));
    assert!(shapes.contains(&("stem.conv.weight".into(), vec![16, 7, 5])));
    assert!(shapes.contains(&("policy.out.weight".into(), vec![32, 8, 1])));
    // Parameters of 6x64: the tower's 3x3 = 9 taps become 5 (or 9).
    let six_by_64 = |kind, jump_taps| {
        parameter_count(&NetConfig {
            kind,
            jump_taps,
            ..NetConfig::default()
        })
    };
    assert_eq!(six_by_64(NetKind::Resnet8x8, false), 478_692);
    assert_eq!(six_by_64(NetKind::Diag32, true), 478_692);
    let tower_taps_saved = (2 * 6 * 64 + 7) * 64 * 4;
    assert_eq!(
        six_by_64(NetKind::Diag32, false),
        478_692 - tower_taps_saved
    );
}

#[test]
fn folded_diag_net_matches_batch_norm_inference() {
    let device = Device::flex();
    for config in tiny_of_every_kind() {
        let net = random_batch_norm_net(&config, 3, &device);
        let positions = random_positions(3, 40);
        let plain = net.valid().forward(inputs(&positions, &device));
        let folded = InferenceNet::from_net(&net, &device)
            .unwrap()
            .forward(inputs(&positions, &device));
        let diff = |a: Tensor<2>, b: Tensor<2>| max_abs(&values(a), &values(b));
        assert!(diff(plain.policy, folded.policy) < 1e-4, "{config:?}");
        assert!(diff(plain.wdl, folded.wdl) < 1e-5, "{config:?}");
        let plies = diff(plain.plies_left.unwrap(), folded.plies_left.unwrap());
        assert!(plies < 1e-5, "{config:?}");
    }
}

/// Squares whose logits `from * 32 + ..` change when the piece on `square`
/// is taken away, in a net without blocks (stem, then per-square heads):
/// exactly the squares whose taps include `square`.
fn squares_reached_from(config: &NetConfig, square: usize) -> Vec<usize> {
    let device = Device::flex();
    let net = Net::init(config, 9, &device).unwrap();
    // Own men on every dark cell, the ones plane; then one square emptied.
    let mut buf = vec![0.0; INPUT_LEN];
    let cells = shashki_net::encoding::CELL_OF_SQUARE;
    for &cell in &cells {
        buf[cell] = 1.0;
    }
    buf[6 * 64..].fill(1.0);
    let mut emptied = buf.clone();
    emptied[cells[square]] = 0.0;
    let run = |data: Vec<f32>| {
        values(
            net.forward(Tensor::from_data(
                TensorData::new(data, [1, 7, 8, 8]),
                &device,
            ))
            .policy,
        )
    };
    let (a, b) = (run(buf), run(emptied));
    (0..32)
        .filter(|&from| {
            let row = from * 32..(from + 1) * 32;
            max_abs(&a[row.clone()], &b[row]) > 0.0
        })
        .collect()
}

#[test]
fn a_diagonal_convolution_sees_its_diagonal_neighbours_only() {
    let shallow = NetConfig {
        blocks: 0,
        ..diag()
    };
    // d4 (13) reaches itself and c5, e5, c3, e3 (17, 18, 9, 10).
    assert_eq!(squares_reached_from(&shallow, 13), [9, 10, 13, 17, 18]);
    // a1 (0) is only b2's (4) neighbour.
    assert_eq!(squares_reached_from(&shallow, 0), [0, 4]);
    let jumps = NetConfig {
        jump_taps: true,
        ..shallow
    };
    // Two steps away too: b2, f2, b6, f6 (4, 6, 20, 22).
    assert_eq!(
        squares_reached_from(&jumps, 13),
        [4, 6, 9, 10, 13, 17, 18, 20, 22]
    );
}

#[test]
fn the_diag_net_trains_every_parameter_and_overfits_a_batch() {
    for config in tiny_of_every_kind().into_iter().skip(1) {
        let run = overfit_fixed_batch(&config, 20);
        let (first, last) = (run.first, run.last);
        assert!(last < 0.7 * first, "{config:?}: loss {first} -> {last}");
        // Every tensor moved: gradients flow through the gathers to all of them.
        for (old, new) in run.before.iter().zip(&run.after) {
            assert_eq!(old.name, new.name);
            assert!(
                max_abs(&old.data, &new.data) > 0.0,
                "{} did not train",
                old.name
            );
        }
    }
}

#[test]
fn checkpoints_and_exports_of_every_kind_round_trip() {
    let dir = temp_dir("kinds-roundtrip");
    let positions = random_positions(6, 40);
    for (i, config) in tiny_of_every_kind().iter().enumerate() {
        let net = random_batch_norm_net(config, 20 + i as u64, &Device::flex());
        let checkpoint = Checkpoint::from_net(&net, 77, None).unwrap();
        let path = dir.join(format!("net{i}.ckpt"));
        checkpoint.save(&path).unwrap();
        let loaded = Checkpoint::load_expecting(&path, config).unwrap();
        assert!(
            loaded == checkpoint,
            "{config:?}: loaded checkpoint differs"
        );
        let model = dir.join(format!("model{i}"));
        export_model(&checkpoint, &model).unwrap();
        let json = std::fs::read_to_string(model.join("model.json")).unwrap();
        assert!(
            json.contains(&format!("\"kind\": \"{}\"", config.kind)),
            "model.json names the kind: {json}"
        );
        let imported = import_model(&model).unwrap();
        assert!(imported == checkpoint, "{config:?}: imported differs");
        let eval = |c: &Checkpoint| {
            let net = c.inference_net(&Device::flex()).unwrap();
            evaluate_all(&NetEvaluator::new(net, 16), &positions)
        };
        let original = eval(&checkpoint);
        assert!(original == eval(&loaded) && original == eval(&imported));
    }
}

#[test]
fn a_file_of_one_kind_loaded_as_the_other_is_refused_clearly() {
    let dir = temp_dir("kinds-mismatch");
    let net = Net::init(&diag(), 1, &Device::flex()).unwrap();
    let checkpoint = Checkpoint::from_net(&net, 5, None).unwrap();
    let path = dir.join("diag.ckpt");
    checkpoint.save(&path).unwrap();
    // Asked for an 8x8 net of the same sizes.
    let err = Checkpoint::load_expecting(&path, &NetConfig::tiny()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, NetError::ArchitectureMismatch { .. }));
    assert!(
        text.contains("diag.ckpt")
            && text.contains("\"kind\":\"diag32\"")
            && text.contains("\"kind\":\"resnet8x8\""),
        "{text}"
    );
    // Weights of one kind given to the other.
    let tensors = checkpoint.tensors.clone();
    let err = Net::from_tensors(&NetConfig::tiny(), tensors.clone(), &Device::flex())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("diag32 net") && err.contains("resnet8x8 net"),
        "{err}"
    );
    let err = InferenceNet::from_tensors(&NetConfig::tiny(), tensors, &Device::flex())
        .unwrap_err()
        .to_string();
    assert!(err.contains("diag32 net"), "{err}");
    // A model.json whose kind was changed by hand.
    let model = dir.join("model");
    export_model(&checkpoint, &model).unwrap();
    let json_path = model.join("model.json");
    let text = std::fs::read_to_string(&json_path).unwrap();
    std::fs::write(
        &json_path,
        text.replace("\"kind\": \"diag32\"", "\"kind\": \"resnet8x8\""),
    )
    .unwrap();
    let err = import_model(&model).unwrap_err().to_string();
    assert!(
        err.contains("model.safetensors")
            && err.contains("weights are of a diag32 net")
            && err.contains("asks for a resnet8x8 net"),
        "{err}"
    );
    // An unknown kind.
    std::fs::write(
        &json_path,
        text.replace("\"kind\": \"diag32\"", "\"kind\": \"hex\""),
    )
    .unwrap();
    let err = import_model(&model).unwrap_err().to_string();
    assert!(err.contains("model.json") && err.contains("hex"), "{err}");
}

#[test]
fn the_shipped_model_written_before_kinds_loads_as_the_8x8_net() {
    let shipped = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models/cpu-2h");
    let json = std::fs::read_to_string(shipped.join("model.json")).unwrap();
    assert!(!json.contains("\"kind\""), "the fixture predates kinds");
    let checkpoint = import_model(&shipped).unwrap();
    assert_eq!(checkpoint.config.kind, NetKind::Resnet8x8);
    assert!(!checkpoint.config.jump_taps);
    let net = checkpoint.inference_net(&Device::flex()).unwrap();
    let evals = evaluate_all(&NetEvaluator::new(net, 4), &random_positions(7, 4));
    assert!(evals.iter().all(|e| e.wdl.win.is_finite()));
}
