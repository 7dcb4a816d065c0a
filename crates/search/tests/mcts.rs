//! MCTS behaviour: tactics, bookkeeping, reproducibility, terminal nodes,
//! Gumbel with tiny budgets, tree reuse, playout caps, and a match against
//! a random mover.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::{DrawRules, EndReason, Game, GameResult, Move, Position};
use shashki_search::mcts::tree::{NodeId, NodeState, Tree};
use shashki_search::mcts::{Algorithm, Search, SearchConfig, SearchError, SearchResult};
use shashki_search::stand_ins::{RolloutEvaluator, UniformEvaluator};
use shashki_search::{EvalRequest, Evaluation, Evaluator, Wdl};

fn game(fen: &str) -> Game {
    Game::new(Position::from_fen(fen).expect("test FEN"))
}

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn puct(simulations: u32) -> SearchConfig {
    SearchConfig::with_algorithm(Algorithm::Puct).with_simulations(simulations)
}

fn gumbel(simulations: u32) -> SearchConfig {
    SearchConfig::with_algorithm(Algorithm::Gumbel).with_simulations(simulations)
}

fn search(game: Game, config: SearchConfig, evaluator: &impl Evaluator, seed: u64) -> SearchResult {
    Search::new(game, config)
        .unwrap()
        .run(evaluator, &mut rng(seed))
        .unwrap()
}

/// The same move seen from the other side (the board turned by 180 degrees).
fn flip_notation(mv: &str) -> String {
    mv.chars()
        .map(|c| match c {
            'a'..='h' => (b'h' - (c as u8 - b'a')) as char,
            '1'..='8' => (b'8' - (c as u8 - b'1')) as char,
            other => other,
        })
        .collect()
}

/// Forced combinations, each verified by hand (and by the alpha-beta engine
/// at depth 12: the shot is the only winning move).
const SHOTS: [(&str, &str, &str); 4] = [
    // 1. b4-c5! b6:d4 (forced) 2. c3:e5:g7 takes both black men: game won.
    // (b2 stops the black man from going on d4:b2.)
    ("W:Wb2,c3,b4:Bb6,f6", "b4-c5", "wins the game"),
    // 1. d4-e5! f6:d4 (forced) 2. h4:f6:d8:a5:c3:e5: the man takes g5 and e7,
    // is crowned on d8 and as a king takes c7, b4 and d4: all five men.
    ("W:Wf2,d4,h4:Bb4,g5,f6,c7,e7", "d4-e5", "wins the game"),
    // 1. b2-c3! d2:b4 2. a3:c5:e3:g1 (b4, d4, f2; crowned) or 1... d4:b2
    // 2. a3:c1:e3:g1 (b2, d2, f2): a king and a man against g7 wins.
    ("W:Wb2,a3,f4:Bd2,f2,d4,g7", "b2-c3", "wins the game"),
    // 1. g3-f4! e3:g5 (forced) 2. h4:f6:d8 takes g5 and e7 and is crowned:
    // two men for one, and a king.
    ("W:Wb2,g3,h4,e5:Be3,a5,c5,a7,e7", "g3-f4", "wins material"),
];

#[test]
fn puct_with_rollouts_finds_the_shots() {
    let evaluator = RolloutEvaluator::new(2, 11);
    for (fen, shot, what) in SHOTS {
        let result = search(game(fen), puct(1500), &evaluator, 1);
        assert_eq!(result.best_move.to_string(), shot, "{fen}: the shot {what}");
        assert!(result.value > 0.3, "{fen}: value {}", result.value);
    }
}

#[test]
fn black_finds_the_mirrored_shots() {
    let evaluator = RolloutEvaluator::new(2, 12);
    for (fen, shot, _) in SHOTS {
        let mirrored = Position::from_fen(fen).unwrap().flipped();
        let result = search(Game::new(mirrored), puct(1500), &evaluator, 2);
        assert_eq!(
            result.best_move.to_string(),
            flip_notation(shot),
            "{}",
            mirrored.to_fen()
        );
    }
}

