//! The hand-written CPU kernels of the diagonal net (issue 25, part 4)
//! against burn's folded net: f32 within float rounding, int8 within the
//! tolerance stated in docs/BENCHMARKS.md, on the shipped `models/diag-2h`
//! and on random nets; and every SIMD implementation against the scalar one,
//! bit for bit.

mod common;

use common::{evaluate_all, random_batch_norm_net, random_positions};
use shashki_net::kernels::Isa;
use shashki_net::{
    Checkpoint, Device, INPUT_LEN, InferenceKernels, KernelNet, NetConfig, NetEvaluator, NetKind,
    encode_input, import_model,
};
use shashki_rules::{DrawState, Position};
use shashki_search::Evaluation;
use std::path::PathBuf;

/// The shipped diagonal net and random diagonal nets (with random batch
/// norm statistics, five and nine taps, a pooling block, no plies head).
fn checkpoints() -> Vec<(String, Checkpoint)> {
    let shipped = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models/diag-2h");
    let mut out = vec![("diag-2h".to_string(), import_model(&shipped).unwrap())];
    let base = NetConfig::tiny_of(NetKind::Diag32);
    let configs = [
        base.clone(),
        NetConfig {
            jump_taps: true,
            plies_left_head: false,
            ..base.clone()
        },
        NetConfig {
            blocks: 4,
            channels: 32,
            global_pool_every: 2,
            value_channels: 12,
            ..base
        },
    ];
    for (i, config) in configs.iter().enumerate() {
        let net = random_batch_norm_net(config, 40 + i as u64, &Device::flex());
        out.push((
            format!("random-{i}"),
            Checkpoint::from_net(&net, 0, None).unwrap(),
        ));
    }
    out
}

fn evaluator(checkpoint: &Checkpoint, kernels: InferenceKernels) -> NetEvaluator {
    let net = checkpoint
        .inference_net_with(&Device::flex(), kernels)
        .unwrap();
    assert_eq!(net.kernels(), kernels);
    NetEvaluator::new(net, 64)
}

/// (largest prior difference, largest W/D/L difference, share of positions
/// whose most likely move differs).
fn compare(a: &[Evaluation], b: &[Evaluation]) -> (f32, f32, f64) {
    let (mut prior, mut wdl, mut top) = (0.0f32, 0.0f32, 0usize);
    for (x, y) in a.iter().zip(b) {
        for (p, q) in x.priors.iter().zip(&y.priors) {
            prior = prior.max((p - q).abs());
        }
        for (p, q) in [
            (x.wdl.win, y.wdl.win),
            (x.wdl.draw, y.wdl.draw),
            (x.wdl.loss, y.wdl.loss),
        ] {
            wdl = wdl.max((p - q).abs());
        }
        let best = |e: &Evaluation| {
            (0..e.priors.len()).max_by(|&i, &j| e.priors[i].total_cmp(&e.priors[j]))
        };
        // A near tie may swap; count only clear changes of the best move.
        if let (Some(i), Some(j)) = (best(x), best(y))
            && i != j
            && (x.priors[i] - x.priors[j]).abs() > 0.02
        {
            top += 1;
        }
    }
    (prior, wdl, top as f64 / a.len() as f64)
}

#[test]
fn hand_written_kernels_agree_with_burn() {
    let mut positions: Vec<Position> = random_positions(31, 600);
    positions.retain(|p| !p.legal_moves().is_empty());
    for (name, checkpoint) in checkpoints() {
        let burn = evaluate_all(&evaluator(&checkpoint, InferenceKernels::Burn), &positions);
        let f32 = evaluate_all(&evaluator(&checkpoint, InferenceKernels::F32), &positions);
        let int8 = evaluate_all(&evaluator(&checkpoint, InferenceKernels::Int8), &positions);
        let (p, w, t) = compare(&burn, &f32);
        println!("{name} f32 vs burn: priors {p:.2e}, wdl {w:.2e}, best move changed {t:.3}");
        assert!(p < 1e-4 && w < 1e-4 && t == 0.0, "{name}: f32 kernels");
        let (p, w, t) = compare(&burn, &int8);
        println!("{name} int8 vs burn: priors {p:.2e}, wdl {w:.2e}, best move changed {t:.3}");
        assert!(p < 0.05 && w < 0.05 && t < 0.02, "{name}: int8 kernels");
    }
}

#[test]
fn simd_and_scalar_kernels_agree_exactly() {
    let positions = random_positions(32, 64);
    let mut inputs = vec![0.0f32; positions.len() * INPUT_LEN];
    for (p, slot) in positions.iter().zip(inputs.chunks_exact_mut(INPUT_LEN)) {
        encode_input(p, DrawState::default(), slot);
    }
    for (name, checkpoint) in checkpoints() {
        for int8 in [false, true] {
            let run = |isa| {
                let net =
                    KernelNet::with_isa(&checkpoint.config, checkpoint.tensors.clone(), int8, isa)
                        .unwrap();
                net.forward_host(&inputs, positions.len())
            };
            let scalar = run(Isa::Scalar);
            for isa in Isa::available() {
                let out = run(isa);
                let what = format!("{name}, int8 {int8}, {isa:?}");
                assert_eq!(out.policy, scalar.policy, "{what}");
                assert_eq!(out.wdl, scalar.wdl, "{what}");
                assert_eq!(out.plies_left, scalar.plies_left, "{what}");
            }
        }
    }
}

#[test]
fn kernels_apply_to_diag_nets_on_the_cpu_only() {
    let net = random_batch_norm_net(&NetConfig::tiny(), 3, &Device::flex());
    let checkpoint = Checkpoint::from_net(&net, 0, None).unwrap();
    let folded = checkpoint
        .inference_net_with(&Device::flex(), InferenceKernels::Int8)
        .unwrap();
    assert_eq!(
        folded.kernels(),
        InferenceKernels::Burn,
        "8x8 nets stay in burn"
    );
    assert!(KernelNet::from_tensors(&checkpoint.config, checkpoint.tensors, true).is_err());
    for kernels in InferenceKernels::ALL {
        assert_eq!(kernels.name().parse::<InferenceKernels>(), Ok(kernels));
    }
    assert!("fast".parse::<InferenceKernels>().is_err());
}
