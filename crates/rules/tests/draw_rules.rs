//! One test per official draw rule: a concrete position and move sequence,
//! the exact half-move at which the draw is declared and, one half-move
//! earlier, that it is not; and the resets (capture, man move, promotion).
//!
//! Counts are the defaults of `shared/RULES.md`: 7.2.4 and 7.2.5 30
//! half-moves, 7.2.6 30 (4-5 pieces) or 60 (6-7 pieces), 7.2.7 and 7.2.8 10.
//! The sequences keep every piece safe (no capture is ever available unless
//! the test wants one) and never repeat a position.

use shashki_rules::{DrawRules, EndReason, Game, GameResult, Outcome, Position};

/// Plays `line` from `fen` under `rules` and checks that the game goes on
/// through half-move `ply - 1` and is drawn for `reason` right after half-move
/// `ply`. Returns the game at that point.
fn assert_draw_at(fen: &str, rules: DrawRules, line: &str, ply: usize, reason: EndReason) -> Game {
    let mut game = Game::with_rules(Position::from_fen(fen).unwrap(), rules);
    assert_eq!(game.outcome(), None, "over at the start");
    let moves: Vec<&str> = line.split_whitespace().collect();
    assert!(
        moves.len() >= ply,
        "the line has {} half-moves, need {ply}",
        moves.len()
    );
    for (i, text) in moves.iter().take(ply).enumerate() {
        assert_eq!(game.outcome(), None, "over before half-move {}", i + 1);
        game.play_notation(text)
            .unwrap_or_else(|e| panic!("half-move {}: {e}", i + 1));
    }
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            result: GameResult::Draw,
            reason
        }),
        "after half-move {ply}"
    );
    game
}

/// Plays the first `plies` half-moves of `line`.
fn play(fen: &str, rules: DrawRules, line: &str, plies: usize) -> Game {
    let mut game = Game::with_rules(Position::from_fen(fen).unwrap(), rules);
    for text in line.split_whitespace().take(plies) {
        game.play_notation(text).unwrap();
    }
    game
}

// ---- 7.2.5: only kings moved, 30 half-moves -------------------------------

/// 8 pieces (7.2.6 does not run), both sides have kings and men.
const EIGHT: &str = "W:WKc1,a3,h2,h4:BKf8,a7,h6,b8";
const KINGS_ONLY: &str = "c1-b2 f8-c5 b2-a1 c5-b6 a1-b2 b6-a5 b2-a1 a5-c7 a1-b2 c7-b6 b2-a1 b6-a5 \
     a1-b2 a5-c7 b2-a1 c7-d6 a1-b2 d6-e7 b2-a1 e7-c5 a1-b2 c5-d6 b2-a1 d6-e7 a1-b2 e7-d8 b2-c1 \
     d8-a5 c1-e3 a5-b6";

#[test]
fn kings_only_fires_after_30_half_moves() {
    let game = assert_draw_at(
        EIGHT,
        DrawRules::default(),
        KINGS_ONLY,
        30,
        EndReason::KingsOnly,
    );
    assert_eq!(game.counters().reversible, 30);
}

#[test]
fn kings_only_counts_down_in_draw_state() {
    let rules = DrawRules::default();
    for (ply, left) in [(0, 30), (1, 29), (17, 13), (29, 1)] {
        let game = play(EIGHT, rules, KINGS_ONLY, ply);
        assert_eq!(game.draw_state().plies_to_draw, Some(left), "ply {ply}");
        assert_eq!(game.draw_state().repetitions, 1);
    }
}