#[test]
fn gumbel_with_8_and_16_simulations_finds_the_shot() {
    // Easy positions: the shot wins at once, every other move loses.
    let evaluator = RolloutEvaluator::new(4, 5);
    for (fen, shot, _) in [SHOTS[1], SHOTS[2]] {
        let g = game(fen);
        let legal: Vec<Move> = g.legal_moves().iter().copied().collect();
        for simulations in [8, 16] {
            // For play (no Gumbel noise) the shot is always chosen.
            let config = SearchConfig {
                gumbel_scale: 0.0,
                ..gumbel(simulations)
            };
            let result = search(g.clone(), config, &evaluator, 0);
            assert_eq!(
                result.best_move.to_string(),
                shot,
                "{fen}: {simulations} simulations, no noise"
            );
            // For self-play the move is a sample from the improved policy:
            // the shot gets most of it, and is chosen for most seeds.
            let mut chosen = 0;
            for seed in 0..10 {
                let result = search(g.clone(), gumbel(simulations), &evaluator, seed);
                let context = format!("{fen}: {simulations} simulations, seed {seed}");
                chosen += usize::from(result.best_move.to_string() == shot);
                // The whole budget, unless the solver proved the root first.
                if result.proof.is_proven() {
                    assert!(result.simulations <= simulations, "{context}");
                } else {
                    assert_eq!(result.simulations, simulations, "{context}");
                }
                let moves: Vec<Move> = result.policy.iter().map(|(mv, _)| *mv).collect();
                assert_eq!(
                    moves, legal,
                    "{context}: the policy covers exactly the legal moves"
                );
                let total: f32 = result.policy.iter().map(|(_, p)| p).sum();
                assert!((total - 1.0).abs() < 1e-5, "{context}");
                assert!(result.policy.iter().all(|(_, p)| *p >= 0.0), "{context}");
                let (best, p) = result
                    .policy
                    .iter()
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .unwrap();
                assert_eq!(
                    best.to_string(),
                    shot,
                    "{context}: the improved policy prefers the shot"
                );
                assert!(*p > 0.5, "{context}: {p}");
            }
            assert!(
                chosen >= 8,
                "{fen}: {simulations} simulations: the shot chosen for {chosen} seeds of 10"
            );
        }
    }
}

#[test]
fn gumbel_with_64_simulations_finds_every_shot() {
    let evaluator = RolloutEvaluator::new(4, 5);
    let config = SearchConfig {
        gumbel_scale: 0.0,
        ..gumbel(64)
    };
    for (fen, shot, _) in SHOTS {
        let result = search(game(fen), config.clone(), &evaluator, 3);
        assert_eq!(result.best_move.to_string(), shot, "{fen}");
    }
}

/// Checks node by node that visits add up: an expanded node's visits are its
/// own evaluation plus its children's visits (a forced move passed through
/// has no evaluation of its own; a proven node counts the descents that
/// stopped at it too); terminal nodes have no edges.
fn check_visits(tree: &Tree, id: NodeId, terminal_seen: &mut usize) {
    let node = tree.node(id);
    assert_eq!(node.in_flight(), 0);
    match node.state() {
        NodeState::Expanded => {
            let children: u32 = tree
                .edges(id)
                .iter()
                .filter_map(|e| e.child())
                .map(|c| tree.node(c).visits())
                .sum();
            let own = u32::from(!node.is_passed_through());
            if node.proof().is_proven() {
                // Descents stop at a proven node and count their visit there.
                assert!(node.visits() >= children + own, "node {id}");
            } else {
                assert_eq!(node.visits(), children + own, "node {id}");
            }
            for child in tree.edges(id).iter().filter_map(|e| e.child()) {
                check_visits(tree, child, terminal_seen);
            }
        }
        NodeState::Terminal => {
            *terminal_seen += 1;
            assert_eq!(node.num_edges(), 0, "a terminal node is never expanded");
            assert!(node.visits() > 0);
        }
        NodeState::Unexpanded | NodeState::Pending => {
            panic!("node {id} left {:?} after a finished search", node.state())
        }
    }
}

