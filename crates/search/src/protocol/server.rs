//! The engine side of the protocol: reads commands, keeps the game, runs the
//! engine and writes replies.

use super::command::{Command, StartPosition};
use super::reply::{Info, Reply};
use crate::engine::Engine;
use shashki_rules::{Game, Move, Position};
use std::io::{self, BufRead, Write};

/// Whether the session goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit` was received.
    Quit,
}

/// One protocol session: the engine, its name and the current game.
pub struct EngineServer<'e> {
    engine: &'e mut dyn Engine,
    name: String,
    game: Game,
}

impl<'e> EngineServer<'e> {
    /// A session answering `name` with `name`, starting at the start position.
    pub fn new(engine: &'e mut dyn Engine, name: impl Into<String>) -> EngineServer<'e> {
        EngineServer {
            engine,
            name: name.into(),
            game: Game::new(Position::startpos()),
        }
    }

    /// The current game (as set by `position` / `newgame`).
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Handles one input line, writing its replies (flushed) to `out`.
    /// Protocol errors become `error ...` replies; only I/O errors fail.
    pub fn handle_line(&mut self, line: &str, out: &mut dyn Write) -> io::Result<Flow> {
        if line.trim().is_empty() {
            return Ok(Flow::Continue);
        }
        let flow = match Command::parse(line) {
            Err(err) => {
                send(out, &Reply::Error(err.message))?;
                Flow::Continue
            }
            Ok(command) => self.run(command, out)?,
        };
        out.flush()?;
        Ok(flow)
    }

    fn run(&mut self, command: Command, out: &mut dyn Write) -> io::Result<Flow> {
        match command {
            Command::Name => send(out, &Reply::Name(self.name.clone()))?,
            Command::IsReady => send(out, &Reply::ReadyOk)?,
            Command::NewGame => {
                self.engine.new_game();
                self.game = Game::new(Position::startpos());
            }
            Command::Position { start, moves } => match build_game(&start, &moves) {
                Ok(game) => self.game = game,
                // The previous position stays in force.
                Err(message) => send(out, &Reply::Error(message))?,
            },
            Command::Go(limits) => {
                let best = if self.game.legal_moves().is_empty() {
                    None
                } else {
                    let mut write_error = None;
                    let report = self.engine.go(&self.game, &limits, &mut |progress| {
                        let line = Reply::Info(Info::from_report(progress));
                        if let Err(err) = send(out, &line).and_then(|_| out.flush()) {
                            write_error.get_or_insert(err);
                        }
                    });
                    if let Some(err) = write_error {
                        return Err(err);
                    }
                    report.best_move
                };
                send(out, &Reply::BestMove(best.map(|m: Move| m.to_string())))?;
            }
            Command::Quit => return Ok(Flow::Quit),
        }
        Ok(Flow::Continue)
    }
}

fn send(out: &mut dyn Write, reply: &Reply) -> io::Result<()> {
    writeln!(out, "{reply}")
}

/// The game from `start` after `moves`, or why it cannot be built.
fn build_game(start: &StartPosition, moves: &[String]) -> Result<Game, String> {
    let position = match start {
        StartPosition::StartPos => Position::startpos(),
        StartPosition::Fen(fen) => Position::from_fen(fen).map_err(|e| e.to_string())?,
    };
    let mut game = Game::new(position);
    for (i, text) in moves.iter().enumerate() {
        if let Some(outcome) = game.outcome() {
            return Err(format!(
                "move {} ({text:?}) comes after the game ended: {outcome}",
                i + 1
            ));
        }
        let mv = game
            .position()
            .parse_move(text)
            .map_err(|e| format!("move {}: {e}", i + 1))?;
        game.play(&mv);
    }
    Ok(game)
}

/// Runs a whole session: reads lines from `input` until `quit` or end of
/// input, answering on `output`. Lines that are not UTF-8 get an error reply.
pub fn serve(
    engine: &mut dyn Engine,
    name: &str,
    mut input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    let mut server = EngineServer::new(engine, name);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        if input.read_until(b'\n', &mut buffer)? == 0 {
            return Ok(());
        }
        let flow = match std::str::from_utf8(&buffer) {
            Ok(line) => server.handle_line(line, &mut output)?,
            Err(_) => {
                send(&mut output, &Reply::Error("input line is not UTF-8".into()))?;
                output.flush()?;
                Flow::Continue
            }
        };
        if flow == Flow::Quit {
            return Ok(());
        }
    }
}