#[test]
fn kings_only_restarts_on_a_man_move() {
    // Half-move 11 is the man move a3-b4: the count restarts and fires 30
    // half-moves later, at 41 (not at 30).
    let line = "c1-b2 f8-c5 b2-a1 c5-b6 a1-b2 b6-a5 b2-a1 a5-c7 a1-b2 c7-b6 a3-b4 b6-a5 b2-c3 \
         a5-b6 c3-a1 b6-c7 a1-b2 c7-b6 b2-a3 b6-c7 a3-c1 c7-b6 c1-d2 b6-c7 d2-c3 c7-d8 c3-a1 d8-b6 \
         a1-c3 b6-c7 c3-a1 c7-d8 a1-b2 d8-c7 b2-a3 c7-b6 a3-c1 b6-c7 c1-d2 c7-b6 d2-e1";
    assert_eq!(
        play(EIGHT, DrawRules::default(), line, 10)
            .counters()
            .reversible,
        10
    );
    assert_eq!(
        play(EIGHT, DrawRules::default(), line, 11)
            .counters()
            .reversible,
        0
    );
    assert_draw_at(EIGHT, DrawRules::default(), line, 41, EndReason::KingsOnly);
}

#[test]
fn kings_only_restarts_on_a_capture() {
    // 9 pieces; half-move 11 is the capture b4:e7 (8 pieces remain, so 7.2.6
    // still does not run).
    let fen = "W:WKc1,a3,h2,h4:BKf8,a7,h6,b8,d6";
    let line = "c1-b2 f8-e7 b2-a1 e7-d8 a1-b2 d8-b6 b2-c3 b6-c5 c3-b4 c5-b6 b4:e7 b6-a5 e7-c5 \
         a5-b4 c5-d4 b4-a5 d4-a1 a5-b6 a1-b2 b6-a5 b2-c1 a5-b6 c1-d2 b6-a5 d2-e1 a5-b6 e1-a5 b6-c5 \
         a5-b4 c5-b6 b4-c3 b6-a5 c3-b2 a5-b6 b2-a1 b6-a5 a1-d4 a5-b6 d4-e5 b6-a5 e5-d6";
    assert_eq!(
        play(fen, DrawRules::default(), line, 11)
            .counters()
            .reversible,
        0
    );
    assert_draw_at(fen, DrawRules::default(), line, 41, EndReason::KingsOnly);
}

// ---- 7.2.6: balance unchanged, 30 (4-5 pieces) or 60 (6-7 pieces) ---------

#[test]
fn material_unchanged_with_5_pieces_fires_after_30() {
    // Half-move 1 is a man move, so 7.2.5 (30 from there) would only fire at
    // 31: 7.2.6 counts from the start and fires at 30.
    let fen = "W:WKc1,a3,h2:BKf8,a7";
    let line = "h2-g3 f8-c5 c1-b2 c5-b6 b2-a1 b6-a5 a1-b2 a5-d2 b2-a1 d2-c1 a1-b2 c1-e3 b2-a1 \
         e3-b6 a1-b2 b6-a5 b2-a1 a5-d2 a1-b2 d2-c1 b2-a1 c1-e3 a1-b2 e3-c5 b2-a1 c5-e7 a1-b2 e7-d8 \
         b2-a1 d8-c7";
    assert_eq!(
        play(fen, DrawRules::default(), line, 1)
            .draw_state()
            .plies_to_draw,
        Some(29)
    );
    assert_draw_at(
        fen,
        DrawRules::default(),
        line,
        30,
        EndReason::MaterialUnchanged,
    );
}

#[test]
fn material_unchanged_with_7_pieces_fires_after_60() {
    // Man moves at half-moves 1 and 31 keep 7.2.5 from firing first.
    let fen = "W:WKc1,a3,h2,g1:BKf8,a7,h8";
    let line = "g1-f2 f8-c5 c1-e3 c5-d6 e3-c1 d6-b8 c1-b2 b8-c7 b2-a1 c7-a5 a1-b2 a5-d2 b2-a1 \
         d2-c1 a1-b2 c1-f4 b2-a1 f4-b8 a1-c3 b8-c7 c3-a5 c7-b8 a5-b4 b8-c7 b4-c3 c7-a5 c3-a1 a5-c7 \
         a1-b2 c7-a5 f2-e3 a5-b6 b2-d4 b6-a5 d4-a1 a5-c7 a1-b2 c7-a5 b2-c1 a5-c7 c1-d2 c7-a5 d2-e1 \
         a5-b6 e1-f2 b6-a5 f2-g1 a5-c3 g1-f2 c3-a1 f2-e1 a1-e5 e1-a5 e5-a1 a5-b4 a1-e5 b4-c5 e5-a1 \
         c5-d6 a1-c3";
    assert_draw_at(
        fen,
        DrawRules::default(),
        line,
        60,
        EndReason::MaterialUnchanged,
    );
}

