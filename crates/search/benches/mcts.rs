//! MCTS tree overhead: simulations per second with the uniform evaluator
//! (pseudo-random values), one search from the start position per
//! iteration (fresh tree, allocation included), one thread.
//!
//! `cargo bench -p shashki-search --bench mcts`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shashki_rules::{Game, Position};
use shashki_search::mcts::{Algorithm, Search, SearchConfig};
use shashki_search::stand_ins::UniformEvaluator;
use std::hint::black_box;

fn bench_search(
    c: &mut Criterion,
    name: &str,
    algorithm: Algorithm,
    simulations: u32,
    leaves: u32,
) {
    let evaluator = UniformEvaluator::random(1);
    let config = SearchConfig {
        leaves_per_batch: leaves,
        ..SearchConfig::with_algorithm(algorithm).with_simulations(simulations)
    };
    let mut group = c.benchmark_group("mcts");
    group.throughput(Throughput::Elements(u64::from(simulations)));
    group.sample_size(20);
    group.bench_function(name, |b| {
        b.iter(|| {
            let game = Game::new(Position::startpos());
            let mut search = Search::new(game, config.clone()).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            black_box(search.run(&evaluator, &mut rng).unwrap())
        })
    });
    group.finish();
}

fn mcts(c: &mut Criterion) {
    bench_search(c, "puct_800", Algorithm::Puct, 800, 1);
    bench_search(c, "puct_800_batch16", Algorithm::Puct, 800, 16);
    bench_search(c, "puct_20000", Algorithm::Puct, 20_000, 1);
    bench_search(c, "gumbel_16", Algorithm::Gumbel, 16, 1);
    bench_search(c, "gumbel_800", Algorithm::Gumbel, 800, 1);
}

criterion_group!(benches, mcts);
criterion_main!(benches);
