//! The NNUE engine from the command line: an untrained model written by
//! `shashki nnue-init`, searched by `analyse --engine nnue:DIR` (also on two
//! threads) and played by `match` as `nnue:DIR@depth=D`; a damaged model is
//! refused with a clear message; the default engine is the shipped model
//! built into the binary.

#[path = "support/cli.rs"]
mod cli;

use cli::{ok, shashki, temp_dir};
use std::path::PathBuf;

#[test]
fn an_untrained_model_analyses_and_plays() {
    let dir = temp_dir("play");
    let model = dir.join("model");
    let model_text = model.to_str().unwrap();
    ok(&["nnue-init", "--out", model_text, "--seed", "3"]);
    let engine = format!("nnue:{model_text}");
    for threads in ["1", "2"] {
        let out = ok(&[
            "analyse",
            "--engine",
            &engine,
            "--depth",
            "6",
            "--threads",
            threads,
        ]);
        assert!(out.contains("engine: alpha-beta (nnue "), "{out}");
        assert!(out.contains("info depth 6 "), "{out}");
        let best = out
            .lines()
            .find_map(|l| l.strip_prefix("best move: "))
            .unwrap_or_else(|| panic!("no best move in {out}"));
        assert!(
            shashki_rules::Position::startpos().parse_move(best).is_ok(),
            "{best}"
        );
    }
    let player = format!("nnue:{model_text}@depth=2");
    let out = ok(&["match", &player, "ab:depth=2", "--games", "2"]);
    assert!(out.contains("2 games"), "{out}");

    // A truncated weights file is refused, naming the file.
    let weights = model.join("quantized.safetensors");
    let bytes = std::fs::read(&weights).unwrap();
    std::fs::write(&weights, &bytes[..100]).unwrap();
    let out = shashki(&["analyse", "--engine", &engine, "--depth", "2"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("quantized.safetensors") && err.contains("truncated"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_default_engine_is_the_built_in_shipped_nnue() {
    let out = ok(&["analyse", "--depth", "8"]);
    assert!(
        out.contains("engine: alpha-beta (built-in nnue models/nnue-data-2h evaluation)"),
        "{out}"
    );
    // The built-in weights are the shipped folder's: the same search.
    let shipped = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models/nnue-data-2h");
    let engine = format!("nnue:{}", shipped.display());
    let from_folder = ok(&["analyse", "--engine", &engine, "--depth", "8"]);
    let result = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| {
                l.starts_with("best move:") || l.starts_with("score") || l.starts_with("pv:")
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(result(&out).len(), 3, "{out}");
    assert_eq!(result(&out), result(&from_folder));
}
