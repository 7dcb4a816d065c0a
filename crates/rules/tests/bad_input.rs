//! Malformed FENs and moves give errors that name the offending token; no
//! input makes the parsers panic.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use shashki_rules::{MoveError, Position, START_FEN};

/// (FEN, the token the error must name, a word of the reason).
const BAD_FENS: &[(&str, &str, &str)] = &[
    ("", "\"\"", "side to move"),
    ("   ", "\"\"", "side to move"),
    ("X:Wa1:Bb8", "\"X\"", "side to move"),
    ("White:Wa1:Bb8", "\"White\"", "side to move"),
    ("W:Wa2:Bb8", "\"a2\"", "dark square"),
    ("W:Wi9:Bb8", "\"i9\"", "dark square"),
    ("W:W33:B1", "\"33\"", "dark square"),
    ("W:W0:B1", "\"0\"", "dark square"),
    ("W:Wa1,a1:Bb8", "\"a1\"", "already occupied"),
    ("W:Wa1:Ba1", "\"a1\"", "already occupied"),
    ("W:W21-32:B1-12,20-22", "\"20-22\"", "already occupied"),
    ("W:Wb8:Ba7", "\"b8\"", "promotion rank"),
    ("B:Wa3:Bc1", "\"c1\"", "promotion rank"),
    ("W:Wa1", "\"W:Wa1\"", "B piece list is missing"),
    ("W:Bb8", "\"W:Bb8\"", "W piece list is missing"),
    ("W", "\"W\"", "missing"),
    ("W:Wa1:Xb8", "\"Xb8\"", "must start with W or B"),
    ("W:Wa1,zz:Bb8", "\"zz\"", "dark square"),
    ("W:Wa1,c1:Bb8,#!", "\"#!\"", "dark square"),
    ("W:W1-40:B", "\"1-40\"", "range"),
    ("W:W12-1:B", "\"12-1\"", "range"),
    ("W:W5-:B", "\"5-\"", "range"),
    ("W:W-5:B", "\"-5\"", "range"),
    ("W:WKK5:B1", "\"KK5\"", "dark square"),
    ("W:Wa1:Bb8:Wc1", "\"Wc1\"", "twice"),
    ("W::Bb8", "\"\"", "empty section"),
    ("W:Wa1:Bb8:", "\"\"", "empty section"),
    ("W:Wа1:Bb8", "\"а1\"", "dark square"), // Cyrillic 'а'
    ("W:Wa10:Bb8", "\"a10\"", "dark square"),
    ("W:W20-32:B1-12", "\"W:W20-32:B1-12\"", "W has 13 pieces"),
    (
        "B:WK1-12,20:B21-28",
        "\"B:WK1-12,20:B21-28\"",
        "W has 13 pieces",
    ),
    ("W:W21-32:B1-13", "\"W:W21-32:B1-13\"", "B has 13 pieces"),
];

#[test]
fn malformed_fens_are_rejected_naming_the_token() {
    for &(fen, token, reason) in BAD_FENS {
        let err = match Position::from_fen(fen) {
            Ok(pos) => panic!("{fen:?} was accepted as {}", pos.to_fen()),
            Err(err) => err,
        };
        let text = err.to_string();
        assert!(
            text.contains(&format!("(at {token})")),
            "{fen:?}: {text} does not name {token}"
        );
        assert!(text.contains(reason), "{fen:?}: {text} lacks {reason:?}");
    }
}

#[test]
fn well_formed_variants_are_accepted() {
    let start = Position::startpos();
    for fen in [
        START_FEN,
        "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        "W:W21-32:B1-12",
        "\"W:W21-32:B1-12\".",
        "\"W:W21-32:B1-12.\"",
        " w : w21-32 : b1-12 ",
        "W:B1-12:W21-32",
    ] {
        assert_eq!(Position::from_fen(fen).unwrap(), start, "{fen:?}");
    }
    // Kings in numeric form, a side with no pieces left.
    let pos = Position::from_fen("B:WK4:B").unwrap();
    assert_eq!(pos.to_fen(), "B:WKh8:B");
}

