//! `shashki export`, `import` and `eval` as a user runs them, on a tiny
//! randomly initialised network (seeded).

use shashki_net::{Checkpoint, Device, Net, NetConfig};
use std::path::{Path, PathBuf};
use std::process::Command;

fn shashki(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(args)
        .output()
        .expect("shashki starts");
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

use shashki_atomic::testing::temp_dir;

fn tiny_checkpoint(path: &Path) {
    let net = Net::init(&NetConfig::tiny(), 42, &Device::flex()).unwrap();
    Checkpoint::from_net(&net, 7, None)
        .unwrap()
        .save(path)
        .unwrap();
}

const FEN: &str = "W:Wc1,Ke1:Bb6,e5,e7,g7,Kd2";

/// A tiny checkpoint in a fresh folder for `test`, and the same net
/// exported by `shashki export` next to it: (folder, checkpoint, model,
/// export's stdout).
fn tiny_checkpoint_and_model(test: &str) -> (PathBuf, PathBuf, PathBuf, String) {
    let dir = temp_dir(test);
    let ckpt = dir.join("tiny.ckpt");
    tiny_checkpoint(&ckpt);
    let model = dir.join("model");
    let (ok, out, err) = shashki(&[
        "export",
        "--checkpoint",
        ckpt.to_str().unwrap(),
        "--out",
        model.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    (dir, ckpt, model, out)
}

#[test]
fn export_import_and_eval_agree() {
    let (dir, ckpt, model, out) = tiny_checkpoint_and_model("roundtrip");
    assert!(out.contains("step 7"), "{out}");
    assert!(model.join("model.safetensors").exists() && model.join("model.json").exists());
    let back = dir.join("back.ckpt");
    let (ok, _, err) = shashki(&[
        "import",
        "--model",
        model.to_str().unwrap(),
        "--out",
        back.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");

    let eval = |source: &str, path: &Path| {
        let (ok, out, err) = shashki(&[
            "eval",
            source,
            path.to_str().unwrap(),
            "--fen",
            FEN,
            "--json",
        ]);
        assert!(ok, "{err}");
        out
    };
    let from_ckpt = eval("--checkpoint", &ckpt);
    assert_eq!(from_ckpt, eval("--model", &model));
    assert_eq!(from_ckpt, eval("--checkpoint", &back));

    let json: serde_json::Value = serde_json::from_str(&from_ckpt).unwrap();
    let wdl: Vec<f64> = json["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(wdl.len(), 3);
    assert!((wdl.iter().sum::<f64>() - 1.0).abs() < 1e-5);
    let policy = json["policy"].as_object().unwrap();
    // The rules digest's worked example: exactly 12 legal moves.
    assert_eq!(policy.len(), 12);
    assert!(policy.contains_key("e1:a5:d8:f6:h8") && policy.contains_key("c1:e3"));
    let total: f64 = policy.values().map(|v| v.as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-5);
    // Printed by probability, highest first (the parsed map forgets the order).
    let mut by_text_position: Vec<(usize, f64)> = policy
        .iter()
        .map(|(mv, p)| {
            (
                from_ckpt.find(&format!("\"{mv}\"")).unwrap(),
                p.as_f64().unwrap(),
            )
        })
        .collect();
    by_text_position.sort_by_key(|&(at, _)| at);
    assert!(
        by_text_position.windows(2).all(|w| w[0].1 >= w[1].1),
        "{from_ckpt}"
    );

    let (ok, table, _) = shashki(&["eval", "--checkpoint", ckpt.to_str().unwrap(), "--fen", FEN]);
    assert!(ok);
    assert!(
        table.contains("W/D/L") && table.contains("c1:e3"),
        "{table}"
    );
}

#[test]
fn bad_inputs_are_errors_naming_the_problem() {
    let dir = temp_dir("bad");
    let junk = dir.join("junk.ckpt");
    std::fs::write(&junk, b"this is not a checkpoint").unwrap();
    let (ok, _, err) = shashki(&["eval", "--checkpoint", junk.to_str().unwrap(), "--fen", FEN]);
    assert!(!ok);
    assert!(
        err.contains("junk.ckpt") && err.contains("not a Shashki Zero checkpoint"),
        "{err}"
    );

    let ckpt = dir.join("tiny.ckpt");
    tiny_checkpoint(&ckpt);
    let (ok, _, err) = shashki(&[
        "eval",
        "--checkpoint",
        ckpt.to_str().unwrap(),
        "--fen",
        "W:Wz9:B",
    ]);
    assert!(!ok && err.contains("--fen"), "{err}");
    let (ok, _, err) = shashki(&[
        "eval",
        "--checkpoint",
        ckpt.to_str().unwrap(),
        "--fen",
        FEN,
        "--device",
        "tpu",
    ]);
    assert!(!ok && err.contains("tpu"), "{err}");
    let (ok, _, err) = shashki(&[
        "import",
        "--model",
        dir.join("none").to_str().unwrap(),
        "--out",
        "x",
    ]);
    assert!(!ok && err.contains("model.json"), "{err}");
}

#[test]
fn analyse_and_engine_take_a_network_as_the_engine() {
    let (dir, ckpt, model, _) = tiny_checkpoint_and_model("net-engine");
    // The only legal moves here are White's two captures.
    for engine in [&ckpt, &model] {
        let spec = format!("net:{}", engine.display());
        let (ok, out, err) =
            shashki(&["analyse", "--engine", &spec, "--nodes", "16", "--fen", FEN]);
        assert!(ok, "{err}");
        let best = out
            .lines()
            .find_map(|l| l.strip_prefix("best move: "))
            .unwrap_or_else(|| panic!("no best move in {out}"));
        assert!(best.starts_with("c1:") || best.starts_with("e1:"), "{best}");
    }
    let (ok, _, err) = shashki(&["analyse", "--engine", "net:/no/such/model", "--fen", FEN]);
    assert!(!ok && err.contains("/no/such/model"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn eval_with_tablebases_prints_their_verdict_beside_the_network() {
    let dir = temp_dir("eval-tb");
    let ckpt = dir.join("tiny.ckpt");
    tiny_checkpoint(&ckpt);
    let tables = dir.join("tables");
    let (ok, _, err) = shashki(&[
        "tb",
        "generate",
        "--pieces",
        "3",
        "--out",
        tables.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let eval = |fen: &str, json: bool| {
        let mut args = vec![
            "eval",
            "--checkpoint",
            ckpt.to_str().unwrap(),
            "--fen",
            fen,
            "--tablebase",
            tables.to_str().unwrap(),
        ];
        if json {
            args.push("--json");
        }
        let (ok, out, err) = shashki(&args);
        assert!(ok, "{err}");
        out
    };
    // Two kings against a man: won, 3 half-moves to the capture.
    let json: serde_json::Value = serde_json::from_str(&eval("W:WKa1,Kc3:Bh4", true)).unwrap();
    assert_eq!(json["tablebase"]["wdl"], "win");
    assert_eq!(json["tablebase"]["dtz"], 3);
    assert!(
        eval("W:WKa1,Kc3:Bh4", false).contains("tablebase: win for White to move, 3 half-moves")
    );
    // More pieces than the tables hold: said so, the network still answers.
    let json: serde_json::Value = serde_json::from_str(&eval(FEN, true)).unwrap();
    assert!(
        json["tablebase"].is_null() && json["wdl"].is_array(),
        "{json}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