#[test]
fn visit_counts_add_up() {
    for (algorithm, leaves) in [
        (Algorithm::Puct, 1),
        (Algorithm::Puct, 8),
        (Algorithm::Gumbel, 1),
        (Algorithm::Gumbel, 8),
    ] {
        let config = SearchConfig {
            leaves_per_batch: leaves,
            ..SearchConfig::with_algorithm(algorithm).with_simulations(600)
        };
        let mut s = Search::new(game(SHOTS[1].0), config).unwrap();
        let result = s.run(&RolloutEvaluator::new(1, 3), &mut rng(4)).unwrap();
        // The whole budget, unless the solver proved the root first.
        if result.proof.is_proven() {
            assert!(result.simulations <= 600);
        } else {
            assert_eq!(result.simulations, 600);
        }
        let root = s.tree().node(Tree::ROOT);
        assert_eq!(
            root.visits(),
            result.simulations + 1,
            "{algorithm:?} x{leaves}: root = simulations + its own evaluation"
        );
        let child_visits: u32 = result.children.iter().map(|c| c.visits).sum();
        assert_eq!(child_visits + 1, root.visits());
        let mut terminal = 0;
        check_visits(s.tree(), Tree::ROOT, &mut terminal);
        assert!(
            terminal > 0,
            "the shot's line ends the game inside the tree"
        );
        if algorithm == Algorithm::Puct {
            let policy_total: f32 = result.policy.iter().map(|(_, p)| p).sum();
            assert!((policy_total - 1.0).abs() < 1e-5);
            for (child, (mv, p)) in result.children.iter().zip(&result.policy) {
                assert_eq!(child.mv, *mv);
                assert!((p - child.visits as f32 / result.simulations as f32).abs() < 1e-6);
            }
        }
    }
}

#[test]
fn noise_and_move_choice_are_reproducible_from_the_seed() {
    let config = SearchConfig {
        root_noise: true,
        temperature: 1.0,
        ..puct(200)
    };
    let evaluator = UniformEvaluator::random(8);
    let start = Game::new(Position::startpos());
    let a = search(start.clone(), config.clone(), &evaluator, 42);
    let b = search(start.clone(), config.clone(), &evaluator, 42);
    assert_eq!(a, b);
    // Another seed draws other noise, so the visits differ.
    let c = search(start.clone(), config.clone(), &evaluator, 43);
    assert_ne!(a.policy, c.policy);
    // Temperature 1 samples: over seeds, more than one move gets played.
    let moves: std::collections::BTreeSet<String> = (0..12)
        .map(|seed| {
            search(start.clone(), config.clone(), &evaluator, seed)
                .best_move
                .to_string()
        })
        .collect();
    assert!(moves.len() > 1, "{moves:?}");
    // Gumbel is reproducible too.
    let g1 = search(start.clone(), gumbel(32), &evaluator, 5);
    let g2 = search(start, gumbel(32), &evaluator, 5);
    assert_eq!(g1, g2);
}

#[test]
fn noise_reaches_the_root_priors_and_is_undone() {
    let config = SearchConfig {
        root_noise: true,
        dirichlet_fraction: 0.5,
        ..puct(50)
    };
    let mut s = Search::new(Game::new(Position::startpos()), config).unwrap();
    let result = s.run(&UniformEvaluator::draw(), &mut rng(1)).unwrap();
    let priors: Vec<f32> = s
        .tree()
        .edges(Tree::ROOT)
        .iter()
        .map(|e| e.prior())
        .collect();
    assert!(
        priors.iter().any(|&p| (p - 1.0 / 7.0).abs() > 1e-3),
        "noisy priors in the tree: {priors:?}"
    );
    assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    // The result reports the clean priors.
    assert!(
        result
            .children
            .iter()
            .all(|c| (c.prior - 1.0 / 7.0).abs() < 1e-6)
    );
}

#[test]
fn a_finished_game_is_not_searched() {
    // White's only man is blocked: no legal move, White has lost.
    let blocked = game("W:Wa1:Bb2,c3");
    let err = Search::new(blocked, puct(10))
        .unwrap()
        .run(&UniformEvaluator::draw(), &mut rng(0));
    match err {
        Err(SearchError::GameOver(outcome)) => {
            assert_eq!(outcome.result, GameResult::BlackWins);
            assert_eq!(outcome.reason, EndReason::NoMoves);
        }
        other => panic!("expected GameOver, got {other:?}"),
    }
    // One king against one king, no capture: drawn at once.
    let bare = game("W:WKc1:BKh2");
    let err = Search::new(bare, puct(10))
        .unwrap()
        .run(&UniformEvaluator::draw(), &mut rng(0));
    assert!(
        matches!(err, Err(SearchError::GameOver(o)) if o.result == GameResult::Draw),
        "{err:?}"
    );
}

