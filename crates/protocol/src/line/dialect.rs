//! The engine side of the line protocol: keeps the game, runs the engine
//! and writes replies, on the session core.
//!
//! The search runs on a thread of its own while the session keeps reading,
//! so `stop` ends a search at once and `isready` is answered during one, as
//! UCI engines do; any other command waits for the search to end.

use super::command::{Command, StartPosition};
use super::reply::{Info, Reply};
use crate::session::{self, Dialect, Out, Route, Search, send};
use shashki_rules::{Game, Position};
use shashki_search::{Engine, SearchReport};
use std::io::{self, BufRead, Write};

/// Runs a whole session: reads lines from `input` until `quit` or end of
/// input, answering on `output`. Lines that are not UTF-8 get an error
/// reply. At the end of input a running search is finished (an infinite
/// one stopped) and answered before returning.
pub fn serve<W: Write + Send>(
    engine: &mut dyn Engine,
    name: &str,
    input: impl BufRead + Send + 'static,
    mut output: W,
) -> io::Result<()> {
    let mut dialect = LineDialect {
        game: Game::new(Position::startpos()),
        name,
        infinite: false,
    };
    session::run(&mut dialect, engine, input, &mut output)
}

/// The state of a line-protocol session: the game and how the last search
/// was started.
struct LineDialect<'n> {
    game: Game,
    name: &'n str,
    /// Whether the last search started is `go infinite`.
    infinite: bool,
}

impl Dialect for LineDialect<'_> {
    type Command = Command;

    fn parse(&self, line: &str) -> Result<Option<(String, Command)>, String> {
        let Some(word) = line.split_whitespace().next() else {
            return Ok(None);
        };
        let command = Command::parse(line).map_err(|e| e.message)?;
        Ok(Some((word.to_string(), command)))
    }

    fn error(&self, message: &str) -> String {
        Reply::Error(message.to_string()).to_string()
    }

    fn route(&self, _word: &str, command: &Command, searching: bool) -> Route {
        match command {
            Command::Stop => Route::Stop,
            Command::Quit => Route::Quit,
            Command::IsReady if searching => Route::Now,
            Command::Go(_) => Route::Go,
            _ => Route::Engine,
        }
    }

    fn answer_now(&mut self, _command: Command, _searching: bool, out: &Out<'_>) -> io::Result<()> {
        send(out, &Reply::ReadyOk)
    }

    fn respond(
        &mut self,
        command: Command,
        engine: &mut dyn Engine,
        out: &Out<'_>,
    ) -> io::Result<()> {
        match command {
            Command::Name => send(out, &Reply::Name(self.name.to_string())),
            Command::IsReady => send(out, &Reply::ReadyOk),
            Command::NewGame => {
                engine.new_game();
                self.game = Game::new(Position::startpos());
                Ok(())
            }
            Command::Position { start, moves } => match build_game(&start, &moves) {
                Ok(built) => {
                    self.game = built;
                    Ok(())
                }
                // The previous position stays in force.
                Err(message) => send(out, &Reply::Error(message)),
            },
            Command::Go(_) | Command::Stop | Command::Quit => {
                unreachable!("routed elsewhere")
            }
        }
    }

    /// `go`; with `infinite`, `bestmove` waits for `stop` even if the
    /// search ended sooner; an engine without a stop handle refuses it.
    fn go(
        &mut self,
        command: Command,
        can_stop: bool,
        out: &Out<'_>,
    ) -> io::Result<Option<Search>> {
        let Command::Go(limits) = command else {
            unreachable!("only go is routed here")
        };
        self.infinite = limits.infinite;
        if limits.infinite && !can_stop {
            send(
                out,
                &Reply::Error("go infinite: this engine cannot be stopped".into()),
            )?;
            return Ok(None);
        }
        Ok(Some(Search {
            game: self.game.clone(),
            limits,
            info: |progress: &SearchReport| Reply::Info(Info::from_report(progress)).to_string(),
            answer: |_game: &Game, report: Option<&SearchReport>| {
                let best = report.and_then(|r| r.best_move);
                Reply::BestMove(best.map(|m| m.to_string())).to_string()
            },
            answer_after_stop: true,
        }))
    }

    fn stop_at_end(&self) -> bool {
        self.infinite
    }
}

/// The game from `start` after `moves`, or why it cannot be built.
fn build_game(start: &StartPosition, moves: &[String]) -> Result<Game, String> {
    let position = match start {
        StartPosition::StartPos => Position::startpos(),
        StartPosition::Fen(fen) => Position::from_fen(fen).map_err(|e| e.to_string())?,
    };
    session::replay(position, moves, |game, i, text| {
        if let Some(outcome) = game.outcome() {
            return Err(format!(
                "move {} ({text:?}) comes after the game ended: {outcome}",
                i + 1
            ));
        }
        game.position()
            .parse_move(text)
            .map_err(|e| format!("move {}: {e}", i + 1))
    })
}
