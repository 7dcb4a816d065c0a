//! `shashki nnue-diagnose` end to end: a held-out set made from PDN games,
//! on which the shipped net picks the right side far more often than an
//! untrained one; label noise and a capacity fit on the chunks of a smoke
//! run, the fitted (stacked) net playing; the speed table; clear errors.

#[path = "support/cli.rs"]
mod cli;

use cli::{ok_in_repo as ok, shashki_in_repo as shashki, temp_dir};

/// The sign agreement (percent) of the loss table's line naming `model`.
fn sign_of(table: &str, model: &str) -> f64 {
    let line = table
        .lines()
        .find(|l| l.starts_with(model))
        .unwrap_or_else(|| panic!("no line for {model} in\n{table}"));
    let all = line.split('|').next().unwrap();
    let sign = all.split_whitespace().last().unwrap();
    sign.trim_end_matches('%').parse().unwrap()
}

#[test]
fn the_shipped_net_beats_an_untrained_one_on_a_held_out_set() {
    let dir = temp_dir("set");
    let set = dir.join("set.json");
    let set_text = set.to_str().unwrap();
    let out = ok(&[
        "nnue-diagnose",
        "make-set",
        "--pdn",
        "docs/results/nnue-curve/games.pdn",
        "--positions",
        "80",
        "--depth",
        "4",
        "--out",
        set_text,
    ]);
    assert!(out.contains("wrote 80 positions"), "{out}");
    let untrained = dir.join("untrained");
    ok(&["nnue-init", "--out", untrained.to_str().unwrap()]);
    let untrained = untrained.to_str().unwrap().to_string();
    let table = ok(&[
        "nnue-diagnose",
        "loss",
        "--set",
        set_text,
        "models/nnue-2h",
        &untrained,
    ]);
    let shipped = sign_of(&table, "models/nnue-2h");
    let random = sign_of(&table, &untrained);
    assert!(shipped > 80.0, "{table}");
    assert!(shipped > random + 15.0, "{table}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn noise_and_a_stacked_capacity_fit_run_on_a_smoke_runs_chunks() {
    let dir = temp_dir("smoke");
    let run = dir.join("run");
    ok(&[
        "train",
        "--config",
        "configs/nnue-smoke.toml",
        "--run-dir",
        run.to_str().unwrap(),
        "--plain",
    ]);
    let data = run.join("data");
    let data = data.to_str().unwrap();
    let noise = ok(&["nnue-diagnose", "noise", "--chunks", data]);
    assert!(
        noise.contains("samples; results") && noise.contains("calibration"),
        "{noise}"
    );
    let fitted = dir.join("fitted");
    let out = ok(&[
        "nnue-diagnose",
        "capacity",
        "--chunks",
        data,
        "--samples",
        "200",
        "--epochs",
        "3",
        "--ft",
        "32",
        "--hidden",
        "32",
        "8",
        "--stacks",
        "phase4",
        "--batch-size",
        "64",
        "--out",
        fitted.to_str().unwrap(),
    ]);
    assert_eq!(out.matches("\nepoch").count(), 3, "{out}");
    let engine = format!("nnue:{}", fitted.display());
    let analysis = ok(&["analyse", "--engine", &engine, "--depth", "3"]);
    assert!(analysis.contains("depth 3"), "{analysis}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn speed_reports_every_layout_against_the_hand_evaluation() {
    let out = ok(&[
        "nnue-diagnose",
        "speed",
        "--ft",
        "32",
        "--stacks",
        "single,phase4",
        "--depth",
        "3",
        "--rounds",
        "1",
        "--evals",
        "1000",
    ]);
    assert!(
        out.contains("| hand |") && out.contains("ft 32 [32, 32] phase4"),
        "{out}"
    );
}

#[test]
fn bad_input_is_named() {
    let out = shashki(&["nnue-diagnose", "make-set", "--out", "x.json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pdn"));
    let out = shashki(&["nnue-diagnose", "loss", "--set", "no/such/set.json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/set.json"));
}
