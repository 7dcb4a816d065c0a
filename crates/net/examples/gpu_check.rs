//! GPU check: the same network (same seed, same weights) on the CPU (`flex`)
//! and on a GPU (`wgpu`): a batch of evaluations and one Adam training step
//! must agree within 1e-3. Prints the largest differences and PASS or FAIL
//! (exit code 0 or 1).
//!
//! `cargo run --release -p shashki-net --features wgpu --example gpu_check [-- DEVICE [KIND]]`
//! with DEVICE `wgpu` (default, first discrete GPU) or `wgpu:N`, and KIND the
//! network kind, `resnet8x8` (default) or `diag32` (6x64 either way).
//! Never run it on a machine without a GPU: wgpu may fall back to a
//! software adapter and hang. `scripts/gpu_check.sh` builds and runs it.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_net::random_positions;
use shashki_net::{
    Device, LossWeights, NamedTensor, Net, NetConfig, NetEvaluator, SampleBatch, adam,
    device_from_name, train_step,
};
use shashki_rules::{DrawState, Position};
use shashki_search::EvalRequest;
use std::process::ExitCode;
use std::time::Instant;

const TOLERANCE: f32 = 1e-3;
const SEED: u64 = 2024;
const BATCH: usize = 256;

fn max_abs(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn max_tensor_diff(a: &[NamedTensor], b: &[NamedTensor]) -> (f32, String) {
    let mut worst = (0.0f32, String::new());
    for (x, y) in a.iter().zip(b) {
        let d = max_abs(&x.data, &y.data);
        if d > worst.0 {
            worst = (d, x.name.clone());
        }
    }
    worst
}

fn run(gpu_name: &str, kind: &str) -> Result<bool, Box<dyn std::error::Error>> {
    let cpu = Device::flex();
    let gpu = device_from_name(gpu_name)?;
    let config = NetConfig {
        kind: serde_json::from_value(serde_json::Value::String(kind.into()))?,
        ..NetConfig::default()
    };
    println!("net: {}", config.to_json());
    let positions = random_positions(SEED, BATCH);
    let moves: Vec<_> = positions.iter().map(Position::legal_moves).collect();
    let requests: Vec<EvalRequest<'_>> = positions
        .iter()
        .zip(&moves)
        .map(|(position, moves)| EvalRequest {
            position,
            draw_state: DrawState::default(),
            moves: moves.as_slice(),
        })
        .collect();
    let mut ok = true;

    // 1. A batch of evaluations, raw outputs and decoded priors.
    let net = Net::init(&config, SEED, &cpu)?;
    let on_cpu = NetEvaluator::from_net(&net, &cpu, BATCH)?;
    let on_gpu = NetEvaluator::from_net(&net, &gpu, BATCH)?;
    let inputs = NetEvaluator::encode_batch(&requests);
    let raw_cpu = on_cpu.net().forward_host(inputs.clone(), BATCH)?;
    let raw_gpu = on_gpu.net().forward_host(inputs.clone(), BATCH)?;
    let mut out_cpu = vec![Default::default(); BATCH];
    let mut out_gpu = vec![Default::default(); BATCH];
    on_cpu.try_evaluate(&requests, &mut out_cpu)?;
    on_gpu.try_evaluate(&requests, &mut out_gpu)?;
    let priors_diff = out_cpu
        .iter()
        .zip(&out_gpu)
        .map(
            |(a, b): (&shashki_search::Evaluation, &shashki_search::Evaluation)| {
                max_abs(&a.priors, &b.priors)
            },
        )
        .fold(0.0, f32::max);
    let checks = [
        (
            "eval policy logits",
            max_abs(&raw_cpu.policy, &raw_gpu.policy),
        ),
        ("eval wdl logits", max_abs(&raw_cpu.wdl, &raw_gpu.wdl)),
        (
            "eval plies left",
            max_abs(
                raw_cpu.plies_left.as_deref().unwrap_or(&[]),
                raw_gpu.plies_left.as_deref().unwrap_or(&[]),
            ),
        ),
        ("eval priors", priors_diff),
    ];
    for (what, diff) in checks {
        println!("{what:<28} max abs diff {diff:.3e}");
        ok &= diff < TOLERANCE;
    }

    // 2. One Adam step from the same weights and batch.
    let mut samples = SampleBatch::with_capacity(BATCH);
    for (i, (p, m)) in positions.iter().zip(&moves).enumerate() {
        let mut probs = vec![0.0; m.len()];
        if !probs.is_empty() {
            probs[i % m.len()] = 1.0;
        }
        samples.push(
            p,
            DrawState::default(),
            m.as_slice(),
            &probs,
            [0.3, 0.4, 0.3],
            40.0,
        );
    }
    let weights = LossWeights::default();
    let mut results = Vec::new();
    for device in [cpu.clone().autodiff(), gpu.clone().autodiff()] {
        let net = Net::init(&config, SEED, &device)?;
        let batch = samples.to_tensors(&device);
        let start = Instant::now();
        let (net, losses) = train_step(net, &mut adam(), &batch, 1e-3, &weights)?;
        let tensors = net.to_tensors()?;
        println!(
            "train step on {device:?}: {:.3} s, loss {:.5}",
            start.elapsed().as_secs_f64(),
            losses.total
        );
        results.push((losses, tensors));
    }
    let loss_diff = (results[0].0.total - results[1].0.total).abs();
    println!("{:<28} max abs diff {loss_diff:.3e}", "train loss");
    ok &= loss_diff < TOLERANCE;
    let (weight_diff, name) = max_tensor_diff(&results[0].1, &results[1].1);
    println!(
        "{:<28} max abs diff {weight_diff:.3e} ({name})",
        "weights after the step"
    );
    ok &= weight_diff < TOLERANCE;

    // 3. Throughput on the GPU, for the record.
    for n in [64, 256] {
        let start = Instant::now();
        let reps = 10;
        for _ in 0..reps {
            on_gpu.try_evaluate(&requests[..n], &mut out_gpu[..n])?;
        }
        let rate = (reps * n) as f64 / start.elapsed().as_secs_f64();
        println!("gpu evaluator batch {n}: {rate:.0} positions/s");
    }
    Ok(ok)
}

fn main() -> ExitCode {
    let gpu_name = std::env::args().nth(1).unwrap_or_else(|| "wgpu".into());
    let kind = std::env::args()
        .nth(2)
        .unwrap_or_else(|| "resnet8x8".into());
    match run(&gpu_name, &kind) {
        Ok(true) => {
            println!("PASS (tolerance {TOLERANCE:e})");
            ExitCode::SUCCESS
        }
        Ok(false) => {
            println!("FAIL (tolerance {TOLERANCE:e})");
            ExitCode::FAILURE
        }
        Err(err) => {
            println!("FAIL: {err}");
            ExitCode::FAILURE
        }
    }
}
