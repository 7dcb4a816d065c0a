//! Drives one MCTS to its end on one or more threads: each thread takes a
//! batch of leaves from the shared tree (virtual loss keeps the batches
//! apart), evaluates it outside the lock, and gives it back, so the
//! evaluator is called by several threads at once and the network stays
//! busy (Leela Chess Zero's multi-threaded batched search). The time
//! manager decides when to stop: on the stop flag or the hard limit at
//! once, at the planned time when the best move is settled, earlier when
//! the remaining time cannot change it.
//!
//! With one thread the search is the sequential batched algorithm and is
//! reproducible from its seed; with more, thread timing changes the tree.

use crate::evaluator::{EvalRequest, Evaluation, Evaluator};
use crate::limits::Deadlines;
use crate::mcts::tree::{NodeState, Tree};
use crate::mcts::{Algorithm, LeafBatch, Search, SearchError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How often the calling thread reports progress during a long search.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// How long a thread that found nothing to evaluate (the others hold every
/// open leaf) waits before it looks again.
const IDLE_WAIT: Duration = Duration::from_micros(200);

/// Runs `search` (already begun) until it is done or `deadlines` end it,
/// with `threads` threads of batches of up to `batch` leaves. `progress` is
/// called on the calling thread about once a second.
pub fn drive<E: Evaluator + ?Sized>(
    search: &mut Search,
    evaluator: &E,
    threads: usize,
    batch: usize,
    deadlines: &Deadlines,
    progress: &mut dyn FnMut(&Search),
) -> Result<(), SearchError> {
    let shared = Mutex::new(search);
    let failed = AtomicBool::new(false);
    let worker = Worker {
        search: &shared,
        evaluator,
        batch: batch.max(1),
        deadlines,
        failed: &failed,
    };
    let outcome = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads.max(1))
            .map(|_| scope.spawn(|| worker.run(&mut |_| {})))
            .collect();
        let mine = worker.run(progress);
        let theirs = helpers.into_iter().map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(SearchError::Thread("a search thread panicked".into())))
        });
        // The first error wins; every thread has stopped by now.
        std::iter::once(mine)
            .chain(theirs)
            .collect::<Result<Vec<()>, _>>()
    });
    outcome.map(|_| ())
}

/// What every search thread shares.
struct Worker<'a, 's, E: ?Sized> {
    search: &'a Mutex<&'s mut Search>,
    evaluator: &'a E,
    batch: usize,
    deadlines: &'a Deadlines,
    failed: &'a AtomicBool,
}

impl<'s, E: Evaluator + ?Sized> Worker<'_, 's, E> {
    fn lock(&self) -> MutexGuard<'_, &'s mut Search> {
        // A panic elsewhere poisons the lock; the tree is still consistent
        // between batches, so go on.
        self.search.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn run(&self, progress: &mut dyn FnMut(&Search)) -> Result<(), SearchError> {
        let mut evals: Vec<Evaluation> = Vec::new();
        let mut last_report = Instant::now();
        loop {
            let batch: LeafBatch = {
                let mut search = self.lock();
                if self.failed.load(Ordering::Acquire) || should_stop(&search, self.deadlines) {
                    return Ok(());
                }
                if last_report.elapsed() >= PROGRESS_INTERVAL {
                    progress(&search);
                    last_report = Instant::now();
                }
                search.take_batch(self.batch)
            };
            if batch.is_empty() {
                std::thread::sleep(IDLE_WAIT);
                continue;
            }
            let requests: Vec<EvalRequest<'_>> =
                batch.leaves().iter().map(|l| l.eval_request()).collect();
            evals.resize_with(requests.len(), Evaluation::default);
            self.evaluator.evaluate(&requests, &mut evals);
            drop(requests);
            if let Err(err) = self.lock().apply_batch(batch, &evals) {
                self.failed.store(true, Ordering::Release);
                return Err(err);
            }
        }
    }
}

/// The time manager's verdict for a running search.
fn should_stop(search: &Search, deadlines: &Deadlines) -> bool {
    if search.done() {
        return true;
    }
    // A move exists only once the root is evaluated; that one evaluation is
    // the documented overhead of a search stopped at once.
    if search.tree().node(Tree::ROOT).state() != NodeState::Expanded {
        return false;
    }
    if deadlines.must_stop() {
        return true;
    }
    if !deadlines.is_flexible() {
        return false;
    }
    let (best, second, best_has_top_q) = root_leaders(search);
    if deadlines.soft_passed() {
        // Extend (up to the hard limit) only while the most visited move
        // is not also the best valued one.
        return best_has_top_q;
    }
    // Stop early when the second move cannot catch up in the planned time.
    if search.config().algorithm == Algorithm::Puct
        && let Some(left) = deadlines.until_soft()
    {
        let elapsed = deadlines.start().elapsed().as_secs_f64().max(1e-3);
        let rate = f64::from(search.simulations()) / elapsed;
        return f64::from(best) > f64::from(second) + rate * left.as_secs_f64();
    }
    false
}

/// Visits of the two most visited root moves, and whether the most visited
/// has the best value among moves with at least a tenth of its visits.
fn root_leaders(search: &Search) -> (u32, u32, bool) {
    let tree = search.tree();
    let stats: Vec<(u32, f32)> = tree
        .edges(Tree::ROOT)
        .iter()
        .map(|e| {
            e.child().map_or((0, f32::NEG_INFINITY), |c| {
                let node = tree.node(c);
                (node.visits(), -node.value())
            })
        })
        .collect();
    let Some(best) = (0..stats.len()).max_by_key(|&i| stats[i].0) else {
        return (0, 0, true);
    };
    let second = (0..stats.len())
        .filter(|&i| i != best)
        .map(|i| stats[i].0)
        .max()
        .unwrap_or(0);
    let floor = stats[best].0 / 10;
    let top_q = stats
        .iter()
        .filter(|s| s.0 >= floor.max(1))
        .map(|s| s.1)
        .fold(f32::NEG_INFINITY, f32::max);
    (stats[best].0, second, stats[best].1 >= top_q)
}