#[test]
fn drawn_and_lost_leaves_are_scored_by_the_arbiter_not_expanded() {
    // White's king must take b2 and may land on c3, d4, e5, f6, g7 or h8.
    // King against king is drawn at once, unless the side to move can
    // capture: on d4 the black king (a7) takes it and wins.
    let g = game("W:WKa1:BKa7,b2");
    let mut s = Search::new(g, puct(300)).unwrap();
    let result = s.run(&UniformEvaluator::draw(), &mut rng(3)).unwrap();
    let tree = s.tree();
    assert_eq!(tree.edges(Tree::ROOT).len(), 6);
    let mut losing = None;
    for edge in tree.edges(Tree::ROOT) {
        let id = edge.child().expect("every landing tried");
        let child = tree.node(id);
        if edge.mv().to().to_string() == "d4" {
            assert_eq!(child.state(), NodeState::Expanded);
            losing = Some(id);
        } else {
            assert_eq!(child.state(), NodeState::Terminal, "{}", edge.mv());
            assert_eq!(child.num_edges(), 0);
            assert_eq!(child.eval(), Wdl::DRAW);
            assert_eq!(child.wdl(), Wdl::DRAW);
        }
    }
    // Below d4: each black capture ends the game, a loss for White.
    let losing = losing.unwrap();
    let replies: Vec<NodeId> = tree
        .edges(losing)
        .iter()
        .filter_map(|e| e.child())
        .collect();
    assert!(!replies.is_empty());
    for reply in replies {
        assert_eq!(tree.node(reply).state(), NodeState::Terminal);
        assert_eq!(
            tree.node(reply).eval(),
            Wdl::LOSS,
            "White to move with no pieces"
        );
        assert_eq!(tree.node(reply).num_edges(), 0);
    }
    assert!(
        tree.node(losing).visits() < 10,
        "the losing landing is avoided"
    );
    assert_ne!(result.best_move.to().to_string(), "d4");
    assert!(result.value.abs() < 0.1, "a draw: {}", result.value);
}

#[test]
fn a_forced_move_needs_no_search() {
    // White's only legal move: the capture a1:c3.
    let g = game("W:Wa1:Bb2,h8");
    assert_eq!(g.legal_moves().len(), 1);
    for config in [puct(100), gumbel(16)] {
        let mut s = Search::new(g.clone(), config).unwrap();
        let result = s.run(&UniformEvaluator::draw(), &mut rng(0)).unwrap();
        assert_eq!(result.simulations, 0);
        assert!(!result.full_search, "no policy target from a forced move");
        assert_eq!(result.policy.len(), 1);
        assert_eq!(result.policy[0].1, 1.0);
        assert_eq!(
            s.tree().node(Tree::ROOT).visits(),
            1,
            "only the root's evaluation"
        );
    }
}

#[test]
fn tree_reuse_keeps_the_chosen_subtree() {
    let mut s = Search::new(Game::new(Position::startpos()), puct(400)).unwrap();
    let evaluator = UniformEvaluator::random(2);
    let mut r = rng(9);
    let first = s.run(&evaluator, &mut r).unwrap();
    let kept = first
        .children
        .iter()
        .find(|c| c.mv == first.best_move)
        .unwrap()
        .visits;
    assert!(kept > 1);
    s.advance(&first.best_move).unwrap();
    assert_eq!(s.game().ply(), 1);
    assert_eq!(s.tree().node(Tree::ROOT).visits(), kept);
    let second = s.run(&evaluator, &mut r).unwrap();
    assert_eq!(second.simulations, 400);
    assert_eq!(s.tree().node(Tree::ROOT).visits(), kept + 400);
    let mut terminal = 0;
    check_visits(s.tree(), Tree::ROOT, &mut terminal);
    // An illegal move is refused and changes nothing.
    let illegal = first.best_move;
    assert!(matches!(
        s.advance(&illegal),
        Err(SearchError::IllegalMove { .. })
    ));
    assert_eq!(s.game().ply(), 1);
    // Without reuse the tree restarts.
    let mut fresh = Search::new(
        Game::new(Position::startpos()),
        SearchConfig {
            reuse_tree: false,
            ..puct(50)
        },
    )
    .unwrap();
    let r1 = fresh.run(&evaluator, &mut r).unwrap();
    fresh.advance(&r1.best_move).unwrap();
    assert_eq!(fresh.tree().node(Tree::ROOT).visits(), 0);
    assert_eq!(fresh.tree().len(), 1);
}