#[test]
fn material_unchanged_restarts_on_a_capture() {
    // 6 pieces (limit 60) until half-move 11, the capture f4:b8; then 5
    // pieces (limit 30) counted from the capture: the draw comes at 41. The
    // man move a3-b4 at half-move 13 keeps 7.2.5 (43) behind.
    let fen = "W:WKc1,a3,h2:BKf8,a7,d6";
    let line = "c1-b2 f8-e7 b2-a1 e7-d8 a1-b2 d8-a5 b2-c1 a5-b6 c1-f4 b6-a5 f4:b8 a5-b6 a3-b4 \
         b6-d4 b8-c7 d4-a1 c7-a5 a1-b2 a5-c7 b2-c1 c7-a5 c1-e3 a5-c7 e3-d2 c7-a5 d2-c1 a5-c7 c1-b2 \
         c7-a5 b2-a1 a5-c7 a1-d4 c7-a5 d4-e5 a5-d8 e5-a1 d8-e7 a1-b2 e7-c5 b2-a1 c5-d6";
    let before = play(fen, DrawRules::default(), line, 10);
    assert_eq!(before.counters().balance, 10);
    assert_eq!(
        before.draw_state().plies_to_draw,
        Some(20),
        "7.2.5 is nearest"
    );
    let after = play(fen, DrawRules::default(), line, 11);
    assert_eq!(after.counters().balance, 0);
    assert_eq!(after.draw_state().plies_to_draw, Some(30));
    assert_draw_at(
        fen,
        DrawRules::default(),
        line,
        41,
        EndReason::MaterialUnchanged,
    );
}

#[test]
fn material_unchanged_restarts_on_a_promotion() {
    // g7-f8 at half-move 11 promotes; a7-b6 at 12 restarts 7.2.5 too.
    let fen = "W:WKc1,a3,g7:BKd8,a7";
    let line = "c1-b2 d8-a5 b2-a1 a5-b6 a1-b2 b6-c5 b2-a1 c5-d6 a1-b2 d6-b8 g7-f8 a7-b6 b2-a1 \
         b8-a7 a1-c3 a7-b8 c3-a5 b8-c7 a5-b4 c7-b8 b4-c3 b8-a7 c3-a1 a7-b8 a1-b2 b8-a7 b2-c1 a7-b8 \
         c1-d2 b8-a7 d2-e1 a7-b8 e1-b4 b8-a7 b4-d2 a7-b8 d2-c1 b8-a7 c1-f4 a7-b8 f4-e3";
    let promoted = play(fen, DrawRules::default(), line, 11);
    assert_eq!(promoted.counters().balance, 0);
    assert_eq!(
        promoted.counters().reversible,
        0,
        "a promotion is a man move"
    );
    assert_draw_at(
        fen,
        DrawRules::default(),
        line,
        41,
        EndReason::MaterialUnchanged,
    );
}

// ---- 7.2.4: three kings or more against a lone king, 30 half-moves --------

