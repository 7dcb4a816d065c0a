//! One test per capture rule of RULES.md, each on a concrete position with
//! the exact legal move list. Every expected list was derived by hand from
//! the rules (the derivation is in the comments), not copied from the
//! generator.

use shashki_rules::{Move, MoveList, PathMode, Position, Square};

fn position(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{e}"))
}

/// The legal moves of `fen` in long notation, sorted.
fn moves(fen: &str) -> Vec<String> {
    let mut list = position(fen).legal_moves();
    list.sort_by_notation();
    list.iter().map(Move::to_string).collect()
}

/// Every capture path (rule 9 not applied), sorted.
fn all_paths(fen: &str) -> Vec<String> {
    let mut list = MoveList::new();
    position(fen).generate(&mut list, PathMode::AllPaths);
    list.sort_by_notation();
    list.iter().map(Move::to_string).collect()
}

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

/// Mask of the named squares.
fn mask(names: &[&str]) -> u32 {
    names.iter().fold(0, |m, n| m | sq(n).bit())
}

/// The move written `text` among the legal moves (exact long notation).
fn find(pos: &Position, text: &str) -> Move {
    *pos.legal_moves()
        .iter()
        .find(|m| m.to_string() == text)
        .unwrap_or_else(|| panic!("{text} is not legal in {}", pos.to_fen()))
}

#[test]
fn worked_example_has_exactly_the_twelve_moves_of_the_textbook() {
    // RULES.md, textbook diagram 94.
    let mut expected = vec![
        "e1:c3:f6:h8",
        "e1:c3:f6:d8:a5",
        "e1:b4:f8:h6",
        "e1:a5:c7:f4",
        "e1:a5:c7:g3",
        "e1:a5:c7:h2",
        "e1:a5:d8:f6:h8",
        "e1:a5:d8:f6:d4",
        "e1:a5:d8:f6:c3",
        "e1:a5:d8:f6:b2",
        "e1:a5:d8:f6:a1",
        "c1:e3",
    ];
    expected.sort();
    assert_eq!(moves("W:Wc1,Ke1:Bb6,e5,e7,g7,Kd2"), expected);
}

#[test]
fn worked_example_arises_from_the_textbook_moves() {
    // White: king e1, men c1, f2; Black: king h6, men b6, e5, e7, g7;
    // then 1. f2-e3 h6:d2.
    let mut pos = position("W:Wc1,f2,Ke1:Bb6,e5,e7,g7,Kh6");
    for text in ["f2-e3", "h6:d2"] {
        let mv = pos.parse_move(text).unwrap();
        pos = pos.make_move(&mv);
    }
    assert_eq!(pos, position("W:Wc1,Ke1:Bb6,e5,e7,g7,Kd2"));
}

#[test]
fn capture_is_mandatory_and_excludes_quiet_moves() {
    // c3 can take d4 (landing e5, nothing more to take); the quiet moves
    // a3-b4 and c3-b4 would be legal without the capture.
    assert_eq!(moves("W:Wa3,c3:Bd4,h8"), ["c3:e5"]);
    // The same men without the black d4: only quiet moves.
    assert_eq!(moves("W:Wa3,c3:Bh8"), ["a3-b4", "c3-b4", "c3-d4"]);
}

#[test]
fn free_choice_allows_taking_fewer_pieces() {
    // c3 takes b4 (one piece, stops on a5) or d4 then f6 (two pieces).
    // A majority rule would allow only c3:e5:g7.
    assert_eq!(moves("W:Wc3:Bb4,d4,f6"), ["c3:a5", "c3:e5:g7"]);
}

#[test]
fn men_capture_backwards() {
    // White man e5 takes d4 backwards, landing on c3.
    assert_eq!(moves("W:We5:Bd4"), ["e5:c3"]);
    // Black man c3 takes d4 backwards (upwards for Black), landing on e5.
    assert_eq!(moves("B:Wd4:Bc3"), ["c3:e5"]);
}

#[test]
fn a_capture_continues_to_the_end() {
    // a1 takes b2, d4 and f6 in a row; stopping on c3 or e5 is illegal.
    let fen = "W:Wa1:Bb2,d4,f6";
    assert_eq!(moves(fen), ["a1:c3:e5:g7"]);
    let pos = position(fen);
    assert!(pos.parse_move("a1:c3").is_err());
    assert!(pos.parse_move("a1:e5").is_err());
    let mv = find(&pos, "a1:c3:e5:g7");
    assert_eq!(mv.captured(), mask(&["b2", "d4", "f6"]));
    assert!(!mv.promotes());
}

