//! Drives `shashki engine` as a child process through a short game, as an
//! external program would: name, isready, position/go/bestmove several times,
//! refused input (illegal move, bad FEN, unknown command), then quit.

use shashki_rules::{Game, Position};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl EngineProcess {
    fn start(args: &[&str]) -> EngineProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shashki"))
            .arg("engine")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("shashki starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        EngineProcess {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("engine reads");
        self.stdin.flush().unwrap();
    }

    fn read(&mut self) -> String {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("engine writes");
        assert!(n > 0, "engine closed its output");
        line.trim_end().to_string()
    }

    /// Sends `go ...` and returns the `bestmove` argument, checking that every
    /// line before it is an `info` line.
    fn go(&mut self, command: &str) -> String {
        self.send(command);
        loop {
            let line = self.read();
            if let Some(mv) = line.strip_prefix("bestmove ") {
                return mv.to_string();
            }
            assert!(line.starts_with("info "), "unexpected line {line:?}");
        }
    }
}

#[test]
fn plays_a_short_game_over_the_protocol() {
    let mut engine = EngineProcess::start(&[]);
    engine.send("name");
    assert_eq!(
        engine.read(),
        format!("name Shashki Zero {}", env!("CARGO_PKG_VERSION"))
    );
    engine.send("isready");
    assert_eq!(engine.read(), "readyok");
    engine.send("newgame");

    // Six plies: each time the whole game is sent, the engine answers a legal move.
    let mut game = Game::new(Position::startpos());
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..6 {
        let command = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        engine.send(&command);
        let best = engine.go("go depth 3");
        let mv = game
            .position()
            .parse_move(&best)
            .expect("bestmove is legal");
        assert_eq!(mv.to_string(), best, "bestmove is in long notation");
        game.play(&mv);
        moves.push(best);
    }

    // Refused input: an error line each, and the engine keeps running with
    // the last good position.
    engine.send(&format!("position startpos moves {}", moves.join(" ")));
    engine.send("position startpos moves c3-e5");
    let reply = engine.read();
    assert!(
        reply.starts_with("error ") && reply.contains("c3-e5"),
        "{reply:?}"
    );
    engine.send("position fen X:Wa1:Bh8");
    assert!(engine.read().starts_with("error "));
    engine.send("fly away");
    assert!(engine.read().starts_with("error unknown command"));
    engine.send("go depth x");
    assert!(engine.read().starts_with("error "));
    engine.send("isready");
    assert_eq!(engine.read(), "readyok");
    let best = engine.go("go nodes 2000");
    game.position()
        .parse_move(&best)
        .expect("still the six-ply position");

    // A FEN with moves; then a position without any legal move.
    engine.send("position fen W:Wc3,h2:Ba5 moves h2-g3 a5-b4");
    assert_eq!(engine.go("go depth 2"), "c3:a5");
    engine.send("position fen W:Wa1:Bb2,c3");
    assert_eq!(engine.go("go movetime 50"), "none");

    engine.send("quit");
    let status = engine.child.wait().unwrap();
    assert!(status.success());
}

#[test]
fn the_mcts_engine_speaks_the_same_protocol() {
    let mut engine = EngineProcess::start(&["--engine", "mcts", "--seed", "2"]);
    engine.send("position fen W:Wb2,c3,b4:Bb6,f6");
    assert_eq!(engine.go("go nodes 400"), "b4-c5");
    engine.send("position fen W:Wb2,c3,b4:Bb6,f6 moves b4-c5 b6:d4");
    assert_eq!(engine.go("go nodes 50"), "c3:e5:g7");
    engine.send("quit");
    assert!(engine.child.wait().unwrap().success());
}

#[test]
fn end_of_input_ends_the_engine_cleanly() {
    let mut engine = EngineProcess::start(&["--engine", "ab"]);
    engine.send("isready");
    assert_eq!(engine.read(), "readyok");
    drop(engine.stdin);
    let status = engine.child.wait().unwrap();
    assert!(status.success());
}
