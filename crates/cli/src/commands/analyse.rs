//! `shashki analyse`: one position searched by the chosen engine: best move,
//! evaluation and principal variation, with the progress of the search.

use crate::engine_choice::{EngineArgs, LimitArgs};
use anyhow::{Context, Result};
use shashki_protocol::line::Info;
use shashki_rules::{Game, Move, Position};

/// Options of `shashki analyse`.
#[derive(clap::Args)]
pub struct Args {
    /// The position (PDN FEN); the standard start by default.
    #[arg(long)]
    fen: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

fn line(moves: &[Move]) -> String {
    moves
        .iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `shashki analyse`.
pub fn run(args: Args) -> Result<()> {
    let position = match &args.fen {
        Some(fen) => Position::from_fen(fen).context("--fen")?,
        None => Position::startpos(),
    };
    let game = Game::new(position);
    let spec = args.engine.spec()?;
    let limits = args.limits.limits_for(&spec)?;
    let mut engine = args.engine.build(&spec)?;
    println!("{position}");
    println!("engine: {}", engine.description());
    if let Some(outcome) = game.outcome() {
        println!("the game is already over: {outcome}");
    }
    let side = game.side_to_move();
    let report = engine.go(&game, &limits, &mut |progress| {
        println!("{}", Info::from_report(progress));
    });
    match report.best_move {
        Some(mv) => println!("best move: {mv}"),
        None => println!("best move: none ({side} has no legal move and loses)"),
    }
    println!("score ({side}'s view): {}", report.score);
    println!("pv: {}", line(&report.pv));
    println!(
        "depth {} nodes {} time {} ms",
        report.depth,
        report.nodes,
        report.elapsed.as_millis()
    );
    Ok(())
}
