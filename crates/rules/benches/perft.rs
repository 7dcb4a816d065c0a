//! Speed of the rules core: perft from the start position (leaf nodes per
//! second) and move generation on midgame and king positions (moves per
//! second). Run with `cargo bench -p shashki-rules`; results are recorded in
//! docs/BENCHMARKS.md.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shashki_rules::perft::{perft, perft_make_all};
use shashki_rules::{MoveList, PathMode, Position};
use std::hint::black_box;
use std::time::Duration;

/// Perft with bulk counting at depth 9 and with every leaf made at depth 8.
fn perft_benches(c: &mut Criterion) {
    let start = Position::startpos();
    let mut group = c.benchmark_group("perft");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, depth, mode, leaves) in [
        ("bulk_depth_9", 9, PathMode::Distinct, 4_570_586),
        ("paths_depth_8", 8, PathMode::AllPaths, 929_905),
    ] {
        group.throughput(Throughput::Elements(leaves));
        group.bench_function(name, |b| {
            b.iter(|| {
                let nodes = perft(black_box(&start), depth, mode);
                assert_eq!(nodes, leaves);
                nodes
            })
        });
    }
    group.throughput(Throughput::Elements(929_899));
    group.bench_function("make_all_depth_8", |b| {
        b.iter(|| {
            let nodes = perft_make_all(black_box(&start), 8);
            assert_eq!(nodes, 929_899);
            nodes
        })
    });
    group.finish();
}

/// Positions with something for each part of the generator.
const POSITIONS: [(&str, &str); 5] = [
    // Seeded random playout, ply 24: men only, quiet.
    ("men_quiet", "W:Wa1,c1,g1,b2,h2,c3:Bh4,a7,e7,g7,b8,d8,h8"),
    // Kings and men, quiet: long king slides.
    ("kings_quiet", "W:WKa1,Kc1,Ke3,g3,b2:BKh8,Kf8,Kb8,a7,c7"),
    (
        "kings_and_men",
        "B:WKc3,Kf4,a3,e3,g3,b2:BKd8,Kh6,b6,d6,f8,a7",
    ),
    // RULES.md worked example: twelve king multi-captures.
    ("king_captures", "W:Wc1,Ke1:Bb6,e5,e7,g7,Kd2"),
    // Textbook diagram 99: a five-piece king capture crossing b4 twice.
    ("king_long_capture", "W:WKa3:Bb6,c3,c5,d8,e5,f2"),
];

/// Generating the move list, and counting moves without a list.
fn movegen_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("movegen");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1));
    for (name, fen) in POSITIONS {
        let pos = Position::from_fen(fen).expect("bench FEN is valid");
        let moves = pos.legal_moves().len() as u64;
        group.throughput(Throughput::Elements(moves));
        group.bench_function(format!("generate/{name}"), |b| {
            let mut list = MoveList::new();
            b.iter(|| {
                black_box(&pos).generate(&mut list, PathMode::Distinct);
                list.len()
            })
        });
        group.bench_function(format!("count/{name}"), |b| {
            b.iter(|| black_box(&pos).count_moves())
        });
    }
    group.finish();
}

criterion_group!(benches, perft_benches, movegen_benches);
criterion_main!(benches);
