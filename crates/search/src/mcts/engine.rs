//! MCTS behind the [`Engine`] trait, for `shashki analyse|play|engine` and
//! the arena: one [`Search`] kept between moves of a game (tree reuse), any
//! [`Evaluator`] (rollouts or a network), one or more search threads
//! ([`driver`]), time management and `stop`, and
//! for a network an evaluation cache shared by the threads and kept from
//! move to move ([`MctsEngine::with_cache`]).

use crate::cache::{Cached, EvalCache};
use crate::engine::{Engine, Score, SearchReport};
use crate::evaluator::Evaluator;
use crate::limits::{Deadlines, SearchLimits, StopHandle};
use crate::mcts::driver;
use crate::mcts::principal_variation;
use crate::mcts::{Proof, Search, SearchConfig, SearchCounters, SearchError, SearchResult};
use crate::tablebase::{self, Tablebases};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shashki_rules::Game;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// An MCTS engine over evaluator `E`.
///
/// Limits: `nodes` is the number of simulations; `movetime`, a clock or
/// `infinite` run until the time manager or `stop` ends the search; with
/// none of these, the configuration's `full_simulations` apply. `depth`
/// does not apply to MCTS and is ignored. A search ends early once the
/// solver proves the root.
pub struct MctsEngine<E: Evaluator> {
    evaluator: E,
    config: SearchConfig,
    seed: u64,
    rng: ChaCha8Rng,
    search: Option<Search>,
    description: String,
    threads: usize,
    stop: StopHandle,
    tablebases: Option<Arc<Tablebases>>,
    cache: Option<Arc<EvalCache>>,
    /// Counters of the searches dropped so far (new games, failures).
    counters: SearchCounters,
}

impl<E: Evaluator> MctsEngine<E> {
    /// An engine with this evaluator, configuration and seed; `description`
    /// names it (e.g. `mcts (rollouts)`). It searches on one thread until
    /// [`MctsEngine::with_threads`] says otherwise.
    pub fn new(
        evaluator: E,
        config: SearchConfig,
        seed: u64,
        description: impl Into<String>,
    ) -> Result<MctsEngine<E>, SearchError> {
        config.validate()?;
        Ok(MctsEngine {
            evaluator,
            config,
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
            search: None,
            description: description.into(),
            threads: 1,
            stop: StopHandle::new(),
            tablebases: None,
            cache: None,
            counters: SearchCounters::default(),
        })
    }

    /// Answers repeated positions (transpositions within a search, lines
    /// met again in later searches) from a cache of about `entries`
    /// evaluations, shared by the search threads and kept for the engine's
    /// life; 0 switches it off. For an evaluator whose answer depends on
    /// the request alone (a network, the stand-ins of
    /// [`stand_ins`](crate::stand_ins)). About 150 bytes an entry.
    pub fn with_cache(mut self, entries: usize) -> MctsEngine<E> {
        self.cache = (entries > 0).then(|| Arc::new(EvalCache::new(entries)));
        self
    }

    /// The evaluation cache, if on.
    pub fn cache(&self) -> Option<&Arc<EvalCache>> {
        self.cache.as_ref()
    }

    /// What the searches of this engine spent their evaluations on.
    pub fn counters(&self) -> SearchCounters {
        let mut total = self.counters;
        if let Some(search) = &self.search {
            total += search.counters();
        }
        total
    }

    /// Drops the kept search, keeping its counters.
    fn drop_search(&mut self) {
        if let Some(search) = self.search.take() {
            self.counters += search.counters();
        }
    }

    /// Probes `tablebases` in the search (a position in them is a solved
    /// node) and reports a root in them as `tb win|loss N` / `tb draw`.
    /// Games under other draw rules than the tables' are searched without
    /// them.
    pub fn with_tablebases(mut self, tablebases: Option<Arc<Tablebases>>) -> MctsEngine<E> {
        self.tablebases = tablebases;
        self.drop_search();
        self
    }

    /// Searches with `threads` threads sharing the tree, each evaluating its
    /// own batch of `config.leaves_per_batch` leaves (one thread is
    /// reproducible from the seed; more are faster).
    pub fn with_threads(mut self, threads: usize) -> MctsEngine<E> {
        self.threads = threads.max(1);
        self
    }

