//! `shashki analyse` and `shashki play` run as the user runs them.

use shashki_rules::Position;
use std::io::Write;
use std::process::{Command, Stdio};

fn shashki(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("shashki starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.success(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn field<'a>(output: &'a str, label: &str) -> &'a str {
    output
        .lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("no {label:?} line in:\n{output}"))
}

#[test]
fn analyse_alphabeta_prints_a_legal_best_move() {
    for fen in [
        "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
        "B:Wa1,c1,e1,b2,d2,h2,c3,e3,g3,d4,f4:Ba7,c7,e7,g7,b6,d6,f6,h6,a5,c5,g5",
    ] {
        let (ok, out, err) = shashki(
            &["analyse", "--engine", "ab", "--depth", "4", "--fen", fen],
            "",
        );
        assert!(ok, "{err}");
        let best = field(&out, "best move: ");
        let position = Position::from_fen(fen).unwrap();
        let mv = position.parse_move(best).expect("legal best move");
        assert_eq!(mv.to_string(), best);
        assert_eq!(field(&out, "pv: ").split(' ').next(), Some(best));
        assert!(out.contains("info depth 4 "), "{out}");
    }
}

#[test]
fn analyse_mcts_prints_a_legal_best_move() {
    let (ok, out, err) = shashki(
        &[
            "analyse", "--engine", "mcts", "--nodes", "200", "--seed", "4",
        ],
        "",
    );
    assert!(ok, "{err}");
    let best = field(&out, "best move: ");
    Position::startpos()
        .parse_move(best)
        .expect("legal best move");
    assert!(
        field(&out, "score (White's view): ").starts_with("value "),
        "{out}"
    );
    assert!(out.contains("nodes 200"), "{out}");
}

#[test]
fn analyse_reports_a_forced_win() {
    let (ok, out, err) = shashki(
        &["analyse", "--depth", "6", "--fen", "W:Wb2,c3,b4:Bb6,f6"],
        "",
    );
    assert!(ok, "{err}");
    assert_eq!(field(&out, "best move: "), "b4-c5");
    assert_eq!(field(&out, "score (White's view): "), "mate 3");
    assert_eq!(field(&out, "pv: "), "b4-c5 b6:d4 c3:e5:g7");
}

#[test]
fn analyse_rejects_a_bad_fen() {
    let (ok, _, err) = shashki(&["analyse", "--fen", "W:Wz9:Bh8"], "");
    assert!(!ok);
    assert!(err.contains("z9"), "{err}");
}

#[test]
fn play_refuses_illegal_moves_and_stops_at_end_of_input() {
    let (ok, out, err) = shashki(&["play", "--depth", "2"], "c3-e5\nhello\nc3-d4\n");
    assert!(ok, "{err}");
    assert!(
        out.contains("illegal move \"c3-e5\"; legal moves: a3-b4"),
        "{out}"
    );
    assert!(out.contains("cannot read move \"hello\""), "{out}");
    assert!(out.contains("engine plays "), "{out}");
    assert!(out.contains("end of input"), "{out}");
    assert!(out.contains('⛀'), "the board is drawn");
}

#[test]
fn play_ends_with_the_arbiters_verdict() {
    // As Black: after the engine's a1-b2 nothing moves (see the alpha-beta
    // tests), and the arbiter gives the game to White.
    let (ok, out, err) = shashki(
        &[
            "play",
            "--color",
            "black",
            "--depth",
            "4",
            "--fen",
            "W:Wa1,c1:Ba3",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("engine plays a1-b2"), "{out}");
    assert!(out.contains("game over: 2-0"), "{out}");
}

#[test]
fn analyse_with_tablebases_reports_their_verdict_and_refuses_a_bad_folder() {
    let dir = std::env::temp_dir().join(format!("shashki-analyse-tb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_text = dir.to_str().unwrap();
    let (ok, _, err) = shashki(&["tb", "generate", "--pieces", "3", "--out", dir_text], "");
    assert!(ok, "{err}");
    // Two kings against a man: the tables say win, 3 half-moves to the
    // capture; both engines report that, not a mate.
    let fen = "W:WKa1,Kc3:Bh4";
    for engine in [
        &["--depth", "6"][..],
        &["--engine", "mcts", "--threads", "1"][..],
    ] {
        let mut args = vec!["analyse", "--fen", fen, "--tablebase", dir_text];
        args.extend_from_slice(engine);
        let (ok, out, err) = shashki(&args, "");
        assert!(ok, "{err}");
        assert_eq!(field(&out, "score (White's view): "), "tb win 3", "{out}");
        assert_eq!(field(&out, "best move: "), "c3-e5", "{out}");
    }
    // The protocol says the same.
    let (ok, out, err) = shashki(
        &["engine", "--tablebase", dir_text],
        &format!("position fen {fen}\ngo depth 3\nquit\n"),
    );
    assert!(ok, "{err}");
    assert!(out.contains("score tb win 3"), "{out}");
    // A side to move without a legal move has lost: the probe says so.
    let (ok, out, err) = shashki(
        &["tb", "probe", "--fen", "B:Wg1:Bh2", "--dir", dir_text],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("result:   loss for Black (2-0)"), "{out}");
    assert!(out.contains("best:     none"), "{out}");
    // A folder that is not there: a clear error naming the option.
    let missing = dir.join("missing");
    let (ok, _, err) = shashki(
        &[
            "analyse",
            "--fen",
            fen,
            "--tablebase",
            missing.to_str().unwrap(),
        ],
        "",
    );
    assert!(!ok);
    assert!(
        err.contains("--tablebase") && err.contains("no such folder"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--engine` takes the player specs of `shashki rate` (one registry), the
/// older flags as their options, limits in the spec as the defaults.
#[test]
fn engines_are_named_by_the_specs_of_rate() {
    let depth = |out: &str| field(out, "depth ").split(' ').next().unwrap().to_string();
    let (ok, out, err) = shashki(&["analyse", "--engine", "ab:depth=3"], "");
    assert!(ok, "{err}");
    assert_eq!(depth(&out), "3", "the spec's depth applies: {out}");
    let (ok, out, err) = shashki(&["analyse", "--engine", "ab:depth=3", "--depth", "5"], "");
    assert!(ok, "{err}");
    assert_eq!(depth(&out), "5", "--depth wins over the spec: {out}");
    let (ok, out, err) = shashki(
        &["analyse", "--engine", "builtin:threads=2", "--depth", "4"],
        "",
    );
    assert!(ok, "{err}");
    assert!(
        field(&out, "engine: ").contains("built-in nnue models/nnue-data-2h evaluation, 2 threads"),
        "{out}"
    );
    let (ok, out, err) = shashki(
        &[
            "analyse",
            "--engine",
            "ab",
            "--threads",
            "2",
            "--depth",
            "4",
        ],
        "",
    );
    assert!(
        ok && field(&out, "engine: ").contains("2 threads"),
        "{out}{err}"
    );

    let (ok, _, err) = shashki(&["analyse", "--engine", "random"], "");
    assert!(!ok && err.contains("plays in matches only"), "{err}");
    let (ok, _, err) = shashki(&["engine", "--engine", "ab:depth=3"], "");
    assert!(!ok && err.contains("the GUI's go sets the limits"), "{err}");
    let (ok, _, err) = shashki(&["analyse", "--engine", "ab:speed=3"], "");
    assert!(!ok && err.contains("unknown ab option \"speed\""), "{err}");
}
