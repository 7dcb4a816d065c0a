//! MCTS-solver: terminal results propagate up the tree as proven values; a
//! proven root ends the search early and is reported as `mate N` (or a
//! proven draw), and a proven-lost move is never played while another
//! exists.

use shashki_rules::{Game, Position};
use shashki_search::mcts::MctsEngine;
use shashki_search::mcts::{Proof, Search};
use shashki_search::stand_ins::UniformEvaluator;
use shashki_search::{
    Engine, EvalRequest, Evaluation, Evaluator, Score, SearchConfig, SearchLimits,
};
use std::time::{Duration, Instant};

fn engine() -> MctsEngine<UniformEvaluator> {
    MctsEngine::new(
        UniformEvaluator::draw(),
        SearchConfig::default(),
        7,
        "uniform",
    )
    .unwrap()
}

#[test]
fn a_forced_win_is_proven_and_reported_as_mate() {
    // 1. b4-c5 b6:d4 2. c3:e5:g7 takes both black men: a win in 3 plies,
    // which a uniform evaluator (no knowledge at all) finds by proof alone.
    let game = Game::new(Position::from_fen("W:Wb2,c3,b4:Bb6,f6").unwrap());
    let report = engine().go(&game, &SearchLimits::nodes(100_000), &mut |_| {});
    assert_eq!(report.score, Score::Mate(3));
    assert_eq!(report.best_move.unwrap().to_string(), "b4-c5");
    assert!(
        report.nodes < 100_000,
        "stopped early: {} simulations",
        report.nodes
    );
    let pv: Vec<String> = report.pv.iter().map(|m| m.to_string()).collect();
    assert_eq!(pv[..3], ["b4-c5", "b6:d4", "c3:e5:g7"]);
}

#[test]
fn a_lost_root_is_proven_and_still_answers_in_time() {
    // Every White move loses both men within two plies.
    let game = Game::new(Position::from_fen("W:Wb2,b4:Ba3,c3").unwrap());
    assert!(game.legal_moves().len() >= 2);
    let report = engine().go(&game, &SearchLimits::nodes(10_000), &mut |_| {});
    assert_eq!(report.score, Score::Mate(-2));
    let start = Instant::now();
    let report = engine().go(
        &game,
        &SearchLimits::movetime(Duration::from_millis(50)),
        &mut |_| {},
    );
    assert!(start.elapsed() < Duration::from_millis(500));
    assert_eq!(report.score, Score::Mate(-2));
    let mv = report.best_move.unwrap();
    assert!(game.legal_moves().iter().any(|m| *m == mv));
}

#[test]
fn a_proven_root_stops_the_search_and_keeps_proofs_consistent() {
    let game = Game::new(Position::from_fen("W:Wb2,c3,b4:Bb6,f6").unwrap());
    let mut search = Search::new(game, SearchConfig::default().with_simulations(50_000)).unwrap();
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    let result = search.run(&UniformEvaluator::draw(), &mut rng).unwrap();
    assert_eq!(result.proof, Proof::Win(3));
    assert_eq!(search.root_proof(), Proof::Win(3));
    assert!(result.simulations < 50_000);
    assert_eq!(result.value, 1.0, "a proven win has the exact value");
}

#[test]
fn a_move_proven_lost_is_avoided() {
    // White's last man may go to d4 (taken by e5:c3: the game is lost) or
    // to b4 (the game goes on).
    let game = Game::new(Position::from_fen("W:Wc3:Be5,h8").unwrap());
    for seed in 0..5 {
        let mut e =
            MctsEngine::new(UniformEvaluator::draw(), SearchConfig::default(), seed, "u").unwrap();
        let report = e.go(&game, &SearchLimits::nodes(2_000), &mut |_| {});
        assert_ne!(
            report.best_move.unwrap().to_string(),
            "c3-d4",
            "seed {seed}: played into a proven loss"
        );
    }
}

/// Counts the positions it evaluates.
#[derive(Default)]
struct Counting(std::sync::atomic::AtomicUsize);

impl Evaluator for Counting {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        self.0
            .fetch_add(batch.len(), std::sync::atomic::Ordering::Relaxed);
        UniformEvaluator::draw().evaluate(batch, out);
    }
}

#[test]
fn passing_forced_moves_proves_the_shot_with_fewer_evaluations() {
    // b6:d4 is Black's only move after b4-c5: passed through, it costs no
    // evaluation, and the proof is the same.
    let game = Game::new(Position::from_fen("W:Wb2,c3,b4:Bb6,f6").unwrap());
    let mut calls = Vec::new();
    for pass in [true, false] {
        let config = SearchConfig {
            pass_forced_moves: pass,
            ..SearchConfig::default().with_simulations(50_000)
        };
        let mut search = Search::new(game.clone(), config).unwrap();
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        let counting = Counting::default();
        let result = search.run(&counting, &mut rng).unwrap();
        assert_eq!(result.proof, Proof::Win(3), "pass {pass}");
        assert_eq!(result.best_move.to_string(), "b4-c5");
        let pv: Vec<String> = result
            .principal_variation
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(pv[..3], ["b4-c5", "b6:d4", "c3:e5:g7"]);
        calls.push(counting.0.into_inner());
    }
    assert!(calls[0] < calls[1], "evaluations with / without: {calls:?}");
}