#[test]
fn a_man_promoted_mid_capture_goes_on_as_a_king() {
    // b6 takes c7 and lands on d8, becoming a king; as a king it takes f6
    // at a distance (a man could not: e7 is empty) and may land on g5 or
    // h4, from neither of which more can be taken.
    let fen = "W:Wb6:Bc7,f6";
    assert_eq!(moves(fen), ["b6:d8:g5", "b6:d8:h4"]);
    let pos = position(fen);
    for mv in pos.legal_moves().iter() {
        assert!(mv.promotes(), "{mv} promotes");
        assert_eq!(mv.captured(), mask(&["c7", "f6"]));
        let after = pos.make_move(mv);
        assert_ne!(after.kings() & mv.to().bit(), 0, "{mv} ends as a king");
    }
}

#[test]
fn a_man_promoted_mid_capture_that_cannot_go_on_stops_as_a_king() {
    let pos = position("W:Wb6:Bc7");
    let list = pos.legal_moves();
    assert_eq!(list.len(), 1);
    let mv = list[0];
    assert_eq!(mv.to_string(), "b6:d8");
    assert!(mv.promotes());
    assert_eq!(pos.make_move(&mv), position("B:WKd8:B"));
}

#[test]
fn a_king_must_land_where_its_capture_continues() {
    // King a1 takes c3; of the landings d4, e5, f6, g7, h8 only e5 lets it
    // go on (f4 with g3 and h2 behind), so it must land on e5.
    assert_eq!(moves("W:WKa1:Bc3,f4"), ["a1:e5:g3", "a1:e5:h2"]);
}

#[test]
fn a_king_chooses_among_several_continuing_landings() {
    // King b2 takes d4; from e5 it can take c7 (landing b8) and from f6 it
    // can take e7; g7 and h8 lead nowhere. From d8 it takes c7 and lands on
    // a5 or b6; from b6 the captured d4 still blocks the way to f2.
    assert_eq!(
        moves("W:WKb2:Bc7,d4,e7,f2"),
        ["b2:e5:b8", "b2:f6:d8:a5", "b2:f6:d8:b6"]
    );
}

#[test]
fn turkish_strike_stops_a_king() {
    // Textbook diagram 98: b2:f6:d8:b6 and no further. With d4 removed at
    // once the king could go on from b6 over c5, d4, e3 and take f2; the
    // captured d4 stays on the board until the move ends and blocks it.
    let fen = "W:WKb2:Ba5,b8,c7,d4,e7,f2";
    assert_eq!(moves(fen), ["b2:f6:d8:b6"]);
    let pos = position(fen);
    let mv = find(&pos, "b2:f6:d8:b6");
    assert_eq!(mv.captured(), mask(&["d4", "e7", "c7"]));
    // Control: with d4 gone, a king on b6 takes f2 along b6-c5-d4-e3-f2
    // and lands on g1.
    assert_eq!(moves("W:WKb6:Ba5,b8,f2"), ["b6:g1"]);
}

#[test]
fn a_piece_cannot_be_jumped_twice() {
    // e3 takes d4, d6, f6, f4 around a diamond and is back on e3. There
    // d4 (with c5 empty behind it) and f4 (with g5 empty) would be
    // capturable again, but a piece cannot be jumped twice: the move stops.
    let fen = "W:We3:Bd4,d6,f6,f4";
    assert_eq!(moves(fen), ["e3:c5:e7:g5:e3"]);
    let pos = position(fen);
    let mv = pos.legal_moves()[0];
    assert_eq!(mv.capture_count(), 4);
    assert_eq!(mv.path().len(), 5);
}

#[test]
fn the_same_empty_square_may_be_crossed_twice() {
    // Textbook diagram 99: a3:d6:g3:e1:a5:c7, crossing b4 on the first and
    // on the fourth leg. Every other landing leads nowhere, so it is the
    // only move.
    let fen = "W:WKa3:Bb6,c3,c5,d8,e5,f2";
    assert_eq!(moves(fen), ["a3:d6:g3:e1:a5:c7"]);
    let pos = position(fen);
    let mv = pos.legal_moves()[0];
    assert_eq!(mv.captured(), mask(&["c5", "e5", "f2", "c3", "b6"]));
    // b4 lies between a3 and d6, and between e1 and a5.
    let path: Vec<String> = mv.path().map(|s| s.to_string()).collect();
    assert_eq!(path, ["a3", "d6", "g3", "e1", "a5", "c7"]);
}