#[test]
fn three_kings_vs_king_fires_after_30() {
    // Four kings and a man (6 pieces: 7.2.6 would need 60); the man move at
    // half-move 3 keeps 7.2.5 (33) behind.
    let fen = "W:WKa3,Kc1,Ke1,Kg1,h2:BKh6";
    let line = "a3-b2 h6-f8 h2-g3 f8-a3 b2-a1 a3-d6 c1-f4 d6-a3 a1-c3 a3-c1 f4-b8 c1-a3 b8-a7 \
         a3-c1 a7-b6 c1-a3 b6-a5 a3-b4 c3-a1 b4-a3 a1-d4 a3-c1 a5-b4 c1-a3 b4-c3 a3-c1 c3-a1 c1-a3 \
         d4-a7 a3-c1";
    assert_draw_at(
        fen,
        DrawRules::default(),
        line,
        30,
        EndReason::ThreeKingsVsKing,
    );
}

#[test]
fn three_kings_vs_king_counts_from_the_capture_that_made_it() {
    // The capture c3:f6 at half-move 5 leaves three kings against a king.
    // Only 7.2.4 is on, so 7.2.6 (also 30 here) cannot take its place.
    let rules = DrawRules {
        three_kings_vs_king: true,
        ..DrawRules::none()
    };
    let fen = "W:WKa3,Kc1,Ke1:BKh6,e5";
    let line = "a3-b4 h6-f8 b4-c3 f8-a3 c3:f6 a3-c5 c1-a3 c5-a7 a3-b2 a7-b6 b2-a1 b6-a5 a1-b2 \
         a5-c7 b2-a1 c7-b6 a1-b2 b6-a5 b2-a1 a5-c7 a1-b2 c7-b8 b2-a1 b8-a7 a1-c3 a7-b6 c3-a5 b6-a7 \
         a5-b4 a7-b6 b4-a3 b6-a5 a3-c1 a5-b6 c1-d2";
    assert_eq!(play(fen, rules, line, 4).draw_state().plies_to_draw, None);
    assert_eq!(
        play(fen, rules, line, 5).draw_state().plies_to_draw,
        Some(30)
    );
    assert_draw_at(fen, rules, line, 35, EndReason::ThreeKingsVsKing);
}

// ---- 7.2.7: lone king on the main diagonal, 10 half-moves -----------------

const THREE_KINGS_VS_BOLSHAK: &str = "W:WKa3,Kc1,Ke1:BKh8";

#[test]
fn main_diagonal_fires_after_10() {
    let line = "a3-b4 h8-a1 b4-a3 a1-b2 a3-b4 b2-d4 b4-a3 d4-a1 a3-b4 a1-e5";
    let game = play(THREE_KINGS_VS_BOLSHAK, DrawRules::default(), line, 0);
    assert_eq!(game.draw_state().plies_to_draw, Some(10));
    assert_draw_at(
        THREE_KINGS_VS_BOLSHAK,
        DrawRules::default(),
        line,
        10,
        EndReason::MainDiagonal,
    );
}

#[test]
fn main_diagonal_count_stops_off_the_diagonal_and_restarts_on_return() {
    // Black's king leaves a1-h8 with d4-a7 (half-move 4) and comes back with
    // a7-d4 (half-move 6): the count starts from zero there and fires at 16.
    let line = "a3-b4 h8-d4 b4-a3 d4-a7 a3-d6 a7-d4 c1-a3 d4-a1 a3-b4 a1-b2 b4-a3 b2-d4 a3-b4 \
         d4-a1 b4-a3 a1-f6";
    let rules = DrawRules::default();
    assert_eq!(
        play(THREE_KINGS_VS_BOLSHAK, rules, line, 3)
            .counters()
            .main_diagonal,
        Some(3)
    );
    assert_eq!(
        play(THREE_KINGS_VS_BOLSHAK, rules, line, 4)
            .counters()
            .main_diagonal,
        None
    );
    assert_eq!(
        play(THREE_KINGS_VS_BOLSHAK, rules, line, 5)
            .counters()
            .main_diagonal,
        None
    );
    assert_eq!(
        play(THREE_KINGS_VS_BOLSHAK, rules, line, 6)
            .counters()
            .main_diagonal,
        Some(0)
    );
    assert_draw_at(
        THREE_KINGS_VS_BOLSHAK,
        rules,
        line,
        16,
        EndReason::MainDiagonal,
    );
}

