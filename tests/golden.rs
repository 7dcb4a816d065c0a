//! Golden files: what the engines, the arena, both protocols and the
//! trainer produce from fixed seeds, recorded before the refactor of issue
//! 37 and held fixed through it (a refactor changes no game, no transcript
//! and no checkpoint). `SHASHKI_BLESS=1 cargo test --release --test golden`
//! rewrites them, for a change that is meant to alter behaviour; the diff
//! then shows what changed.
//!
//! - `rating.pdn`: a fixed-seed rating run between one player of every
//!   kind (random, ab, nnue, mcts, net) from the usual openings;
//! - `engine.txt`, `hub.txt`: scripted sessions of the line protocol and of
//!   Hub, `time` and `nps` figures removed (they depend on the machine);
//! - `smoke.sha256`: the weights of every checkpoint a from-zero smoke run
//!   (`configs/smoke.toml`, seed 7) writes (the optimiser state is left
//!   out: burn writes its parameters under per-run random ids).

#[path = "support/cli.rs"]
mod cli;

use cli::{ok_in_repo, repo_root, temp_dir};
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Compares `actual` with the golden file `name`, or writes it when blessing.
fn check(name: &str, actual: &str) {
    let path = repo_root().join("tests/golden").join(name);
    if std::env::var_os("SHASHKI_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (SHASHKI_BLESS=1 writes it)", path.display()));
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{name} differs from its golden file from line {}:\nexpected: {:?}\nactual:   {:?}",
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}

#[test]
fn fixed_seed_rating_games_are_unchanged() {
    let dir = temp_dir("rating");
    let pdn = dir.join("games.pdn");
    ok_in_repo(&[
        "rate",
        "--players",
        "random,ab:depth=3,nnue:models/nnue-2h@depth=3,mcts:sims=32,net:models/diag-2h@sims=16",
        "--games",
        "2",
        "--openings",
        "crates/arena/data/openings.txt",
        "--seed",
        "5",
        "--concurrency",
        "1",
        "--pdn",
        pdn.to_str().unwrap(),
    ]);
    let games: String = std::fs::read_to_string(&pdn)
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with("[Date "))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_eq!(games.matches("[Result ").count(), 20);
    check("rating.pdn", &games);
}

/// Plays `script` to `shashki ARGS` one line at a time, waiting after each
/// line for the replies that end it (a line of `ends` for that command, or
/// none), and returns the transcript: `> sent` and the replies.
fn session(args: &[&str], script: &[(&str, Option<&str>)]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shashki"))
        .current_dir(repo_root())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("shashki starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut transcript = String::new();
    for (line, ends_with) in script {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        transcript += &format!("> {line}\n");
        let Some(end) = ends_with else { continue };
        loop {
            let mut reply = String::new();
            assert!(stdout.read_line(&mut reply).unwrap() > 0, "{transcript}");
            let reply = without_timing(reply.trim_end());
            transcript += &format!("{reply}\n");
            if reply.starts_with(end) {
                break;
            }
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success(), "{transcript}");
    transcript
}

/// A reply without its `time` and `nps` figures (either protocol's syntax).
fn without_timing(reply: &str) -> String {
    let words: Vec<&str> = reply.split(' ').collect();
    let mut kept = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        if word == "time" || word == "nps" {
            i += 2;
            continue;
        }
        if !(word.starts_with("time=") || word.starts_with("nps=")) {
            kept.push(word);
        }
        i += 1;
    }
    kept.join(" ")
}

#[test]
fn line_protocol_transcript_is_unchanged() {
    let transcript = session(
        &["engine"],
        &[
            ("name", Some("name ")),
            ("isready", Some("readyok")),
            ("position startpos moves c3-d4 d6-c5", None),
            ("go depth 7", Some("bestmove")),
            ("position fen W:Wc1,Ke1:Bb6,e5,e7,g7,Kd2", None),
            ("go depth 5", Some("bestmove")),
            ("position startpos moves c3-d5", Some("error")),
            ("go nodes 3000", Some("bestmove")),
            ("newgame", None),
            ("isready", Some("readyok")),
            ("quit", None),
        ],
    );
    check("engine.txt", &transcript);
}

#[test]
fn hub_transcript_is_unchanged() {
    let start = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";
    let moves = format!("pos pos={start} moves=\"9-13 22-18\"");
    let transcript = session(
        &["hub"],
        &[
            ("hub", Some("wait")),
            ("set-param name=move-overhead value=40", None),
            ("init", Some("ready")),
            ("ping", Some("pong")),
            (&moves, None),
            ("level depth=6", None),
            ("go think", Some("done")),
            ("level nodes=2000", None),
            ("go think", Some("done")),
            ("new-game", None),
            ("ping", Some("pong")),
            ("quit", None),
        ],
    );
    check("hub.txt", &transcript);
}

/// The sha256 of a checkpoint's weights (its safetensors part).
fn weights_sha256(bytes: &[u8]) -> String {
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[16..16 + header_len]).unwrap();
    let weights_len = header["weights_len"].as_u64().unwrap() as usize;
    let weights = &bytes[16 + header_len..16 + header_len + weights_len];
    format!("{:x}", Sha256::digest(weights))
}

#[test]
fn smoke_run_checkpoints_are_unchanged() {
    let dir = temp_dir("smoke");
    let run = dir.join("run");
    ok_in_repo(&[
        "train",
        "--config",
        "configs/smoke.toml",
        "--run-dir",
        run.to_str().unwrap(),
    ]);
    let mut files: Vec<PathBuf> = std::fs::read_dir(run.join("checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "shzk"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    let sums: String = files
        .iter()
        .map(|f| {
            let bytes = std::fs::read(f).unwrap();
            let name = f.file_name().unwrap().to_string_lossy();
            format!("{}  {name}\n", weights_sha256(&bytes))
        })
        .collect();
    check("smoke.sha256", &sums);
}