#[test]
fn two_paths_with_the_same_start_end_and_captures_are_one_move_for_a_man() {
    // The diamond of `a_piece_cannot_be_jumped_twice` can be run either way
    // round: two paths, one move (rule 9). The first path found is kept.
    let fen = "W:We3:Bd4,d6,f6,f4";
    assert_eq!(moves(fen).len(), 1);
    assert_eq!(all_paths(fen), ["e3:c5:e7:g5:e3", "e3:g5:e7:c5:e3"]);
    // Both spellings name the same move.
    let pos = position(fen);
    assert_eq!(
        pos.parse_move("e3:g5:e7:c5:e3").unwrap(),
        pos.parse_move("e3:c5:e7:g5:e3").unwrap()
    );
}

#[test]
fn two_paths_with_the_same_start_end_and_captures_are_one_move_for_a_king() {
    // King a1 takes c3 and may land on d4 or e5, from both of which it
    // takes f6, then lands on g7 or h8: four paths, two moves.
    let fen = "W:WKa1:Bc3,f6";
    assert_eq!(
        all_paths(fen),
        ["a1:d4:g7", "a1:d4:h8", "a1:e5:g7", "a1:e5:h8"]
    );
    assert_eq!(moves(fen), ["a1:d4:g7", "a1:d4:h8"]);
    let pos = position(fen);
    assert_eq!(pos.parse_move("a1:e5:g7").unwrap(), find(&pos, "a1:d4:g7"));
    // The short form is not ambiguous: both paths are one move.
    assert_eq!(pos.parse_move("a1:h8").unwrap(), find(&pos, "a1:d4:h8"));
}

#[test]
fn a_capture_that_returns_to_its_start_square_is_made_correctly() {
    let pos = position("W:We3:Bd4,d6,f6,f4");
    let mv = pos.legal_moves()[0];
    assert_eq!(mv.from(), mv.to());
    let after = pos.make_move(&mv);
    assert_eq!(after, position("B:We3:B"));
    assert_eq!(after.hash(), after.compute_hash());
    // Black to move with no pieces: no legal move.
    assert!(after.legal_moves().is_empty());

    // A king running the same diamond may stop back on e3 (after taking
    // f4 from g5 it may land on e3, d2 or c1, none of which goes on).
    let king = position("W:WKe3:Bd4,d6,f6,f4");
    let back = king
        .legal_moves()
        .iter()
        .copied()
        .filter(|m| m.from() == m.to())
        .collect::<Vec<_>>();
    assert!(!back.is_empty());
    for mv in back {
        let after = king.make_move(&mv);
        assert_eq!(after.white(), sq("e3").bit(), "{mv}");
        assert_eq!(after.kings() & after.white(), sq("e3").bit(), "{mv}");
        assert_eq!(after.black(), king.black() & !mv.captured());
        assert_eq!(after.hash(), after.compute_hash());
    }
}

#[test]
fn the_short_form_is_ambiguous_when_two_captures_share_start_and_end() {
    // King a5 takes b6; from c7 it goes on over f4 (landing g3, where f2 can
    // be taken next) and from d8 over g5 (landing h4, where f2 can be taken
    // next). Both end on e1 with different captured pieces.
    let fen = "W:WKa5:Bf2,f4,g5,b6";
    assert_eq!(moves(fen), ["a5:c7:g3:e1", "a5:d8:h4:e1"]);
    let pos = position(fen);
    let err = pos.parse_move("a5:e1").unwrap_err().to_string();
    assert!(err.contains("ambiguous"), "{err}");
    assert!(err.contains("a5:c7:g3:e1") && err.contains("a5:d8:h4:e1"));
    // One landing square in between is enough to tell them apart.
    assert_eq!(
        pos.parse_move("a5:g3:e1").unwrap(),
        find(&pos, "a5:c7:g3:e1")
    );
    assert_eq!(
        pos.parse_move("a5xd8xe1").unwrap(),
        find(&pos, "a5:d8:h4:e1")
    );
}

/// A threat is a capture the opponent would have with the move: the same
/// pieces with the other side to move, a man's short capture and a king's
/// long one included, and nothing when the pieces do not touch.
#[test]
fn a_threat_is_the_capture_the_opponent_would_have() {
    let cases = [
        ("Wc3:Bd4", true),      // d4 takes c3 to b2
        ("Wc3,b2:Bd4", false),  // b2 is taken: no landing square
        ("Wc3:BKh8", true),     // the king flies g7-d4 and lands on b2 or a1
        ("Wc3:BKh8,e5", false), // its own man blocks the diagonal
        ("Wa1:Bh8", false),
    ];
    for (pieces, threat) in cases {
        let white = position(&format!("W:{pieces}"));
        let black = position(&format!("B:{pieces}"));
        assert_eq!(white.threatened(), threat, "{pieces}");
        assert_eq!(white.threatened(), black.has_capture(), "{pieces}");
    }
}