#[test]
fn sync_to_follows_a_game_and_restarts_on_another() {
    let evaluator = UniformEvaluator::random(4);
    let mut played = Game::new(Position::startpos());
    let mut s = Search::new(played.clone(), puct(100)).unwrap();
    let result = s.run(&evaluator, &mut rng(1)).unwrap();
    played.play(&result.best_move);
    let reply = played.legal_moves()[0];
    played.play(&reply);
    assert!(s.sync_to(&played), "two moves on: the tree is reused");
    assert_eq!(s.game().moves(), played.moves());
    let other = game(SHOTS[0].0);
    assert!(!s.sync_to(&other));
    assert_eq!(s.game().position(), other.position());
    assert_eq!(s.tree().len(), 1);
}

#[test]
fn playout_cap_randomisation_mixes_full_and_fast_searches() {
    let config = SearchConfig {
        full_simulations: 64,
        fast_simulations: 8,
        full_search_fraction: 0.25,
        ..SearchConfig::default()
    };
    let evaluator = UniformEvaluator::random(1);
    let mut r = rng(77);
    let mut full = 0;
    for _ in 0..40 {
        let mut s = Search::new(Game::new(Position::startpos()), config.clone()).unwrap();
        let result = s.run(&evaluator, &mut r).unwrap();
        let expected = if result.full_search { 64 } else { 8 };
        assert_eq!(result.simulations, expected);
        full += usize::from(result.full_search);
    }
    assert!(
        (4..=18).contains(&full),
        "{full} full searches of 40 at fraction 0.25"
    );
}

#[test]
fn the_tree_size_guard_stops_a_search_early() {
    let config = SearchConfig {
        max_tree_nodes: 50,
        ..puct(1000)
    };
    let mut s = Search::new(Game::new(Position::startpos()), config).unwrap();
    let result = s.run(&UniformEvaluator::random(1), &mut rng(0)).unwrap();
    assert!((50..60).contains(&s.tree().len()), "{}", s.tree().len());
    assert!(
        result.simulations <= 49,
        "at least one new node per simulation, plus the root"
    );
    assert!(
        s.game()
            .legal_moves()
            .iter()
            .any(|m| *m == result.best_move)
    );
}

/// Drives several searches by hand, one evaluator batch for all of them.
#[test]
fn one_batch_across_many_searches_matches_each_run() {
    let evaluator = RolloutEvaluator::new(1, 21);
    let positions = [SHOTS[0].0, SHOTS[1].0, SHOTS[2].0];
    let config = SearchConfig {
        leaves_per_batch: 4,
        ..puct(120)
    };
    let mut searches: Vec<Search> = positions
        .iter()
        .map(|f| Search::new(game(f), config.clone()).unwrap())
        .collect();
    let mut rngs: Vec<ChaCha8Rng> = (0..3).map(rng).collect();
    for (s, r) in searches.iter_mut().zip(&mut rngs) {
        s.begin(r).unwrap();
    }
    let mut evals: Vec<Evaluation> = Vec::new();
    let mut batches = 0;
    while searches.iter().any(|s| !s.done()) {
        for s in searches.iter_mut() {
            s.select_leaves(4);
        }
        let requests: Vec<EvalRequest<'_>> = searches
            .iter()
            .flat_map(|s| s.pending().iter().map(|l| l.eval_request()))
            .collect();
        evals.resize_with(requests.len(), Evaluation::default);
        evaluator.evaluate(&requests, &mut evals[..requests.len()]);
        drop(requests);
        let mut offset = 0;
        for s in searches.iter_mut() {
            let n = s.pending().len();
            s.apply(&evals[offset..offset + n]).unwrap();
            offset += n;
        }
        batches += 1;
    }
    assert!(
        batches < 3 * 120 / 2,
        "{batches} batches: leaves were gathered several at a time"
    );
    for (i, (s, r)) in searches.iter_mut().zip(&mut rngs).enumerate() {
        let by_hand = s.finish(r).unwrap();
        let alone = search(game(positions[i]), config.clone(), &evaluator, i as u64);
        assert_eq!(by_hand, alone);
    }
}

