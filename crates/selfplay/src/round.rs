//! One round of network calls for every game in flight: positions already
//! evaluated come from the cache (each position is evaluated once per
//! network, however many games or trees reach it), the rest are cut into
//! calls of at most `batch_size` positions, run several at once on the
//! pool. Everything that decides an answer happens on the calling thread
//! in a fixed order, so a run stays reproducible from its seed.

use crate::stats::SelfPlayStats;
use rayon::prelude::*;
use shashki_search::cache::{EvalCache, MissPlan};
use shashki_search::{EvalRequest, Evaluation, Evaluator};

/// What a round of network calls needs besides the requests.
pub(crate) struct NetworkRound<'a> {
    pub evaluator: &'a dyn Evaluator,
    pub pool: Option<&'a rayon::ThreadPool>,
    pub batch_size: usize,
    pub cache: Option<&'a EvalCache>,
}

/// Buffers kept from round to round.
#[derive(Default)]
pub(crate) struct RoundBuffers {
    plan: MissPlan,
    misses: Vec<Evaluation>,
}

impl NetworkRound<'_> {
    /// Evaluates `requests` into `out` (same length), counting calls, cache
    /// hits and positions in `stats`.
    pub fn evaluate(
        &self,
        requests: &[EvalRequest<'_>],
        out: &mut [Evaluation],
        buffers: &mut RoundBuffers,
        stats: &mut SelfPlayStats,
    ) {
        stats.requested += requests.len() as u64;
        let Some(cache) = self.cache else {
            self.calls(requests, out, stats);
            return;
        };
        cache.split(requests, out, &mut buffers.plan);
        let misses = buffers.plan.misses();
        stats.cache_hits += (requests.len() - misses.len()) as u64;
        let asked: Vec<EvalRequest<'_>> = misses.iter().map(|&i| requests[i]).collect();
        if buffers.misses.len() < asked.len() {
            buffers.misses.resize_with(asked.len(), Evaluation::default);
        }
        self.calls(&asked, &mut buffers.misses[..asked.len()], stats);
        for (answer, &i) in buffers.misses.iter_mut().zip(misses) {
            std::mem::swap(&mut out[i], answer);
        }
        cache.complete(requests, out, &buffers.plan);
    }

    /// The network calls themselves.
    fn calls(
        &self,
        requests: &[EvalRequest<'_>],
        out: &mut [Evaluation],
        stats: &mut SelfPlayStats,
    ) {
        let batch_size = self.batch_size.max(1);
        let calls: Vec<(&[EvalRequest<'_>], &mut [Evaluation])> = requests
            .chunks(batch_size)
            .zip(out.chunks_mut(batch_size))
            .collect();
        for (batch, _) in &calls {
            stats.batches += 1;
            stats.evaluations += batch.len() as u64;
            stats.batch_capacity += batch_size as u64;
        }
        let evaluator = self.evaluator;
        match self.pool {
            // Several network calls at once: the CPU backend keeps about
            // one core busy per call at these sizes.
            Some(pool) if calls.len() > 1 => pool.install(|| {
                calls
                    .into_par_iter()
                    .for_each(|(batch, out)| evaluator.evaluate(batch, out))
            }),
            _ => calls
                .into_iter()
                .for_each(|(batch, out)| evaluator.evaluate(batch, out)),
        }
    }
}
