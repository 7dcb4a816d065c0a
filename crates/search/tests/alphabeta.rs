//! The reference alpha-beta engine: forced wins found with their exact
//! length, legal moves only, determinism, limits, and play against a random
//! mover.

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::{Color, Game, GameResult, Move, Position};
use shashki_search::alphabeta::{EvalWeights, HandEval, MATE, MATE_BOUND, StaticEval};
use shashki_search::{AbConfig, AlphaBeta, Score, SearchLimits};

fn small_engine() -> AlphaBeta {
    engine_on(1)
}

fn engine_on(threads: usize) -> AlphaBeta {
    AlphaBeta::new(AbConfig {
        tt_megabytes: 4,
        threads,
        ..AbConfig::default()
    })
}

fn game_from(fen: &str) -> Game {
    Game::new(Position::from_fen(fen).expect("test FEN is valid"))
}

/// Searches `fen` and checks the best move and the exact mate score
/// (`plies` half-moves to the end; negative when the side to move loses),
/// on one thread and on two (Lazy SMP with shared work).
fn assert_forced(fen: &str, depth: u32, best: Option<&str>, plies: i32) {
    for (flip, threads) in [(false, 1), (true, 1), (false, 2), (true, 2)] {
        let mut position = Position::from_fen(fen).unwrap();
        if flip {
            // The same position with colours swapped must give the same answer.
            position = position.flipped();
        }
        let game = Game::new(position);
        let result = engine_on(threads).search(&game, &SearchLimits::depth(depth));
        assert_eq!(
            result.score_kind(),
            Score::Mate(plies),
            "{fen} flipped={flip} threads={threads}: {result:?}"
        );
        if let Some(best) = best {
            let mv = result.best_move.expect("a move exists");
            let expected = Position::from_fen(fen).unwrap().parse_move(best).unwrap();
            let (from, to) = if flip {
                (mv.from().rotated(), mv.to().rotated())
            } else {
                (mv.from(), mv.to())
            };
            assert_eq!(
                (from, to),
                (expected.from(), expected.to()),
                "{fen} flipped={flip}: {mv}"
            );
        }
        // The principal variation plays out to the announced end.
        let mut line = game.clone();
        for mv in &result.pv {
            assert!(
                line.legal_moves().iter().any(|m| m == mv),
                "PV move {mv} illegal"
            );
            line.play(mv);
        }
        if plies > 0 {
            assert_eq!(result.pv.len(), plies as usize, "{fen}: PV {:?}", result.pv);
            let outcome = line.outcome().expect("the PV ends the game");
            assert_eq!(outcome.result.winner(), Some(game.side_to_move()));
        }
    }
}

#[test]
fn wins_in_one_by_blocking_the_last_man() {
    // Black's only man a3 moves to b2 or captures b2 landing on c1. After
    // a1-b2 both are shut (b2 taken, c1 occupied): Black cannot move and loses.
    // c1-b2 would lose the man to a3:c1 instead.
    assert_forced("W:Wa1,c1:Ba3", 4, Some("a1-b2"), 1);
}

#[test]
fn wins_in_two_with_a_waiting_move() {
    // Black's a5 can only go to b4, where c3 takes it (c3:a5). White first
    // waits with h2-g3; c3-b4 would hand Black a capture, c3-d4 loses the
    // grip on b4.
    assert_forced("W:Wc3,h2:Ba5", 6, Some("h2-g3"), 3);
}

#[test]
fn wins_in_two_with_a_sacrifice_shot() {
    // 1. b4-c5 b6:d4 (forced; it cannot go on: b2 is occupied behind c3)
    // 2. c3:e5:g7 takes both remaining black men.
    assert_forced("W:Wb2,c3,b4:Bb6,f6", 6, Some("b4-c5"), 3);
}

#[test]
fn wins_in_three_when_every_black_move_drops_a_man() {
    // After g3-f4 each black move loses a man: f6-e5 f4:d6, f6-g5 f4:h6,
    // a3-b2 c3:a1; the other man then has to walk into the remaining
    // capture (a3 only has b2; f6-e5/g5 meet the f4 man). Two black men
    // cannot both go in fewer than three White moves, as White's first move
    // captures nothing.
    assert_forced("W:Wc3,g3:Ba3,f6", 6, Some("g3-f4"), 5);
}

#[test]
fn quiescence_sees_the_shot_at_depth_one() {
    // Depth 1 stops after b4-c5, but a position with a capture due is never
    // a leaf: b6:d4 and c3:e5:g7 are searched, and the win is exact.
    let game = game_from("W:Wb2,c3,b4:Bb6,f6");
    let result = small_engine().search(&game, &SearchLimits::depth(1));
    assert_eq!(result.score_kind(), Score::Mate(3), "{result:?}");
    assert_eq!(result.best_move.unwrap().to_string(), "b4-c5");
}

