//! The rough edges a new user hits (issue 12), each driven through the
//! built binary: fail fast with a clear message, never lose what is written.

use shashki_net::{Checkpoint, Device, Net, NetConfig};
use shashki_train::RunDir;
use shashki_train::checkpoints::CheckpointStore;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_shashki"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("shashki starts")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// (success, stdout, stderr).
fn shashki(args: &[&str]) -> (bool, String, String) {
    let out = run(args);
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

use shashki_atomic::testing::temp_dir;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn smoke_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/smoke.toml")
}

fn train_args<'a>(run_dir: &'a Path, generations: &'a str) -> Vec<&'a str> {
    vec![
        "train",
        "--config",
        s_static(smoke_config()),
        "--run-dir",
        s(run_dir),
        "--generations",
        generations,
        "--plain",
    ]
}

/// The smoke config's path as a `&'static str`.
fn s_static(path: PathBuf) -> &'static str {
    Box::leak(
        path.into_os_string()
            .into_string()
            .unwrap()
            .into_boxed_str(),
    )
}

/// Writes a tiny untrained checkpoint as `dir/tiny.shzk` and returns its path.
fn tiny_checkpoint_in(dir: &Path) -> PathBuf {
    let path = dir.join("tiny.shzk");
    let net = Net::init(&NetConfig::tiny(), 3, &Device::flex()).unwrap();
    Checkpoint::from_net(&net, 5, None)
        .unwrap()
        .save(&path)
        .unwrap();
    path
}

