//! `shashki play`: a game against the engine in the terminal. The board is
//! drawn after every move, moves are typed in notation, illegal ones are
//! refused with the list of legal moves, and the arbiter judges the game.

use crate::engine_choice::{EngineArgs, LimitArgs};
use anyhow::{Context, Result};
use shashki_rules::{Color, Game, Move, MoveError, Position};
use std::io::{BufRead, Write};

/// Options of `shashki play`.
#[derive(clap::Args)]
pub struct Args {
    /// Your colour: `white` or `black`.
    #[arg(long, default_value = "white", value_parser = parse_color)]
    color: Color,
    /// Start position (PDN FEN); the standard start by default.
    #[arg(long)]
    fen: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

fn parse_color(text: &str) -> Result<Color, String> {
    match text.to_ascii_lowercase().as_str() {
        "white" | "w" => Ok(Color::White),
        "black" | "b" => Ok(Color::Black),
        other => Err(format!("unknown colour {other:?}: expected white or black")),
    }
}

fn legal_list(game: &Game) -> String {
    let mut moves = game.legal_moves();
    moves.sort_by_notation();
    moves
        .iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the player typed.
enum Input {
    /// A legal move.
    Move(Move),
    /// `quit`, `exit` or `resign`.
    Quit,
    /// Standard input ended.
    Closed,
}

/// Reads lines until a legal move, `quit` or the end of input.
fn read_move(game: &Game, input: &mut impl BufRead, out: &mut impl Write) -> Result<Input> {
    loop {
        write!(out, "your move ({}): ", game.side_to_move())?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(Input::Closed);
        }
        let text = line.trim();
        match text {
            "" => continue,
            "quit" | "exit" | "resign" => return Ok(Input::Quit),
            "moves" | "help" | "?" => {
                writeln!(out, "legal moves: {}", legal_list(game))?;
                writeln!(out, "type a move (c3-d4, a3:c5:e7 or a3:e7), or quit")?;
                continue;
            }
            _ => {}
        }
        match game.position().parse_move(text) {
            Ok(mv) => return Ok(Input::Move(mv)),
            // The illegal-move error already lists the legal moves.
            Err(err @ MoveError::Illegal { .. }) => writeln!(out, "{err}")?,
            Err(err) => writeln!(out, "{err}; legal moves: {}", legal_list(game))?,
        }
    }
}

/// Runs `shashki play` on stdin/stdout.
pub fn run(args: Args) -> Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    play(args, &mut stdin.lock(), &mut stdout.lock())
}

fn play(args: Args, input: &mut impl BufRead, out: &mut impl Write) -> Result<()> {
    let start = match &args.fen {
        Some(fen) => Position::from_fen(fen).context("--fen")?,
        None => Position::startpos(),
    };
    let mut game = Game::new(start);
    let spec = args.engine.spec()?;
    let limits = args.limits.limits_for(&spec)?;
    let mut engine = args.engine.build(&spec)?;
    writeln!(
        out,
        "You play {} against {}. Type `moves` for the legal moves, `quit` to stop.",
        args.color,
        engine.description()
    )?;
    loop {
        writeln!(out, "\n{}", game.position())?;
        if let Some(outcome) = game.outcome() {
            writeln!(out, "game over: {outcome}")?;
            return Ok(());
        }
        if game.side_to_move() == args.color {
            match read_move(&game, input, out)? {
                Input::Move(mv) => game.play(&mv),
                Input::Quit => {
                    game.resign(args.color);
                    if let Some(outcome) = game.outcome() {
                        writeln!(out, "game over: {outcome}")?;
                    }
                    return Ok(());
                }
                Input::Closed => {
                    writeln!(
                        out,
                        "end of input: game abandoned after {} plies",
                        game.ply()
                    )?;
                    return Ok(());
                }
            }
        } else {
            let report = engine.go(&game, &limits, &mut |_| {});
            let mv = report
                .best_move
                .context("the engine found no move although the game goes on")?;
            writeln!(out, "engine plays {mv} (score {})", report.score)?;
            game.play(&mv);
        }
    }
}
