//! The network's invariants: incremental accumulators equal a full refresh,
//! every kernel equals the integer reference, quantization stays close to
//! the float net, and the model folder round-trips and rejects bad files
//! with clear errors.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_nnue::features::PERSPECTIVES;
use shashki_nnue::file::{FLOAT_FILE, MODEL_JSON_FILE, QUANTIZED_FILE};
use shashki_nnue::simd::{Activations, DenseStack, GroupedLayer};
use shashki_nnue::{
    Architecture, FloatNet, Kernels, NnueCheckpoint, NnueEval, QuantNet, load_engine_net,
    load_float, load_quantized, load_quantized_bytes, save_model, training_step,
};
use shashki_rules::{Game, Position};
use shashki_search::alphabeta::StaticEval;
use std::path::PathBuf;
use std::sync::Arc;

fn random_net(seed: u64) -> FloatNet {
    FloatNet::random(&Architecture::default(), seed).unwrap()
}

/// Positions from random games (many captures, some promotions).
fn random_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut game = Game::new(Position::startpos());
        while !game.is_over() && out.len() < count {
            let moves = game.legal_moves();
            let mv = moves[rng.random_range(0..moves.len())];
            game.play(&mv);
            out.push(*game.position());
        }
    }
    out
}

use shashki_atomic::testing::temp_dir;

/// Walks random lines with play and undo, checking the incremental
/// accumulators and output against a full refresh at every node.
fn check_walk(eval: &mut NnueEval, net: &QuantNet, start: Position, steps: usize, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(start);
    eval.reset(&start);
    let ft = net.arch.ft;
    let mut refreshed = vec![0i16; 2 * ft];
    for _ in 0..steps {
        let moves = game.legal_moves();
        let undo = game.ply() > 0 && (moves.is_empty() || rng.random_bool(0.3));
        if undo {
            game.undo();
            eval.pop();
        } else {
            let mv = moves[rng.random_range(0..moves.len())];
            let before = *game.position();
            game.play(&mv);
            eval.push(&before, &mv, game.position());
        }
        // Evaluate only sometimes, so several pushes are brought up to date at once.
        if rng.random_bool(0.5) {
            let pos = *game.position();
            for (i, p) in PERSPECTIVES.iter().enumerate() {
                net.refresh(&pos, *p, &mut refreshed[i * ft..(i + 1) * ft]);
            }
            assert_eq!(eval.accumulators(), &refreshed[..], "at {}", pos.to_fen());
            assert_eq!(
                eval.output(&pos),
                net.reference_output(&pos),
                "at {}",
                pos.to_fen()
            );
        }
    }
}

#[test]
fn incremental_accumulator_equals_full_refresh() {
    let net = Arc::new(QuantNet::quantize(&random_net(1)));
    // A man promotes in mid-capture (b6:d8 as a man, then d8:g5 as a king),
    // and positions with kings of both colours.
    let promotion = Position::from_fen("W:Wb6,a1,c1:Bc7,f6,h8").unwrap();
    assert!(
        promotion
            .legal_moves()
            .iter()
            .any(|m| m.promotes() && m.capture_count() == 2),
        "the fixture must hold a promotion in mid-capture"
    );
    let starts = [
        Position::startpos(),
        promotion,
        Position::from_fen("B:WKa1,c3,e3,g3,Kh6:Bb6,d6,Kf8,h8,c7").unwrap(),
    ];
    for kernels in Kernels::available() {
        let mut eval = NnueEval::with_kernels(Arc::clone(&net), "test", kernels);
        for (i, start) in starts.iter().enumerate() {
            check_walk(&mut eval, &net, *start, 3000, 7 + i as u64);
        }
    }
}

#[test]
fn every_kernel_equals_the_integer_reference() {
    let net = QuantNet::quantize(&random_net(2));
    let kernels = Kernels::available();
    if cfg!(target_arch = "x86_64") && std::arch::is_x86_feature_detected!("avx2") {
        assert_eq!(kernels.len(), 2, "AVX2 is detected and tested");
    }
    for pos in random_positions(500, 3) {
        let reference = net.reference_output(&pos);
        for &k in &kernels {
            let mut eval = NnueEval::with_kernels(Arc::new(net.clone()), "t", k);
            eval.reset(&pos);
            assert_eq!(eval.output(&pos), reference, "{k:?} at {}", pos.to_fen());
        }
    }
}

