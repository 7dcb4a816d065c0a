//! A bounded evaluation cache shared by many searches and threads.
//!
//! Keyed by the position (its Zobrist hash picks the bucket; the full
//! position is compared, so hash collisions cannot return a wrong answer)
//! plus the [`DrawState`] that can change its value. Buckets of
//! [`EvalCache::WAYS`] slots in sharded locks: a lookup touches one shard,
//! a new entry takes a free slot of its bucket or replaces the oldest, and
//! memory stays fixed at the capacity given.

use crate::evaluator::{EvalRequest, Evaluation, Evaluator};
use crate::evaluators::draw_state_word;
use shashki_rules::splitmix::splitmix64;
use shashki_rules::{DrawState, Position};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

struct Entry {
    position: Position,
    draw_state: DrawState,
    eval: Evaluation,
}

/// Hit and miss counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that missed.
    pub misses: u64,
}

impl CacheStats {
    /// Hits over lookups (0 with no lookups).
    pub fn hit_rate(&self) -> f64 {
        let total = self.hits + self.misses;
        if total == 0 {
            0.0
        } else {
            self.hits as f64 / total as f64
        }
    }
}

/// One bucket: a few slots and the insertion clock that picks the victim.
#[derive(Default)]
struct Bucket {
    slots: [Option<Entry>; EvalCache::WAYS],
    next_victim: u8,
}

/// The cache itself (see the module docs). `Sync`: share it with `Arc`.
pub struct EvalCache {
    shards: Box<[Mutex<Vec<Bucket>>]>,
    buckets_per_shard: usize,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl std::fmt::Debug for EvalCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvalCache")
            .field("capacity", &self.capacity())
            .field("stats", &self.stats())
            .finish()
    }
}

impl EvalCache {
    /// Slots per bucket.
    pub const WAYS: usize = 4;
    const SHARDS: usize = 64;

