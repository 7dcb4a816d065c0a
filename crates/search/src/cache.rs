//! A bounded evaluation cache shared by many searches and threads.
//!
//! Keyed by the position (its Zobrist hash picks the bucket; the full
//! position is compared, so hash collisions cannot return a wrong answer)
//! plus the [`DrawState`] that can change its value. Buckets of
//! [`EvalCache::WAYS`] slots in sharded locks: a lookup touches one shard,
//! a new entry takes a free slot of its bucket or replaces the oldest, and
//! memory stays fixed at the capacity given.
//!
//! Who uses it: the MCTS engine ([`MctsEngine::with_cache`]: all threads of
//! a play search, kept between moves) and self-play (every game in flight,
//! one cache per network). An answer is reused only for the same position
//! under the same draw-rule state, so a network that reads the draw planes
//! sees exactly what it would have been asked.
//!
//! [`MctsEngine::with_cache`]: crate::mcts::MctsEngine::with_cache

use crate::evaluator::{EvalRequest, Evaluation, Evaluator};
use crate::stand_ins::draw_state_word;
use shashki_rules::splitmix::splitmix64;
use shashki_rules::{DrawState, Position};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

struct Entry {
    position: Position,
    draw_state: DrawState,
    eval: Evaluation,
}

/// Entries of the cache a network engine keeps by default (about 40 MB;
/// at 1 s a move with one thread, the evaluations of ten moves or more).
pub const DEFAULT_CACHE_ENTRIES: usize = 1 << 18;

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
        let key = key_of(request);
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
        let hit = self.lookup(request, out);
        let counter = if hit { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
        hit
    }

    /// [`EvalCache::get_into`] without counting.
    fn lookup(&self, request: &EvalRequest<'_>, out: &mut Evaluation) -> bool {
        let (shard, bucket) = self.locate(request);
        let buckets = lock(&self.shards[shard]);
        let found = buckets[bucket].slots.iter().flatten().find(|entry| {
            Self::matches(entry, request) && entry.eval.priors.len() == request.moves.len()
        });
        let hit = found.is_some();
        if let Some(entry) = found {
            out.copy_from(&entry.eval);
        }
        hit
    }

    /// First half of answering `batch` through the cache: copies every hit
    /// into `out` and lists in `plan` what the network must still evaluate
    /// (each position once: a repeat within the batch waits for its first
    /// occurrence and counts as a hit). Evaluate `plan.misses()` into their
    /// slots of `out`, then call [`EvalCache::complete`].
    pub fn split(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation], plan: &mut MissPlan) {
        plan.misses.clear();
        plan.repeats.clear();
        plan.first_by_key.clear();
        let mut hits = 0;
        for (i, (request, eval)) in batch.iter().zip(out.iter_mut()).enumerate() {
            if self.lookup(request, eval) {
                hits += 1;
                continue;
            }
            let first = *plan.first_by_key.entry(key_of(request)).or_insert(i);
            let same = |a: &EvalRequest<'_>, b: &EvalRequest<'_>| {
                a.position == b.position && a.draw_state == b.draw_state
            };
            if first != i && same(&batch[first], request) {
                plan.repeats.push((i, first));
                hits += 1;
            } else {
                plan.misses.push(i);
            }
        }
        self.hits.fetch_add(hits, Ordering::Relaxed);
        self.misses
            .fetch_add(plan.misses.len() as u64, Ordering::Relaxed);
    }

    /// Second half (see [`EvalCache::split`]): stores the evaluated misses
    /// and copies them to their repeats.
    pub fn complete(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation], plan: &MissPlan) {
        for &i in &plan.misses {
            self.insert(&batch[i], &out[i]);
        }
        // A repeat always comes after its first occurrence.
        for &(i, first) in &plan.repeats {
            let (before, from_i) = out.split_at_mut(i);
            from_i[0].copy_from(&before[first]);
        }
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

/// The hash of a request's key (position and draw-rule state).
fn key_of(request: &EvalRequest<'_>) -> u64 {
    splitmix64(request.position.hash() ^ splitmix64(draw_state_word(request.draw_state)))
}

/// What [`EvalCache::split`] left for the network. Keep one and reuse it:
/// its buffers are kept from batch to batch.
#[derive(Debug, Default)]
pub struct MissPlan {
    misses: Vec<usize>,
    repeats: Vec<(usize, usize)>,
    first_by_key: HashMap<u64, usize>,
}

impl MissPlan {
    /// Indices (into the batch) of the positions to evaluate, ascending.
    pub fn misses(&self) -> &[usize] {
        &self.misses
    }
}

/// Answers `batch` from `cache`, asking `inner` for the misses in one call.
fn evaluate_cached<E: Evaluator + ?Sized>(
    inner: &E,
    cache: &EvalCache,
    batch: &[EvalRequest<'_>],
    out: &mut [Evaluation],
) {
    let mut plan = MissPlan::default();
    cache.split(batch, out, &mut plan);
    match plan.misses.len() {
        0 => {}
        n if n == batch.len() => inner.evaluate(batch, out),
        _ => {
            let requests: Vec<EvalRequest<'_>> = plan.misses.iter().map(|&i| batch[i]).collect();
            let mut answers = vec![Evaluation::default(); requests.len()];
            inner.evaluate(&requests, &mut answers);
            for (&i, answer) in plan.misses.iter().zip(answers) {
                out[i] = answer;
            }
        }
    }
    cache.complete(batch, out, &plan);
}

/// A borrowed evaluator in front of a borrowed cache (what
/// [`CachedEvaluator`] is with owned parts).
pub struct Cached<'a, E: ?Sized> {
    /// Asked for the misses.
    pub inner: &'a E,
    /// Answers the hits and keeps the misses' answers.
    pub cache: &'a EvalCache,
}

impl<E: Evaluator + ?Sized> Evaluator for Cached<'_, E> {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        evaluate_cached(self.inner, self.cache, batch, out);
    }

    fn preferred_batch(&self) -> usize {
        self.inner.preferred_batch()
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
        evaluate_cached(&self.inner, &self.cache, batch, out);
    }

    fn preferred_batch(&self) -> usize {
        self.inner.preferred_batch()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stand_ins::UniformEvaluator;
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
    fn a_position_repeated_in_one_batch_is_evaluated_once() {
        let counting = Counting {
            inner: UniformEvaluator::random(4),
            calls: AtomicUsize::new(0),
        };
        let cached = CachedEvaluator::new(counting, 1024);
        let data = positions();
        let request = |k: usize, repetitions: u8| EvalRequest {
            position: &data[k].0,
            draw_state: DrawState {
                repetitions,
                plies_to_draw: None,
            },
            moves: &data[k].1,
        };
        // 0, 1, 0 again, 1 under another draw-rule state, 0 again.
        let batch = [
            request(0, 1),
            request(1, 1),
            request(0, 1),
            request(1, 2),
            request(0, 1),
        ];
        let mut out = vec![Evaluation::default(); batch.len()];
        cached.evaluate(&batch, &mut out);
        assert_eq!(cached.inner().calls.load(Ordering::Relaxed), 3);
        let mut direct = vec![Evaluation::default(); batch.len()];
        UniformEvaluator::random(4).evaluate(&batch, &mut direct);
        assert_eq!(out, direct, "the same answers as without the cache");
        assert_ne!(out[1], out[3], "the draw-rule state is part of the key");
        assert_eq!(cached.cache().stats(), CacheStats { hits: 2, misses: 3 });
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
