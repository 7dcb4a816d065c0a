//! `shashki export --format onnx` checked by the real ONNX Runtime: for each
//! shipped MCTS model, `model.onnx` run by onnxruntime (scripts/onnx_forward.py,
//! one Python process per batch size) gives the W/D/L and move
//! probabilities of `shashki eval` within 1e-4 on 1,000 positions
//! (openings, middlegames, endings, kings, captures due; repetition and
//! draw-count inputs set on some), batches of 1 and of 64 agree, and the
//! example of docs/MODEL.md prints `shashki eval`'s best move.
//!
//! Skipped (with a message) only when the interpreter, numpy or
//! onnxruntime is missing; CI (`.ci/run`, scripts/python_env.sh) installs
//! them, and there a skip is a failure.

#[path = "support/python.rs"]
mod python;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use shashki_rules::Position;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The shipped MCTS models (policy/value nets; `nnue-2h` is not one).
const MODELS: [&str; 4] = ["cpu-2h", "diag-2h", "diag-fast-2h", "diag-4h"];
const POSITIONS: usize = 1000;
const TOLERANCE: f64 = 1e-4;
/// Batches of 1 and of 64 run the same graph; only float rounding differs.
const BATCH_TOLERANCE: f64 = 1e-5;
/// Bound on every process the test starts.
const TIMEOUT: Duration = Duration::from_secs(300);

/// Which positions a quota takes: (ply, position) -> fits.
type PositionKind<'a> = dyn Fn(usize, &Position) -> bool + 'a;

use shashki_atomic::testing::temp_dir;

/// Runs `command` (stdout and stderr to files in `dir`), killed after
/// [`TIMEOUT`]; returns (success, stdout, stderr).
fn run(mut command: Command, dir: &Path, name: &str) -> (bool, String, String) {
    let (out_path, err_path) = (
        dir.join(format!("{name}.out")),
        dir.join(format!("{name}.err")),
    );
    command
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .stdin(Stdio::null());
    let mut child = command.spawn().expect("the process starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{name} ran longer than {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    (status.success(), read(&out_path), read(&err_path))
}

fn shashki(args: &[&str], dir: &Path, name: &str) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_shashki"));
    command.args(args);
    let (ok, out, err) = run(command, dir, name);
    assert!(ok, "shashki {args:?} failed: {err}");
    out
}

fn shipped(name: &str) -> PathBuf {
    python::repo_root().join("models").join(name)
}