#[test]
fn main_diagonal_restarts_on_a_promotion() {
    // Two kings and a man against the king on a1: e7-d8 (half-move 5)
    // promotes, so the count restarts there and fires at 15.
    let fen = "W:WKa3,Kc1,e7:BKa1";
    let line = "a3-b4 a1-d4 b4-a3 d4-b2 e7-d8 b2-a1 a3-b4 a1-d4 b4-a3 d4-b2 a3-b4 b2-a1 b4-a3 \
         a1-c3 a3-c5";
    assert_eq!(
        play(fen, DrawRules::default(), line, 4)
            .counters()
            .main_diagonal,
        Some(4)
    );
    assert_eq!(
        play(fen, DrawRules::default(), line, 5)
            .counters()
            .main_diagonal,
        Some(0)
    );
    assert_draw_at(fen, DrawRules::default(), line, 15, EndReason::MainDiagonal);
}

#[test]
fn main_diagonal_needs_exactly_three_pieces() {
    // Four kings against the king on h8: 7.2.7 does not apply (7.2.4 and
    // 7.2.6 do, 30 each).
    let game = Game::new(Position::from_fen("W:WKa3,Kc1,Ke1,Kg1:BKh8").unwrap());
    assert_eq!(game.counters().main_diagonal, None);
    assert_eq!(game.draw_state().plies_to_draw, Some(30));
}

// ---- 7.2.8: 2-3 pieces with kings on both sides, 10 half-moves ------------

#[test]
fn few_pieces_fires_after_10() {
    let line = "a3-b2 h6-f8 b2-a1 f8-a3 a1-b2 a3-b4 b2-a1 b4-a5 a1-b2 a5-b6";
    assert_draw_at(
        "W:WKa3,Kc1:BKh6",
        DrawRules::default(),
        line,
        10,
        EndReason::FewPieces,
    );
}

#[test]
fn few_pieces_is_not_restarted_by_a_man_move() {
    // King and man against king: the man's move a3-b4 changes no balance.
    let line = "a3-b4 h6-f8 c1-a3 f8-g7 a3-c1 g7-a1 c1-a3 a1-d4 a3-c1 d4-a7";
    assert_draw_at(
        "W:WKc1,a3:BKh6",
        DrawRules::default(),
        line,
        10,
        EndReason::FewPieces,
    );
}

#[test]
fn few_pieces_restarts_on_a_promotion() {
    // g7-f8 (half-move 5) promotes: fires at 15, not 10.
    let line = "c1-a3 a5-b6 a3-b2 b6-a5 g7-f8 a5-b6 b2-a1 b6-a5 a1-d4 a5-c7 d4-a1 c7-b6 a1-b2 \
         b6-a5 b2-a1";
    assert_draw_at(
        "W:WKc1,g7:BKa5",
        DrawRules::default(),
        line,
        15,
        EndReason::FewPieces,
    );
}

#[test]
fn few_pieces_counts_from_the_capture_that_made_it() {
    // Two kings against king and man (4 pieces: 7.2.6 runs); the capture
    // c3:f6 (half-move 5) leaves 3 pieces: 7.2.8 from there, fires at 15.
    let line = "a3-b4 h6-f8 b4-c3 f8-a3 c3:f6 a3-b4 c1-a3 b4-a5 a3-b2 a5-b4 b2-a1 b4-a3 a1-c3 \
         a3-c1 c3-a1";
    let fen = "W:WKc1,Ka3:BKh6,e5";
    assert_eq!(
        play(fen, DrawRules::default(), line, 4)
            .draw_state()
            .plies_to_draw,
        Some(26)
    );
    assert_eq!(
        play(fen, DrawRules::default(), line, 5)
            .draw_state()
            .plies_to_draw,
        Some(10)
    );
    assert_draw_at(fen, DrawRules::default(), line, 15, EndReason::FewPieces);
}