#[test]
fn a_worse_side_claims_a_threefold_repetition() {
    // White (king and two men against king and three men) shuffles its king;
    // after the history below, f2-g1 makes the position after White's move
    // occur for the third time: a draw, better than White's material deficit.
    let mut game = game_from("W:WKh2,d4,e3:BKb8,f8,h8,h6");
    for text in [
        "h2-g1", "b8-a7", "g1-h2", "a7-b8", "h2-g1", "b8-a7", "g1-f2", "a7-b8",
    ] {
        let mv = game.position().parse_move(text).unwrap();
        game.play(&mv);
    }
    let result = small_engine().search(&game, &SearchLimits::depth(4));
    assert_eq!(result.best_move.unwrap().to_string(), "f2-g1");
    assert_eq!(result.score, 0);
    // Without the history the same board is simply worse for White.
    let fresh = small_engine().search(&Game::new(*game.position()), &SearchLimits::depth(4));
    assert!(fresh.score < -50, "{}", fresh.score);
    game.play(&result.best_move.unwrap());
    let outcome = game.outcome().expect("drawn");
    assert_eq!(outcome.result, GameResult::Draw);
    assert_eq!(outcome.reason, shashki_rules::EndReason::Repetition);
}

#[test]
fn sees_its_own_forced_loss() {
    // Black to move: a5-b4 is the only move, then c3:a5 ends the game.
    assert_forced("B:Wc3,g3:Ba5", 6, Some("a5-b4"), -2);
}

#[test]
fn king_against_king_is_a_draw_and_no_king_is_given_away() {
    // One king each is drawn by rule 2 at once unless a capture can be
    // forced within 3 half-moves (RULES.md): W:WKc1:BKh8 is drawn, but the
    // a1 king facing h8 must move along a1-h8 and is taken, and the engine
    // sees that loss.
    let game = game_from("W:WKc1:BKh8");
    assert!(game.is_over());
    let result = small_engine().search(&game, &SearchLimits::depth(4));
    assert_eq!(result.score, 0, "{result:?}");
    let game = game_from("W:WKa1:BKh8");
    assert!(!game.is_over());
    let result = small_engine().search(&game, &SearchLimits::depth(4));
    assert!(result.score < -MATE_BOUND, "{result:?}");
}

#[test]
fn no_legal_move_gives_none() {
    // White's only man a1 can neither step to b2 nor jump it (c3 is taken).
    let game = game_from("W:Wa1:Bb2,c3");
    assert!(game.legal_moves().is_empty());
    let result = small_engine().search(&game, &SearchLimits::depth(3));
    assert_eq!(result.best_move, None);
    assert!(result.score < -MATE_BOUND);
    assert!(result.pv.is_empty());
}

#[test]
fn fixed_depth_search_is_deterministic() {
    let game = Game::new(Position::startpos());
    let mut engine = small_engine();
    let first = engine.search(&game, &SearchLimits::depth(6));
    // Search something else in between: tables must not leak into the result.
    engine.search(&game_from("W:Wc3,h2:Ba5"), &SearchLimits::depth(5));
    let second = engine.search(&game, &SearchLimits::depth(6));
    let fresh = small_engine().search(&game, &SearchLimits::depth(6));
    assert_eq!(first.depth, 6);
    for other in [&second, &fresh] {
        assert_eq!(first.best_move, other.best_move);
        assert_eq!(first.score, other.score);
        assert_eq!(first.pv, other.pv);
        assert_eq!(first.nodes, other.nodes);
    }
    assert!(first.score.abs() < MATE_BOUND);
}

#[test]
fn node_limit_stops_the_search_but_a_move_is_always_found() {
    let game = Game::new(Position::startpos());
    let depth_one = small_engine().search(&game, &SearchLimits::depth(1));
    let limited = small_engine().search(&game, &SearchLimits::nodes(1));
    assert_eq!(limited.depth, 1, "the first iteration always completes");
    assert!(limited.best_move.is_some());
    // Only the node that noticed the limit is counted beyond depth 1.
    assert!(
        limited.nodes <= depth_one.nodes + 1,
        "{} nodes",
        limited.nodes
    );
    assert_eq!(limited.best_move, depth_one.best_move);

    let budget = 3_000;
    let result = small_engine().search(&game, &SearchLimits::nodes(budget));
    assert!(result.nodes <= budget + 1, "{} nodes", result.nodes);
    assert!(result.depth >= 3, "reached depth {}", result.depth);
    assert!(result.depth < MATE as u32);
}

/// Plays `plies` random moves from the start (fewer if the game ends).
fn random_game(seed: u64, plies: usize) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(Position::startpos());
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.legal_moves();
        let mv = moves[rng.random_range(0..moves.len())];
        game.play(&mv);
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// From positions reached by random play, the engine returns a legal
    /// move (None exactly when there is none) and a legal principal variation.
    #[test]
    fn never_returns_an_illegal_move(seed in any::<u64>(), plies in 0usize..140, depth in 1u32..5) {
        let game = random_game(seed, plies);
        let result = small_engine().search(&game, &SearchLimits::depth(depth));
        let legal = game.legal_moves();
        match result.best_move {
            None => prop_assert!(legal.is_empty()),
            Some(mv) => {
                prop_assert!(legal.iter().any(|m| *m == mv), "illegal {}", mv);
                prop_assert_eq!(result.pv.first(), Some(&mv));
            }
        }
        let mut line = game.clone();
        for mv in &result.pv {
            prop_assert!(line.legal_moves().iter().any(|m| m == mv), "PV move {} illegal", mv);
            line.play(mv);
        }
    }
}