    /// Runs one search within `limits` (the root must have legal moves and
    /// no outcome yet).
    fn run(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        start: Instant,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> Result<SearchReport, SearchError> {
        let deadlines = Deadlines::new(limits, game.side_to_move(), start, Some(self.stop.clone()));
        let simulations = match limits.nodes {
            Some(n) if !limits.infinite => n.clamp(1, u64::from(u32::MAX)) as u32,
            _ if deadlines.is_timed() || limits.infinite => u32::MAX,
            _ => self.config.full_simulations,
        };
        let config = self.config.clone().with_simulations(simulations);
        let search = match &mut self.search {
            Some(search) => {
                search.sync_to(game);
                search.set_config(config)?;
                search
            }
            None => self.search.insert(Search::new(game.clone(), config)?),
        };
        if search.tablebases().is_none() {
            // Refused (and left off) for games under other draw rules.
            let _ = search.set_tablebases(self.tablebases.clone());
        }
        search.begin(&mut self.rng)?;
        let batch = search.config().leaves_per_batch as usize;
        let cached;
        let evaluator: &dyn Evaluator = match &self.cache {
            Some(cache) => {
                cached = Cached {
                    inner: &self.evaluator,
                    cache,
                };
                &cached
            }
            None => &self.evaluator,
        };
        driver::drive(
            search,
            evaluator,
            self.threads,
            batch,
            &deadlines,
            &mut |running| progress(&interim_report(running, start)),
        )?;
        let result = search.finish(&mut self.rng)?;
        let mut report = final_report(&result, start);
        if let Some(tb) = search.tablebases() {
            // A root in the tables: their own verdict and distance.
            if let Some(probe) = tablebase::probe(tb, search.game()) {
                report.score = tablebase::score_of(&probe);
            }
            tablebase::extend_line(tb, search.game(), &mut report.pv);
        }
        Ok(report)
    }
}

/// The score of a search result: a proven game end as `mate`, a win or
/// loss resting on the tablebases as `tb win|loss N`, a proven draw as
/// such, the mean value otherwise.
fn score_of(result: &SearchResult) -> Score {
    match (result.proof, result.proof.tablebase_plies()) {
        (Proof::Win(_), Some(plies)) => Score::TbWin(plies),
        (Proof::Loss(_), Some(plies)) => Score::TbLoss(plies),
        (Proof::Win(plies), None) => Score::Mate(plies as i32),
        (Proof::Loss(plies), None) => Score::Mate(-(plies as i32)),
        (Proof::Draw, _) => Score::ProvenDraw,
        (Proof::Unknown, _) => Score::Value(result.value),
    }
}

fn final_report(result: &SearchResult, start: Instant) -> SearchReport {
    SearchReport {
        best_move: Some(result.best_move),
        score: score_of(result),
        depth: result.principal_variation.len() as u32,
        nodes: u64::from(result.simulations),
        elapsed: start.elapsed(),
        pv: result.principal_variation.clone(),
    }
}

/// Progress of a running search: the most visited move and its line (as
/// the final result builds it).
fn interim_report(search: &Search, start: Instant) -> SearchReport {
    use crate::mcts::tree::Tree;
    let tree = search.tree();
    let best = (0..tree.edges(Tree::ROOT).len()).max_by_key(|&i| {
        tree.edges(Tree::ROOT)[i]
            .child()
            .map_or(0, |c| tree.node(c).visits())
    });
    let pv = best.map_or_else(Vec::new, |i| principal_variation(tree, i));
    SearchReport {
        best_move: pv.first().copied(),
        score: Score::Value(tree.node(Tree::ROOT).value()),
        depth: pv.len() as u32,
        nodes: u64::from(search.simulations()),
        elapsed: start.elapsed(),
        pv,
    }
}

impl<E: Evaluator> Engine for MctsEngine<E> {
    fn description(&self) -> String {
        self.description.clone()
    }

    fn new_game(&mut self) {
        self.drop_search();
        self.rng = ChaCha8Rng::seed_from_u64(self.seed);
    }

    fn stop_handle(&self) -> Option<StopHandle> {
        Some(self.stop.clone())
    }

    fn statistics(&self) -> Option<String> {
        let mut line = self.counters().summary();
        if let Some(cache) = &self.cache {
            let stats = cache.stats();
            line.push_str(&format!(
                "; cache: {:.1} % hits of {} lookups ({} entries)",
                100.0 * stats.hit_rate(),
                stats.hits + stats.misses,
                cache.capacity()
            ));
        }
        Some(line)
    }