/// `name`'s model exported as ONNX into `dir/name`, checked by `shashki
/// check-onnx`; returns the file.
fn export_onnx(name: &str, dir: &Path) -> PathBuf {
    let out = dir.join(name);
    let model = shipped(name);
    let args = [
        "export",
        "--model",
        model.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    shashki(&[&args[..], &["--format", "onnx"]].concat(), dir, "export");
    let file = out.join("model.onnx");
    let check = shashki(&["check-onnx", file.to_str().unwrap()], dir, "check");
    assert!(check.contains("valid"), "{check}");
    file
}

/// What a position counts as (a position may be several).
#[derive(Default)]
struct Coverage {
    openings: usize,
    middlegames: usize,
    endings: usize,
    kings: usize,
    captures: usize,
    counters: usize,
}

/// 1,000 distinct positions with moves, from seeded random games (a game
/// ends at 200 plies): 200 openings (at most 10 plies), 250 endings (at
/// most 10 pieces), 150 with a king, 150 with a capture due, the rest
/// middlegames; every other one with the repetition or draw-count input
/// set. Returns the JSON lines of `shashki eval --positions`.
fn positions() -> (Vec<Value>, Coverage) {
    let mut rng = ChaCha8Rng::seed_from_u64(38);
    let mut pool: Vec<(usize, Position)> = Vec::new();
    let mut seen = BTreeSet::new();
    while pool.len() < 30_000 {
        let mut pos = Position::startpos();
        for ply in 1..=200 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.make_move(&moves[rng.random_range(0..moves.len())]);
            if !pos.legal_moves().is_empty() && seen.insert(pos.to_fen()) {
                pool.push((ply, pos));
            }
        }
    }
    let pieces = |p: &Position| p.occupied().count_ones() as usize;
    let has_king = |p: &Position| p.kings() != 0;
    let capture_due = |p: &Position| p.legal_moves().iter().any(|m| m.is_capture());
    let quotas: [(usize, &PositionKind<'_>); 5] = [
        (200, &|ply, _| ply <= 10),
        (250, &|_, p| pieces(p) <= 10),
        (150, &|_, p| has_king(p)),
        (150, &|_, p| capture_due(p)),
        (250, &|ply, p| ply > 10 && pieces(p) > 10),
    ];
    let mut chosen: Vec<Position> = Vec::new();
    let mut taken = vec![false; pool.len()];
    for (quota, fits) in quotas {
        let picks: Vec<usize> = (0..pool.len())
            .filter(|&i| !taken[i] && fits(pool[i].0, &pool[i].1))
            .take(quota)
            .collect();
        assert_eq!(picks.len(), quota, "the pool lacks positions of a kind");
        for i in picks {
            taken[i] = true;
            chosen.push(pool[i].1);
        }
    }
    assert_eq!(chosen.len(), POSITIONS);
    let mut coverage = Coverage::default();
    let lines = chosen
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let ply = pool.iter().find(|(_, q)| q == p).unwrap().0;
            coverage.openings += usize::from(ply <= 10);
            coverage.endings += usize::from(pieces(p) <= 10);
            coverage.middlegames += usize::from(ply > 10 && pieces(p) > 10);
            coverage.kings += usize::from(has_king(p));
            coverage.captures += usize::from(capture_due(p));
            let mut line = json!({"fen": p.to_fen()});
            match i % 4 {
                1 => line["repetitions"] = json!(2 + i % 2),
                2 => line["plies_to_draw"] = json!(i % 40),
                3 => {
                    line["repetitions"] = json!(2);
                    line["plies_to_draw"] = json!(1 + i % 128);
                }
                _ => {}
            }
            coverage.counters += usize::from(i % 4 != 0);
            line
        })
        .collect();
    (lines, coverage)
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The largest difference between two `eval --json` lines (W/D/L and the
/// probability of every move); panics if the moves differ.
fn difference(a: &Value, b: &Value, what: &str) -> f64 {
    let mut worst = 0.0f64;
    for k in 0..3 {
        worst = worst.max((a["wdl"][k].as_f64().unwrap() - b["wdl"][k].as_f64().unwrap()).abs());
    }
    let (pa, pb) = (
        a["policy"].as_object().unwrap(),
        b["policy"].as_object().unwrap(),
    );
    let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<BTreeSet<_>>();
    assert_eq!(keys(pa), keys(pb), "{what}: other moves");
    for (mv, p) in pa {
        worst = worst.max((p.as_f64().unwrap() - pb[mv].as_f64().unwrap()).abs());
    }
    worst
}

/// The ONNX Runtime's lines for `positions` in batches of `batch`.
fn onnx_runtime(
    python: &Path,
    model: &Path,
    positions: &Path,
    batch: usize,
    dir: &Path,
) -> Vec<Value> {
    let mut command = Command::new(python);
    command
        .arg(python::repo_root().join("scripts/onnx_forward.py"))
        .arg("--model")
        .arg(model)
        .arg("--positions")
        .arg(positions)
        .args(["--batch", &batch.to_string()]);
    let (ok, out, err) = run(command, dir, &format!("onnxruntime-{batch}"));
    assert!(ok, "onnx_forward.py failed: {err}");
    json_lines(&out)
}

#[test]
fn onnx_runtime_matches_shashki_eval_on_the_shipped_models() {
    let Some(python) = python::python_with(&["numpy", "onnxruntime"], "onnx_runtime_matches")
    else {
        return;
    };
    let dir = temp_dir("shipped");
    let (lines, coverage) = positions();
    println!(
        "{} positions: {} openings, {} middlegames, {} endings, {} with kings, {} captures due, \
         {} with draw inputs set",
        lines.len(),
        coverage.openings,
        coverage.middlegames,
        coverage.endings,
        coverage.kings,
        coverage.captures,
        coverage.counters
    );
    let positions = dir.join("positions.jsonl");
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&positions, text.join("\n") + "\n").unwrap();
    for name in MODELS {
        let onnx = export_onnx(name, &dir);
        let model = shipped(name);
        let args = ["eval", "--model", model.to_str().unwrap(), "--positions"];
        let eval = json_lines(&shashki(
            &[&args[..], &[positions.to_str().unwrap()]].concat(),
            &dir,
            "eval",
        ));
        let batched = onnx_runtime(&python, &onnx, &positions, 64, &dir);
        let single = onnx_runtime(&python, &onnx, &positions, 1, &dir);
        assert_eq!(
            (eval.len(), batched.len(), single.len()),
            (POSITIONS, POSITIONS, POSITIONS)
        );
        let (mut worst, mut worst_batch) = (0.0f64, 0.0f64);
        for (i, line) in lines.iter().enumerate() {
            let what = format!("{name}, position {i} {line}");
            let d = difference(&eval[i], &batched[i], &what);
            assert!(
                d < TOLERANCE,
                "{what}: onnxruntime differs from shashki eval by {d}"
            );
            worst = worst.max(d);
            let d = difference(&single[i], &batched[i], &what);
            assert!(
                d < BATCH_TOLERANCE,
                "{what}: batch 1 differs from batch 64 by {d}"
            );
            worst_batch = worst_batch.max(d);
        }
        println!(
            "{name}: onnxruntime against shashki eval: largest difference {worst:.2e}; \
             batch 1 against batch 64: {worst_batch:.2e}"
        );
    }
}

