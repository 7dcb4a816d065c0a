//! `shashki bench-search`: how much of the evaluator's raw speed the search
//! turns into simulations when playing, and how far past its time limit a
//! search answers, measured in one run so the figures share the machine's
//! load.
//!
//! ```text
//! shashki bench-search --engine net:models/cpu-2h --movetime 1000
//! ```
//!
//! 1. Raw: the evaluator alone on batches of `--raw-batch` positions
//!    (positions from seeded random games), positions per second.
//! 2. Search: `go movetime` from the start position and positions after a
//!    few seeded random moves, simulations per second, against 1, and the
//!    engine's own counters (MCTS: forced moves passed through, cache hits).
//! 3. Time law: `go movetime 50` on endgames that once hung MCTS, one-move
//!    and lost positions; the largest overshoot past the limit.

use crate::engine_choice::EngineArgs;
use anyhow::{Result, anyhow, bail};
use rand::SeedableRng;
use rand::prelude::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use shashki_arena::load_network::load_evaluator;
use shashki_arena::{PlayerKind, PlayerSpec};
use shashki_net::InferenceKernels;
use shashki_rules::{Game, Position};
use shashki_search::{EvalRequest, Evaluation, SearchLimits};
use std::time::{Duration, Instant};

/// Options of `shashki bench-search`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    engine: EngineArgs,
    /// Milliseconds per searched move.
    #[arg(long, default_value_t = 1000)]
    movetime: u64,
    /// Positions searched (the start, then positions after random moves).
    #[arg(long, default_value_t = 3)]
    positions: usize,
    /// Batch size of the raw evaluator measurement (network engines).
    #[arg(long, default_value_t = 64)]
    raw_batch: usize,
}

/// Endgames and forced positions for the time-law check.
const TIME_LAW_FENS: [&str; 7] = [
    "W:WKa1:Bh8",
    "W:WKa1,Kc1:BKh8",
    "W:WKa1:BKh8",
    "W:WKa1,Kc3,Ke5:BKh8",
    "W:Wc3:Bd4",
    "W:Wb2,b4:Ba3,c3",
    "B:WKa1,Kb2,Kc3,Kd4:BKh8,Kg7",
];

/// Seeded random games from the start, `plies` deep each.
fn random_positions(count: usize, plies: usize, seed: u64) -> Vec<Game> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|i| {
            let mut game = Game::new(Position::startpos());
            let depth = if i == 0 { 0 } else { plies };
            while game.ply() < depth && !game.is_over() {
                let moves = game.legal_moves();
                game.play(moves.as_slice().choose(&mut rng).expect("not over"));
            }
            game
        })
        .collect()
}

/// Positions per second of the network of a `net:` engine alone at batch
/// `batch`, over about two seconds, and the kernels that ran it.
fn raw_throughput(spec: &PlayerSpec, batch: usize) -> Result<Option<(f64, InferenceKernels)>> {
    let PlayerKind::Net {
        path,
        device,
        kernels,
        ..
    } = &spec.kind
    else {
        return Ok(None);
    };
    let evaluator = load_evaluator(path, device, *kernels).map_err(|e| anyhow!("{e}"))?;
    let games = random_positions(batch, 12, 7);
    let moves: Vec<Vec<_>> = games
        .iter()
        .map(|g| g.legal_moves().iter().copied().collect())
        .collect();
    let requests: Vec<EvalRequest<'_>> = games
        .iter()
        .zip(&moves)
        .map(|(g, m)| EvalRequest {
            position: g.position(),
            draw_state: g.draw_state(),
            moves: m,
        })
        .collect();
    let mut out = vec![Evaluation::default(); batch];
    evaluator.evaluate(&requests, &mut out); // warm-up
    let start = Instant::now();
    let mut evaluated = 0;
    while start.elapsed() < Duration::from_secs(2) {
        evaluator.evaluate(&requests, &mut out);
        evaluated += batch;
    }
    Ok(Some((
        evaluated as f64 / start.elapsed().as_secs_f64(),
        *kernels,
    )))
}

/// Runs `shashki bench-search`.
pub fn run(args: Args) -> Result<()> {
    if args.raw_batch == 0 || args.positions == 0 || args.movetime == 0 {
        bail!("--raw-batch, --positions and --movetime must be positive");
    }
    let spec = args.engine.spec()?;
    let raw = raw_throughput(&spec, args.raw_batch)?;
    if let Some((rate, kernels)) = raw {
        println!(
            "raw evaluator ({kernels} kernels), batch {}: {rate:.0} positions/s",
            args.raw_batch
        );
    }
    let raw = raw.map(|(rate, _)| rate);
    let mut engine = args.engine.build(&spec)?;
    println!("engine: {}", engine.description());
    let movetime = Duration::from_millis(args.movetime);
    let (mut nodes, mut spent, mut worst) = (0u64, Duration::ZERO, Duration::ZERO);
    for game in random_positions(args.positions, 8, 3) {
        engine.new_game();
        let start = Instant::now();
        let report = engine.go(&game, &SearchLimits::movetime(movetime), &mut |_| {});
        let took = start.elapsed();
        nodes += report.nodes;
        spent += took;
        worst = worst.max(took.saturating_sub(movetime));
    }
    let rate = nodes as f64 / spent.as_secs_f64();
    println!(
        "search, {} ms a move: {rate:.0} simulations/s (nodes/s for alpha-beta) over {} positions, \
         largest overshoot {:.1} ms",
        args.movetime,
        args.positions,
        worst.as_secs_f64() * 1e3
    );
    if let Some(raw) = raw {
        println!("search / raw evaluator: {:.0} %", 100.0 * rate / raw);
    }
    if let Some(line) = engine.statistics() {
        println!("search counters: {line}");
    }
    let limit = Duration::from_millis(50);
    let mut worst = Duration::ZERO;
    for fen in TIME_LAW_FENS {
        engine.new_game();
        let game = Game::new(Position::from_fen(fen)?);
        let start = Instant::now();
        engine.go(&game, &SearchLimits::movetime(limit), &mut |_| {});
        worst = worst.max(start.elapsed().saturating_sub(limit));
    }
    println!(
        "time law, go movetime 50 on {} endgames and forced positions: largest overshoot {:.1} ms",
        TIME_LAW_FENS.len(),
        worst.as_secs_f64() * 1e3
    );
    Ok(())
}
