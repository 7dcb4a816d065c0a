//! Alpha-beta speed: nodes per second at a fixed depth (criterion reports the
//! throughput in nodes, counted by a first search since the count is
//! deterministic for a fixed depth).
//!
//! Run: `cargo bench -p shashki-search --bench alphabeta`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shashki_rules::{Game, Position};
use shashki_search::{AbConfig, AlphaBeta, SearchLimits};
use std::hint::black_box;

fn bench_alphabeta(c: &mut Criterion) {
    let positions = [
        ("start_d8", Position::startpos(), 8),
        (
            "middlegame_d8",
            Position::from_fen(
                "W:Wa1,c1,e1,b2,d2,h2,c3,e3,g3,d4,f4:Ba7,c7,e7,g7,b6,d6,f6,h6,a5,c5,g5",
            )
            .expect("valid FEN"),
            8,
        ),
        (
            "kings_endgame_d8",
            Position::from_fen("W:WKa1,Kc3,e3:BKh8,f6,d8").expect("valid FEN"),
            8,
        ),
    ];
    let mut group = c.benchmark_group("alphabeta");
    group.sample_size(10);
    for (name, position, depth) in positions {
        let game = Game::new(position);
        let limits = SearchLimits::depth(depth);
        let mut engine = AlphaBeta::new(AbConfig::default());
        let nodes = engine.search(&game, &limits).nodes;
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| {
            b.iter(|| black_box(engine.search(black_box(&game), &limits).best_move))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_alphabeta);
criterion_main!(benches);
