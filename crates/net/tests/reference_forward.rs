//! The promise to other front ends: `scripts/reference_forward.py` (numpy
//! only) reads an exported model and gives the same W/D/L and policy as our
//! evaluator, within 1e-4, on a few hundred positions.
//!
//! Skipped (with a message) only when python3, numpy or safetensors is
//! missing; CI installs them with `pip install numpy safetensors`.

mod common;

use common::{evaluate_all, random_batch_norm_net, random_positions, temp_dir, tiny_of_every_kind};
use shashki_net::{Checkpoint, Device, NetConfig, NetEvaluator, export_model};
use shashki_rules::Position;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

/// Hand-picked positions: the rules digest's 12-move king capture, a man
/// promoted mid-capture that goes on as a king, flying kings, Black to move.
const SPECIAL_FENS: &[&str] = &[
    "W:Wc1,Ke1:Bb6,e5,e7,g7,Kd2",
    "W:Wc5:Bd6,f6,f4,b6",
    "W:We5:Bd6,f8,g7,c3",
    "B:Wc3,e3,Kg1:Bd4,Kh8,a7",
    "W:WKa1,Kh2:Bb2,g7,c5,e3,Kd8",
    "W:Wb6:Bc7,f6,e3",
    "B:W18,19,K30:B11,12,K1",
];

fn python_ready() -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", "import numpy, safetensors"])
        .output()
        .map_err(|e| format!("python3 cannot be started: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "python3 lacks numpy or safetensors: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/reference_forward.py")
}

#[test]
fn python_reference_matches_the_evaluator() {
    if let Err(why) = python_ready() {
        // CI installs the packages and sets CI=true: there a skip is a failure.
        assert!(
            std::env::var_os("CI").is_none(),
            "the Python reference check cannot run under CI: {why}"
        );
        println!("SKIPPED python_reference_matches_the_evaluator: {why}");
        println!("(install with: python3 -m pip install numpy safetensors)");
        return;
    }
    for (i, config) in tiny_of_every_kind().iter().enumerate() {
        let worst = reference_difference(config, &format!("reference-{i}"));
        println!(
            "{} (jump taps {}): largest difference to the Python reference: {worst:.2e}",
            config.kind, config.jump_taps
        );
        assert!(worst < 1e-4, "{config:?}: difference {worst}");
    }
}

/// Exports a random net of `config`, runs the Python reference on a few
/// hundred positions and returns the largest difference to our evaluator.
fn reference_difference(config: &NetConfig, test: &str) -> f64 {
    let dir = temp_dir(test);
    let net = random_batch_norm_net(config, 11, &Device::flex());
    let checkpoint = Checkpoint::from_net(&net, 0, None).unwrap();
    let model = dir.join("model");
    export_model(&checkpoint, &model).unwrap();

    let mut positions: Vec<Position> = SPECIAL_FENS
        .iter()
        .map(|fen| Position::from_fen(fen).unwrap())
        .collect();
    positions.extend(random_positions(21, 300));
    let fens: Vec<String> = positions.iter().map(Position::to_fen).collect();
    let fens_file = dir.join("fens.txt");
    std::fs::write(&fens_file, fens.join("\n")).unwrap();

    let out = Command::new("python3")
        .arg(script())
        .arg("--model")
        .arg(&model)
        .arg("--fens-file")
        .arg(&fens_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "reference_forward.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), positions.len());

    let evaluator = NetEvaluator::new(checkpoint.inference_net(&Device::flex()).unwrap(), 64);
    let ours = evaluate_all(&evaluator, &positions);
    let mut worst = 0.0f64;
    for ((line, eval), (position, fen)) in lines.iter().zip(&ours).zip(positions.iter().zip(&fens))
    {
        let theirs: serde_json::Value = serde_json::from_str(line).unwrap();
        let wdl: Vec<f64> = theirs["wdl"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let our_wdl = [eval.wdl.win, eval.wdl.draw, eval.wdl.loss];
        for (a, b) in wdl.iter().zip(our_wdl) {
            worst = worst.max((a - f64::from(b)).abs());
        }
        let their_policy: BTreeMap<String, f64> = theirs["policy"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_f64().unwrap()))
            .collect();
        let moves = position.legal_moves();
        let our_policy: BTreeMap<String, f64> = moves
            .iter()
            .zip(&eval.priors)
            .map(|(m, &p)| (m.to_string(), f64::from(p)))
            .collect();
        assert_eq!(
            their_policy.keys().collect::<Vec<_>>(),
            our_policy.keys().collect::<Vec<_>>(),
            "legal moves differ in {fen}"
        );
        for (mv, p) in &our_policy {
            worst = worst.max((p - their_policy[mv]).abs());
        }
    }
    worst
}
