//! Encoding and policy layout on positions from random playouts.

mod common;

use common::random_positions;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_net::encoding::{CELL_OF_SQUARE, PLANE_LEN, Plane};
use shashki_net::{
    INPUT_LEN, POLICY_LEN, count_collisions, decode_policy, encode_input, policy_index,
};
use shashki_rules::{Color, DrawState, Position};

fn planes(position: &Position, draw_state: DrawState) -> Vec<f32> {
    let mut buf = vec![f32::NAN; INPUT_LEN];
    encode_input(position, draw_state, &mut buf);
    buf
}

#[test]
fn black_to_move_and_its_flipped_twin_give_the_same_planes() {
    let draw_state = DrawState {
        repetitions: 2,
        plies_to_draw: Some(17),
    };
    let mut checked = 0;
    for position in random_positions(1, 600) {
        if position.side_to_move() != Color::Black {
            continue;
        }
        let twin = position.flipped();
        assert_eq!(twin.side_to_move(), Color::White);
        assert_eq!(
            planes(&position, draw_state),
            planes(&twin, draw_state),
            "{}",
            position.to_fen()
        );
        // The twin's moves map to the same indices as the original's.
        let mut original: Vec<usize> = position
            .legal_moves()
            .iter()
            .map(|m| policy_index(m, Color::Black))
            .collect();
        let mut flipped: Vec<usize> = twin
            .legal_moves()
            .iter()
            .map(|m| policy_index(m, Color::White))
            .collect();
        original.sort_unstable();
        flipped.sort_unstable();
        assert_eq!(original, flipped, "{}", position.to_fen());
        checked += 1;
    }
    assert!(checked > 250);
}

#[test]
fn planes_match_the_pieces() {
    for position in random_positions(2, 300) {
        let buf = planes(&position, DrawState::default());
        let plane_sum = |p: Plane| -> f32 {
            buf[p as usize * PLANE_LEN..(p as usize + 1) * PLANE_LEN]
                .iter()
                .sum()
        };
        let side = position.side_to_move();
        let own = position.pieces(side);
        let enemy = position.pieces(side.opponent());
        let kings = position.kings();
        assert_eq!(plane_sum(Plane::OwnMen), (own & !kings).count_ones() as f32);
        assert_eq!(
            plane_sum(Plane::OwnKings),
            (own & kings).count_ones() as f32
        );
        assert_eq!(
            plane_sum(Plane::EnemyMen),
            (enemy & !kings).count_ones() as f32
        );
        assert_eq!(
            plane_sum(Plane::EnemyKings),
            (enemy & kings).count_ones() as f32
        );
        assert_eq!(plane_sum(Plane::Ones), 64.0);
        // Light cells never hold a piece.
        for cell in 0..64 {
            if !CELL_OF_SQUARE.contains(&cell) {
                for p in 0..4 {
                    assert_eq!(buf[p * PLANE_LEN + cell], 0.0);
                }
            }
        }
    }
}

#[test]
fn every_legal_move_gets_a_valid_index_and_only_same_squares_collide() {
    let mut moves_seen = 0;
    for position in random_positions(3, 2000) {
        let side = position.side_to_move();
        let moves = position.legal_moves();
        for (i, mv) in moves.iter().enumerate() {
            let index = policy_index(mv, side);
            assert!(index < POLICY_LEN);
            for other in &moves.as_slice()[i + 1..] {
                if policy_index(other, side) == index {
                    assert_eq!((mv.from(), mv.to()), (other.from(), other.to()));
                }
            }
            moves_seen += 1;
        }
    }
    assert!(moves_seen > 10_000);
}

#[test]
fn decoding_gives_a_distribution_over_exactly_the_legal_moves() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut priors = Vec::new();
    for position in random_positions(4, 500) {
        let moves = position.legal_moves();
        let logits: Vec<f32> = (0..POLICY_LEN)
            .map(|_| rng.random_range(-8.0..8.0))
            .collect();
        decode_policy(
            &logits,
            moves.as_slice(),
            position.side_to_move(),
            &mut priors,
        );
        assert_eq!(priors.len(), moves.len());
        if moves.is_empty() {
            continue;
        }
        let sum: f32 = priors.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "sum {sum}");
        assert!(priors.iter().all(|&p| p > 0.0 && p.is_finite()));
        // Raising an illegal index's logit changes nothing.
        let legal: Vec<usize> = moves
            .iter()
            .map(|m| policy_index(m, position.side_to_move()))
            .collect();
        let illegal = (0..POLICY_LEN).find(|i| !legal.contains(i)).unwrap();
        let mut bumped = logits.clone();
        bumped[illegal] = 1e6;
        let mut again = Vec::new();
        decode_policy(
            &bumped,
            moves.as_slice(),
            position.side_to_move(),
            &mut again,
        );
        assert_eq!(priors, again);
    }
}

#[test]
fn collision_statistics_over_random_playouts() {
    let positions = random_positions(5, 20_000);
    let stats = count_collisions(&positions);
    assert_eq!(stats.positions, 20_000);
    assert!(stats.moves > stats.positions);
    // Collisions need a capture whose start and end agree with another's
    // (a king circling); they exist but stay rare.
    assert!(stats.position_share() < 0.01, "{stats:?}");
    println!(
        "collisions: {} of {} positions ({:.4} %), {} of {} moves ({:.4} %)",
        stats.positions_with_collision,
        stats.positions,
        100.0 * stats.position_share(),
        stats.colliding_moves,
        stats.moves,
        100.0 * stats.move_share()
    );
}
