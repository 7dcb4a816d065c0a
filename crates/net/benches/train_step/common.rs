//! One learning step of the run's net (`diag32` 4x32, batch 256, the SGD
//! of configs/cpu.toml) as the learner takes it, each change beside
//! today's step in the same run:
//! - `burn-bn`: burn's own `batch_norm_train` (today's step: transposing
//!   copies of every `[n * 32, c]` activation);
//! - `rows-bn`: batch norm statistics over the rows (`shashki_net::rows_norm`);
//! - `rows-bn/threads-N`: the same on a rayon pool of N threads (the
//!   concurrent learner's own pool; burn's matrix products run on the pool
//!   they are called from).
//!
//! Shared by the `train_step` bench (the system allocator) and
//! `train_step_mimalloc` (mimalloc as the global allocator, as the
//! `shashki` binary has it): compare the same ids across the two.

use burn::optim::decay::WeightDecayConfig;
use burn::optim::grad_clipping::GradientClippingConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{ModuleOptimizer, SgdConfig};
use criterion::{Criterion, Throughput};
use shashki_net::{
    Device, LossWeights, Net, NetConfig, NetKind, SampleBatch, TrainBatch, random_positions,
    set_reference_batch_norm, train_step,
};
use shashki_rules::DrawState;
use std::time::Duration;

const BATCH: usize = 256;

/// The optimiser of configs/cpu.toml.
fn sgd() -> ModuleOptimizer {
    SgdConfig::new()
        .with_weight_decay(Some(WeightDecayConfig::new(1e-4)))
        .with_momentum(Some(
            MomentumConfig::new().with_momentum(0.9).with_dampening(0.0),
        ))
        .with_gradient_clipping(Some(GradientClippingConfig::Norm(10.0)))
        .init()
}

fn batch(device: &Device) -> TrainBatch {
    let mut samples = SampleBatch::with_capacity(BATCH);
    for p in &random_positions(4, BATCH) {
        let moves = p.legal_moves();
        let probs = vec![1.0 / moves.len().max(1) as f32; moves.len()];
        let wdl = [0.3, 0.4, 0.3];
        samples.push(p, DrawState::default(), moves.as_slice(), &probs, wdl, 50.0);
    }
    samples.to_tensors(device)
}

/// Benchmarks the step, its ids prefixed by `allocator`.
pub fn bench_train_step(c: &mut Criterion, allocator: &str) {
    let device = Device::flex().autodiff();
    let config = NetConfig {
        kind: NetKind::Diag32,
        blocks: 4,
        channels: 32,
        ..NetConfig::default()
    };
    let batch = batch(&device);
    let weights = LossWeights::default();
    let mut group = c.benchmark_group(format!("train_step/{allocator}"));
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(BATCH as u64));
    let mut cases: Vec<(String, bool, Option<rayon::ThreadPool>)> = vec![
        ("burn-bn".into(), true, None),
        ("rows-bn".into(), false, None),
    ];
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for threads in [1, (cores / 2).max(1)] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        cases.push((format!("rows-bn/threads-{threads}"), false, Some(pool)));
    }
    cases.dedup_by(|a, b| a.0 == b.0);
    for (name, reference, pool) in &cases {
        set_reference_batch_norm(*reference);
        let mut net = Some(Net::init(&config, 1, &device).expect("a net"));
        let mut optimizer = sgd();
        let mut step = || {
            let (next, _) = train_step(net.take().unwrap(), &mut optimizer, &batch, 0.05, &weights)
                .expect("a step");
            net = Some(next);
        };
        group.bench_function(name.as_str(), |b| match pool {
            Some(pool) => b.iter(|| pool.install(&mut step)),
            None => b.iter(&mut step),
        });
    }
    set_reference_batch_norm(false);
    group.finish();
}