    /// A cache of about `capacity` entries (rounded up to whole buckets,
    /// at least one per shard).
    pub fn new(capacity: usize) -> EvalCache {
        let buckets = capacity.max(1).div_ceil(Self::WAYS);
        let shards = Self::SHARDS.min(buckets);
        let buckets_per_shard = buckets.div_ceil(shards);
        EvalCache {
            shards: (0..shards)
                .map(|_| Mutex::new((0..buckets_per_shard).map(|_| Bucket::default()).collect()))
                .collect(),
            buckets_per_shard,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.shards.len() * self.buckets_per_shard * Self::WAYS
    }

    /// Hits and misses so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    /// Empties every slot and zeroes the counts.
    pub fn clear(&self) {
        for shard in self.shards.iter() {
            lock(shard)
                .iter_mut()
                .for_each(|bucket| *bucket = Bucket::default());
        }
        self.hits.store(0, Ordering::Relaxed);
        self.misses.store(0, Ordering::Relaxed);
    }

    fn locate(&self, request: &EvalRequest<'_>) -> (usize, usize) {
        let key =
            splitmix64(request.position.hash() ^ splitmix64(draw_state_word(request.draw_state)));
        let shards = self.shards.len() as u64;
        let shard = (key % shards) as usize;
        let bucket = ((key / shards) % self.buckets_per_shard as u64) as usize;
        (shard, bucket)
    }

    fn matches(entry: &Entry, request: &EvalRequest<'_>) -> bool {
        entry.position == *request.position && entry.draw_state == request.draw_state
    }

    /// Copies the cached evaluation of `request` into `out`; false on a miss.
    pub fn get_into(&self, request: &EvalRequest<'_>, out: &mut Evaluation) -> bool {
        let (shard, bucket) = self.locate(request);
        let buckets = lock(&self.shards[shard]);
        let found = buckets[bucket].slots.iter().flatten().find(|entry| {
            Self::matches(entry, request) && entry.eval.priors.len() == request.moves.len()
        });
        let hit = found.is_some();
        if let Some(entry) = found {
            out.copy_from(&entry.eval);
        }
        drop(buckets);
        let counter = if hit { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
        hit
    }

    /// Stores the evaluation of `request`: over its old entry, in a free
    /// slot of its bucket, or over the bucket's oldest entry.
    pub fn insert(&self, request: &EvalRequest<'_>, eval: &Evaluation) {
        let (shard, bucket) = self.locate(request);
        let mut buckets = lock(&self.shards[shard]);
        let bucket = &mut buckets[bucket];
        let slot = bucket
            .slots
            .iter()
            .position(|slot| {
                slot.as_ref()
                    .is_some_and(|entry| Self::matches(entry, request))
            })
            .or_else(|| bucket.slots.iter().position(Option::is_none))
            .unwrap_or_else(|| {
                let victim = bucket.next_victim as usize;
                bucket.next_victim = ((victim + 1) % Self::WAYS) as u8;
                victim
            });
        match &mut bucket.slots[slot] {
            Some(entry) => {
                entry.position = *request.position;
                entry.draw_state = request.draw_state;
                entry.eval.copy_from(eval);
            }
            empty => {
                *empty = Some(Entry {
                    position: *request.position,
                    draw_state: request.draw_state,
                    eval: eval.clone(),
                })
            }
        }
    }
}

/// Locks a shard; a panic elsewhere cannot leave a slot half-written in a
/// way that matters (entries are compared in full), so poisoning is ignored.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An evaluator that answers from an [`EvalCache`] and asks `inner` only
/// for the misses (in one batch).
#[derive(Debug)]
pub struct CachedEvaluator<E> {
    inner: E,
    cache: Arc<EvalCache>,
}

impl<E: Evaluator> CachedEvaluator<E> {
    /// Wraps `inner` with a new cache of `capacity` entries.
    pub fn new(inner: E, capacity: usize) -> CachedEvaluator<E> {
        CachedEvaluator {
            inner,
            cache: Arc::new(EvalCache::new(capacity)),
        }
    }

    /// Wraps `inner` with an existing (shared) cache.
    pub fn with_cache(inner: E, cache: Arc<EvalCache>) -> CachedEvaluator<E> {
        CachedEvaluator { inner, cache }
    }

    /// The cache.
    pub fn cache(&self) -> &Arc<EvalCache> {
        &self.cache
    }

    /// The wrapped evaluator.
    pub fn inner(&self) -> &E {
        &self.inner
    }
}

impl<E: Evaluator> Evaluator for CachedEvaluator<E> {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        let mut misses = Vec::new();
        for (i, (request, eval)) in batch.iter().zip(out.iter_mut()).enumerate() {
            if !self.cache.get_into(request, eval) {
                misses.push(i);
            }
        }
        if misses.is_empty() {
            return;
        }
        if misses.len() == batch.len() {
            self.inner.evaluate(batch, out);
        } else {
            let requests: Vec<EvalRequest<'_>> = misses.iter().map(|&i| batch[i]).collect();
            let mut answers = vec![Evaluation::default(); misses.len()];
            self.inner.evaluate(&requests, &mut answers);
            for (&i, answer) in misses.iter().zip(answers) {
                out[i] = answer;
            }
        }
        for &i in &misses {
            self.cache.insert(&batch[i], &out[i]);
        }
    }

    fn preferred_batch(&self) -> usize {
        self.inner.preferred_batch()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluators::UniformEvaluator;
    use shashki_rules::Move;
    use std::sync::atomic::AtomicUsize;

    /// Counts the positions it is asked about.
    struct Counting {
        inner: UniformEvaluator,
        calls: AtomicUsize,
    }

    impl Evaluator for Counting {
        fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
            self.calls.fetch_add(batch.len(), Ordering::Relaxed);
            self.inner.evaluate(batch, out);
        }
    }

    fn positions() -> Vec<(Position, Vec<Move>)> {
        let start = Position::startpos();
        start
            .legal_moves()
            .iter()
            .map(|mv| {
                let pos = start.make_move(mv);
                let moves = pos.legal_moves().iter().copied().collect();
                (pos, moves)
            })
            .collect()
    }

    #[test]
    fn misses_go_to_the_inner_evaluator_once() {
        let counting = Counting {
            inner: UniformEvaluator::random(9),
            calls: AtomicUsize::new(0),
        };
        let cached = CachedEvaluator::new(counting, 1024);
        let data = positions();
        let requests: Vec<EvalRequest<'_>> = data
            .iter()
            .map(|(p, m)| EvalRequest {
                position: p,
                draw_state: DrawState::default(),
                moves: m,
            })
            .collect();
        let mut first = vec![Evaluation::default(); requests.len()];
        cached.evaluate(&requests, &mut first);
        assert_eq!(cached.inner().calls.load(Ordering::Relaxed), 7);
        let mut second = vec![Evaluation::default(); requests.len()];
        cached.evaluate(&requests, &mut second);
        assert_eq!(cached.inner().calls.load(Ordering::Relaxed), 7);
        assert_eq!(first, second);
        assert_eq!(cached.cache().stats(), CacheStats { hits: 7, misses: 7 });
        // Another draw state is another key.
        let other = EvalRequest {
            draw_state: DrawState {
                repetitions: 2,
                plies_to_draw: None,
            },
            ..requests[0]
        };
        let mut third = vec![Evaluation::default(); 2];
        cached.evaluate(&[other, requests[1]], &mut third);
        assert_eq!(cached.inner().calls.load(Ordering::Relaxed), 8);
        assert_eq!(third[1], first[1]);
    }

    #[test]
    fn the_cache_stays_bounded() {
        let cache = EvalCache::new(4);
        assert_eq!(cache.capacity(), 4);
        assert_eq!(EvalCache::new(1000).capacity(), 1024);
        let data = positions();
        let mut eval = Evaluation::default();
        for (pos, moves) in &data {
            let request = EvalRequest {
                position: pos,
                draw_state: DrawState::default(),
                moves,
            };
            eval.set_uniform(moves.len(), crate::Wdl::DRAW);
            cache.insert(&request, &eval);
        }
        let hits = data
            .iter()
            .filter(|(pos, moves)| {
                let request = EvalRequest {
                    position: pos,
                    draw_state: DrawState::default(),
                    moves,
                };
                cache.get_into(&request, &mut eval)
            })
            .count();
        assert!((1..=4).contains(&hits), "{hits}");
    }
}
