//! Speed of the game record: `Game::play` (move, draw counters, repetition
//! scan, outcome) against bare `Position::make_move`, `undo`, and `clone`.
//! Run with `cargo bench -p shashki-rules --bench game`; results are recorded
//! in docs/BENCHMARKS.md.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::{Game, Move, Position};
use std::hint::black_box;
use std::time::Duration;

/// Moves of seeded random games: half from the start, half king endings
/// (long reversible stretches, so the repetition scan has work to do).
fn sample_games() -> Vec<(Position, Vec<Move>)> {
    let starts = [
        Position::startpos(),
        Position::from_fen("W:WKc1,Ke3,a3,h2:BKf8,Kd6,a7,h6").unwrap(),
    ];
    (0..64u64)
        .map(|seed| {
            let start = starts[seed as usize % 2];
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut game = Game::new(start);
            while game.outcome().is_none() {
                let moves = game.legal_moves();
                game.play(&moves[rng.random_range(0..moves.len())]);
            }
            (start, game.moves().to_vec())
        })
        .collect()
}

fn game_benches(c: &mut Criterion) {
    let games = sample_games();
    let plies: u64 = games.iter().map(|(_, m)| m.len() as u64).sum();
    let mut group = c.benchmark_group("game");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(plies));
    group.bench_function("make_move_only", |b| {
        b.iter(|| {
            let mut hash = 0;
            for (start, moves) in &games {
                let mut pos = *start;
                for mv in moves {
                    pos = pos.make_move(mv);
                }
                hash ^= pos.hash();
            }
            hash
        })
    });
    group.bench_function("play_and_outcome", |b| {
        b.iter(|| {
            let mut ended = 0;
            for (start, moves) in &games {
                let mut game = Game::new(*start);
                for mv in moves {
                    game.play(mv);
                    ended += usize::from(black_box(game.outcome()).is_some());
                }
            }
            ended
        })
    });
    group.bench_function("play_then_undo", |b| {
        b.iter(|| {
            for (start, moves) in &games {
                let mut game = Game::new(*start);
                for mv in moves {
                    game.play(mv);
                }
                while game.undo().is_some() {}
                black_box(&game);
            }
        })
    });
    group.finish();

    // Cloning a game of typical length (per clone).
    let (start, moves) = &games[0];
    let mut game = Game::new(*start);
    for mv in moves {
        game.play(mv);
    }
    c.bench_function(&format!("game/clone_{}_plies", game.ply()), |b| {
        b.iter(|| black_box(game.clone()))
    });
}

criterion_group!(benches, game_benches);
criterion_main!(benches);