/// The Python block after `<!-- onnx-example -->` in docs/MODEL.md.
fn docs_example() -> String {
    let doc = std::fs::read_to_string(python::repo_root().join("docs/MODEL.md")).unwrap();
    let after = doc
        .split("<!-- onnx-example -->")
        .nth(1)
        .expect("the example's marker");
    let code = after.split("```python\n").nth(1).expect("a python block");
    code.split("```").next().unwrap().to_string()
}

#[test]
fn the_docs_example_prints_the_best_move_of_shashki_eval() {
    let Some(python) = python::python_with(&["numpy", "onnxruntime"], "the_docs_example") else {
        return;
    };
    let dir = temp_dir("docs-example");
    let script = dir.join("example.py");
    std::fs::write(&script, docs_example()).unwrap();
    for (name, fen) in [
        (
            "diag-2h",
            "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
        ),
        ("cpu-2h", "B:W18,19,K30:B11,12,K1"),
    ] {
        let onnx = export_onnx(name, &dir);
        let mut command = Command::new(&python);
        command
            .current_dir(python::repo_root())
            .arg(&script)
            .arg(&onnx)
            .arg(fen);
        let (ok, out, err) = run(command, &dir, "example");
        assert!(ok, "the docs example failed: {err}");
        let model = shipped(name);
        let eval = shashki(
            &[
                "eval",
                "--model",
                model.to_str().unwrap(),
                "--fen",
                fen,
                "--json",
            ],
            &dir,
            "eval",
        );
        let eval: Value = serde_json::from_str(eval.trim()).unwrap();
        // serde_json's map is sorted by key: the best move is the largest prior.
        let policy = eval["policy"].as_object().unwrap();
        let best = policy
            .iter()
            .max_by(|a, b| a.1.as_f64().unwrap().total_cmp(&b.1.as_f64().unwrap()))
            .unwrap()
            .0
            .clone();
        println!("{name}: the example printed:\n{out}");
        assert!(
            out.contains(&format!("best move: {best}")),
            "{out} (shashki eval: {best})"
        );
        let printed: Vec<f64> = out
            .lines()
            .find_map(|l| l.strip_prefix("W/D/L: "))
            .expect("a W/D/L line")
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        for (k, printed) in printed.iter().enumerate() {
            // Three decimals printed: half a unit of the last, plus the 1e-4.
            let eval = eval["wdl"][k].as_f64().unwrap();
            assert!(
                (printed - eval).abs() < 6e-4,
                "{out} (shashki eval: {eval})"
            );
        }
    }
}

