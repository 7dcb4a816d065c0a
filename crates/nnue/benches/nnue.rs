//! Evaluation cost: incremental (one move pushed, then evaluated) against a
//! full refresh, per kernel implementation.
//!
//! `cargo bench -p shashki-nnue --bench nnue`

use criterion::{Criterion, criterion_group, criterion_main};
use shashki_nnue::{Architecture, FloatNet, Kernels, NnueEval, QuantNet};
use shashki_rules::Position;
use shashki_search::alphabeta::StaticEval;
use std::hint::black_box;
use std::sync::Arc;

fn bench(c: &mut Criterion) {
    let net = Arc::new(QuantNet::quantize(
        &FloatNet::random(&Architecture::default(), 1).unwrap(),
    ));
    let pos =
        Position::from_fen("W:Wa1,c1,e1,b2,f2,c3,e3,g3,d4:Bb6,d6,f6,h6,a7,e7,g7,d8,h8").unwrap();
    let moves = pos.legal_moves();
    let mv = moves[0];
    let after = pos.make_move(&mv);
    for kernels in Kernels::available() {
        let mut eval = NnueEval::with_kernels(Arc::clone(&net), "bench", kernels);
        eval.reset(&pos);
        c.bench_function(
            &format!("nnue incremental push+eval+pop {kernels:?}"),
            |b| {
                b.iter(|| {
                    eval.push(&pos, &mv, &after);
                    let v = eval.evaluate(black_box(&after));
                    eval.pop();
                    v
                })
            },
        );
        c.bench_function(&format!("nnue full refresh+eval {kernels:?}"), |b| {
            b.iter(|| {
                eval.reset(black_box(&after));
                eval.evaluate(&after)
            })
        });
    }
    c.bench_function("nnue integer reference (plain loops)", |b| {
        b.iter(|| net.reference_output(black_box(&after)))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
