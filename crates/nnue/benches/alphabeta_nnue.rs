//! The alpha-beta engine with the network against the hand evaluation
//! (nodes per second at a fixed depth), and the Lazy SMP time to depth on
//! 1 and 2 threads.
//!
//! `cargo bench -p shashki-nnue --bench alphabeta_nnue`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shashki_nnue::{Architecture, FloatNet, NnueEval, QuantNet};
use shashki_rules::{Game, Position};
use shashki_search::alphabeta::StaticEval;
use shashki_search::{AbConfig, AlphaBeta, SearchLimits};
use std::hint::black_box;
use std::sync::Arc;

fn nnue_eval() -> Box<dyn StaticEval> {
    let net = QuantNet::quantize(&FloatNet::random(&Architecture::default(), 1).unwrap());
    Box::new(NnueEval::new(Arc::new(net), "random"))
}

fn positions() -> Vec<(&'static str, Position)> {
    vec![
        ("start", Position::startpos()),
        (
            "middlegame",
            Position::from_fen(
                "W:Wa1,c1,e1,b2,d2,h2,c3,e3,g3,d4,f4:Ba7,c7,e7,g7,b6,d6,f6,h6,a5,c5,g5",
            )
            .expect("valid FEN"),
        ),
    ]
}

fn bench_eval_kinds(c: &mut Criterion) {
    let mut group = c.benchmark_group("alphabeta_eval");
    group.sample_size(10);
    for (name, position) in positions() {
        let game = Game::new(position);
        let limits = SearchLimits::depth(8);
        for (kind, eval) in [("hand", None), ("nnue", Some(nnue_eval()))] {
            let mut engine = match eval {
                None => AlphaBeta::new(AbConfig::default()),
                Some(eval) => AlphaBeta::with_eval(AbConfig::default(), eval),
            };
            let nodes = engine.search(&game, &limits).nodes;
            group.throughput(Throughput::Elements(nodes));
            group.bench_function(format!("{name}_d8_{kind}"), |b| {
                b.iter(|| black_box(engine.search(black_box(&game), &limits).best_move))
            });
        }
    }
    group.finish();
}

fn bench_threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("alphabeta_lazy_smp");
    group.sample_size(10);
    let game = Game::new(positions()[1].1);
    let limits = SearchLimits::depth(10);
    for threads in [1, 2] {
        let config = AbConfig {
            threads,
            ..AbConfig::default()
        };
        let mut engine = AlphaBeta::with_eval(config, nnue_eval());
        group.bench_function(format!("middlegame_d10_nnue_threads{threads}"), |b| {
            b.iter(|| black_box(engine.search(black_box(&game), &limits).best_move))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_eval_kinds, bench_threads);
criterion_main!(benches);
