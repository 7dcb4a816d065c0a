//! Labels held-out positions: the tablebases' exact value where they
//! cover the position, else a fixed-depth alpha-beta search with a given
//! evaluation (its score as an expected score, as self-play stores it).
//! Positions are searched in parallel, one single-threaded search each,
//! so the labels do not depend on the thread count.

use super::held_out::{LabelSource, Labelled};
use super::sources::Candidate;
use rayon::prelude::*;
use shashki_rules::{DrawCounters, Game};
use shashki_search::alphabeta::{AbConfig, AlphaBeta, Selectivity, StaticEval};
use shashki_search::limits::SearchLimits;
use shashki_search::tablebase::{Tablebases, TbWdl};
use shashki_selfplay::score_to_wdl;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Transposition table of each labelling search, in MiB.
const LABEL_TT_MEGABYTES: usize = 16;

/// The labelling settings.
pub struct Labeller<'a> {
    /// The evaluation the search runs (forked per position).
    pub eval: &'a dyn StaticEval,
    /// Nominal search depth.
    pub depth: u32,
    /// The search's selectivity (a held-out set is labelled full width,
    /// [`Selectivity::NONE`], as the sets so far were).
    pub selectivity: Selectivity,
    /// Tablebases probed at the root, if any.
    pub tablebases: Option<&'a Tablebases>,
}

/// The tablebases' value of a position as an expected score.
fn tablebase_label(tb: &Tablebases, candidate: &Candidate) -> Option<f32> {
    let pos = &candidate.position;
    if (pos.white() | pos.black()).count_ones() > u32::from(tb.max_pieces()) {
        return None;
    }
    let probe = tb.probe(pos, &DrawCounters::start(pos))?;
    Some(match probe.wdl {
        TbWdl::Win => 1.0,
        TbWdl::Draw => 0.5,
        TbWdl::Loss => 0.0,
    })
}

impl Labeller<'_> {
    /// The label of one candidate and the nodes its search visited (0 for
    /// the tables).
    pub fn label(&self, candidate: &Candidate) -> (Labelled, u64) {
        let entry = |label, source, score_cp| Labelled {
            fen: candidate.position.to_fen(),
            label,
            source,
            score_cp,
            sample_score: candidate.sample_score,
            sample_result: candidate.sample_result,
        };
        if let Some(label) = self
            .tablebases
            .and_then(|tb| tablebase_label(tb, candidate))
        {
            return (entry(label, LabelSource::Tablebase, None), 0);
        }
        let config = AbConfig {
            tt_megabytes: LABEL_TT_MEGABYTES,
            selectivity: self.selectivity,
            ..AbConfig::default()
        };
        let mut search = AlphaBeta::with_eval(config, self.eval.fork());
        let result = search.search(
            &Game::new(candidate.position),
            &SearchLimits::depth(self.depth),
        );
        let [w, d, _] = score_to_wdl(result.score);
        let labelled = entry(w + 0.5 * d, LabelSource::Search, Some(result.score));
        (labelled, result.nodes)
    }

    /// Labels every candidate on `threads` threads, in order, calling
    /// `progress(done, total)` as positions finish; with the nodes of all
    /// the searches.
    pub fn label_all(
        &self,
        candidates: &[Candidate],
        threads: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<(Vec<Labelled>, u64), rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()?;
        let done = AtomicUsize::new(0);
        // `StaticEval` is `Send`, not `Sync`: threads fork it under a lock.
        let shared = Mutex::new(self.eval.fork());
        let (depth, selectivity, tablebases) = (self.depth, self.selectivity, self.tablebases);
        let nodes = AtomicU64::new(0);
        let labelled = pool.install(|| {
            candidates
                .par_iter()
                .map(|c| {
                    let eval = shared.lock().expect("no thread panics holding it").fork();
                    let labeller = Labeller {
                        eval: eval.as_ref(),
                        depth,
                        selectivity,
                        tablebases,
                    };
                    let (labelled, searched) = labeller.label(c);
                    nodes.fetch_add(searched, Ordering::Relaxed);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, candidates.len());
                    labelled
                })
                .collect()
        });
        Ok((labelled, nodes.into_inner()))
    }
}