fn syntax_error_naming(text: &str, token: &str) {
    match Position::startpos().parse_move(text) {
        Err(err @ MoveError::Syntax { .. }) => {
            let message = err.to_string();
            assert!(message.contains(token), "{text:?}: {message} lacks {token}");
        }
        other => panic!("{text:?}: expected a syntax error, got {other:?}"),
    }
}

#[test]
fn malformed_moves_are_syntax_errors_naming_the_token() {
    syntax_error_naming("", "empty");
    syntax_error_naming("   ", "empty");
    syntax_error_naming("c3", "two squares");
    syntax_error_naming("c3-a2", "\"a2\"");
    syntax_error_naming("z9-a1", "\"z9\"");
    syntax_error_naming("c3--d4", "\"\"");
    syntax_error_naming("c3-d4:e5", "mixes");
    syntax_error_naming("c3-d4-", "\"\"");
    syntax_error_naming("c3-33", "\"33\"");
    syntax_error_naming("c3-d4!", "\"d4!\"");
    syntax_error_naming("с3-d4", "\"с3\""); // Cyrillic 'с'
}

#[test]
fn illegal_moves_are_rejected_with_the_legal_list() {
    let start = Position::startpos();
    for text in [
        "a1-b2", "c3-b6", "c3-e5", "c3:e5", "d6-c5", "c3-d4-e5", "h2-g3",
    ] {
        match start.parse_move(text) {
            Err(MoveError::Illegal { text: t, legal }) => {
                assert_eq!(t, text);
                assert!(legal.contains("c3-d4"), "{legal}");
            }
            other => panic!("{text}: expected illegal, got {other:?}"),
        }
    }
    // A quiet move is illegal when a capture exists.
    let pos = Position::from_fen("W:Wa3,c3:Bd4,h8").unwrap();
    match pos.parse_move("a3-b4") {
        Err(MoveError::Illegal { legal, .. }) => assert_eq!(legal, "c3:e5"),
        other => panic!("expected illegal, got {other:?}"),
    }
    // Stopping a capture half way is illegal.
    let pos = Position::from_fen("W:Wa1:Bb2,d4,f6").unwrap();
    assert!(matches!(
        pos.parse_move("a1:c3"),
        Err(MoveError::Illegal { .. })
    ));
    // A capture written with '-' is not a quiet move.
    assert!(matches!(
        pos.parse_move("a1-g7"),
        Err(MoveError::Illegal { .. })
    ));
}

#[test]
fn ambiguous_short_forms_list_the_candidates() {
    let pos = Position::from_fen("W:WKa5:Bf2,f4,g5,b6").unwrap();
    match pos.parse_move("a5:e1") {
        Err(MoveError::Ambiguous { text, candidates }) => {
            assert_eq!(text, "a5:e1");
            assert_eq!(candidates, "a5:c7:g3:e1, a5:d8:h4:e1");
        }
        other => panic!("expected ambiguous, got {other:?}"),
    }
}

proptest! {
    // A fixed seed keeps every run reproducible; a failure prints its input.
    #![proptest_config(ProptestConfig {
        cases: 2000,
        rng_seed: RngSeed::Fixed(0x5348_4153_484B_4931),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any text: an error or a position, never a panic; a position always
    /// writes a FEN that reads back to itself.
    #[test]
    fn from_fen_never_panics(text in "\\PC{0,40}") {
        if let Ok(pos) = Position::from_fen(&text) {
            prop_assert_eq!(Position::from_fen(&pos.to_fen()).unwrap(), pos);
        }
    }

    /// FEN-like text built from the FEN alphabet reaches the deeper checks.
    #[test]
    fn fen_like_text_never_panics(text in "[WBwbK]?(:[WBK]?[a-j0-9Kk,\\- ]{0,12}){0,4}") {
        let _ = Position::from_fen(&text);
    }

    /// Any move text in a few positions: an error or a legal move.
    #[test]
    fn parse_move_never_panics(text in "[a-j0-9:x\\-]{0,14}") {
        for fen in [START_FEN, "W:WKa5:Bf2,f4,g5,b6", "W:We3:Bd4,d6,f6,f4"] {
            let pos = Position::from_fen(fen).unwrap();
            if let Ok(mv) = pos.parse_move(&text) {
                prop_assert!(pos.legal_moves().iter().any(|m| *m == mv));
            }
        }
    }
}
