//! Network speed on the CPU (`flex`): evaluator vs raw forward at several
//! batch sizes, encode/decode cost, folded vs unfolded batch norm, one
//! Adam step, and the shipped diagonal net on each choice of kernels (burn,
//! hand-written f32, int8) at the batch sizes the search uses. Short runs
//! (10 samples); results go to docs/BENCHMARKS.md.
//!
//! `cargo bench --workspace --bench evaluator` (filter with a name, e.g.
//! `-- evaluator/default` or `-- kernels/`).

use burn::module::Module;
use burn::tensor::{Tensor, TensorData};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use shashki_net::random_positions;
use shashki_net::{
    Device, INPUT_LEN, InferenceKernels, InferenceNet, LossWeights, Net, NetConfig, NetEvaluator,
    SampleBatch, adam, import_model, train_step,
};
use shashki_rules::{DrawState, MoveList, Position};
use shashki_search::{EvalRequest, Evaluation};
use std::hint::black_box;
use std::time::Duration;

fn configs() -> Vec<(&'static str, NetConfig)> {
    vec![
        (
            "small-4x32",
            NetConfig {
                blocks: 4,
                channels: 32,
                ..NetConfig::default()
            },
        ),
        ("default-6x64", NetConfig::default()),
        (
            "big-10x128",
            NetConfig {
                blocks: 10,
                channels: 128,
                ..NetConfig::default()
            },
        ),
    ]
}

const BATCHES: [usize; 4] = [1, 16, 64, 256];

fn requests<'a>(positions: &'a [Position], moves: &'a [MoveList]) -> Vec<EvalRequest<'a>> {
    positions
        .iter()
        .zip(moves)
        .map(|(position, moves)| EvalRequest {
            position,
            draw_state: DrawState::default(),
            moves: moves.as_slice(),
        })
        .collect()
}

fn evaluator_vs_raw(c: &mut Criterion) {
    let device = Device::flex();
    let positions = random_positions(1, 256);
    let moves: Vec<MoveList> = positions.iter().map(Position::legal_moves).collect();
    for (name, config) in configs() {
        let net = Net::init(&config, 1, &device).unwrap();
        let evaluator = NetEvaluator::from_net(&net, &device, 64).unwrap();
        let batches: &[usize] = if name.starts_with("small") {
            &[64, 256]
        } else {
            &BATCHES
        };
        for &n in batches {
            let reqs = requests(&positions[..n], &moves[..n]);
            let mut out = vec![Evaluation::default(); n];
            let mut group = c.benchmark_group(format!("evaluator/{name}"));
            group.throughput(Throughput::Elements(n as u64));
            group.bench_function(BenchmarkId::from_parameter(n), |b| {
                b.iter(|| evaluator.try_evaluate(black_box(&reqs), &mut out).unwrap())
            });
            group.finish();
            let inputs = NetEvaluator::encode_batch(&reqs);
            let mut group = c.benchmark_group(format!("raw_forward/{name}"));
            group.throughput(Throughput::Elements(n as u64));
            group.bench_function(BenchmarkId::from_parameter(n), |b| {
                b.iter(|| {
                    evaluator
                        .net()
                        .forward_host(black_box(inputs.clone()), n)
                        .unwrap()
                })
            });
            group.finish();
        }
    }
}

/// `models/diag-2h` on burn, the hand-written f32 and the int8 kernels, in
/// the same run: batches of 1 (a single leaf), 16 (one MCTS thread's
/// leaves at play, `--batch` default) and 64 (the batching service).
fn kernels(c: &mut Criterion) {
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/diag-2h");
    let checkpoint = import_model(&model).unwrap();
    let positions = random_positions(5, 64);
    let moves: Vec<MoveList> = positions.iter().map(Position::legal_moves).collect();
    for n in [1, 16, 64] {
        let reqs = requests(&positions[..n], &moves[..n]);
        let mut out = vec![Evaluation::default(); n];
        let mut group = c.benchmark_group(format!("kernels/diag-2h/{n}"));
        group.throughput(Throughput::Elements(n as u64));
        for kernels in InferenceKernels::ALL {
            let net = checkpoint
                .inference_net_with(&Device::flex(), kernels)
                .unwrap();
            let evaluator = NetEvaluator::new(net, 64);
            group.bench_function(kernels.name(), |b| {
                b.iter(|| evaluator.try_evaluate(black_box(&reqs), &mut out).unwrap())
            });
        }
        group.finish();
    }
}

