//! Shared test helpers: seeded random playout positions and tiny nets.
#![allow(dead_code)]

use burn::tensor::{Tensor, TensorData};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
#[allow(unused_imports)] // not every test binary uses it
pub use shashki_net::random_positions;
use shashki_net::{
    Device, INPUT_LEN, NamedTensor, Net, NetConfig, NetEvaluator, NetKind, SampleBatch,
    encode_input,
};
use shashki_rules::{DrawState, Position};
use shashki_search::{EvalRequest, Evaluation};
use std::collections::BTreeMap;

/// The tiny test architecture.
pub fn tiny() -> NetConfig {
    NetConfig::tiny()
}

/// The tiny test architectures of every kind: the 8x8 net and the
/// diagonal net with five and with nine taps.
pub fn tiny_of_every_kind() -> Vec<NetConfig> {
    vec![
        NetConfig::tiny(),
        NetConfig::tiny_of(NetKind::Diag32),
        NetConfig {
            jump_taps: true,
            ..NetConfig::tiny_of(NetKind::Diag32)
        },
    ]
}

/// Evaluates positions one batch, default draw state.
pub fn evaluate_all(evaluator: &NetEvaluator, positions: &[Position]) -> Vec<Evaluation> {
    evaluate_with(evaluator, positions, DrawState::default())
}

/// Evaluates positions in one batch with the given draw state.
pub fn evaluate_with(
    evaluator: &NetEvaluator,
    positions: &[Position],
    draw_state: DrawState,
) -> Vec<Evaluation> {
    let moves: Vec<_> = positions.iter().map(|p| p.legal_moves()).collect();
    let requests: Vec<EvalRequest<'_>> = positions
        .iter()
        .zip(&moves)
        .map(|(position, moves)| EvalRequest {
            position,
            draw_state,
            moves: moves.as_slice(),
        })
        .collect();
    let mut out = vec![Evaluation::default(); requests.len()];
    evaluator.try_evaluate(&requests, &mut out).unwrap();
    out
}

/// Largest absolute difference between two evaluations' numbers.
pub fn max_diff(a: &[Evaluation], b: &[Evaluation]) -> f32 {
    let mut worst = 0.0f32;
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.priors.len(), y.priors.len());
        for (p, q) in x.priors.iter().zip(&y.priors) {
            worst = worst.max((p - q).abs());
        }
        worst = worst
            .max((x.wdl.win - y.wdl.win).abs())
            .max((x.wdl.draw - y.wdl.draw).abs())
            .max((x.wdl.loss - y.wdl.loss).abs());
        if let (Some(p), Some(q)) = (x.plies_left, y.plies_left) {
            worst = worst.max((p - q).abs() / 100.0);
        }
    }
    worst
}

#[allow(unused_imports)] // Not every test file writes files.
pub use shashki_atomic::testing::temp_dir;

/// A tiny net whose batch norms have non-trivial statistics, so folding
/// is really exercised.
pub fn net_with_random_batch_norm(seed: u64, device: &Device) -> Net {
    random_batch_norm_net(&tiny(), seed, device)
}

/// A net of `config` whose batch norms have non-trivial statistics.
pub fn random_batch_norm_net(config: &NetConfig, seed: u64, device: &Device) -> Net {
    let net = Net::init(config, seed, device).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xBA7C);
    let tensors: Vec<NamedTensor> = net
        .to_tensors()
        .unwrap()
        .into_iter()
        .map(|mut t| {
            let range = if t.name.ends_with("running_var") || t.name.ends_with("gamma") {
                Some(0.5..1.5)
            } else if t.name.ends_with("running_mean") || t.name.ends_with("beta") {
                Some(-0.3..0.3)
            } else {
                None
            };
            if let Some(range) = range {
                for v in &mut t.data {
                    *v = rng.random_range(range.clone());
                }
            }
            t
        })
        .collect();
    Net::from_tensors(config, tensors, device).unwrap()
}

/// The encoded input planes of `positions` as one `[n, 7, 8, 8]` batch.
pub fn inputs(positions: &[Position], device: &Device) -> Tensor<4> {
    let mut buf = vec![0.0; positions.len() * INPUT_LEN];
    for (p, slot) in positions.iter().zip(buf.chunks_exact_mut(INPUT_LEN)) {
        encode_input(p, DrawState::default(), slot);
    }
    Tensor::from_data(TensorData::new(buf, [positions.len(), 7, 8, 8]), device)
}

