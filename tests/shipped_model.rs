//! The models shipped in `models/` beat the alpha-beta yardstick, and the
//! same test tells an untrained net of the same shape from each:
//! - `cpu-2h` (MCTS with the 8x8 net, the end of the first from-zero CPU
//!   run, docs/RESULTS.md) at 64 simulations against `ab:depth=2`;
//! - `diag-2h` (MCTS with the diagonal net, the end of the second run) at
//!   64 simulations against the same `ab:depth=2`;
//! - `diag-fast-2h` (the same net kind, size and config after issue 25's
//!   faster self-play and training) likewise: an untrained net of its
//!   shape is the one `diag-2h`'s test plays;
//! - `diag-4h` (the same shape again, the end of issue 35's 4-hour
//!   concurrent run) likewise;
//! - `nnue-2h` (alpha-beta with the NNUE evaluation, the from-zero NNUE
//!   run) against the hand evaluation at the same fixed depth;
//! - `nnue-data-2h` (the same shape, issue 36's run, the built-in engine)
//!   likewise: an untrained net of its shape is the one `nnue-2h`'s test
//!   plays.
//!
//! One thread, a fixed seed: the games are the same on every machine.

use shashki_arena::{BuiltinBook, Control, MatchSettings, OpeningBook, PlayerFactory, run_match};
use shashki_net::{Checkpoint, Device, Net, export_model};
use shashki_nnue::{FloatNet, save_model};
use std::path::{Path, PathBuf};

/// A shipped model's folder.
fn shipped(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../models")
        .join(name);
    assert!(
        dir.join("model.json").is_file(),
        "the shipped model is missing from {}",
        dir.display()
    );
    dir
}

/// Games per test, and the score a shipped model must reach.
const GAMES: usize = 20;
const PASS_SCORE: f64 = 0.70;

/// The MCTS net's player and its yardstick.
fn mcts_player(model: &Path) -> String {
    format!("net:{}@sims=64", model.display())
}
const MCTS_OPPONENT: &str = "ab:depth=2";

/// The NNUE net's player and its yardstick: the same search at the same
/// depth with the hand evaluation.
fn nnue_player(model: &Path) -> String {
    format!("nnue:{}@depth=6", model.display())
}
const NNUE_OPPONENT: &str = "ab:depth=6";

/// The score of `player` over 20 games (10 drawn openings, colours
/// swapped) against `opponent`, seed 1, one game at a time.
fn score(player: &str, opponent: &str) -> f64 {
    let first = PlayerFactory::from_text(player).unwrap();
    let second = PlayerFactory::from_text(opponent).unwrap();
    let settings = MatchSettings {
        seed: 1,
        concurrency: 1,
        // The book these thresholds were set on.
        book: OpeningBook::builtin(BuiltinBook::Usual),
        ..MatchSettings::new(GAMES)
    };
    let report = run_match(&first, &second, &settings, &mut |_, _| Control::Continue);
    assert_eq!(report.games.len(), GAMES);
    eprintln!("{}", report.result_table());
    report.summary.wdl.score()
}

fn assert_passes(player: &str, opponent: &str) {
    let score = score(player, opponent);
    assert!(
        score >= PASS_SCORE,
        "{player} scored {:.1}% against {opponent}, needs {:.0}%",
        100.0 * score,
        100.0 * PASS_SCORE
    );
}

fn assert_fails(player: &str, opponent: &str) {
    let score = score(player, opponent);
    assert!(
        score < PASS_SCORE,
        "an untrained net scored {:.1}% against {opponent}: the test would not tell it from a trained one",
        100.0 * score
    );
}

/// A fresh folder for an untrained model, removed when dropped.
struct TempModel(PathBuf);

impl TempModel {
    fn new(name: &str) -> TempModel {
        let dir = std::env::temp_dir().join(format!("shashki-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        TempModel(dir)
    }
}

impl Drop for TempModel {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An untrained MCTS net of the shipped model's shape (same kind and
/// size), exported to a temporary folder, fails the shipped model's test.
fn untrained_mcts_net_fails(model: &str, opponent: &str) {
    let shipped = shashki_arena::load_network::load_checkpoint(&shipped(model)).unwrap();
    let untrained = Net::init(&shipped.config, 1, &Device::flex()).unwrap();
    let checkpoint = Checkpoint::from_net(&untrained, 0, None).unwrap();
    let dir = TempModel::new(&format!("untrained-{model}"));
    export_model(&checkpoint, &dir.0).unwrap();
    assert_fails(&mcts_player(&dir.0), opponent);
}

#[test]
fn shipped_mcts_model_scores_at_least_70_percent_against_alpha_beta_depth_2() {
    assert_passes(&mcts_player(&shipped("cpu-2h")), MCTS_OPPONENT);
}

#[test]
fn an_untrained_mcts_net_of_the_same_shape_fails_the_same_test() {
    untrained_mcts_net_fails("cpu-2h", MCTS_OPPONENT);
}

#[test]
fn shipped_diagonal_mcts_model_scores_at_least_70_percent_against_alpha_beta_depth_2() {
    assert_passes(&mcts_player(&shipped("diag-2h")), MCTS_OPPONENT);
}

#[test]
fn an_untrained_diagonal_net_of_the_same_shape_fails_the_same_test() {
    untrained_mcts_net_fails("diag-2h", MCTS_OPPONENT);
}

#[test]
fn shipped_diag_fast_mcts_model_scores_at_least_70_percent_against_alpha_beta_depth_2() {
    assert_passes(&mcts_player(&shipped("diag-fast-2h")), MCTS_OPPONENT);
}

#[test]
fn shipped_diag_4h_mcts_model_scores_at_least_70_percent_against_alpha_beta_depth_2() {
    assert_passes(&mcts_player(&shipped("diag-4h")), MCTS_OPPONENT);
}

#[test]
fn shipped_nnue_model_scores_at_least_70_percent_against_the_hand_evaluation() {
    assert_passes(&nnue_player(&shipped("nnue-2h")), NNUE_OPPONENT);
}

#[test]
fn shipped_nnue_data_model_scores_at_least_70_percent_against_the_hand_evaluation() {
    assert_passes(&nnue_player(&shipped("nnue-data-2h")), NNUE_OPPONENT);
}

#[test]
fn an_untrained_nnue_net_of_the_same_shape_fails_the_same_test() {
    let (shipped, _) = shashki_nnue::load_float(&shipped("nnue-2h")).unwrap();
    let untrained = FloatNet::random(&shipped.arch, 1).unwrap();
    let dir = TempModel::new("untrained-nnue");
    save_model(&untrained, 0, &dir.0).unwrap();
    assert_fails(&nnue_player(&dir.0), NNUE_OPPONENT);
}