/// Evaluators that break the contract get an error, not a corrupted tree.
struct WrongPriors;

impl Evaluator for WrongPriors {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        for (_, eval) in batch.iter().zip(out) {
            eval.set_uniform(1, Wdl::DRAW);
        }
    }
}

#[test]
fn contract_violations_are_errors() {
    let mut s = Search::new(Game::new(Position::startpos()), puct(10)).unwrap();
    let err = s.run(&WrongPriors, &mut rng(0)).unwrap_err();
    assert_eq!(
        err,
        SearchError::PriorCount {
            index: 0,
            expected: 7,
            got: 1
        }
    );
    s.begin(&mut rng(0)).unwrap();
    assert_eq!(
        s.select_leaves(3).len(),
        1,
        "only the root until it is evaluated"
    );
    assert_eq!(
        s.apply(&[]).unwrap_err(),
        SearchError::EvaluationCount {
            expected: 1,
            got: 0
        }
    );
    assert_eq!(
        s.finish(&mut rng(0)).unwrap_err(),
        SearchError::RootNotEvaluated
    );
    let bad = SearchConfig {
        c_base: 0.0,
        ..SearchConfig::default()
    };
    assert!(matches!(
        Search::new(Game::new(Position::startpos()), bad),
        Err(SearchError::Config(_))
    ));
}

/// Plays one game: MCTS (rollouts) against a uniformly random mover, the
/// game capped at 200 plies (adjudicated a draw by the arbiter).
fn play_against_random(
    config: &SearchConfig,
    mcts_is_white: bool,
    seed: u64,
) -> Option<GameResult> {
    let rules = DrawRules {
        max_plies: Some(200),
        ..DrawRules::default()
    };
    let game = Game::with_rules(Position::startpos(), rules);
    let evaluator = RolloutEvaluator::new(1, seed);
    let mut engine = Search::new(game.clone(), config.clone()).unwrap();
    let mut r = rng(seed);
    let mut game = game;
    while game.outcome().is_none() {
        let white_to_move = game.side_to_move() == shashki_rules::Color::White;
        let mv = if white_to_move == mcts_is_white {
            engine.sync_to(&game);
            engine.run(&evaluator, &mut r).unwrap().best_move
        } else {
            let moves = game.legal_moves();
            moves[r.random_range(0..moves.len())]
        };
        game.play(&mv);
    }
    game.outcome().map(|o| o.result)
}

/// MCTS wins of a 20-game match, colours alternating.
fn match_against_random(config: &SearchConfig) -> (usize, Vec<Option<GameResult>>) {
    let mut wins = 0;
    let mut results = Vec::new();
    for g in 0..20u64 {
        let mcts_white = g % 2 == 0;
        let result = play_against_random(config, mcts_white, 1000 + g);
        let won = match result {
            Some(GameResult::WhiteWins) => mcts_white,
            Some(GameResult::BlackWins) => !mcts_white,
            _ => false,
        };
        wins += usize::from(won);
        results.push(result);
    }
    (wins, results)
}

#[test]
fn mcts_with_rollouts_beats_a_random_mover() {
    let (wins, results) = match_against_random(&puct(150));
    assert!(wins >= 18, "MCTS won {wins} of 20: {results:?}");
}

#[test]
fn gumbel_with_16_simulations_beats_a_random_mover() {
    let config = SearchConfig {
        gumbel_scale: 0.0,
        ..gumbel(16)
    };
    let (wins, results) = match_against_random(&config);
    assert!(wins >= 18, "Gumbel MCTS won {wins} of 20: {results:?}");
}

/// Records every position it is asked to evaluate.
#[derive(Default)]
struct Recording {
    asked: std::sync::Mutex<Vec<(Position, usize)>>,
}

