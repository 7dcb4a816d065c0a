//! Time is law: every engine answers `go movetime 50` within the limit plus
//! its documented overhead in every kind of position (one legal move, no
//! legal move, lost and won endgames, king endings, positions one move
//! away from a draw rule's limit), with node limits far beyond reach.
//!
//! The bound checked is 10x the limit so that a loaded CI machine cannot fail
//! it by noise; `shashki bench-time` (docs/BENCHMARKS.md) reports the real
//! overshoot. Before the fix, MCTS never returned in several of these.

use rand::SeedableRng;
use rand::prelude::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use shashki_rules::{Game, Position};
use shashki_search::mcts::MctsEngine;
use shashki_search::stand_ins::{RolloutEvaluator, UniformEvaluator};
use shashki_search::{
    AlphaBeta, Engine, EvalRequest, Evaluation, Evaluator, SearchConfig, SearchLimits,
};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_millis(50);
const BOUND: Duration = Duration::from_millis(500);

/// A stand-in for a network: uniform priors, a drawish value, and 2 ms per
/// call, so a batch finishing after the deadline is part of the overhead.
struct SlowEvaluator;

impl Evaluator for SlowEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        std::thread::sleep(Duration::from_millis(2));
        UniformEvaluator::draw().evaluate(batch, out);
    }
}

/// Plays seeded random moves from `fen` until a draw rule (or a win) ends
/// the game, and returns the game one ply before that end: the counters
/// stand one move from the rule's limit.
fn one_move_before_the_end(fen: &str, seed: u64) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(Position::from_fen(fen).unwrap());
    while !game.is_over() && game.ply() < 400 {
        let moves = game.legal_moves();
        let mv = *moves.as_slice().choose(&mut rng).unwrap();
        game.play(&mv);
    }
    if game.is_over() {
        game.undo();
    }
    game
}

fn positions() -> Vec<(String, Game)> {
    let fens = [
        "W:WKa1:Bh8",      // king against a man (hung before the fix)
        "W:WKa1,Kc1:BKh8", // kings against a lone king (hung before)
        "W:WKa1:BKh8",     // one king each
        "W:WKa1,Kc3,e3:BKh8,f6,d8",
        "W:WKa1,Kc3,Ke5:BKh8", // three kings against one on the main road
        "W:Wc3:Bd4",           // one legal move (a capture)
        "W:Wc3:Bd4,f6",        // lost in two plies
        "W:Wb2,c3,b4:Bb6,f6",  // won in three plies
        "W:Wa1:Bb2,c3",        // no legal move
        "B:WKa1,Kb2,Kc3,Kd4:BKh8,Kg7",
    ];
    let mut games: Vec<(String, Game)> = fens
        .iter()
        .map(|fen| (fen.to_string(), Game::new(Position::from_fen(fen).unwrap())))
        .collect();
    // Near every counting rule: king endings of several sizes and a
    // men-and-kings ending, walked to one move before their draw.
    for (i, fen) in [
        "W:WKa1,Kc1:BKh8",
        "W:WKa1,Kc3,Ke5:BKh8",
        "W:WKa1,Kc3:BKh8,Kf8",
        "W:WKa1,c3,e3:BKh8,f6",
        "W:WKb2,Kd2,Kf2,Kh2:BKa7,Kc7",
        "W:Wa1,c1,e1,g1,Kb2:Ba7,c7,e7,g7,Kh8",
    ]
    .iter()
    .enumerate()
    {
        let game = one_move_before_the_end(fen, i as u64);
        games.push((format!("{fen} +{} plies", game.ply()), game));
    }
    games
}

fn check(engine: &mut dyn Engine, name: &str, limits: SearchLimits) {
    for (label, game) in positions() {
        let start = Instant::now();
        let report = engine.go(&game, &limits, &mut |_| {});
        let took = start.elapsed();
        assert!(
            took < BOUND,
            "{name}: {label}: answered after {took:?} (limit {LIMIT:?})"
        );
        if !game.legal_moves().is_empty() {
            let mv = report.best_move.expect("a move when one exists");
            assert!(
                game.legal_moves().iter().any(|m| *m == mv),
                "{name}: {label}"
            );
        }
        engine.new_game();
    }
}

fn movetime_with_huge_nodes() -> SearchLimits {
    SearchLimits {
        nodes: Some(u64::from(u32::MAX)),
        ..SearchLimits::movetime(LIMIT)
    }
}

#[test]
fn mcts_with_rollouts_answers_in_time_everywhere() {
    let mut engine = MctsEngine::new(
        RolloutEvaluator::new(1, 3),
        SearchConfig::default(),
        3,
        "mcts",
    )
    .unwrap();
    check(&mut engine, "mcts", SearchLimits::movetime(LIMIT));
    check(&mut engine, "mcts", movetime_with_huge_nodes());
}

#[test]
fn parallel_mcts_with_a_slow_evaluator_answers_in_time_everywhere() {
    let config = SearchConfig {
        leaves_per_batch: 8,
        ..SearchConfig::default()
    };
    let mut engine = MctsEngine::new(SlowEvaluator, config, 5, "slow")
        .unwrap()
        .with_threads(2);
    check(&mut engine, "parallel mcts", SearchLimits::movetime(LIMIT));
    // A clock with 2 s left: the time manager plans far less than 500 ms.
    let clock = SearchLimits::clock(
        (Duration::from_secs(2), Duration::ZERO),
        (Duration::from_secs(2), Duration::ZERO),
    );
    check(&mut engine, "parallel mcts, clock", clock);
}

#[test]
fn alpha_beta_answers_in_time_everywhere() {
    let mut engine = AlphaBeta::default();
    check(&mut engine, "alpha-beta", SearchLimits::movetime(LIMIT));
    check(&mut engine, "alpha-beta", movetime_with_huge_nodes());
}

#[test]
fn a_stop_ends_an_infinite_search_at_once() {
    let mut engine = MctsEngine::new(SlowEvaluator, SearchConfig::default(), 1, "slow")
        .unwrap()
        .with_threads(2);
    let stop = engine.stop_handle().unwrap();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        stop.stop();
    });
    let game = Game::new(Position::startpos());
    let start = Instant::now();
    let report = engine.go(&game, &SearchLimits::infinite(), &mut |_| {});
    let took = start.elapsed();
    stopper.join().unwrap();
    assert!(
        took >= Duration::from_millis(100),
        "ran until stopped: {took:?}"
    );
    assert!(took < Duration::from_millis(100) + BOUND, "{took:?}");
    assert!(report.best_move.is_some() && report.nodes > 0);
}
