//! A batching service: many threads, each running its own single-threaded
//! searches, call `evaluate` on their [`BatchClient`]; their requests are
//! merged into one batch for the inner evaluator (a network on an
//! accelerator wants big batches).
//!
//! A batch is flushed when it reaches the target size, or when every
//! registered client is waiting (in this batch or in one being evaluated),
//! since then nothing more can arrive: it never deadlocks. A thread that
//! stops searching must drop its client (or never make one), or the others
//! wait for it until the target size is reached.
//!
//! Results do not depend on how requests were grouped, as long as the inner
//! evaluator answers each position independently of its batch mates.

use crate::evaluator::{EvalRequest, Evaluation, Evaluator};
use shashki_rules::{DrawState, Move, Position};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Owned copies of the requests of one batch.
#[derive(Default)]
struct Batch {
    positions: Vec<Position>,
    draw_states: Vec<DrawState>,
    moves: Vec<Move>,
    /// End (exclusive) of each request's moves in `moves`.
    move_ends: Vec<usize>,
}

impl Batch {
    fn len(&self) -> usize {
        self.positions.len()
    }

    fn push(&mut self, request: &EvalRequest<'_>) {
        self.positions.push(*request.position);
        self.draw_states.push(request.draw_state);
        self.moves.extend_from_slice(request.moves);
        self.move_ends.push(self.moves.len());
    }

    fn clear(&mut self) {
        self.positions.clear();
        self.draw_states.clear();
        self.moves.clear();
        self.move_ends.clear();
    }

    fn requests(&self) -> Vec<EvalRequest<'_>> {
        let mut start = 0;
        (0..self.len())
            .map(|i| {
                let end = self.move_ends[i];
                let request = EvalRequest {
                    position: &self.positions[i],
                    draw_state: self.draw_states[i],
                    moves: &self.moves[start..end],
                };
                start = end;
                request
            })
            .collect()
    }
}

/// A batch evaluated, waiting for its clients to collect their answers.
struct Finished {
    id: u64,
    results: Vec<Evaluation>,
    readers_left: usize,
}

#[derive(Default)]
struct State {
    registered: usize,
    open: Batch,
    open_id: u64,
    open_waiters: usize,
    in_flight_waiters: usize,
    finished: Vec<Finished>,
    spare: Vec<Batch>,
    batches: u64,
    positions: u64,
}

struct Shared<E> {
    inner: E,
    target: usize,
    state: Mutex<State>,
    wake: Condvar,
}

impl<E> Shared<E> {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Batch statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BatchStats {
    /// Batches sent to the inner evaluator.
    pub batches: u64,
    /// Positions evaluated.
    pub positions: u64,
    /// The target batch size.
    pub target: usize,
}

impl BatchStats {
    /// Mean positions per batch.
    pub fn mean_batch_size(&self) -> f64 {
        if self.batches == 0 {
            0.0
        } else {
            self.positions as f64 / self.batches as f64
        }
    }

    /// Mean batch size over the target (1 = always full).
    pub fn mean_fill(&self) -> f64 {
        self.mean_batch_size() / self.target.max(1) as f64
    }
}

/// The service (see the module docs). Hand each worker thread a
/// [`BatchClient`] from [`BatchingEvaluator::client`].
pub struct BatchingEvaluator<E> {
    shared: Arc<Shared<E>>,
}

impl<E: Evaluator> BatchingEvaluator<E> {
    /// A service in front of `inner`, flushing at `target_batch` positions
    /// (`None`: the inner evaluator's preferred batch).
    pub fn new(inner: E, target_batch: Option<usize>) -> BatchingEvaluator<E> {
        let target = target_batch
            .unwrap_or_else(|| inner.preferred_batch())
            .max(1);
        BatchingEvaluator {
            shared: Arc::new(Shared {
                inner,
                target,
                state: Mutex::new(State::default()),
                wake: Condvar::new(),
            }),
        }
    }

