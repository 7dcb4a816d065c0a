//! The two network kinds against each other at equal blocks x channels:
//! evaluations per second (the whole [`NetEvaluator`] call: encode, forward,
//! decode) at batch 1, 16, 64, 256, and the time of one Adam step at batch
//! 256, on the CPU (`flex`).
//!
//! Not criterion: on a machine shared with other jobs, the kinds are
//! measured interleaved (round after round, each kind once per round), and
//! the median of the rounds is reported with its ratio to the 8x8 net of the
//! same round set, so a load change hits all kinds alike.
//!
//! `cargo bench -p shashki-net --bench kinds` (about a minute);
//! `-- --rounds 7 --sizes 4x32,6x64,10x128` to change the work.

use shashki_net::random_positions;
use shashki_net::{
    Device, LossWeights, Net, NetConfig, NetEvaluator, NetKind, SampleBatch, TrainBatch, adam,
    train_step,
};
use shashki_rules::{DrawState, MoveList, Position};
use shashki_search::{EvalRequest, Evaluation};
use std::time::{Duration, Instant};

const BATCHES: [usize; 4] = [1, 16, 64, 256];
const TRAIN_BATCH: usize = 256;
/// Each timed slice runs at least this long (and at least one call).
const SLICE: Duration = Duration::from_millis(250);

struct Options {
    rounds: usize,
    sizes: Vec<(usize, usize)>,
    train: bool,
}

fn options() -> Options {
    let mut options = Options {
        rounds: 5,
        sizes: vec![(4, 32), (6, 64)],
        train: true,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--rounds" => {
                options.rounds = args[i + 1].parse().expect("--rounds N");
                i += 1;
            }
            "--sizes" => {
                options.sizes = args[i + 1]
                    .split(',')
                    .map(|s| {
                        let (b, c) = s.split_once('x').expect("BLOCKSxCHANNELS");
                        (b.parse().unwrap(), c.parse().unwrap())
                    })
                    .collect();
                i += 1;
            }
            "--no-train" => options.train = false,
            _ => {} // cargo bench passes --bench
        }
        i += 1;
    }
    options
}

fn kinds(blocks: usize, channels: usize) -> Vec<(&'static str, NetConfig)> {
    let base = NetConfig {
        blocks,
        channels,
        ..NetConfig::default()
    };
    vec![
        ("resnet8x8", base.clone()),
        (
            "diag32",
            NetConfig {
                kind: NetKind::Diag32,
                ..base.clone()
            },
        ),
        (
            "diag32+jumps",
            NetConfig {
                kind: NetKind::Diag32,
                jump_taps: true,
                ..base
            },
        ),
    ]
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Evaluations per second of one slice.
fn eval_rate(evaluator: &NetEvaluator, requests: &[EvalRequest<'_>]) -> f64 {
    let mut out = vec![Evaluation::default(); requests.len()];
    let start = Instant::now();
    let mut calls = 0u64;
    while calls == 0 || start.elapsed() < SLICE {
        evaluator.try_evaluate(requests, &mut out).unwrap();
        calls += 1;
    }
    (calls * requests.len() as u64) as f64 / start.elapsed().as_secs_f64()
}

fn training_batch(device: &Device) -> TrainBatch {
    let positions = random_positions(4, TRAIN_BATCH);
    let mut samples = SampleBatch::with_capacity(TRAIN_BATCH);
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
    samples.to_tensors(device)
}

fn print_table(title: &str, unit: &str, names: &[&str], rows: &[(String, Vec<Vec<f64>>)]) {
    println!("\n{title}\n");
    let header: Vec<String> = names.iter().map(|n| format!("{n} {unit}")).collect();
    let ratios: Vec<String> = names[1..]
        .iter()
        .map(|n| format!("{n} / {}", names[0]))
        .collect();
    println!("| case | {} | {} |", header.join(" | "), ratios.join(" | "));
    println!("|---{}|", "|---".repeat(header.len() + ratios.len()));
    for (case, samples) in rows {
        let medians: Vec<f64> = samples.iter().map(|s| median(s.clone())).collect();
        let cells: Vec<String> = medians
            .iter()
            .map(|m| {
                if *m >= 100.0 {
                    format!("{m:.0}")
                } else {
                    format!("{m:.3}")
                }
            })
            .collect();
        let ratio: Vec<String> = medians[1..]
            .iter()
            .map(|m| format!("{:.2}", m / medians[0]))
            .collect();
        println!("| {case} | {} | {} |", cells.join(" | "), ratio.join(" | "));
    }
}

fn main() {
    let options = options();
    let device = Device::flex();
    let positions = random_positions(1, 256);
    let moves: Vec<MoveList> = positions.iter().map(Position::legal_moves).collect();
    let requests: Vec<EvalRequest<'_>> = positions
        .iter()
        .zip(&moves)
        .map(|(position, moves)| EvalRequest {
            position,
            draw_state: DrawState::default(),
            moves: moves.as_slice(),
        })
        .collect();
    let train_device = Device::flex().autodiff();
    let batch = training_batch(&train_device);
    println!(
        "kinds bench: {} rounds, slices of {} ms, medians",
        options.rounds,
        SLICE.as_millis()
    );
    for &(blocks, channels) in &options.sizes {
        let kinds = kinds(blocks, channels);
        let names: Vec<&str> = kinds.iter().map(|(n, _)| *n).collect();
        let evaluators: Vec<NetEvaluator> = kinds
            .iter()
            .map(|(_, c)| {
                let net = Net::init(c, 1, &device).unwrap();
                NetEvaluator::from_net(&net, &device, 64).unwrap()
            })
            .collect();
        let mut eval_rows: Vec<(String, Vec<Vec<f64>>)> = BATCHES
            .iter()
            .map(|n| (format!("{blocks}x{channels} batch {n}"), vec![vec![]; 3]))
            .collect();
        for _ in 0..options.rounds {
            for (row, &n) in eval_rows.iter_mut().zip(&BATCHES) {
                for (k, evaluator) in evaluators.iter().enumerate() {
                    row.1[k].push(eval_rate(evaluator, &requests[..n]));
                }
            }
        }
        print_table(
            &format!("evaluations/s, {blocks}x{channels}"),
            "eval/s",
            &names,
            &eval_rows,
        );
        if !options.train {
            continue;
        }
        let mut nets: Vec<Option<Net>> = kinds
            .iter()
            .map(|(_, c)| Some(Net::init(c, 4, &train_device).unwrap()))
            .collect();
        let mut optimizers: Vec<_> = kinds.iter().map(|_| adam()).collect();
        let weights = LossWeights::default();
        let mut step_times = vec![vec![]; 3];
        // One untimed warm-up step each, then one timed step per round.
        for round in 0..=options.rounds {
            for k in 0..kinds.len() {
                let start = Instant::now();
                let net = nets[k].take().unwrap();
                let (net, _) = train_step(net, &mut optimizers[k], &batch, 1e-3, &weights).unwrap();
                nets[k] = Some(net);
                if round > 0 {
                    step_times[k].push(start.elapsed().as_secs_f64());
                }
            }
        }
        print_table(
            &format!("Adam step at batch {TRAIN_BATCH}, {blocks}x{channels}"),
            "s",
            &names,
            &[(format!("{blocks}x{channels} train step"), step_times)],
        );
    }
}
