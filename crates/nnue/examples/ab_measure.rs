//! Measures the alpha-beta engine for docs/BENCHMARKS.md: nodes per second
//! with the hand evaluation and with an (untrained) NNUE, the Lazy SMP time
//! to depth on 1 and 2 threads, and late move reductions on against off in
//! games at equal nodes per move.
//!
//! `cargo run --release --example ab_measure -- [PAIRS] [MODEL] [DEPTH]`:
//! PAIRS opening pairs of the LMR match (0: none; default 20), the NNUE
//! model folder (default: an untrained net, which costs what a trained one
//! costs, though its trees differ), and the depth of the timed searches
//! (default 12).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_nnue::quant::output_to_cp;
use shashki_nnue::{Architecture, FloatNet, Kernels, NnueEval, QuantNet};
use shashki_rules::{Game, GameResult, Position};
use shashki_search::alphabeta::{Selectivity, StaticEval};
use shashki_search::{AbConfig, AlphaBeta, SearchLimits};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

fn nnue(model: Option<&Path>) -> Box<dyn StaticEval> {
    match model {
        Some(dir) => Box::new(shashki_nnue::load_evaluator(dir).expect("a readable model folder")),
        None => {
            let net = QuantNet::quantize(&FloatNet::random(&Architecture::default(), 1).unwrap());
            Box::new(NnueEval::new(Arc::new(net), "untrained"))
        }
    }
}

fn engine(nnue_eval: Option<Option<&Path>>, threads: usize, lmr: bool) -> AlphaBeta {
    let selectivity = Selectivity {
        lmr,
        ..Selectivity::NONE
    };
    let config = AbConfig {
        threads,
        selectivity,
        ..AbConfig::default()
    };
    match nnue_eval {
        Some(model) => AlphaBeta::with_eval(config, nnue(model)),
        None => AlphaBeta::new(config),
    }
}

/// Best of three: (nodes, seconds) of a fixed-depth search.
fn time_search(engine: &mut AlphaBeta, game: &Game, depth: u32) -> (u64, f64) {
    let mut best = (0, f64::MAX);
    for _ in 0..3 {
        let start = Instant::now();
        let result = engine.search(game, &SearchLimits::depth(depth));
        let secs = start.elapsed().as_secs_f64();
        if secs < best.1 {
            best = (result.nodes, secs);
        }
    }
    best
}

fn speed(model: Option<&Path>, depth: u32) {
    let positions = [
        ("start", Position::startpos()),
        (
            "middlegame",
            Position::from_fen(
                "W:Wa1,c1,e1,b2,d2,h2,c3,e3,g3,d4,f4:Ba7,c7,e7,g7,b6,d6,f6,h6,a5,c5,g5",
            )
            .unwrap(),
        ),
    ];
    println!("| position | depth | eval | threads | nodes | time | nodes/s |");
    println!("|---|---|---|---|---|---|---|");
    for (name, pos) in positions {
        let game = Game::new(pos);
        for nnue_eval in [None, Some(model)] {
            for threads in [1, 2] {
                let mut e = engine(nnue_eval, threads, false);
                let (nodes, secs) = time_search(&mut e, &game, depth);
                println!(
                    "| {name} | {depth} | {} | {threads} | {nodes} | {:.0} ms | {:.2} M |",
                    if nnue_eval.is_some() { "nnue" } else { "hand" },
                    secs * 1e3,
                    nodes as f64 / secs / 1e6
                );
            }
        }
    }
}

/// One game from `game`; returns the result.
fn play(
    white: &mut AlphaBeta,
    black: &mut AlphaBeta,
    mut game: Game,
    limits: &SearchLimits,
) -> GameResult {
    while game.ply() < 300 {
        if let Some(outcome) = game.outcome() {
            return outcome.result;
        }
        let mover = if game.ply().is_multiple_of(2) {
            &mut *white
        } else {
            &mut *black
        };
        let mv = mover.search(&game, limits).best_move.expect("a move");
        game.play(&mv);
    }
    GameResult::Draw
}