// ---- Rule 2: one king against one king ------------------------------------

#[test]
fn king_against_king_is_a_draw_at_once() {
    let game = Game::new(Position::from_fen("W:WKa1:BKh2").unwrap());
    assert_eq!(
        game.outcome(),
        Some(Outcome::draw(EndReason::InsufficientMaterial))
    );
    assert_eq!(game.ply(), 0);
}

#[test]
fn king_against_king_with_a_capture_is_not_a_draw() {
    let mut game = Game::new(Position::from_fen("W:WKc3:BKd4").unwrap());
    assert_eq!(game.outcome(), None);
    game.play_notation("c3:e5").unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            result: GameResult::WhiteWins,
            reason: EndReason::NoMoves
        })
    );
}

#[test]
fn king_against_king_arising_from_a_capture() {
    // a1:d4 leaves Black's king on h2 with nothing to take: drawn at once.
    let fen = "W:WKa1:BKh2,c3";
    let mut game = Game::new(Position::from_fen(fen).unwrap());
    game.play_notation("a1:d4").unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome::draw(EndReason::InsufficientMaterial))
    );
    // a1:e5 stands on h2's diagonal: Black must and can capture, then wins.
    let mut game = Game::new(Position::from_fen(fen).unwrap());
    game.play_notation("a1:e5").unwrap();
    assert_eq!(game.outcome(), None);
    game.play_notation("h2:d6").unwrap();
    assert_eq!(
        game.outcome().map(|o| o.result),
        Some(GameResult::BlackWins)
    );
}

#[test]
fn king_against_king_rule_can_be_switched_off() {
    let rules = DrawRules {
        insufficient_material: false,
        ..DrawRules::default()
    };
    let game = Game::with_rules(Position::from_fen("W:WKa1:BKh2").unwrap(), rules);
    assert_eq!(game.outcome(), None);
    // 7.2.8 still counts: 2 pieces, both kings.
    assert_eq!(game.draw_state().plies_to_draw, Some(10));
}

// ---- 7.2.3: threefold repetition -------------------------------------------

/// Kings shuffle a1/b2/c3 and h2/g1; the men on h4 and a7 never move.
const SHUFFLE: &str = "W:WKa1,h4:BKh2,a7";

#[test]
fn third_occurrence_is_a_draw() {
    let line = "a1-c3 h2-g1 c3-a1 g1-h2 a1-c3 h2-g1 c3-a1 g1-h2";
    let game = play(SHUFFLE, DrawRules::default(), line, 4);
    assert_eq!(game.draw_state().repetitions, 2);
    let game = play(SHUFFLE, DrawRules::default(), line, 7);
    assert_eq!(game.draw_state().repetitions, 2);
    assert_draw_at(
        SHUFFLE,
        DrawRules::default(),
        line,
        8,
        EndReason::Repetition,
    );
}

#[test]
fn same_pieces_with_the_other_side_to_move_is_no_repetition() {
    // The placement Ka1, Kh2 occurs after half-moves 0 and 4 with White to
    // move and after 9 and 13 with Black to move (b2 loses a tempo): four
    // times, but only twice each, so no draw.
    let line = "a1-c3 h2-g1 c3-a1 g1-h2 a1-b2 h2-g1 b2-c3 g1-h2 c3-a1 h2-g1 a1-c3 g1-h2 c3-a1";
    let game = play(SHUFFLE, DrawRules::default(), line, 13);
    let start = Position::from_fen(SHUFFLE).unwrap();
    assert_eq!(game.position().white(), start.white());
    assert_eq!(game.position().black(), start.black());
    assert_ne!(game.side_to_move(), start.side_to_move());
    assert_eq!(game.draw_state().repetitions, 2);
    assert_eq!(game.outcome(), None);
}

