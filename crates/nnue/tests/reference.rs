//! The promise to other front ends: `scripts/nnue_reference.py` (numpy only)
//! reads a model folder and gives the float net's output within 1e-4 and
//! the quantized integer output exactly.
//!
//! Skipped (with a message) only when python3, numpy or safetensors is
//! missing; under CI (which installs them) a skip is a failure.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_nnue::quant::output_to_cp;
use shashki_nnue::{Architecture, FloatNet, QuantNet, save_model};
use shashki_rules::{Game, Position};
use std::path::PathBuf;
use std::process::Command;

fn python_ready() -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", "import numpy, safetensors"])
        .output()
        .map_err(|e| format!("python3 cannot be started: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

#[test]
fn python_reference_matches_float_and_quantized_outputs() {
    if let Err(why) = python_ready() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the NNUE Python reference check cannot run under CI: {why}"
        );
        println!("SKIPPED python_reference_matches_float_and_quantized_outputs: {why}");
        return;
    }
    let dir = std::env::temp_dir().join(format!("shashki-nnue-ref-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let net = FloatNet::random(&Architecture::default(), 21).unwrap();
    save_model(&net, 0, &dir).unwrap();
    let quant = QuantNet::quantize(&net);

    let mut positions = vec![
        Position::startpos(),
        Position::from_fen("B:WKa1,c3,e3,g3,Kh6:Bb6,d6,Kf8,h8,c7").unwrap(),
        Position::from_fen("W:Wb6,a1,c1:Bc7,f6,h8").unwrap(),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let mut game = Game::new(Position::startpos());
    while positions.len() < 200 {
        if game.is_over() {
            game = Game::new(Position::startpos());
        }
        let moves = game.legal_moves();
        game.play(&moves[rng.random_range(0..moves.len())]);
        positions.push(*game.position());
    }
    let fens: Vec<String> = positions.iter().map(Position::to_fen).collect();
    let fens_file = dir.join("fens.txt");
    std::fs::write(&fens_file, fens.join("\n")).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/nnue_reference.py");
    let out = Command::new("python3")
        .arg(script)
        .arg("--model")
        .arg(&dir)
        .arg("--fens-file")
        .arg(&fens_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "nnue_reference.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), positions.len());
    for ((line, pos), fen) in lines.iter().zip(&positions).zip(&fens) {
        let theirs: serde_json::Value = serde_json::from_str(line).unwrap();
        let float = theirs["float"].as_f64().unwrap();
        let expected = f64::from(net.forward(pos));
        assert!(
            (float - expected).abs() < 1e-4,
            "{fen}: {float} vs {expected}"
        );
        let output = quant.reference_output(pos);
        assert_eq!(
            theirs["quantized"].as_i64().unwrap(),
            i64::from(output),
            "{fen}"
        );
        assert_eq!(
            theirs["cp"].as_i64().unwrap(),
            i64::from(output_to_cp(output)),
            "{fen}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
