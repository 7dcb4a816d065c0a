//! MCTS behind the [`Engine`] trait, for `shashki analyse|play|engine` and
//! the arena: one [`Search`] kept between moves of a game (tree reuse), any
//! [`Evaluator`] (rollouts now, the network later).

use crate::engine::{Engine, Score, SearchReport};
use crate::evaluator::{EvalRequest, Evaluation, Evaluator};
use crate::limits::SearchLimits;
use crate::mcts::{Search, SearchConfig, SearchError};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shashki_rules::Game;
use std::time::{Duration, Instant};

/// An MCTS engine over evaluator `E`.
///
/// Limits: `nodes` is the number of simulations, `movetime` stops the search
/// early (checked between batches); with neither, the configuration's
/// `full_simulations` apply. `depth` does not apply to MCTS and is ignored.
pub struct MctsEngine<E: Evaluator> {
    evaluator: E,
    config: SearchConfig,
    seed: u64,
    rng: ChaCha8Rng,
    search: Option<Search>,
    description: String,
}

impl<E: Evaluator> MctsEngine<E> {
    /// An engine with this evaluator, configuration and seed; `description`
    /// names it (e.g. `mcts (rollouts)`).
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
        })
    }

    /// Runs one search within `limits` (the root must have legal moves and
    /// no outcome yet).
    fn run(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        start: Instant,
    ) -> Result<SearchReport, SearchError> {
        let simulations = limits
            .nodes
            .map(|n| n.clamp(1, u64::from(u32::MAX)) as u32)
            .or(limits.movetime.map(|_| u32::MAX))
            .unwrap_or(self.config.full_simulations);
        let config = self.config.clone().with_simulations(simulations);
        let search = match &mut self.search {
            Some(search) => {
                search.sync_to(game);
                search.set_config(config)?;
                search
            }
            None => self.search.insert(Search::new(game.clone(), config)?),
        };
        let deadline = limits.movetime.map(|t| start + t);
        search.begin(&mut self.rng)?;
        let batch = search.config().leaves_per_batch.max(1) as usize;
        let mut evals: Vec<Evaluation> = Vec::new();
        while !search.done() {
            // Stop on time only once a simulation has run, so a move exists.
            if let Some(deadline) = deadline
                && search.simulations() > 0
                && Instant::now() >= deadline
            {
                break;
            }
            let leaves = search.select_leaves(batch);
            if leaves.is_empty() {
                continue;
            }
            let requests: Vec<EvalRequest<'_>> = leaves.iter().map(|l| l.eval_request()).collect();
            evals.resize_with(requests.len(), Evaluation::default);
            self.evaluator.evaluate(&requests, &mut evals);
            search.apply(&evals)?;
        }
        let result = search.finish(&mut self.rng)?;
        Ok(SearchReport {
            best_move: Some(result.best_move),
            score: Score::Value(result.value),
            depth: result.principal_variation.len() as u32,
            nodes: u64::from(result.simulations),
            elapsed: start.elapsed(),
            pv: result.principal_variation,
        })
    }
}

impl<E: Evaluator> Engine for MctsEngine<E> {
    fn description(&self) -> String {
        self.description.clone()
    }

    fn new_game(&mut self) {
        self.search = None;
        self.rng = ChaCha8Rng::seed_from_u64(self.seed);
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
        match self.run(game, limits, start) {
            Ok(found) => report = found,
            // Only a broken evaluator gets here (the configuration was
            // validated and the root is live): keep the first legal move,
            // start afresh next time, and say so.
            Err(err) => {
                eprintln!("mcts search failed ({err}); playing {}", moves[0]);
                self.search = None;
            }
        }
        progress(&report);
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluators::RolloutEvaluator;
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
        assert!(
            matches!(report.score, Score::Value(v) if v > 0.5),
            "{:?}",
            report.score
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