/// Plays one game, alpha-beta against a uniformly random mover; returns the
/// result (unfinished games after 400 plies count as draws).
fn play_vs_random(engine: &mut AlphaBeta, engine_color: Color, seed: u64) -> GameResult {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(Position::startpos());
    let limits = SearchLimits::depth(4);
    while game.ply() < 400 {
        if let Some(outcome) = game.outcome() {
            return outcome.result;
        }
        let moves = game.legal_moves();
        let mv = if game.side_to_move() == engine_color {
            engine
                .search(&game, &limits)
                .best_move
                .expect("moves exist")
        } else {
            moves[rng.random_range(0..moves.len())]
        };
        game.play(&mv);
    }
    GameResult::Draw
}

#[test]
fn depth_four_beats_a_random_mover() {
    let mut engine = small_engine();
    let mut wins = 0;
    let mut results = Vec::new();
    for game_index in 0..20u64 {
        let color = if game_index % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let result = play_vs_random(&mut engine, color, 1000 + game_index);
        if result.winner() == Some(color) {
            wins += 1;
        }
        results.push(result);
    }
    assert!(wins >= 18, "won {wins} of 20: {results:?}");
}

/// A [`StaticEval`] that tracks the line it is told about and checks that
/// every evaluation is asked at the node it was brought to.
struct TrackingEval {
    line: Vec<Position>,
    inner: HandEval,
}

impl StaticEval for TrackingEval {
    fn name(&self) -> String {
        "tracking".into()
    }
    fn reset(&mut self, root: &Position) {
        self.line = vec![*root];
    }
    fn push(&mut self, before: &Position, mv: &Move, after: &Position) {
        assert_eq!(self.line.last(), Some(before), "push from another node");
        assert_eq!(before.make_move(mv), *after);
        self.line.push(*after);
    }
    fn pop(&mut self) {
        assert!(self.line.len() > 1, "pop past the root");
        self.line.pop();
    }
    fn evaluate(&mut self, pos: &Position) -> i32 {
        assert_eq!(self.line.last(), Some(pos), "evaluated off the line");
        self.inner.evaluate(pos)
    }
    fn fork(&self) -> Box<dyn StaticEval> {
        Box::new(TrackingEval {
            line: Vec::new(),
            inner: self.inner.clone(),
        })
    }
}

fn tracking_engine(threads: usize) -> AlphaBeta {
    AlphaBeta::with_eval(
        AbConfig {
            tt_megabytes: 4,
            threads,
            ..AbConfig::default()
        },
        Box::new(TrackingEval {
            line: Vec::new(),
            inner: HandEval::new(&EvalWeights::default()),
        }),
    )
}

#[test]
fn the_evaluator_is_told_every_move_and_gives_the_hand_result() {
    let game = random_game(5, 30);
    let tracked = tracking_engine(1).search(&game, &SearchLimits::depth(6));
    let plain = small_engine().search(&game, &SearchLimits::depth(6));
    assert_eq!(tracked.score, plain.score);
    assert_eq!(tracked.pv, plain.pv);
    assert_eq!(tracked.nodes, plain.nodes);
}

#[test]
fn lazy_smp_threads_find_the_same_forced_win_and_count_all_nodes() {
    let game = game_from("W:Wc3,g3:Ba3,f6");
    let single = tracking_engine(1).search(&game, &SearchLimits::depth(8));
    let mut engine = tracking_engine(2);
    let result = engine.search(&game, &SearchLimits::depth(8));
    assert_eq!(result.score_kind(), Score::Mate(5), "{result:?}");
    assert_eq!(result.score, single.score);
    assert_eq!(result.best_move.unwrap().to_string(), "g3-f4");
    // Two threads under a node budget stop together, near the budget.
    let game = Game::new(Position::startpos());
    let limited = engine.search(&game, &SearchLimits::nodes(20_000));
    assert!(limited.best_move.is_some());
    assert!(
        limited.nodes <= 20_000 + 2 * 1024,
        "{} nodes",
        limited.nodes
    );
    assert!(limited.nodes >= 10_000, "{} nodes", limited.nodes);
}

#[test]
fn movetime_is_kept_with_two_threads() {
    let game = Game::new(Position::startpos());
    let started = std::time::Instant::now();
    let result = tracking_engine(2).search(
        &game,
        &SearchLimits::movetime(std::time::Duration::from_millis(200)),
    );
    assert!(result.best_move.is_some());
    assert!(result.depth >= 4, "depth {}", result.depth);
    assert!(
        started.elapsed() < std::time::Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
}