/// A tensor's values on the host.
pub fn values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().convert::<f32>().try_to_vec::<f32>().unwrap()
}

/// The largest element-wise difference of two equally long slices.
pub fn max_abs(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// A fixed batch of 32 samples from 5 random playouts: one-hot policies
/// cycling through the moves, W/D/L cycling through win, draw and loss.
pub fn fixed_batch(device: &Device) -> (Vec<Position>, shashki_net::TrainBatch) {
    let positions = random_positions(5, 32);
    let mut samples = SampleBatch::with_capacity(positions.len());
    for (i, position) in positions.iter().enumerate() {
        let moves = position.legal_moves();
        let mut probs = vec![0.0; moves.len()];
        if !probs.is_empty() {
            probs[i % moves.len()] = 1.0;
        }
        let wdl = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]][i % 3];
        samples.push(
            position,
            DrawState::default(),
            moves.as_slice(),
            &probs,
            wdl,
            40.0,
        );
    }
    (positions, samples.to_tensors(device))
}

/// What [`overfit_fixed_batch`] saw.
pub struct Overfit {
    /// The total loss of the first and of the last step.
    pub first: f32,
    pub last: f32,
    /// The weights before and after.
    pub before: Vec<NamedTensor>,
    pub after: Vec<NamedTensor>,
}

/// Trains a net of `config` (seed 5) for `steps` Adam steps (lr 3e-3) on
/// [`fixed_batch`], and checks that the trained net still saves and
/// evaluates on a plain device.
pub fn overfit_fixed_batch(config: &NetConfig, steps: usize) -> Overfit {
    let device = Device::flex().autodiff();
    let (positions, batch) = fixed_batch(&device);
    let mut net = Net::init(config, 5, &device).unwrap();
    let before = net.to_tensors().unwrap();
    let mut optimizer = shashki_net::adam();
    let weights = shashki_net::LossWeights::default();
    let mut losses = Vec::new();
    for _ in 0..steps {
        let (next, step) =
            shashki_net::train_step(net, &mut optimizer, &batch, 3e-3, &weights).unwrap();
        net = next;
        losses.push(step.total);
    }
    let checkpoint = shashki_net::Checkpoint::from_net(&net, steps as u64, None).unwrap();
    let evaluator = NetEvaluator::new(checkpoint.inference_net(&Device::flex()).unwrap(), 8);
    let evals = evaluate_all(&evaluator, &positions[..4]);
    assert!(evals.iter().all(|e| e.wdl.win.is_finite()));
    Overfit {
        first: losses[0],
        last: losses[steps - 1],
        before,
        after: net.to_tensors().unwrap(),
    }
}

/// The largest difference between `lines` (JSON of `shashki eval --json`,
/// from a reference or another runtime) and `ours`.
pub fn largest_difference(
    lines: &[serde_json::Value],
    ours: &[shashki_search::Evaluation],
    positions: &[Position],
) -> f64 {
    let mut worst = 0.0f64;
    for ((theirs, eval), position) in lines.iter().zip(ours).zip(positions) {
        let fen = position.to_fen();
        let wdl: Vec<f64> = theirs["wdl"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let our_wdl = [eval.wdl.win, eval.wdl.draw, eval.wdl.loss];
        for (a, b) in wdl.iter().zip(our_wdl) {
            worst = worst.max((a - f64::from(b)).abs());
        }
        let their_policy: BTreeMap<String, f64> = theirs["policy"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_f64().unwrap()))
            .collect();
        let moves = position.legal_moves();
        let our_policy: BTreeMap<String, f64> = moves
            .iter()
            .zip(&eval.priors)
            .map(|(m, &p)| (m.to_string(), f64::from(p)))
            .collect();
        assert_eq!(
            their_policy.keys().collect::<Vec<_>>(),
            our_policy.keys().collect::<Vec<_>>(),
            "legal moves differ in {fen}"
        );
        for (mv, p) in &our_policy {
            worst = worst.max((p - their_policy[mv]).abs());
        }
    }
    worst
}
