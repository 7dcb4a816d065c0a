//! The `Game` record: wins, undo, clone, resignation, agreement, and the
//! repetition count checked against a brute-force count on random games.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::{
    Color, DrawCounters, DrawRules, DrawState, EndReason, Game, GameResult, Outcome, Position,
};

/// A random game from the start, played until the arbiter ends it.
fn random_game(seed: u64) -> Game {
    random_game_from(Position::startpos(), DrawRules::default(), seed)
}

/// A random game from `start` under `rules`, played until it ends.
fn random_game_from(start: Position, rules: DrawRules, seed: u64) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::with_rules(start, rules);
    while game.outcome().is_none() {
        let moves = game.legal_moves();
        let mv = moves[rng.random_range(0..moves.len())];
        game.play(&mv);
    }
    game
}

/// A random game that prefers king moves leaving the opponent no capture
/// (long reversible stretches, so positions repeat).
fn cautious_random_game(start: Position, rules: DrawRules, seed: u64) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::with_rules(start, rules);
    while game.outcome().is_none() {
        let pos = *game.position();
        let moves = game.legal_moves();
        let quiet: Vec<_> = moves
            .iter()
            .filter(|m| pos.kings() & m.from().bit() != 0 && !pos.make_move(m).has_capture())
            .copied()
            .collect();
        let mv = if quiet.is_empty() {
            moves[rng.random_range(0..moves.len())]
        } else {
            quiet[rng.random_range(0..quiet.len())]
        };
        game.play(&mv);
    }
    game
}

#[test]
fn side_without_pieces_loses() {
    let mut game = Game::new(Position::from_fen("W:Wc3:Bd4").unwrap());
    assert_eq!(game.outcome(), None);
    game.play_notation("c3:e5").unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            result: GameResult::WhiteWins,
            reason: EndReason::NoMoves
        })
    );
    assert_eq!(game.ended_at(), Some(1));
}

#[test]
fn blocked_side_loses() {
    // Black's man on a3 can neither step to b2 nor jump it (c1 is taken).
    let game = Game::new(Position::from_fen("B:Wb2,c1:Ba3").unwrap());
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            result: GameResult::WhiteWins,
            reason: EndReason::NoMoves
        })
    );
    assert_eq!(game.ended_at(), Some(0));
}

#[test]
fn start_position_state() {
    let game = Game::new(Position::startpos());
    assert_eq!(game.outcome(), None);
    assert_eq!(game.ply(), 0);
    assert_eq!(game.moves().len(), 0);
    assert_eq!(
        game.draw_state(),
        DrawState {
            repetitions: 1,
            plies_to_draw: None
        }
    );
    assert_eq!(*game.counters(), DrawCounters::default());
    assert_eq!(game.rules(), &DrawRules::default());
}

#[test]
fn undo_restores_every_earlier_state() {
    for seed in 0..20 {
        let mut game = Game::new(Position::startpos());
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut states = vec![(
            *game.position(),
            game.outcome(),
            game.draw_state(),
            *game.counters(),
        )];
        while game.outcome().is_none() {
            let moves = game.legal_moves();
            game.play(&moves[rng.random_range(0..moves.len())]);
            states.push((
                *game.position(),
                game.outcome(),
                game.draw_state(),
                *game.counters(),
            ));
        }
        let played = game.moves().to_vec();
        while let Some(mv) = game.undo() {
            assert_eq!(played[game.ply()], mv);
            let state = (
                *game.position(),
                game.outcome(),
                game.draw_state(),
                *game.counters(),
            );
            assert_eq!(state, states[game.ply()], "seed {seed}, ply {}", game.ply());
        }
        assert_eq!(game.undo(), None);
        assert_eq!(*game.position(), Position::startpos());
    }
}

#[test]
fn clones_are_independent() {
    let full = random_game(7);
    let mut a = Game::new(Position::startpos());
    for mv in &full.moves()[..20] {
        a.play(mv);
    }
    let mut b = a.clone();
    b.play(&full.moves()[20]);
    assert_eq!(a.ply(), 20);
    assert_eq!(b.ply(), 21);
    assert_eq!(a.position(), full.position_at(20).unwrap());
    assert_eq!(b.position(), full.position_at(21).unwrap());
}