/// The stated bound (docs/MODEL.md, "The NNUE as ONNX") between the float
/// net's score (ONNX) and the engine's quantized score, in centi-men.
const QUANTIZATION_CP: f64 = 60.0;
/// ... and on average over the positions.
const QUANTIZATION_MEAN_CP: f64 = 10.0;

/// The shipped NNUE models: `nnue-2h`, and `nnue-data-2h`, the built-in one.
const NNUE_MODELS: [&str; 2] = ["nnue-2h", "nnue-data-2h"];

#[test]
fn the_nnue_onnx_matches_the_float_net_and_the_engine_within_quantization() {
    let Some(python) = python::python_with(&["numpy", "onnxruntime", "safetensors"], "nnue_onnx")
    else {
        return;
    };
    let dir = temp_dir("nnue");
    let (lines, _) = positions();
    let file = dir.join("positions.jsonl");
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&file, text.join("\n") + "\n").unwrap();
    for model in NNUE_MODELS {
        check_nnue_onnx(model, &python, &lines, &file, &dir.join(model));
    }
}

/// One NNUE model's ONNX export against its float net and the engine's
/// quantized score on `lines` (written to `file`).
fn check_nnue_onnx(model: &str, python: &Path, lines: &[Value], file: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let onnx = export_onnx(model, dir);
    let batched = onnx_runtime(python, &onnx, file, 64, dir);
    let single = onnx_runtime(python, &onnx, file, 1, dir);
    let (float, _) = shashki_nnue::load_float(&shipped(model)).unwrap();
    let quantized = shashki_nnue::load_quantized(&shipped(model)).unwrap();
    let (mut worst_float, mut worst_batch) = (0.0f64, 0.0f64);
    let mut worst_cp = (0.0f64, String::new());
    let mut total_cp = 0.0;
    for (i, line) in lines.iter().enumerate() {
        let position = Position::from_fen(line["fen"].as_str().unwrap()).unwrap();
        let logit = batched[i]["logit"].as_f64().unwrap();
        let batch = (logit - single[i]["logit"].as_f64().unwrap()).abs();
        assert!(
            batch < BATCH_TOLERANCE,
            "{line}: batch 1 differs from batch 64 by {batch}"
        );
        worst_batch = worst_batch.max(batch);
        let d = (logit - f64::from(float.forward(&position))).abs();
        assert!(
            d < TOLERANCE,
            "{line}: the ONNX logit differs from the float net's by {d}"
        );
        worst_float = worst_float.max(d);
        let cp = shashki_nnue::quant::output_to_cp(quantized.reference_output(&position));
        let d = (logit * f64::from(shashki_nnue::EVAL_CP_PER_UNIT) - f64::from(cp)).abs();
        total_cp += d;
        if d > worst_cp.0 {
            worst_cp = (d, format!("{line}: float {logit}, the engine's {cp} cp"));
        }
    }
    let mean_cp = total_cp / lines.len() as f64;
    println!(
        "{model}: ONNX against the float net {worst_float:.2e}, against the engine's \
         quantized score {:.2} cp at most ({}), {mean_cp:.2} cp on average, batch 1 against \
         64 {worst_batch:.2e}",
        worst_cp.0, worst_cp.1
    );
    assert!(mean_cp <= QUANTIZATION_MEAN_CP, "{mean_cp} cp on average");
    assert!(
        worst_cp.0 <= QUANTIZATION_CP,
        "the float and the engine's quantized scores differ by {:.2} cp on {}",
        worst_cp.0,
        worst_cp.1
    );
}