/// Waits for `child` at most `limit`; kills it and fails the test if it
/// does not end.
fn wait_bounded(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("shashki did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

// 12. A closed pipe ends the command quietly.
#[test]
fn a_closed_pipe_is_a_quiet_exit() {
    let mut child = bin()
        .args(["perft", "--depth", "12"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert!(
        lines
            .next()
            .unwrap()
            .unwrap()
            .starts_with("depth 1 nodes 7")
    );
    drop(lines); // what `| head -1` does
    let status = wait_bounded(&mut child, Duration::from_secs(60));
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(stderr.is_empty(), "{stderr}");
    assert!(
        status.success() || status.code() == Some(141),
        "exit status {status}"
    );
}

// 13. Messages that say what is wrong, once.
#[test]
fn messages_say_what_is_wrong() {
    let (ok, out, _) = shashki(&["perft", "--depth", "0"]);
    assert!(ok && out.starts_with("depth 0 nodes 1 "), "{out}");

    let (ok, _, err) = shashki(&["eval", "--fen", "W:Wc3:Bf6"]);
    assert!(
        !ok && err.contains("--model DIR") && err.contains("--checkpoint FILE"),
        "{err}"
    );

    let (ok, _, err) = shashki(&["moves", "--fen", "W:W20-32:B1-12"]);
    assert!(!ok && err.contains("W has 13 pieces"), "{err}");

    let (ok, _, err) = shashki(&["analyse", "--engine", "mcts", "--depth", "3"]);
    assert!(
        !ok && err.contains("--depth applies to the alpha-beta engine only"),
        "{err}"
    );
    let (ok, _, err) = shashki(&["analyse", "--engine", "mcts", "--nodes", "99999999999"]);
    assert!(
        !ok && err.contains("at most 4294967295 simulations"),
        "{err}"
    );

    // Both ways of writing the two hidden widths; a third is refused.
    let dir = temp_dir("hidden");
    for (name, widths) in [("spaces", &["64", "32"][..]), ("comma", &["64,32"][..])] {
        let out = dir.join(name);
        let mut args = vec!["nnue-init", "--out", s(&out), "--hidden"];
        args.extend_from_slice(widths);
        let (ok, text, err) = shashki(&args);
        assert!(ok && text.contains("hidden [64, 32]"), "{text}{err}");
    }
    let (ok, _, err) = shashki(&[
        "nnue-init",
        "--out",
        s(&dir.join("three")),
        "--hidden",
        "64,32,16",
    ]);
    assert!(
        !ok && err.contains("--hidden takes the widths of both hidden layers"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();

    let dir = temp_dir("messages");
    let file = dir.join("afile");
    std::fs::write(&file, "x").unwrap();
    let (ok, _, err) = shashki(&[
        "train",
        "--config",
        s_static(smoke_config()),
        "--run-dir",
        s(&file),
    ]);
    assert!(
        !ok && err.contains("run directory") && err.contains("is not a directory"),
        "{err}"
    );
    assert!(!err.contains("config"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

// 11 and 13. Export and import refuse to overwrite; errors are not repeated.
#[test]
fn export_and_import_refuse_to_overwrite_without_force() {
    let dir = temp_dir("overwrite");
    let ckpt = tiny_checkpoint_in(&dir);
    let model = dir.join("model");
    let export = |force: bool| {
        let mut args = vec!["export", "--checkpoint", s(&ckpt), "--out", s(&model)];
        if force {
            args.push("--force");
        }
        shashki(&args)
    };
    assert!(export(false).0);
    let (ok, _, err) = export(false);
    assert!(
        !ok && err.contains("already holds") && err.contains("--force"),
        "{err}"
    );
    assert!(export(true).0);

    let (ok, _, err) = shashki(&["export", "--checkpoint", s(&ckpt), "--out", s(&ckpt)]);
    assert!(!ok && err.contains("is a file"), "{err}");

    let target = dir.join("live.shzk");
    std::fs::copy(&ckpt, &target).unwrap();
    let before = std::fs::read(&target).unwrap();
    let import = |force: bool| {
        let mut args = vec!["import", "--model", s(&model), "--out", s(&target)];
        if force {
            args.push("--force");
        }
        shashki(&args)
    };
    let (ok, _, err) = import(false);
    assert!(!ok && err.contains("already exists"), "{err}");
    assert_eq!(std::fs::read(&target).unwrap(), before, "untouched");
    assert!(import(true).0);

    // No error text says the same thing twice.
    let (ok, _, err) = shashki(&[
        "eval",
        "--checkpoint",
        s(&dir.join("none.shzk")),
        "--fen",
        "W:Wc3:Bf6",
    ]);
    assert!(!ok);
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

// 10. A corrupt export does not evaluate to `null`.
#[test]
fn eval_refuses_a_corrupt_model() {
    let dir = temp_dir("corrupt-model");
    let ckpt = tiny_checkpoint_in(&dir);
    let model = dir.join("model");
    assert!(shashki(&["export", "--checkpoint", s(&ckpt), "--out", s(&model)]).0);
    let weights = model.join("model.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0xFF;
    std::fs::write(&weights, bytes).unwrap();
    let (ok, out, err) = shashki(&["eval", "--model", s(&model), "--fen", "W:Wc3:Bf6", "--json"]);
    assert!(!ok && out.is_empty(), "{out}");
    assert!(err.contains("checksum mismatch"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

// 7. An engine that cannot start or answer stops the match before a game.
#[test]
fn an_external_engine_that_cannot_start_is_not_rated() {
    let dir = temp_dir("ext");
    let ratings = dir.join("ratings.json");
    for engine in ["ext:\"/no/such/engine\"", "ext:\"/bin/cat\""] {
        let started = Instant::now();
        let (ok, out, err) = shashki(&[
            "match",
            engine,
            "random",
            "--games",
            "2",
            "--ratings",
            s(&ratings),
        ]);
        assert!(!ok, "{out}");
        assert!(err.contains(engine) && err.contains("handshake"), "{err}");
        assert!(!ratings.exists(), "nothing is rated");
        assert!(started.elapsed() < Duration::from_secs(20), "{engine}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

// 8. Every finished game is on disk at once; --resume goes on from there.
#[test]
fn games_are_recorded_as_they_end_and_a_rerun_resumes() {
    let dir = temp_dir("record");
    let (pdn, ratings) = (dir.join("games.pdn"), dir.join("ratings.json"));
    let args = [
        "rate",
        "--players",
        "random,ab:depth=1,ab:depth=2",
        "--games",
        "4",
        "--concurrency",
        "1",
        "--pdn",
        s(&pdn),
        "--ratings",
        s(&ratings),
    ];
    // Stop the run as soon as the first pair of games is on disk.
    let mut child = bin()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while std::fs::read_to_string(&pdn).map_or(0, |t| t.matches("[Round").count()) < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no game recorded"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before a game was seen"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = shashki_rules::read_pdn(&std::fs::read_to_string(&pdn).unwrap());
    assert!(
        kept.len() >= 2 && kept.len().is_multiple_of(2),
        "{} games",
        kept.len()
    );
    assert!(kept.iter().all(Result::is_ok));
    // No ratings file yet when the kill came between the first two writes.
    let rated_games: u64 = match std::fs::read_to_string(&ratings) {
        Err(_) => 0,
        Ok(text) => serde_json::from_str::<serde_json::Value>(&text).unwrap()["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                ["wins", "draws", "losses"]
                    .iter()
                    .map(|k| p[k].as_u64().unwrap())
                    .sum::<u64>()
            })
            .sum(),
    };
    // The PDN (the journal) is written first: a kill between the two writes
    // leaves the ratings at most one pair behind, never ahead.
    let behind = kept.len() - rated_games as usize;
    assert!(
        behind == 0 || behind == 2,
        "ratings {rated_games}, PDN {}",
        kept.len()
    );

    // Rerunning with --resume plays only what is missing: 3 pairings x 4.
    let mut resume = args.to_vec();
    resume.push("--resume");
    let (ok, _, err) = shashki(&resume);
    assert!(ok, "{err}");
    let all = shashki_rules::read_pdn(&std::fs::read_to_string(&pdn).unwrap());
    assert_eq!(all.len(), 12);
    let rated: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&ratings).unwrap()).unwrap();
    let games: Vec<u64> = rated["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            ["wins", "draws", "losses"]
                .iter()
                .map(|k| p[k].as_u64().unwrap())
                .sum()
        })
        .collect();
    assert!(
        games.iter().all(|&n| n <= 4),
        "no game counted twice: {games:?}"
    );
    assert!(
        games.iter().sum::<u64>() as usize + behind == 12,
        "{games:?}"
    );
    // Once everything is there, a resumed run plays nothing.
    let (ok, _, err) = shashki(&resume);
    assert!(ok && err.matches("skipped").count() == 3, "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

// 9. No plot lands beside an exported model.
#[test]
fn rating_an_exported_model_draws_no_plot_beside_it() {
    let dir = temp_dir("plot");
    let ckpt = tiny_checkpoint_in(&dir);
    let models = dir.join("models");
    let model = models.join("tiny");
    assert!(shashki(&["export", "--checkpoint", s(&ckpt), "--out", s(&model)]).0);
    let net = format!("net:{}@sims=2", model.display());
    let (ok, _, err) = shashki(&["match", &net, "random", "--games", "2"]);
    assert!(ok, "{err}");
    assert!(!models.join("elo.png").exists() && !model.join("elo.png").exists());
    std::fs::remove_dir_all(dir).unwrap();
}

// 1. Unreadable checkpoints stop the run; --restart sets them aside.
#[test]
fn a_run_whose_checkpoints_all_fail_stops_until_restarted() {
    let dir = temp_dir("unreadable");
    let out = run(&train_args(&dir, "1"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let run_dir = RunDir::new(&dir);
    let store = CheckpointStore::open(run_dir.checkpoint_dir(), 100).unwrap();
    let files = store.checkpoints().unwrap();
    assert!(!files.is_empty());
    for (_, path) in &files {
        let bytes = std::fs::read(path).unwrap();
        std::fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
    }
    let out = run(&train_args(&dir, "2"));
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("no checkpoint in") && err.contains("--restart"),
        "{err}"
    );
    for (_, path) in &files {
        assert!(
            err.contains(&path.file_name().unwrap().to_string_lossy().into_owned()),
            "{err}"
        );
        assert!(path.exists(), "nothing deleted");
    }
    let mut restart = train_args(&dir, "2");
    restart.push("--restart");
    let out = run(&restart);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let aside = run_dir.checkpoint_dir().join("unreadable");
    for (_, path) in &files {
        assert!(aside.join(path.file_name().unwrap()).exists(), "kept aside");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

// 2, 3, 4 and 6: one trainer per run directory, leftovers cleaned, SIGTERM
// stops cleanly, progress lines when piped.
#[test]
fn a_locked_run_refuses_a_second_trainer_and_sigterm_stops_it_cleanly() {
    let dir = temp_dir("lock");
    let run_dir = RunDir::new(&dir);
    // Leftovers of a killed run: a temporary file of a dead process and a
    // state file without its checkpoint.
    std::fs::create_dir_all(run_dir.checkpoint_dir()).unwrap();
    let leftover = run_dir
        .checkpoint_dir()
        .join(".ckpt-000000009.tmp4000000000.shzk");
    let orphan = run_dir.checkpoint_dir().join("ckpt-000000009.state.json");
    std::fs::write(&leftover, b"partial").unwrap();
    std::fs::write(&orphan, b"{}").unwrap();

    let mut args = train_args(&dir, "0");
    args.extend(["--progress-every", "0"]);
    let mut first = bin()
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(first.stdout.take().unwrap()).lines();
    // Progress lines come although stdout is a pipe.
    let progress = stdout
        .by_ref()
        .map(Result::unwrap)
        .find(|l| l.contains("self-play: ") && l.contains(" games ("))
        .expect("a plain progress line");
    assert!(progress.starts_with("gen 1 self-play: "), "{progress}");
    assert!(!leftover.exists() && !orphan.exists(), "leftovers cleaned");

    let (ok, _, err) = shashki(&train_args(&dir, "0"));
    assert!(
        !ok && err.contains("is in use by pid") && err.contains(&first.id().to_string()),
        "{err}"
    );

    // Let it save a generation, then SIGTERM.
    let saved = |lines: &mut dyn Iterator<Item = std::io::Result<String>>| {
        lines
            .map(Result::unwrap)
            .any(|l| l.starts_with("gen    1 |"))
    };
    assert!(saved(&mut stdout));
    let kill = Command::new("kill")
        .args(["-TERM", &first.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let rest: Vec<String> = stdout.map(Result::unwrap).collect();
    let status = wait_bounded(&mut first, Duration::from_secs(60));
    assert!(status.success(), "{status}");
    let last = rest.last().expect("a final line");
    assert!(
        last.starts_with("stopped at generation ")
            && last.contains("to resume: shashki train --run-dir"),
        "{rest:?}"
    );
    // Everything on disk loads, and the lock is free again.
    let store = CheckpointStore::open(run_dir.checkpoint_dir(), 100).unwrap();
    let latest = store.load_latest().unwrap().unwrap();
    assert!(latest.skipped.is_empty() && latest.state.is_some());
    let again = run(&train_args(
        &dir,
        &(latest.state.unwrap().generation + 1).to_string(),
    ));
    assert!(again.status.success(), "{}", text(&again.stderr));
    std::fs::remove_dir_all(dir).unwrap();
}
