//! `shashki pdn check` and `shashki pdn replay --json`, driven through the
//! built binary.

use std::path::PathBuf;
use std::process::Command;

const FILE: &str = r#"[Event "won by the record, a draw by the rules"]
[Result "2-0"]
[FEN "W:WKa1:BKh2,c3"]
1. a1:d4 2-0

[Event "goes on"]
1. c3-d4 f6-e5 2. d4:f6 g7:e5 *

[Event "broken"]
1. c3-d4 d6-c5 2. c3-e5 *

[Event "no moves left"]
[FEN "W:Wc3:Bd4"]
1. c3:e5 2-0
"#;

/// Writes `text` to a fresh file in the temp folder.
fn temp_pdn(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("shashki-cli-{}-{name}.pdn", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

fn shashki(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(args)
        .output()
        .expect("run shashki");
    (out.status.success(), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn replay_json_gives_the_arbiters_verdict() {
    let path = temp_pdn("replay", FILE);
    let (ok, stdout) = shashki(&["pdn", "replay", path.to_str().unwrap(), "--json"]);
    std::fs::remove_file(&path).unwrap();
    assert!(ok, "{stdout}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let games = doc["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    assert_eq!(games[0]["plies"], 1);
    assert_eq!(games[0]["result"], "1-1");
    assert_eq!(games[0]["reason"], "insufficient material");
    assert_eq!(games[1]["plies"], 4);
    assert!(games[1]["result"].is_null());
    assert!(games[2]["error"].as_str().unwrap().contains("c3-e5"));
    assert_eq!(games[3]["result"], "2-0");
    assert_eq!(games[3]["reason"], "no legal moves");
}

#[test]
fn replay_one_game_prints_boards() {
    let path = temp_pdn("boards", FILE);
    let (ok, stdout) = shashki(&["pdn", "replay", path.to_str().unwrap(), "--game", "2"]);
    let (bad_ok, _) = shashki(&["pdn", "replay", path.to_str().unwrap(), "--game", "9"]);
    let (broken_ok, broken_out) =
        shashki(&["pdn", "replay", path.to_str().unwrap(), "--game", "3"]);
    std::fs::remove_file(&path).unwrap();
    assert!(ok, "{stdout}");
    assert!(!bad_ok, "--game 9 of 4 must fail");
    assert!(!broken_ok, "a broken game must fail: {broken_out}");
    // The start and one board per half-move, White at the bottom.
    assert_eq!(stdout.matches("  a b c d e f g h").count(), 5, "{stdout}");
    assert!(stdout.contains("2... g7:e5"), "{stdout}");
    assert!(
        stdout.contains("outcome: not over; record says *"),
        "{stdout}"
    );
}

#[test]
fn check_reports_each_game_and_fails_on_a_broken_one() {
    let path = temp_pdn("check", FILE);
    let (ok, stdout) = shashki(&["pdn", "check", path.to_str().unwrap()]);
    std::fs::remove_file(&path).unwrap();
    assert!(!ok);
    let lines: Vec<&str> = stdout.lines().collect();
    // The record says White won; the rules say the position is a draw.
    assert_eq!(
        lines[0],
        "game 1: 1 plies, the record says 2-0 but the arbiter gives 1-1 (insufficient material)"
    );
    assert_eq!(lines[1], "game 2: ok, 4 plies, result *");
    assert!(
        lines[2].starts_with("game 3, line 10, move 2.: \"c3-e5\""),
        "{}",
        lines[2]
    );
    assert_eq!(
        lines[4],
        "4 games, 2 ok, 1 broken, 1 with a result the arbiter disputes"
    );
}
