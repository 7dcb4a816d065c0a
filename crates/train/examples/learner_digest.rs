//! Prints a digest of a fresh learner's weights and optimiser state after
//! a fixed number of steps on fixed samples, for either family (the
//! config's `[run] engine`), so two machines, two thread counts or two CPU
//! descriptions on one machine can be compared bit for bit. The evidence
//! behind docs/TRAINING.md, "What is reproducible".
//!
//! `cargo run --release -p shashki-train --example learner_digest -- CONFIG [STEPS]`
//! (default 20 steps of `[train] batch_size`); `RAYON_NUM_THREADS=N` sets
//! the learner's threads.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::{Game, Position};
use shashki_selfplay::Sample;
use shashki_selfplay::sample::FLAG_FULL_SEARCH;
use shashki_train::checkpoints::CheckpointFile;
use shashki_train::config::EngineFamily;
use shashki_train::family::Trainee;
use shashki_train::nnue_family::NnueLearner;
use shashki_train::{Learner, RunConfig};
use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let config = args.next().expect("usage: learner_digest CONFIG [STEPS]");
    let steps: u64 = args
        .next()
        .map_or(20, |s| s.parse().expect("STEPS is a number"));
    let config = RunConfig::load(Path::new(&config)).expect("a readable config");
    let device = burn::tensor::Device::flex();
    let (loss, bytes, seconds) = match config.run.engine {
        EngineFamily::Mcts => run::<Learner>(&config, &device, steps),
        EngineFamily::Nnue => run::<NnueLearner>(&config, &device, steps),
    };
    println!(
        "threads {} | steps {steps} ({:.2} steps/s) | last loss {loss:.9} | checkpoint fnv {:016x}",
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "default".into()),
        steps as f64 / seconds,
        fnv(&bytes)
    );
}

/// Trains `steps` steps; returns the last loss, the checkpoint's bytes and
/// the seconds spent in the steps.
fn run<T: Trainee>(
    config: &RunConfig,
    device: &burn::tensor::Device,
    steps: u64,
) -> (f32, Vec<u8>, f64) {
    let mut learner = T::fresh(config, device).expect("a fresh learner");
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut loss = f32::NAN;
    let mut seconds = 0.0;
    for _ in 0..steps {
        let batch = samples(&mut rng, config.train.batch_size);
        let start = std::time::Instant::now();
        loss = learner.train_on(&batch).expect("a step").total;
        seconds += start.elapsed().as_secs_f64();
    }
    let path = std::env::temp_dir().join(format!("learner-digest-{}.ckpt", std::process::id()));
    learner
        .checkpoint()
        .expect("a checkpoint")
        .save(&path)
        .expect("saved");
    let bytes = std::fs::read(&path).expect("read back");
    match std::env::var_os("KEEP_CHECKPOINT") {
        Some(keep) => std::fs::rename(&path, keep).expect("kept"),
        None => std::fs::remove_file(&path).expect("removed"),
    }
    (loss, bytes, seconds)
}

/// Positions of random games, each with a uniform policy, a random result
/// and a random search score.
fn samples(rng: &mut ChaCha8Rng, n: usize) -> Vec<Sample> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut game = Game::new(Position::startpos());
        while !game.is_over() && out.len() < n && rng.random_bool(0.97) {
            let moves = game.legal_moves();
            let mut sample = Sample::new(*game.position(), game.draw_state());
            sample.set_policy(moves.as_slice(), &vec![1.0; moves.len()]);
            sample.flags = FLAG_FULL_SEARCH;
            sample.result = rng.random_range(-1..=1);
            let win: f32 = rng.random();
            sample.root_wdl = [win, 0.0, 1.0 - win];
            out.push(sample);
            game.play(&moves[rng.random_range(0..moves.len())]);
        }
    }
    out
}

/// FNV-1a.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}
