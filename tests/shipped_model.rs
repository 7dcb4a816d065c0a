//! The model shipped in `models/` (the end of the from-zero CPU run,
//! docs/RESULTS.md) is strong enough to beat the alpha-beta yardstick at
//! depth 2, and the same test tells an untrained net of the same shape from
//! it. One thread, a fixed seed: the games are the same on every machine.

use shashki_arena::{Control, MatchSettings, PlayerFactory, run_match};
use shashki_net::{Checkpoint, Device, Net, export_model};
use std::path::{Path, PathBuf};

/// The shipped model's folder (`model.safetensors` + `model.json`).
fn shipped_model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/cpu-2h")
}

/// Games, and the score the shipped model must reach.
const GAMES: usize = 20;
const PASS_SCORE: f64 = 0.70;

/// The score of `net:MODEL@sims=64` over 20 games (10 drawn openings,
/// colours swapped) against `ab:depth=2`, seed 1, one game at a time.
fn score_against_ab2(model: &Path) -> f64 {
    let spec = format!("net:{}@sims=64", model.display());
    let net = PlayerFactory::from_text(&spec).unwrap();
    let ab = PlayerFactory::from_text("ab:depth=2").unwrap();
    let settings = MatchSettings {
        seed: 1,
        concurrency: 1,
        ..MatchSettings::new(GAMES)
    };
    let report = run_match(&net, &ab, &settings, &mut |_, _| Control::Continue);
    assert_eq!(report.games.len(), GAMES);
    eprintln!("{}", report.result_table());
    report.summary.wdl.score()
}

#[test]
fn shipped_model_scores_at_least_70_percent_against_alpha_beta_depth_2() {
    let model = shipped_model();
    assert!(
        model.join("model.safetensors").is_file() && model.join("model.json").is_file(),
        "the shipped model is missing from {}",
        model.display()
    );
    let score = score_against_ab2(&model);
    assert!(
        score >= PASS_SCORE,
        "shipped model scored {:.1}% against ab:depth=2, needs {:.0}%",
        100.0 * score,
        100.0 * PASS_SCORE
    );
}

#[test]
fn an_untrained_net_of_the_same_shape_fails_the_same_test() {
    let shipped = shashki_arena::net::load_checkpoint(&shipped_model()).unwrap();
    let untrained = Net::init(&shipped.config, 1, &Device::flex()).unwrap();
    let checkpoint = Checkpoint::from_net(&untrained, 0, None).unwrap();
    let dir = std::env::temp_dir().join(format!("shashki-untrained-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    export_model(&checkpoint, &dir).unwrap();
    let score = score_against_ab2(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        score < PASS_SCORE,
        "an untrained net scored {:.1}%: the test would not tell it from a trained one",
        100.0 * score
    );
}