fn encode_decode(c: &mut Criterion) {
    let device = Device::flex();
    let positions = random_positions(2, 256);
    let moves: Vec<MoveList> = positions.iter().map(Position::legal_moves).collect();
    let reqs = requests(&positions, &moves);
    let net = Net::init(&NetConfig::tiny(), 2, &device).unwrap();
    let evaluator = NetEvaluator::from_net(&net, &device, 256).unwrap();
    let raw = evaluator
        .net()
        .forward_host(NetEvaluator::encode_batch(&reqs), reqs.len())
        .unwrap();
    let mut out = vec![Evaluation::default(); reqs.len()];
    let mut group = c.benchmark_group("encode_decode");
    group.throughput(Throughput::Elements(reqs.len() as u64));
    group.bench_function("encode/256", |b| {
        b.iter(|| NetEvaluator::encode_batch(black_box(&reqs)))
    });
    group.bench_function("decode/256", |b| {
        b.iter(|| NetEvaluator::decode_batch(black_box(&reqs), &raw, &mut out))
    });
    group.finish();
}

fn folded_vs_valid(c: &mut Criterion) {
    let device = Device::flex();
    let positions = random_positions(3, 64);
    let mut buf = vec![0.0f32; positions.len() * INPUT_LEN];
    for (p, slot) in positions.iter().zip(buf.chunks_exact_mut(INPUT_LEN)) {
        shashki_net::encode_input(p, DrawState::default(), slot);
    }
    let net = Net::init(&NetConfig::default(), 3, &device).unwrap();
    let valid = net.valid();
    let folded = InferenceNet::from_net(&net, &device).unwrap();
    let input = || Tensor::<4>::from_data(TensorData::new(buf.clone(), [64, 7, 8, 8]), &device);
    let mut group = c.benchmark_group("batch_norm/default-6x64/64");
    group.throughput(Throughput::Elements(64));
    group.bench_function("valid", |b| {
        b.iter(|| valid.forward(input()).wdl.into_data())
    });
    group.bench_function("folded", |b| {
        b.iter(|| folded.forward(input()).wdl.into_data())
    });
    group.finish();
}

fn adam_step(c: &mut Criterion) {
    let device = Device::flex().autodiff();
    let positions = random_positions(4, 256);
    let mut samples = SampleBatch::with_capacity(256);
    for p in &positions {
        let moves = p.legal_moves();
        let probs = vec![1.0 / moves.len().max(1) as f32; moves.len()];
        samples.push(
            p,
            DrawState::default(),
            moves.as_slice(),
            &probs,
            [0.3, 0.4, 0.3],
            50.0,
        );
    }
    let batch = samples.to_tensors(&device);
    let mut group = c.benchmark_group("train_step");
    group.throughput(Throughput::Elements(256));
    for (name, config) in configs().into_iter().take(2) {
        let mut net = Some(Net::init(&config, 4, &device).unwrap());
        let mut optimizer = adam();
        let weights = LossWeights::default();
        group.bench_function(BenchmarkId::new(name, 256), |b| {
            b.iter(|| {
                let (next, losses) =
                    train_step(net.take().unwrap(), &mut optimizer, &batch, 1e-3, &weights)
                        .unwrap();
                net = Some(next);
                losses
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = kernels, encode_decode, folded_vs_valid, evaluator_vs_raw, adam_step
}
criterion_main!(benches);
