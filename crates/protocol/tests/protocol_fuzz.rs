//! The engine protocol on random and garbled lines: commands and replies
//! never panic the parsers, every error names what is wrong, and a server
//! fed any mix of good and bad lines answers each with a well-formed reply.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use shashki_protocol::line::{Command, Reply, serve};
use shashki_search::AlphaBeta;
use std::io::Cursor;

/// Words and tokens the protocol uses, and some it does not.
const VOCABULARY: &[&str] = &[
    "name",
    "isready",
    "newgame",
    "quit",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "depth",
    "nodes",
    "movetime",
    "W:Wc3,e3:Bf6",
    "W:Wa1:Bh8",
    "B:W21-32:B1-12",
    "c3-d4",
    "f6-g5",
    "c3:e5",
    "a3-b4",
    "x",
    "-1",
    "0",
    "1",
    "7",
    "99999999999999999999999",
    "1e3",
    "bestmove",
    "info",
    "readyok",
    "error",
    "none",
    "K",
    ":",
    "",
];

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(VOCABULARY).prop_map(str::to_string),
        1 => "[a-z0-9:,\\-]{1,10}",
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(token(), 0..8).prop_map(|tokens| tokens.join(" "))
}

fn check_command(line: &str) -> Result<(), TestCaseError> {
    match Command::parse(line) {
        Ok(command) => {
            // What parses prints back to a line that parses to the same.
            let again = Command::parse(&command.to_string());
            prop_assert_eq!(again.ok(), Some(command));
        }
        Err(err) => {
            let message = err.to_string();
            let tokens: Vec<&str> = line.split_whitespace().collect();
            prop_assert!(
                (tokens.is_empty() && message.contains("empty"))
                    || tokens.iter().any(|t| message.contains(t)),
                "{line:?}: {message:?} names none of its tokens"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 3000,
        rng_seed: RngSeed::Fixed(0x5052_4F54_4F46_555A),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn command_lines_never_panic_and_errors_name_a_token(line in line()) {
        check_command(&line)?;
    }

    #[test]
    fn any_text_is_a_command_or_an_error(text in "\\PC{0,60}") {
        let _ = Command::parse(&text);
        let _ = Reply::parse(&text);
    }

    #[test]
    fn reply_lines_never_panic(line in line()) {
        if let Ok(reply) = Reply::parse(&line) {
            prop_assert!(!reply.to_string().is_empty());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        rng_seed: RngSeed::Fixed(0x5345_5353_494F_4E31),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Whole sessions: every line gets its answer, each a valid reply.
    #[test]
    fn a_server_answers_garbled_sessions_with_valid_replies(
        lines in prop::collection::vec(line(), 1..12)
    ) {
        // Searches stay tiny so a session is quick; everything else is as
        // garbled as it comes.
        let script: String = lines
            .iter()
            .map(|l| if l.split_whitespace().next() == Some("go") { "go depth 2" } else { l.as_str() })
            .map(|l| format!("{l}\n"))
            .collect();
        let mut engine = AlphaBeta::default();
        let mut output = Vec::new();
        serve(&mut engine, "fuzz", Cursor::new(script.into_bytes()), &mut output).unwrap();
        let text = String::from_utf8(output).unwrap();
        for reply in text.lines() {
            prop_assert!(Reply::parse(reply).is_ok(), "bad reply line {reply:?}");
        }
    }
}

#[test]
fn an_oversized_number_is_called_too_large() {
    let err = Command::parse("go depth 99999999999999999999999")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("\"99999999999999999999999\" is too large"),
        "{err}"
    );
    let err = Command::parse("go nodes 12x").unwrap_err().to_string();
    assert!(err.contains("is not a non-negative integer"), "{err}");
}