    /// Registers a worker. Its requests are batched with the others'; drop it
    /// when the worker is done so the rest do not wait for it.
    pub fn client(&self) -> BatchClient<E> {
        self.shared.lock().registered += 1;
        BatchClient {
            shared: Arc::clone(&self.shared),
        }
    }

    /// Batches and positions so far.
    pub fn stats(&self) -> BatchStats {
        let state = self.shared.lock();
        BatchStats {
            batches: state.batches,
            positions: state.positions,
            target: self.shared.target,
        }
    }

    /// The inner evaluator.
    pub fn inner(&self) -> &E {
        &self.shared.inner
    }
}

/// One worker's handle on a [`BatchingEvaluator`]; an [`Evaluator`] whose
/// calls block until the merged batch has been evaluated.
pub struct BatchClient<E> {
    shared: Arc<Shared<E>>,
}

impl<E> Drop for BatchClient<E> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.registered -= 1;
        drop(state);
        // Waiters re-check: the batch may now be complete.
        self.shared.wake.notify_all();
    }
}

impl<E: Evaluator> Evaluator for BatchClient<E> {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        if batch.is_empty() {
            return;
        }
        let shared = &*self.shared;
        let mut state = shared.lock();
        let id = state.open_id;
        let start = state.open.len();
        for request in batch {
            state.open.push(request);
        }
        state.open_waiters += 1;
        loop {
            if state.open_id == id {
                let full = state.open.len() >= shared.target;
                let everyone_waits =
                    state.open_waiters + state.in_flight_waiters >= state.registered;
                if full || everyone_waits {
                    state = flush(shared, state);
                } else {
                    state = shared
                        .wake
                        .wait(state)
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                }
                continue;
            }
            if let Some(k) = state.finished.iter().position(|f| f.id == id) {
                let finished = &mut state.finished[k];
                for (o, r) in out
                    .iter_mut()
                    .zip(&finished.results[start..start + batch.len()])
                {
                    o.copy_from(r);
                }
                finished.readers_left -= 1;
                if finished.readers_left == 0 {
                    state.finished.swap_remove(k);
                }
                return;
            }
            state = shared
                .wake
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    fn preferred_batch(&self) -> usize {
        self.shared.inner.preferred_batch()
    }
}

/// Takes the open batch, evaluates it without holding the lock, posts the
/// results and wakes everyone. Returns the re-acquired lock.
fn flush<'a, E: Evaluator>(
    shared: &'a Shared<E>,
    mut state: MutexGuard<'a, State>,
) -> MutexGuard<'a, State> {
    let fresh = state.spare.pop().unwrap_or_default();
    let batch = std::mem::replace(&mut state.open, fresh);
    let id = state.open_id;
    let waiters = state.open_waiters;
    state.open_id += 1;
    state.open_waiters = 0;
    state.in_flight_waiters += waiters;
    drop(state);

    let mut results = vec![Evaluation::default(); batch.len()];
    shared.inner.evaluate(&batch.requests(), &mut results);

    let mut state = shared.lock();
    state.in_flight_waiters -= waiters;
    state.batches += 1;
    state.positions += batch.len() as u64;
    state.finished.push(Finished {
        id,
        results,
        readers_left: waiters,
    });
    let mut batch = batch;
    batch.clear();
    state.spare.push(batch);
    shared.wake.notify_all();
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stand_ins::UniformEvaluator;

    #[test]
    fn a_lone_client_is_never_kept_waiting() {
        let service = BatchingEvaluator::new(UniformEvaluator::random(1), Some(64));
        let client = service.client();
        let pos = Position::startpos();
        let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
        let request = EvalRequest {
            position: &pos,
            draw_state: DrawState::default(),
            moves: &moves,
        };
        let mut out = vec![Evaluation::default(); 2];
        client.evaluate(&[request, request], &mut out);
        let mut direct = vec![Evaluation::default(); 2];
        UniformEvaluator::random(1).evaluate(&[request, request], &mut direct);
        assert_eq!(out, direct);
        assert_eq!(service.stats().batches, 1);
        assert_eq!(service.stats().mean_batch_size(), 2.0);
    }
}