fn lmr_match(pairs: usize) {
    let limits = SearchLimits {
        nodes: Some(20_000),
        ..SearchLimits::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (mut with, mut without) = (engine(None, 1, true), engine(None, 1, false));
    let mut points = 0.0;
    let mut wdl = [0; 3];
    let start = Instant::now();
    for _ in 0..pairs {
        // A random opening of 6 plies, played with each colour.
        let mut opening = Game::new(Position::startpos());
        for _ in 0..6 {
            let moves = opening.legal_moves();
            opening.play(&moves[rng.random_range(0..moves.len())]);
        }
        for lmr_white in [true, false] {
            let result = if lmr_white {
                play(&mut with, &mut without, opening.clone(), &limits)
            } else {
                play(&mut without, &mut with, opening.clone(), &limits)
            };
            let lmr_color = if lmr_white {
                shashki_rules::Color::White
            } else {
                shashki_rules::Color::Black
            };
            let p = result.points_for(lmr_color);
            points += p;
            wdl[if p == 1.0 {
                0
            } else if p == 0.5 {
                1
            } else {
                2
            }] += 1;
        }
    }
    println!(
        "LMR on vs off, 20k nodes/move, hand eval: {} games, +{} ={} -{}, score {:.1}% ({:.0?})",
        2 * pairs,
        wdl[0],
        wdl[1],
        wdl[2],
        100.0 * points / (2 * pairs) as f64,
        start.elapsed()
    );
    // Time to depth with and without LMR.
    let game = Game::new(Position::startpos());
    for lmr in [false, true] {
        let (nodes, secs) = time_search(&mut engine(None, 1, lmr), &game, 14);
        println!(
            "start depth 14, lmr {lmr}: {nodes} nodes, {:.0} ms",
            secs * 1e3
        );
    }
}

/// Nanoseconds per evaluation: one move pushed, evaluated and popped
/// (incremental, the best of five passes of 200,000) against a full
/// refresh, for each kernel implementation.
/// The evaluation is computed every time (`output`, not the search's
/// `evaluate`, whose cache would answer these few positions).
fn evaluation_cost(model: Option<&Path>) {
    let net = match model {
        Some(dir) => Arc::new(shashki_nnue::load_quantized(dir).expect("a readable model folder")),
        None => Arc::new(QuantNet::quantize(
            &FloatNet::random(&Architecture::default(), 1).unwrap(),
        )),
    };
    let pos =
        Position::from_fen("W:Wa1,c1,e1,b2,f2,c3,e3,g3,d4:Bb6,d6,f6,h6,a7,e7,g7,d8,h8").unwrap();
    let moves = pos.legal_moves();
    let rounds = 200_000u32;
    for kernels in Kernels::available() {
        let mut eval = NnueEval::with_kernels(Arc::clone(&net), "cost", kernels);
        eval.reset(&pos);
        let mut sink = 0i64;
        // The best of five passes: a shared machine's noise only adds time.
        let mut incremental = f64::MAX;
        for _ in 0..5 {
            let start = Instant::now();
            for i in 0..rounds {
                let mv = moves[i as usize % moves.len()];
                let after = pos.make_move(&mv);
                eval.push(&pos, &mv, &after);
                sink += i64::from(output_to_cp(eval.output(std::hint::black_box(&after))));
                eval.pop();
            }
            let ns = start.elapsed().as_nanos() as f64 / f64::from(rounds);
            incremental = incremental.min(ns);
        }
        let start = Instant::now();
        for i in 0..rounds {
            let after = pos.make_move(&moves[i as usize % moves.len()]);
            eval.reset(std::hint::black_box(&after));
            sink += i64::from(output_to_cp(eval.output(&after)));
        }
        let refresh = start.elapsed().as_nanos() as f64 / f64::from(rounds);
        println!(
            "{kernels:?}: incremental {incremental:.0} ns/eval, full refresh {refresh:.0} ns/eval (checksum {sink})"
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs = args
        .first()
        .map_or(20, |a| a.parse().expect("PAIRS: a number"));
    let model = args.get(1).map(PathBuf::from);
    let depth = args
        .get(2)
        .map_or(12, |a| a.parse().expect("DEPTH: a number"));
    evaluation_cost(model.as_deref());
    speed(model.as_deref(), depth);
    if pairs > 0 {
        lmr_match(pairs);
    }
}
