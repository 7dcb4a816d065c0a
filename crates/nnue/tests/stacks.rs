//! Output layer stacks by phase: the engine's incremental evaluation and
//! every kernel equal the integer reference with the position's bucket,
//! each bucket is used and matters, stacked models round-trip as format
//! version 2, and single-stack models (the shipped `models/nnue-2h`) keep
//! loading and being written as version 1.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_nnue::file::MODEL_JSON_FILE;
use shashki_nnue::{
    Architecture, FloatNet, Kernels, NnueCheckpoint, NnueEval, QuantNet, Stacks, load_float,
    load_quantized, read_model_json, save_model,
};
use shashki_rules::{Game, Position};
use shashki_search::alphabeta::StaticEval;
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

fn arch(stacks: Stacks) -> Architecture {
    Architecture {
        stacks,
        ..Architecture::default()
    }
}

/// Random lines played with the evaluator, checked at every node.
fn walk_checks(net: &Arc<QuantNet>, kernels: Kernels, seed: u64) -> HashSet<usize> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut eval = NnueEval::with_kernels(Arc::clone(net), "t", kernels);
    let mut buckets = HashSet::new();
    for _ in 0..6 {
        let mut game = Game::new(Position::startpos());
        eval.reset(game.position());
        while !game.is_over() {
            let moves = game.legal_moves();
            let mv = moves[rng.random_range(0..moves.len())];
            let before = *game.position();
            game.play(&mv);
            eval.push(&before, &mv, game.position());
            let pos = game.position();
            buckets.insert(net.arch.stacks.bucket(pos));
            assert_eq!(
                eval.output(pos),
                net.reference_output(pos),
                "{kernels:?} at {}",
                pos.to_fen()
            );
        }
    }
    buckets
}

#[test]
fn stacked_nets_evaluate_incrementally_like_the_reference_in_every_bucket() {
    for stacks in [Stacks::Phase4, Stacks::Pieces8] {
        let net = Arc::new(QuantNet::quantize(
            &FloatNet::random(&arch(stacks), 9).unwrap(),
        ));
        for kernels in Kernels::available() {
            let seen = walk_checks(&net, kernels, 3);
            assert!(seen.len() >= 3, "{stacks}: buckets seen {seen:?}");
        }
    }
}

#[test]
fn each_bucket_has_its_own_weights() {
    let mut net = FloatNet::random(&arch(Stacks::Phase4), 4).unwrap();
    let opening = Position::startpos();
    let ending = Position::from_fen("W:WKa1,c3:Bh8").unwrap();
    let (before_open, before_end) = (net.forward(&opening), net.forward(&ending));
    // Changing bucket 3's output bias moves only the ending.
    net.out.bias[3] += 1.0;
    assert_eq!(net.forward(&opening), before_open);
    assert!((net.forward(&ending) - before_end - 1.0).abs() < 1e-6);
}

#[test]
fn stacked_models_round_trip_as_version_2_and_single_ones_stay_version_1() {
    let root = std::env::temp_dir().join(format!("shashki-stacks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (stacks, version) in [
        (Stacks::Single, 1),
        (Stacks::Phase4, 2),
        (Stacks::Pieces8, 2),
    ] {
        let dir = root.join(stacks.name());
        let net = FloatNet::random(&arch(stacks), 5).unwrap();
        save_model(&net, 7, &dir).unwrap();
        let json = read_model_json(&dir).unwrap();
        assert_eq!(json.format_version, version);
        assert_eq!(json.architecture.stacks, stacks);
        let text = std::fs::read_to_string(dir.join(MODEL_JSON_FILE)).unwrap();
        assert_eq!(text.contains("\"stacks\""), stacks != Stacks::Single);
        assert_eq!(load_float(&dir).unwrap().0, net);
        assert_eq!(load_quantized(&dir).unwrap(), QuantNet::quantize(&net));
        let ckpt = NnueCheckpoint {
            net: net.clone(),
            step: 3,
            optimizer: None,
        };
        let bytes = ckpt.to_bytes().unwrap();
        assert_eq!(
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
            version
        );
        assert_eq!(
            NnueCheckpoint::from_bytes(&bytes, Path::new("c")).unwrap(),
            ckpt
        );
    }
    // A version-1 file naming stacks is refused, naming the file.
    let dir = root.join(Stacks::Phase4.name());
    let path = dir.join(MODEL_JSON_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("\"format_version\": 2", "\"format_version\": 1"),
    )
    .unwrap();
    let err = load_quantized(&dir).unwrap_err().to_string();
    assert!(
        err.contains("no output stacks") && err.contains("model.json"),
        "{err}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn the_shipped_single_stack_model_still_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/nnue-2h");
    let json = read_model_json(&dir).unwrap();
    assert_eq!(json.format_version, 1);
    assert_eq!(json.architecture.stacks, Stacks::Single);
    let net = load_quantized(&dir).unwrap();
    let mut eval = NnueEval::new(Arc::new(net.clone()), "nnue-2h");
    let pos = Position::startpos();
    eval.reset(&pos);
    assert_eq!(eval.output(&pos), net.reference_output(&pos));
}
