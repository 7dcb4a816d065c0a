//! `shashki relabel` end to end on a tiny budget: chunks whose stored
//! scores disagree with the static evaluation on every other sample; a
//! first call with `--budget`, a second killed with SIGKILL mid-run, a
//! third that finishes. Every candidate is labelled exactly once (the
//! journal has no duplicate), every output chunk is written, and each new
//! label equals a direct search of the same position at the same depth.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::{DrawState, Game, Position};
use shashki_search::alphabeta::{AbConfig, AlphaBeta, EvalWeights, HandEval, Selectivity};
use shashki_search::limits::SearchLimits;
use shashki_selfplay::sample::FLAG_RELABELLED;
use shashki_selfplay::{ChunkWriter, Sample, list_chunks, read_chunk, score_to_wdl};
use std::collections::HashSet;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const DEPTH: u32 = 8;
const CHUNKS: usize = 4;
const PER_CHUNK: usize = 12;
/// What the relabelling search uses per position (`diagnose::label`).
const LABEL_TT_MEGABYTES: usize = 16;

use shashki_atomic::testing::temp_dir;

/// Quiet middle-game positions of seeded random games.
fn positions(count: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut out = Vec::new();
    while out.len() < count {
        let mut game = Game::new(Position::startpos());
        while !game.is_over() && game.ply() < 30 {
            let moves = game.legal_moves();
            game.play(&moves[rng.random_range(0..moves.len())]);
            let quiet = !game.legal_moves().iter().any(|m| m.is_capture());
            if game.ply() >= 8 && game.ply().is_multiple_of(3) && quiet && !game.is_over() {
                out.push(*game.position());
            }
        }
    }
    out.truncate(count);
    out
}

/// Chunks where sample `i` stores the static value (+500 cp when `i` is
/// even: a disagreement the screen must find).
fn write_chunks(dir: &Path) {
    let hand = HandEval::new(&EvalWeights::default());
    let writer = ChunkWriter::new(dir).unwrap();
    let all = positions(CHUNKS * PER_CHUNK);
    for part in all.chunks(PER_CHUNK) {
        let samples: Vec<Sample> = part
            .iter()
            .enumerate()
            .map(|(i, pos)| {
                let mut s = Sample::new(*pos, DrawState::default());
                let off = if i.is_multiple_of(2) { 500 } else { 0 };
                s.root_wdl = score_to_wdl(hand.evaluate(pos) + off);
                s.result = 0;
                s
            })
            .collect();
        writer.write(&samples, 7).unwrap();
    }
}

fn relabel(input: &Path, out: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(["relabel", "--chunks"])
        .arg(input)
        .arg("--out")
        .arg(out)
        .args([
            "--depth",
            &DEPTH.to_string(),
            "--margin",
            "100",
            "--threads",
            "2",
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("shashki starts")
}

/// Waits for `child` at most `limit`, killing it past that.
fn wait(mut child: Child, limit: Duration) -> (ExitStatus, String) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            return (status, text);
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("shashki relabel did not finish in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn journal_lines(out: &Path) -> Vec<String> {
    std::fs::read_to_string(out.join("relabel-journal.tsv"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn relabel_is_resumable_after_a_kill_and_equals_a_direct_search() {
    let dir = temp_dir("run");
    let (input, out) = (dir.join("in"), dir.join("out"));
    write_chunks(&input);
    let candidates = CHUNKS * PER_CHUNK / 2;

    // 1. A budget of 3 deep searches.
    let (status, text) = wait(
        relabel(&input, &out, &["--budget", "3"]),
        Duration::from_secs(300),
    );
    assert!(status.success(), "{text}");
    assert!(text.contains("stopped early"), "{text}");
    assert_eq!(journal_lines(&out).len(), 3, "{text}");

    // 2. Killed with SIGKILL once it has journalled a few more labels.
    let mut child = relabel(&input, &out, &[]);
    let start = Instant::now();
    while journal_lines(&out).len() < 6 {
        assert!(start.elapsed() < Duration::from_secs(300), "no progress");
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "the run ended before the kill");
    let killed_at = journal_lines(&out).len();
    assert!(killed_at < candidates, "{killed_at}");

    // 3. Resumed to the end.
    let (status, text) = wait(relabel(&input, &out, &[]), Duration::from_secs(600));
    assert!(status.success(), "{text}");
    assert!(text.contains("all done"), "{text}");
    assert!(text.contains("labels from the journal"), "{text}");

    // Every candidate journalled exactly once.
    let lines = journal_lines(&out);
    let keys: HashSet<(String, String)> = lines
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[1].to_string())
        })
        .collect();
    assert_eq!(keys.len(), lines.len(), "a label was journalled twice");
    assert_eq!(lines.len(), candidates);

    // Every chunk written under its name; the even samples relabelled by
    // exactly what a direct search says, the odd ones untouched.
    let inputs = list_chunks(&input).unwrap();
    let outputs = list_chunks(&out).unwrap();
    let names = |v: &[PathBuf]| -> Vec<String> {
        v.iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(names(&inputs), names(&outputs));
    // What the labeller runs: full width, a fresh table for each position
    // (a table kept from position to position would make a label depend on
    // which positions were searched before it, and so on where a kill fell).
    let config = AbConfig {
        tt_megabytes: LABEL_TT_MEGABYTES,
        selectivity: Selectivity::NONE,
        ..AbConfig::default()
    };
    for (a, b) in inputs.iter().zip(&outputs) {
        let before = read_chunk(a).unwrap().samples().unwrap();
        let chunk = read_chunk(b).unwrap();
        assert_eq!(chunk.header.net_step, 7);
        let after = chunk.samples().unwrap();
        assert_eq!(before.len(), after.len());
        for (i, (x, y)) in before.iter().zip(&after).enumerate() {
            assert_eq!(x.position, y.position);
            if i % 2 == 1 {
                assert_eq!(x, y, "sample {i} of {} changed", b.display());
                continue;
            }
            assert_ne!(y.flags & FLAG_RELABELLED, 0, "sample {i} not relabelled");
            let mut direct = AlphaBeta::new(config.clone());
            let result = direct.search(&Game::new(y.position), &SearchLimits::depth(DEPTH));
            assert_eq!(y.root_wdl, score_to_wdl(result.score), "sample {i}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_arguments_are_named() {
    let dir = temp_dir("bad");
    let (status, text) = wait(
        relabel(&dir, &dir.join("out"), &["--shard", "3/2"]),
        Duration::from_secs(60),
    );
    assert!(!status.success());
    assert!(text.contains("--shard"), "{text}");
    let (status, text) = wait(relabel(&dir, &dir, &[]), Duration::from_secs(60));
    assert!(!status.success());
    assert!(text.contains("--out must differ"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}
