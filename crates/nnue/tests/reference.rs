//! The promise to other front ends: `scripts/nnue_reference.py` (numpy only)
//! reads a model folder and gives the float net's output within 1e-4 and
//! the quantized integer output exactly.
//!
//! Skipped (with a message) only when python3, numpy or safetensors is
//! missing; under CI (which installs them) a skip is a failure.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_nnue::quant::output_to_cp;
use shashki_nnue::{Architecture, FloatNet, QuantNet, Stacks, save_model};
use shashki_rules::{Game, Position};
use support::{python_ready, run_reference, script};

#[path = "../../../tests/support/python_reference.rs"]
mod support;

#[test]
fn python_reference_matches_float_and_quantized_outputs() {
    if !python_ready("python_reference_matches_float_and_quantized_outputs") {
        return;
    }
    for stacks in Stacks::ALL {
        let arch = Architecture {
            stacks,
            ..Architecture::default()
        };
        check_reference(&arch);
    }
}

/// The script's outputs against the Rust nets of `arch` on 200 positions
/// of every phase.
fn check_reference(arch: &Architecture) {
    let dir = std::env::temp_dir().join(format!(
        "shashki-nnue-ref-{}-{}",
        std::process::id(),
        arch.stacks
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let net = FloatNet::random(arch, 21).unwrap();
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
    let lines = run_reference(&script("nnue_reference.py"), &dir, &positions, &dir);
    for (theirs, pos) in lines.iter().zip(&positions) {
        let fen = pos.to_fen();
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