#[test]
fn repetition_rule_can_be_switched_off() {
    let rules = DrawRules {
        repetition: false,
        ..DrawRules::default()
    };
    let line = "a1-c3 h2-g1 c3-a1 g1-h2 a1-c3 h2-g1 c3-a1 g1-h2";
    let game = play(SHUFFLE, rules, line, 8);
    assert_eq!(game.draw_state().repetitions, 3, "still counted");
    assert_eq!(game.outcome(), None);
}

// ---- Settings ----------------------------------------------------------------

#[test]
fn counts_are_settings() {
    // 7.2.5 at 20 half-moves instead of 30.
    let rules = DrawRules {
        kings_only_plies: 20,
        ..DrawRules::default()
    };
    assert_draw_at(EIGHT, rules, KINGS_ONLY, 20, EndReason::KingsOnly);
    // Off: no draw after 30.
    let rules = DrawRules {
        kings_only: false,
        ..DrawRules::default()
    };
    assert_eq!(play(EIGHT, rules, KINGS_ONLY, 30).outcome(), None);
}

#[test]
fn draw_rules_read_from_a_config_file() {
    let rules: DrawRules = toml::from_str("").unwrap();
    assert_eq!(rules, DrawRules::default());
    let rules: DrawRules =
        toml::from_str("max_plies = 300\nmaterial_unchanged_plies_6_7 = 120\n").unwrap();
    assert_eq!(rules.max_plies, Some(300));
    assert_eq!(rules.material_unchanged_plies_6_7, 120);
    assert_eq!(rules.kings_only_plies, 30);
    let unknown = toml::from_str::<DrawRules>("kings_only_moves = 15\n").unwrap_err();
    assert!(
        unknown.to_string().contains("kings_only_moves"),
        "{unknown}"
    );
    let text = toml::to_string(&rules).unwrap();
    assert_eq!(toml::from_str::<DrawRules>(&text).unwrap(), rules);
}

#[test]
fn adjudication_at_max_plies() {
    let rules = DrawRules {
        max_plies: Some(10),
        ..DrawRules::default()
    };
    let mut game = Game::with_rules(Position::startpos(), rules);
    for _ in 0..9 {
        let mut moves = game.legal_moves();
        moves.sort_by_notation();
        game.play(&moves[0]);
    }
    assert_eq!(game.outcome(), None);
    let mut moves = game.legal_moves();
    moves.sort_by_notation();
    game.play(&moves[0]);
    assert_eq!(game.outcome(), Some(Outcome::draw(EndReason::Adjudication)));
}

#[test]
fn king_in_the_corner_facing_the_enemy_king_on_the_long_diagonal_is_lost() {
    // Every move of the a1 king stays on a1-h8 and is taken by h8 (RULES.md
    // rule 2): not a draw, and Black wins within 3 half-moves.
    let mut game = Game::new(Position::from_fen("W:WKa1:BKh8").unwrap());
    assert_eq!(game.outcome(), None);
    game.play_notation("a1-d4").unwrap();
    assert_eq!(game.outcome(), None);
    game.play_notation("h8:c3").unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            result: GameResult::BlackWins,
            reason: EndReason::NoMoves
        })
    );
}

#[test]
fn king_against_king_where_a_move_forces_the_corner_is_not_a_draw() {
    // Black's a1 king to move with White's king on h8: every Black move
    // stays on a1-h8 and is taken. So one half-move earlier, White's d4
    // king, which can go to h8, forces a capture: not a draw either.
    let corner = Position::from_fen("B:WKh8:BKa1").unwrap();
    assert!(!shashki_rules::king_vs_king_is_dead(&corner));
    let before = Position::from_fen("W:WKd4:BKa1").unwrap();
    assert!(!shashki_rules::king_vs_king_is_dead(&before));
    assert_eq!(Game::new(before).outcome(), None);
    // An ordinary king-against-king position stays a draw at once.
    assert!(shashki_rules::king_vs_king_is_dead(
        &Position::from_fen("W:WKc1:BKh2").unwrap()
    ));
}
