//! `shashki serve` as a user starts it (issue 33): the README's command on
//! a fresh clone, the engines named on the command line (and nothing a
//! request names), and the token off loopback. Each server is the real
//! binary on a free port, killed when the test ends.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running `shashki serve`, killed on drop.
struct Board {
    child: Child,
    url: String,
    stderr: String,
}

impl Drop for Board {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Board {
    /// Starts `shashki serve ARGS` in `dir` and waits (at most 120 s) for
    /// the line with its URL.
    fn start(dir: &Path, args: &[&str]) -> Board {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shashki"))
            .arg("serve")
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("shashki starts");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix("Shashki Zero board at ") {
                    let _ = tx.send(rest.split_whitespace().next().unwrap_or("").to_string());
                }
            }
        });
        let url = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                let mut text = String::new();
                let _ = stderr.read_to_string(&mut text);
                panic!("shashki serve {args:?} did not start: {text}");
            }
        };
        // The warning (if any) is printed before the URL line.
        let (etx, erx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                text.push_str(&String::from_utf8_lossy(&buf[..n]));
                let _ = etx.send(text.clone());
            }
        });
        let stderr = erx
            .recv_timeout(Duration::from_millis(500))
            .unwrap_or_default();
        Board { child, url, stderr }
    }

    /// `host:port` of the URL.
    fn authority(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
            .to_string()
    }

    /// One request over a bare socket: (status, body).
    fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let authority = self.authority();
        let authority = authority.replace("0.0.0.0", "127.0.0.1");
        let mut socket = TcpStream::connect(&authority).expect("connect");
        socket
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        write!(
            socket,
            "{method} {path} HTTP/1.1\r\nhost: {authority}\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut raw = String::new();
        let _ = socket.read_to_string(&mut raw);
        let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP answer");
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        (status, body.to_string())
    }
}

use shashki_atomic::testing::temp_dir;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_readme_command_starts_the_board_on_a_fresh_clone() {
    // A fresh clone: the PDN file the README names, no `runs` folder.
    let dir = temp_dir("fresh");
    let pdn = "docs/results/nnue-curve/games.pdn";
    std::fs::create_dir_all(dir.join("docs/results/nnue-curve")).unwrap();
    std::fs::copy(repo().join(pdn), dir.join(pdn)).unwrap();
    let board = Board::start(&dir, &["--pdn", pdn, "--runs", "runs", "--port", "0"]);
    assert!(board.url.starts_with("http://127.0.0.1:"), "{}", board.url);
    let (status, info) = board.request("GET", "/api/info", "");
    assert_eq!(status, 200, "{info}");
    assert!(info.contains("\"runs\":true"), "{info}");
    assert!(info.contains("[\"builtin\","), "{info}");
    assert_eq!(board.request("GET", "/api/runs", ""), (200, "[]".into()));
    let (status, files) = board.request("GET", "/api/pdn-files", "");
    assert_eq!(status, 200);
    assert!(files.contains("games.pdn"), "{files}");
    assert!(
        !dir.join("runs").exists(),
        "the board creates no run folder"
    );
    let (status, page) = board.request("GET", "/assets/app.js", "");
    assert_eq!(status, 200);
    assert!(
        page.contains("No runs yet"),
        "the page says there are no runs yet"
    );
    drop(board);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn requests_pick_among_the_engines_the_command_line_named() {
    let dir = temp_dir("engines");
    let players = dir.join("players.toml");
    std::fs::write(
        &players,
        "[[player]]\nname = \"shallow\"\nspec = \"ab:depth=1\"\n",
    )
    .unwrap();
    let board = Board::start(
        &dir,
        &[
            "--port",
            "0",
            "--engine",
            "ab",
            "--engine",
            "quick=ab:depth=2",
            "--engine",
            "random",
            "--players-file",
            players.to_str().unwrap(),
        ],
    );
    let (_, info) = board.request("GET", "/api/info", "");
    for name in [
        "[\"ab\",",
        "[\"builtin\",",
        "[\"quick\",",
        "[\"random\",",
        "[\"shallow\",",
    ] {
        assert!(info.contains(name), "{name} in {info}");
    }
    for engine in ["ab", "builtin", "quick", "random", "shallow"] {
        let body = format!(r#"{{"moves":["c3-d4"],"engine":"{engine}","movetime_ms":50}}"#);
        let (status, reply) = board.request("POST", "/api/engine-move", &body);
        assert_eq!(status, 200, "{engine}: {reply}");
    }
    // The request of issue 33 runs nothing.
    let exact =
        r#"{"fen":"W:Wc3:Bf6","engine":"ext:/bin/sh -c \"touch marker\"","movetime_ms":100}"#;
    let (status, reply) = board.request("POST", "/api/engine-move", exact);
    assert_eq!(status, 400, "{reply}");
    assert!(reply.contains("quick"), "the choices are named: {reply}");
    assert!(!dir.join("marker").exists(), "the request ran a program");
    drop(board);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_wrong_engine_fails_at_start_naming_the_option() {
    let dir = temp_dir("wrong");
    for (args, expect) in [
        (
            vec!["--engine", "nnue:no/such/model"],
            "--engine nnue:no/such/model",
        ),
        (vec!["--engine", "abc:depth=2"], "--engine"),
        (
            vec!["--players-file", "no-such.toml"],
            "--players-file no-such.toml",
        ),
        (
            vec!["--engine", "ab", "--engine", "ab"],
            "two engines are named \"ab\"",
        ),
        (
            vec!["--host", "0.0.0.0", "--token", "short"],
            "16 characters",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_shashki"))
            .arg("serve")
            .args(["--port", "0"])
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} started");
        assert!(stderr.contains(expect), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn off_loopback_the_printed_url_carries_a_token_and_nothing_works_without_it() {
    let dir = temp_dir("token");
    let board = Board::start(&dir, &["--host", "0.0.0.0", "--port", "0"]);
    assert!(
        board.stderr.contains("warning: listening on"),
        "{}",
        board.stderr
    );
    let token = board
        .url
        .split_once("/?token=")
        .map(|(_, t)| t.to_string())
        .unwrap_or_else(|| panic!("no token in {}", board.url));
    assert!(token.len() >= 32, "{token}");
    for path in ["/", "/assets/app.js", "/api/info", "/api/pdn-files"] {
        assert_eq!(board.request("GET", path, "").0, 401, "{path}");
        let with = format!("{path}?token={token}");
        assert_eq!(board.request("GET", &with, "").0, 200, "{with}");
    }
    drop(board);
    std::fs::remove_dir_all(dir).unwrap();
}