#[test]
fn repetition_count_matches_a_brute_force_count() {
    // King endgames with no draw rule but a length cap: cautious random
    // kings wander back and forth, so positions repeat many times.
    let rules = DrawRules {
        max_plies: Some(200),
        ..DrawRules::none()
    };
    let starts = [
        "W:WKc1,a3,h2,h4:BKf8,a7,h6,b8",
        "W:WKa1,h4:BKh2,a7",
        "B:WKe1,Kg1,a3:BKd8,h6",
        "W:Wc1,e1,g1,b2,d2,f2:Bb8,d8,f8,a7,c7,e7",
    ];
    let mut thrice = 0;
    for seed in 0..40 {
        let start = Position::from_fen(starts[seed % starts.len()]).unwrap();
        let game = cautious_random_game(start, rules, 1000 + seed as u64);
        let mut replay = Game::with_rules(start, rules);
        for (ply, mv) in game.moves().iter().enumerate() {
            replay.play(mv);
            let now = replay.position();
            let seen = (0..=ply + 1)
                .filter(|&i| replay.position_at(i).unwrap() == now)
                .count();
            assert_eq!(
                replay.draw_state().repetitions as usize,
                seen,
                "seed {seed} ply {ply}"
            );
            if seen >= 3 {
                thrice += 1;
            }
        }
        assert_eq!(replay.outcome(), game.outcome());
    }
    assert!(
        thrice > 0,
        "the random games should repeat positions thrice"
    );
}

#[test]
fn random_games_end_by_the_rules() {
    let mut reasons = std::collections::HashSet::new();
    for seed in 0..100 {
        let game = random_game(seed);
        let outcome = game.outcome().unwrap();
        assert_eq!(game.ended_at(), Some(game.ply()));
        if outcome.reason == EndReason::NoMoves {
            // The loser is the side to move, and it has no move.
            assert!(game.legal_moves().is_empty());
            assert_eq!(
                outcome.result.winner(),
                Some(game.side_to_move().opponent())
            );
        } else {
            assert_eq!(outcome.result, GameResult::Draw);
            assert!(!game.legal_moves().is_empty());
        }
        reasons.insert(outcome.reason);
    }
    // Random play from the start mostly ends in wins, sometimes in a bare
    // king against a king.
    assert!(reasons.contains(&EndReason::NoMoves), "{reasons:?}");
    assert!(
        reasons.contains(&EndReason::InsufficientMaterial),
        "{reasons:?}"
    );
}

#[test]
fn resignation_and_agreement() {
    let mut game = Game::new(Position::startpos());
    game.play_notation("c3-d4").unwrap();
    assert!(game.resign(Color::Black));
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            result: GameResult::WhiteWins,
            reason: EndReason::Resignation
        })
    );
    assert!(!game.agree_draw(), "already over");
    assert!(!game.resign(Color::White), "already over");
    // Taking back the move takes the resignation with it.
    assert!(game.undo().is_some());
    assert_eq!(game.outcome(), None);
    assert!(game.agree_draw());
    assert_eq!(game.outcome(), Some(Outcome::draw(EndReason::Agreed)));
}

#[test]
fn outcome_stays_once_the_game_ended() {
    // Repetition at half-move 8, then play goes on: still the same outcome.
    let mut game = Game::new(Position::from_fen("W:WKa1,h4:BKh2,a7").unwrap());
    for text in "a1-c3 h2-g1 c3-a1 g1-h2 a1-c3 h2-g1 c3-a1 g1-h2 h4-g5".split(' ') {
        game.play_notation(text).unwrap();
    }
    assert_eq!(game.outcome(), Some(Outcome::draw(EndReason::Repetition)));
    assert_eq!(game.ended_at(), Some(8));
    assert_eq!(game.outcome_at(7), None);
    assert_eq!(game.outcome_at(9), game.outcome());
}

#[test]
fn play_notation_rejects_illegal_moves() {
    let mut game = Game::new(Position::startpos());
    assert!(game.play_notation("c3-e5").is_err());
    assert!(game.play_notation("d6-c5").is_err());
    assert_eq!(game.ply(), 0);
    let mv = game.play_notation("22-18").unwrap();
    assert_eq!(mv.to_string(), "c3-d4");
}

#[test]
fn end_reason_labels_round_trip() {
    for reason in EndReason::ALL {
        assert_eq!(EndReason::from_label(reason.label()), Some(reason));
    }
    assert_eq!(EndReason::KingsOnly.label(), "7.2.5 kings only");
    assert_eq!(GameResult::from_pdn("2-0"), Some(GameResult::WhiteWins));
    assert_eq!(GameResult::from_pdn("1-1"), Some(GameResult::Draw));
    assert_eq!(GameResult::from_pdn("0-2"), Some(GameResult::BlackWins));
    assert_eq!(GameResult::from_pdn("*"), None);
}

#[test]
fn match_points_are_one_half_zero() {
    use shashki_rules::Color;
    assert_eq!(GameResult::WhiteWins.points_for(Color::White), 1.0);
    assert_eq!(GameResult::WhiteWins.points_for(Color::Black), 0.0);
    assert_eq!(GameResult::Draw.points_for(Color::White), 0.5);
    assert_eq!(GameResult::Draw.points_for(Color::Black), 0.5);
    assert_eq!(GameResult::BlackWins.points_for(Color::Black), 1.0);
}