impl Evaluator for Recording {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        let mut asked = self.asked.lock().unwrap();
        asked.extend(batch.iter().map(|r| (*r.position, r.moves.len())));
        UniformEvaluator::random(5).evaluate(batch, out);
    }
}

/// Checks every passed-through node below `id`: one edge, no evaluation
/// of its own, so its visits and value are its child's. Returns how many.
fn check_passed(tree: &Tree, id: NodeId) -> usize {
    let node = tree.node(id);
    let mut passed = 0;
    if node.is_passed_through() {
        passed += 1;
        assert_eq!(node.num_edges(), 1);
        if let Some(child) = tree.edges(id)[0].child() {
            let child = tree.node(child);
            if node.proof().is_proven() {
                // Later descents stop at a proven node (the solver).
                assert!(node.visits() >= child.visits(), "node {id}");
            } else {
                assert_eq!(node.visits(), child.visits(), "node {id}");
            }
            if node.visits() > 0 {
                assert!((node.value() + child.value()).abs() < 1e-5, "node {id}");
            }
        }
    }
    for child in tree.edges(id).iter().filter_map(|e| e.child()) {
        passed += check_passed(tree, child);
    }
    passed
}

#[test]
fn forced_moves_below_the_root_cost_no_evaluation() {
    // Positions full of captures (the shots), PUCT and Gumbel, batches of
    // one and eight leaves.
    for (fen, _, _) in SHOTS {
        for (config, leaves) in [(puct(300), 1), (gumbel(64), 1), (puct(300), 8)] {
            let config = SearchConfig {
                leaves_per_batch: leaves,
                ..config
            };
            let evaluator = Recording::default();
            let mut s = Search::new(game(fen), config.clone()).unwrap();
            let result = s.run(&evaluator, &mut rng(2)).unwrap();
            let asked = evaluator.asked.into_inner().unwrap();
            let counters = s.counters();
            assert_eq!(counters.evaluations, asked.len() as u64);
            assert!(
                asked.iter().skip(1).all(|&(_, moves)| moves > 1),
                "{fen}: only the root may be evaluated with one legal move"
            );
            let passed = check_passed(s.tree(), Tree::ROOT);
            assert!(passed > 0, "{fen}: the shots are full of forced captures");
            assert_eq!(passed as u64, counters.passed_through);
            let mut terminal = 0;
            check_visits(s.tree(), Tree::ROOT, &mut terminal);
            // Evaluating them instead spends evaluations on forced nodes.
            let off = SearchConfig {
                pass_forced_moves: false,
                ..config
            };
            let mut s_off = Search::new(game(fen), off).unwrap();
            let result_off = s_off.run(&Recording::default(), &mut rng(2)).unwrap();
            assert_eq!(s_off.counters().passed_through, 0);
            assert!(s_off.counters().forced_evaluations > 0, "{fen}");
            assert_eq!(check_passed(s_off.tree(), Tree::ROOT), 0);
            assert_eq!(result.policy.len(), result_off.policy.len());
        }
    }
}

#[test]
fn a_forced_root_reached_by_tree_reuse_costs_nothing() {
    // 1. b4-c5 leaves Black one legal move (b6:d4): after the search the
    // chosen line's forced reply is already expanded and valued.
    let mut s = Search::new(game(SHOTS[0].0), puct(200)).unwrap();
    let evaluator = Recording::default();
    let first = s.run(&evaluator, &mut rng(1)).unwrap();
    assert_eq!(first.best_move.to_string(), "b4-c5");
    s.advance(&first.best_move).unwrap();
    assert_eq!(s.game().legal_moves().len(), 1);
    assert!(s.tree().node(Tree::ROOT).is_passed_through());
    let asked = evaluator.asked.lock().unwrap().len();
    let second = s.run(&evaluator, &mut rng(1)).unwrap();
    assert_eq!(
        evaluator.asked.lock().unwrap().len(),
        asked,
        "no call at all"
    );
    assert_eq!(second.best_move.to_string(), "b6:d4");
    assert_eq!(second.simulations, 0);
    assert!(!second.full_search, "no policy target from a forced move");
    assert_eq!(second.policy.len(), 1);
    // Its value is its only child's: the shot wins for White.
    assert!(second.value < 0.0, "{}", second.value);
}