#[test]
fn simd_kernels_equal_scalar_on_extreme_values() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let n = 64;
    let weights: Vec<i16> = (0..8 * n).map(|_| rng.random()).collect();
    let src: Vec<i16> = (0..n).map(|_| rng.random()).collect();
    // Full-range weights; weights small enough (|w| <= 64: the four an
    // i16 lane sums over two groups at most 256) that the kernels add two
    // groups' pair sums in i16, and (|w| <= 32, or all 32: eight at most
    // 256) four groups'.
    let full: Vec<i8> = (0..80 * n).map(|_| rng.random()).collect();
    let small: Vec<i8> = full.iter().map(|&w| w / 2).collect();
    let tiny: Vec<i8> = full.iter().map(|&w| w / 4).collect();
    let edge = vec![32i8; 80 * n];
    let bias: Vec<i32> = (0..80)
        .map(|_| rng.random_range(-100_000..100_000))
        .collect();
    let mut results = Vec::new();
    for k in Kernels::available() {
        let mut acc = vec![0i16; n];
        k.update(&mut acc, &src, &weights, &[1, 5, 7], &[0, 3]);
        let mut act = vec![0u8; n];
        k.crelu16(&acc, &mut act);
        // Activations up to 255 would saturate maddubs; the kernels only
        // ever see 0..=127.
        assert!(act.iter().all(|&a| a <= 127));
        // Outputs in blocks of 32, of 8, and a padded tail; two buckets;
        // the activations above and all at 127 (the i16 lanes' edge).
        let mut outs = Vec::new();
        let layers = [(&full, 1), (&small, 2), (&tiny, 4), (&edge, 4)];
        for (dense_w, fold) in layers {
            for outputs in [16, 13, 40] {
                let rows = &dense_w[..2 * outputs * n];
                let grouped = GroupedLayer::new(rows, &bias[..2 * outputs], n, outputs);
                assert_eq!(grouped.fold(), fold);
                for (bucket, input) in [(0, &act), (1, &act), (1, &vec![127u8; n])] {
                    let mut out = vec![0u8; outputs];
                    k.dense_crelu(&grouped, bucket, input, &mut out);
                    outs.push(out);
                }
            }
        }
        // Both halves of a quiet move in one call equal two single updates.
        let both_src: Vec<i16> = src.iter().chain(&acc).copied().collect();
        let mut both = vec![0i16; 2 * n];
        k.update_quiet(&mut both, &both_src, &weights, [2, 6], [4, 0]);
        let mut halves = vec![0i16; 2 * n];
        k.update(&mut halves[..n], &src, &weights, &[2], &[4]);
        k.update(&mut halves[n..], &acc, &weights, &[6], &[0]);
        assert_eq!(both, halves, "{k:?}");
        let dot = k.dot(&weights[..n - 3], &act[..n - 3]);
        // The whole stack in one call (with AVX2 a second layer of 32
        // feeds the output without storing its activations), full-range
        // output weights.
        let l1 = GroupedLayer::new(&small[..32 * n], &bias[..32], n, 32);
        let l2 = GroupedLayer::new(&full[..32 * 32], &bias[32..64], 32, 32);
        let stack = DenseStack {
            l1: &l1,
            l2: &l2,
            out: &weights[..32],
            bucket: 0,
        };
        let mut buffers = Activations::new(n / 2, [32, 32]);
        let output = k.propagate(stack, [&acc[..n / 2], &acc[n / 2..]], &mut buffers);
        results.push((acc, act, outs, dot, output));
    }
    for r in &results[1..] {
        assert_eq!(r, &results[0]);
    }
}

#[test]
fn quantized_output_stays_close_to_the_float_net() {
    let float = random_net(5);
    let quant = QuantNet::quantize(&float);
    let mut worst = 0.0f32;
    for pos in random_positions(300, 6) {
        let q = quant.reference_output(&pos) as f32 / shashki_nnue::quant::OUTPUT_SCALE as f32;
        worst = worst.max((q - float.forward(&pos)).abs());
    }
    // Rounding to 1/127 of an activation and 1/64 of a weight: a few
    // hundredths of a logit (a few centi-men).
    assert!(worst < 0.05, "quantization error {worst}");
    assert!(worst > 0.0, "the quantized net is a different computation");
}

#[test]
fn evaluation_is_colour_symmetric() {
    let net = QuantNet::quantize(&random_net(8));
    for pos in random_positions(100, 9) {
        assert_eq!(
            net.reference_output(&pos),
            net.reference_output(&pos.flipped())
        );
    }
}

