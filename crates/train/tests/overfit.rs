//! The learner drives the loss down on a fixed small set of positions and
//! its policy then prefers the target moves.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_net::NetConfig;
use shashki_rules::{DrawState, Move, Position};
use shashki_search::{EvalRequest, Evaluation, Evaluator};
use shashki_selfplay::Sample;
use shashki_selfplay::sample::FLAG_FULL_SEARCH;
use shashki_train::Learner;
use shashki_train::config::{OptimizerKind, TrainSection};

/// Positions with at least two legal moves, from random games.
fn positions(n: usize, seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut pos = Position::startpos();
        for _ in 0..rng.random_range(0..30) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.make_move(&moves[rng.random_range(0..moves.len())]);
        }
        if pos.legal_moves().len() >= 2 {
            out.push(pos);
        }
    }
    out
}

#[test]
fn learner_overfits_a_small_set_and_prefers_the_target_moves() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let positions = positions(12, 4);
    let mut samples = Vec::new();
    let mut targets: Vec<Move> = Vec::new();
    for (i, pos) in positions.iter().enumerate() {
        let moves = pos.legal_moves();
        let target = rng.random_range(0..moves.len());
        let mut probs = vec![0.0; moves.len()];
        probs[target] = 1.0;
        let mut s = Sample::new(
            *pos,
            DrawState {
                repetitions: 1,
                plies_to_draw: None,
            },
        );
        s.set_policy(moves.as_slice(), &probs);
        s.flags = FLAG_FULL_SEARCH;
        s.result = [1, 0, -1][i % 3];
        s.plies_left = 20;
        samples.push(s);
        targets.push(moves[target]);
    }
    let train = TrainSection {
        batch_size: samples.len(),
        optimizer: OptimizerKind::Adam,
        learning_rate: 0.01,
        weight_decay: 0.0,
        lr_warmup_steps: 0,
        grad_clip_norm: 0.0,
        ..TrainSection::default()
    };
    let device = shashki_net::device_from_name("cpu").unwrap();
    let mut learner = Learner::new(&NetConfig::tiny(), &train, 1, &device).unwrap();
    let first = learner.train_on(&samples).unwrap();
    let mut last = first;
    for _ in 0..150 {
        last = learner.train_on(&samples).unwrap();
    }
    assert!(
        last.policy < 0.2 * first.policy && last.value < 0.5 * first.value,
        "policy {} -> {}, value {} -> {}",
        first.policy,
        last.policy,
        first.value,
        last.value
    );

    // Inference (folded batch norm) picks the target move everywhere.
    let evaluator = learner
        .evaluator(&device, 16, shashki_net::InferenceKernels::Burn)
        .unwrap();
    let move_lists: Vec<_> = positions.iter().map(|p| p.legal_moves()).collect();
    let requests: Vec<EvalRequest<'_>> = positions
        .iter()
        .zip(&move_lists)
        .map(|(p, m)| EvalRequest {
            position: p,
            draw_state: DrawState {
                repetitions: 1,
                plies_to_draw: None,
            },
            moves: m.as_slice(),
        })
        .collect();
    let mut out = vec![Evaluation::default(); requests.len()];
    evaluator.evaluate(&requests, &mut out);
    let mut hits = 0;
    for ((eval, moves), target) in out.iter().zip(&move_lists).zip(&targets) {
        let best = (0..moves.len())
            .max_by(|&a, &b| eval.priors[a].total_cmp(&eval.priors[b]))
            .unwrap();
        // Moves sharing a policy index share its prior: compare squares.
        if (moves[best].from(), moves[best].to()) == (target.from(), target.to()) {
            hits += 1;
        }
    }
    assert_eq!(
        hits,
        positions.len(),
        "the policy prefers every target move"
    );
}
