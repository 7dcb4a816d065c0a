//! The batching service: many threads, each running its own searches, share
//! one evaluator; their requests merge into batches, and every search gets
//! exactly what it would get alone.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shashki_rules::{Game, Position};
use shashki_search::batching::BatchingEvaluator;
use shashki_search::cache::CachedEvaluator;
use shashki_search::mcts::{Algorithm, Search, SearchConfig, SearchResult};
use shashki_search::stand_ins::RolloutEvaluator;
use shashki_search::{EvalRequest, Evaluation, Evaluator};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;

/// Counts calls and positions, then defers to rollouts.
struct Counting {
    inner: RolloutEvaluator,
    calls: AtomicU64,
    positions: AtomicU64,
}

impl Counting {
    fn new() -> Counting {
        Counting {
            inner: RolloutEvaluator::new(1, 17),
            calls: AtomicU64::new(0),
            positions: AtomicU64::new(0),
        }
    }
}

impl Evaluator for Counting {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.positions
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        self.inner.evaluate(batch, out);
    }
}

/// The positions after each of White's seven first moves.
fn openings() -> Vec<Game> {
    let start = Game::new(Position::startpos());
    start
        .legal_moves()
        .iter()
        .map(|mv| {
            let mut game = start.clone();
            game.play(mv);
            game
        })
        .collect()
}

fn config(algorithm: Algorithm, leaves: u32) -> SearchConfig {
    SearchConfig {
        leaves_per_batch: leaves,
        ..SearchConfig::with_algorithm(algorithm).with_simulations(64)
    }
}

/// Thread `t` searches games `t, t + threads, ...`, then a few more moves
/// with tree reuse, so the threads finish at different times.
fn worker(
    games: &[Game],
    t: usize,
    threads: usize,
    config: &SearchConfig,
    evaluator: &dyn Evaluator,
) -> Vec<SearchResult> {
    let mut results = Vec::new();
    for (i, game) in games.iter().enumerate().skip(t).step_by(threads) {
        let mut rng = ChaCha8Rng::seed_from_u64(i as u64);
        let mut search = Search::new(game.clone(), config.clone()).unwrap();
        for _ in 0..2 {
            let result = search.run(evaluator, &mut rng).unwrap();
            search.advance(&result.best_move).unwrap();
            results.push(result);
        }
    }
    results
}

#[test]
fn threads_sharing_a_batching_evaluator_get_the_unbatched_results() {
    let games = openings();
    for (algorithm, leaves) in [
        (Algorithm::Puct, 1),
        (Algorithm::Gumbel, 1),
        (Algorithm::Puct, 4),
    ] {
        let config = config(algorithm, leaves);
        let threads = 4;

        let alone = Counting::new();
        let expected: Vec<Vec<SearchResult>> = (0..threads)
            .map(|t| worker(&games, t, threads, &config, &alone))
            .collect();

        let service = BatchingEvaluator::new(Counting::new(), Some(64));
        // Register every worker before any starts, so batches wait for all.
        let clients: Vec<_> = (0..threads).map(|_| service.client()).collect();
        let got: Vec<Vec<SearchResult>> = thread::scope(|scope| {
            let handles: Vec<_> = clients
                .into_iter()
                .enumerate()
                .map(|(t, client)| {
                    let (games, config) = (&games, &config);
                    scope.spawn(move || worker(games, t, threads, config, &client))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(got, expected, "{algorithm:?} x{leaves}");

        let stats = service.stats();
        let inner = service.inner();
        assert_eq!(stats.positions, inner.positions.load(Ordering::Relaxed));
        assert_eq!(stats.batches, inner.calls.load(Ordering::Relaxed));
        assert_eq!(
            stats.positions,
            alone.positions.load(Ordering::Relaxed),
            "the same evaluations"
        );
        assert!(
            stats.mean_batch_size() > 1.5 * leaves as f64,
            "{algorithm:?} x{leaves}: mean batch {:.2}",
            stats.mean_batch_size()
        );
        assert!(stats.mean_fill() > 0.0 && stats.mean_fill() <= 1.0);
    }
}

#[test]
fn a_cache_in_front_of_the_service_saves_evaluations() {
    let games = openings();
    let config = config(Algorithm::Puct, 1);
    let service = BatchingEvaluator::new(Counting::new(), Some(8));
    let cached = CachedEvaluator::new(service.client(), 1 << 14);
    let first = worker(&games, 0, 1, &config, &cached);
    let evaluated = service.inner().positions.load(Ordering::Relaxed);
    let second = worker(&games, 0, 1, &config, &cached);
    assert_eq!(first, second, "cached answers are the same answers");
    assert_eq!(
        service.inner().positions.load(Ordering::Relaxed),
        evaluated,
        "the rerun was served from the cache"
    );
    assert!(cached.cache().stats().hits >= evaluated);
}