#[test]
fn model_folder_round_trips() {
    let dir = temp_dir("roundtrip");
    let net = random_net(10);
    save_model(&net, 1234, &dir).unwrap();
    let (float, json) = load_float(&dir).unwrap();
    assert_eq!(float, net);
    assert_eq!(json.training_step, 1234);
    assert_eq!(load_quantized(&dir).unwrap(), QuantNet::quantize(&net));
    // The model.json path works as well as the folder.
    assert!(load_quantized(&dir.join(MODEL_JSON_FILE)).is_ok());
    // So do the two files held in memory (a model built into a program),
    // with the same checks.
    let json = std::fs::read_to_string(dir.join(MODEL_JSON_FILE)).unwrap();
    let mut quantized = std::fs::read(dir.join(QUANTIZED_FILE)).unwrap();
    let origin = std::path::Path::new("built-in model");
    assert_eq!(
        load_quantized_bytes(&json, &quantized, origin).unwrap(),
        QuantNet::quantize(&net)
    );
    quantized[200] ^= 1;
    let err = load_quantized_bytes(&json, &quantized, origin)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("built-in model") && err.contains("checksum"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_checkpoint_plays_exactly_like_its_export() {
    let dir = temp_dir("checkpoint-engine");
    let net = random_net(11);
    save_model(&net, 77, &dir.join("model")).unwrap();
    let file = dir.join("ckpt-000000077.shzk");
    let checkpoint = NnueCheckpoint {
        net,
        step: 77,
        optimizer: None,
    };
    checkpoint.save(&file).unwrap();
    assert_eq!(
        load_engine_net(&file).unwrap(),
        load_quantized(&dir.join("model")).unwrap()
    );
    assert_eq!(training_step(&file).unwrap(), 77);
    assert_eq!(training_step(&dir.join("model")).unwrap(), 77);
    // A file that is neither names itself in the error.
    std::fs::write(dir.join("junk"), b"not a checkpoint").unwrap();
    let err = load_engine_net(&dir.join("junk")).unwrap_err().to_string();
    assert!(err.contains("junk"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Saves a model, lets `spoil` damage it, and returns the load error.
fn load_error(name: &str, spoil: impl FnOnce(&std::path::Path)) -> String {
    let dir = temp_dir(name);
    save_model(&random_net(11), 0, &dir).unwrap();
    spoil(&dir);
    let err = load_quantized(&dir).unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    err
}

fn edit_json(dir: &std::path::Path, from: &str, to: &str) {
    let path = dir.join(MODEL_JSON_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from} not in model.json");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn bad_model_folders_give_clear_errors() {
    let err = load_error("truncated", |dir| {
        let path = dir.join(QUANTIZED_FILE);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    });
    assert!(
        err.contains(QUANTIZED_FILE) && err.contains("truncated"),
        "{err}"
    );

    let err = load_error("corrupt", |dir| {
        let path = dir.join(QUANTIZED_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(&path, &bytes).unwrap();
    });
    assert!(err.contains("checksum"), "{err}");

    let err = load_error("layout", |dir| {
        edit_json(dir, "\"version\": 1", "\"version\": 2")
    });
    assert!(
        err.contains("feature layout") && err.contains("stm-piece-square v2"),
        "{err}"
    );

    let err = load_error("format", |dir| {
        edit_json(dir, "\"format_version\": 1", "\"format_version\": 9")
    });
    assert!(err.contains("format version is 9"), "{err}");

    let err = load_error("scales", |dir| {
        edit_json(dir, "\"dense_shift\": 6", "\"dense_shift\": 5")
    });
    assert!(err.contains("quantization"), "{err}");

    let err = load_error("arch", |dir| edit_json(dir, "\"ft\": 128", "\"ft\": 100"));
    assert!(err.contains("multiple of 16"), "{err}");

    let err = load_error("missing", |dir| {
        std::fs::remove_file(dir.join(QUANTIZED_FILE)).unwrap()
    });
    assert!(err.contains(QUANTIZED_FILE), "{err}");

    let err = load_error("foreign", |dir| {
        std::fs::write(
            dir.join(MODEL_JSON_FILE),
            "{\"format\": \"shashki-zero-model\"}",
        )
        .unwrap()
    });
    assert!(err.contains("not an NNUE model.json"), "{err}");

    // The float file is checked the same way.
    let dir = temp_dir("float");
    save_model(&random_net(12), 0, &dir).unwrap();
    std::fs::write(dir.join(FLOAT_FILE), b"short").unwrap();
    let err = load_float(&dir).unwrap_err().to_string();
    assert!(
        err.contains(FLOAT_FILE) && err.contains("truncated"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The shipped model's files, written again from its float weights, are the
/// same bytes: the layer table reads, quantizes and writes them as the code
/// that made them did.
#[test]
fn the_shipped_model_is_written_again_byte_for_byte() {
    let shipped = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models/nnue-2h");
    let (net, json) = shashki_nnue::load_float(&shipped).unwrap();
    let dir = temp_dir("rewrite-shipped");
    shashki_nnue::save_model(&net, json.training_step, &dir).unwrap();
    for file in [FLOAT_FILE, QUANTIZED_FILE] {
        let again = std::fs::read(dir.join(file)).unwrap();
        assert_eq!(again, std::fs::read(shipped.join(file)).unwrap(), "{file}");
    }
    let quant = shashki_nnue::load_quantized(&shipped).unwrap();
    assert_eq!(quant, QuantNet::quantize(&net));
    std::fs::remove_dir_all(dir).unwrap();
}