    fn go(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        progress: &mut dyn FnMut(&SearchReport),
    ) -> SearchReport {
        let start = Instant::now();
        let moves = game.legal_moves();
        let mut report = SearchReport {
            best_move: moves.iter().next().copied(),
            score: Score::Value(if moves.is_empty() { -1.0 } else { 0.0 }),
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: moves.iter().next().copied().into_iter().collect(),
        };
        if moves.is_empty() {
            report.elapsed = start.elapsed();
            return report;
        }
        if let Some(outcome) = game.outcome() {
            // A draw rule (or a resignation) already ended the game although
            // moves exist: there is nothing to search; any legal move will do.
            let value = outcome.result.score_for(game.side_to_move());
            report.score = Score::Value(value);
            report.elapsed = start.elapsed();
            return report;
        }
        if moves.len() == 1 && limits.time_budget(game.side_to_move()).is_some() {
            // A forced move under a time limit: answer at once.
            report.elapsed = start.elapsed();
            progress(&report);
            return report;
        }
        match self.run(game, limits, start, progress) {
            Ok(found) => report = found,
            // Only a broken evaluator gets here (the configuration was
            // validated and the root is live): keep the first legal move,
            // start afresh next time, and say so.
            Err(err) => {
                eprintln!("mcts search failed ({err}); playing {}", moves[0]);
                self.drop_search();
            }
        }
        progress(&report);
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stand_ins::RolloutEvaluator;
    use shashki_rules::Position;

    fn engine(seed: u64) -> MctsEngine<RolloutEvaluator> {
        MctsEngine::new(
            RolloutEvaluator::new(1, seed),
            SearchConfig::default(),
            seed,
            "mcts",
        )
        .unwrap()
    }

    #[test]
    fn plays_legal_moves_and_counts_simulations() {
        let mut game = Game::new(Position::startpos());
        let mut mcts = engine(3);
        for _ in 0..4 {
            let report = mcts.go(&game, &SearchLimits::nodes(64), &mut |_| {});
            let mv = report.best_move.unwrap();
            assert!(game.legal_moves().iter().any(|m| *m == mv));
            assert!(report.nodes <= 64);
            assert_eq!(report.pv.first(), Some(&mv));
            game.play(&mv);
        }
    }

    #[test]
    fn finds_the_sacrifice_shot() {
        // 1. b4-c5 b6:d4 2. c3:e5:g7 wins (see the alpha-beta tests).
        let game = Game::new(Position::from_fen("W:Wb2,c3,b4:Bb6,f6").unwrap());
        let report = engine(5).go(&game, &SearchLimits::nodes(400), &mut |_| {});
        assert_eq!(report.best_move.unwrap().to_string(), "b4-c5");
        // The solver proves the win: both black men fall by ply 3.
        assert_eq!(report.score, Score::Mate(3));
    }

    #[test]
    fn the_cache_answers_a_search_seen_before_and_changes_nothing() {
        let game = Game::new(Position::startpos());
        let limits = SearchLimits::nodes(300);
        let mut plain = engine(4);
        let expected = plain.go(&game, &limits, &mut |_| {});
        let mut cached = engine(4).with_cache(1 << 14);
        let first = cached.go(&game, &limits, &mut |_| {});
        assert_eq!(first.best_move, expected.best_move);
        assert_eq!(first.pv, expected.pv);
        let after_first = cached.cache().unwrap().stats();
        // A new game drops the tree but keeps the cache: the same search
        // again is answered from it entirely.
        cached.new_game();
        let second = cached.go(&game, &limits, &mut |_| {});
        assert_eq!(second.best_move, expected.best_move);
        let after_second = cached.cache().unwrap().stats();
        assert_eq!(after_second.misses, after_first.misses);
        let evaluations = plain.counters().evaluations;
        assert!(evaluations > 300, "{evaluations}");
        assert_eq!(after_second.hits - after_first.hits, evaluations);
        assert!(cached.statistics().unwrap().contains("cache"));
        assert_eq!(
            cached.counters().evaluations,
            2 * plain.counters().evaluations
        );
    }

    #[test]
    fn same_seed_same_choice_and_none_without_moves() {
        let game = Game::new(Position::startpos());
        let a = engine(9).go(&game, &SearchLimits::nodes(100), &mut |_| {});
        let b = engine(9).go(&game, &SearchLimits::nodes(100), &mut |_| {});
        assert_eq!(a.best_move, b.best_move);
        assert_eq!(a.pv, b.pv);
        let stuck = Game::new(Position::from_fen("W:Wa1:Bb2,c3").unwrap());
        assert_eq!(
            engine(1)
                .go(&stuck, &SearchLimits::default(), &mut |_| {})
                .best_move,
            None
        );
    }
}
