//! `shashki hub` driven by the real client: pydraughts' `HubEngine` (what
//! lidraughts-bot plays with), checked against pydraughts' own Russian move
//! generator. The scenarios live in `tests/hub/hub_client.py`; each test
//! here runs one, bounded by a timeout.
//!
//! Needs pydraughts (`scripts/hub/requirements.txt`, installed into .venv
//! by `bash scripts/python_env.sh`): skipped with a message locally without
//! it, a failure under CI.

#[path = "support/python.rs"]
mod python;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `hub_client.py <shashki> <scenario>` in the repository root (it
/// loads `models/`) and fails with its output unless it succeeds within
/// `limit`.
fn scenario(name: &str, limit: Duration) {
    let Some(python) = python::python_with(&["draughts"], &format!("hub {name}")) else {
        return;
    };
    let script = python::repo_root().join("tests/hub/hub_client.py");
    let mut child = Command::new(python)
        .current_dir(python::repo_root())
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_shashki"))
        .arg(name)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the Python interpreter starts");
    let readers = [
        read_all(child.stdout.take().unwrap()),
        read_all(child.stderr.take().unwrap()),
    ];
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let [stdout, stderr] = readers.map(|r| r.join().unwrap());
    match status {
        Some(status) if status.success() => print!("{stdout}"),
        Some(status) => panic!("hub {name} failed ({status}):\n{stdout}\n{stderr}"),
        None => panic!("hub {name} took more than {limit:?}:\n{stdout}\n{stderr}"),
    }
}

fn read_all(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        pipe.read_to_string(&mut text).ok();
        text
    })
}

#[test]
fn hub_handshake_refused_input_and_clean_exits() {
    scenario("handshake_errors", Duration::from_secs(60));
}

#[test]
fn hub_alpha_beta_games_against_itself_and_a_random_mover() {
    scenario("games_ab", Duration::from_secs(120));
}

#[test]
fn hub_default_engine_game_on_a_clock_with_increment() {
    scenario("game_default_clock", Duration::from_secs(120));
}

#[test]
fn hub_mcts_game_against_a_random_mover() {
    scenario("game_mcts", Duration::from_secs(120));
}

#[test]
fn hub_ponder_hit_and_ponder_miss() {
    scenario("ponder", Duration::from_secs(60));
}

#[test]
fn hub_stop_during_infinite_analysis() {
    scenario("stop_infinite", Duration::from_secs(60));
}

#[test]
fn hub_long_captures_round_trip() {
    scenario("captures", Duration::from_secs(60));
}

#[test]
fn hub_nnue_network_and_tablebase_engines() {
    scenario("engine_kinds", Duration::from_secs(120));
}
