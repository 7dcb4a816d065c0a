//! The engine side of the protocol: reads commands, keeps the game, runs the
//! engine and writes replies.
//!
//! The search runs on a thread of its own while this side keeps reading, so
//! `stop` ends a search at once and `isready` is answered during one, as
//! UCI engines do. A line reader thread feeds the commands in order.

use super::command::{Command, StartPosition};
use super::reply::{Info, Reply};
use super::search_thread::{Input, SearchThread, spawn_line_reader};
use crate::engine::Engine;
use crate::limits::{SearchLimits, StopHandle};
use shashki_rules::{Game, Move, Position};
use std::io::{self, BufRead, Write};
use std::sync::Mutex;
use std::sync::mpsc;
use std::thread::Scope;
use std::time::Duration;

/// Answers every command but `go`, `stop` and `quit` (which the command
/// loop runs).
fn respond(
    engine: &mut dyn Engine,
    game: &mut Game,
    name: &str,
    command: Command,
    out: &mut dyn Write,
) -> io::Result<()> {
    match command {
        Command::Name => send(out, &Reply::Name(name.to_string()))?,
        Command::IsReady => send(out, &Reply::ReadyOk)?,
        Command::NewGame => {
            engine.new_game();
            *game = Game::new(Position::startpos());
        }
        Command::Position { start, moves } => match build_game(&start, &moves) {
            Ok(built) => *game = built,
            // The previous position stays in force.
            Err(message) => send(out, &Reply::Error(message))?,
        },
        Command::Go(_) | Command::Stop | Command::Quit => {
            unreachable!("handled by the command loop")
        }
    }
    out.flush()
}

/// Runs one search and writes its `info` lines and `bestmove` to `out`. With
/// `infinite`, `bestmove` waits for `stop` even if the search ended sooner
/// (a proven root); an engine without a stop handle refuses `infinite`.
fn search_and_answer<W: Write>(
    engine: &mut dyn Engine,
    game: &Game,
    limits: &SearchLimits,
    out: &Mutex<&mut W>,
    stop: Option<&StopHandle>,
) -> io::Result<()> {
    let lock = || out.lock().unwrap_or_else(|e| e.into_inner());
    if limits.infinite && stop.is_none() {
        let mut out = lock();
        send(
            &mut **out,
            &Reply::Error("go infinite: this engine cannot be stopped".into()),
        )?;
        return out.flush();
    }
    let best = if game.legal_moves().is_empty() {
        None
    } else {
        let mut write_error = None;
        let report = engine.go(game, limits, &mut |progress| {
            let mut out = lock();
            let line = Reply::Info(Info::from_report(progress));
            if let Err(err) = send(&mut **out, &line).and_then(|_| out.flush()) {
                write_error.get_or_insert(err);
            }
        });
        if let Some(err) = write_error {
            return Err(err);
        }
        report.best_move
    };
    if limits.infinite
        && let Some(stop) = stop
    {
        while !stop.is_stopped() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let mut out = lock();
    send(
        &mut **out,
        &Reply::BestMove(best.map(|m: Move| m.to_string())),
    )?;
    out.flush()
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
/// input, answering on `output`. Lines that are not UTF-8 get an error
/// reply. At the end of input a running search is finished (an infinite
/// one stopped) and answered before returning.
pub fn serve<W: Write + Send>(
    engine: &mut dyn Engine,
    name: &str,
    input: impl BufRead + Send + 'static,
    mut output: W,
) -> io::Result<()> {
    let lines = spawn_line_reader(input);
    let out = Mutex::new(&mut output);
    let mut session = Session {
        game: Game::new(Position::startpos()),
        name,
        infinite: false,
    };
    std::thread::scope(|scope| session.run(SearchThread::new(engine), &lines, &out, scope))
}

/// The state of [`serve`]: the game and how the last search was started.
struct Session<'n> {
    game: Game,
    name: &'n str,
    /// Whether the last search started is `go infinite`.
    infinite: bool,
}

impl Session<'_> {
    /// The command loop: `go` starts the search on a scoped thread; `stop`,
    /// `isready` and `quit` act on it at once; any other command waits for
    /// it to end first.
    fn run<'scope, 'e: 'scope, W: Write + Send>(
        &mut self,
        mut search: SearchThread<'scope, 'e>,
        lines: &mpsc::Receiver<Input>,
        out: &'scope Mutex<&mut W>,
        scope: &'scope Scope<'scope, '_>,
    ) -> io::Result<()> {
        let lock = || out.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let Ok(item) = lines.recv() else {
                // End of input: finish what runs (stopping an infinite search).
                if self.infinite {
                    search.stop();
                }
                return search.join();
            };
            let parsed = match item {
                Input::Line(line) if line.trim().is_empty() => continue,
                Input::Line(line) => Command::parse(&line).map_err(|e| e.message),
                Input::NotUtf8 => Err("input line is not UTF-8".to_string()),
            };
            let command = match parsed {
                Ok(command) => command,
                Err(message) => {
                    let mut out = lock();
                    send(&mut **out, &Reply::Error(message))?;
                    out.flush()?;
                    continue;
                }
            };
            match command {
                Command::Stop | Command::Quit => {
                    search.stop();
                    search.join()?;
                    if command == Command::Quit {
                        return Ok(());
                    }
                }
                Command::IsReady if search.searching() => {
                    let mut out = lock();
                    send(&mut **out, &Reply::ReadyOk)?;
                    out.flush()?;
                }
                Command::Go(limits) => {
                    self.infinite = limits.infinite;
                    let game = self.game.clone();
                    let stop = search.stop_handle();
                    // (Every command but stop, quit and isready waits for the
                    // search here, so its answer needs no early mark.)
                    search.start(scope, move |engine, _answered| {
                        search_and_answer(engine, &game, &limits, out, stop.as_ref())
                    })?;
                }
                command => {
                    let engine = search.engine()?;
                    let mut out = lock();
                    respond(engine, &mut self.game, self.name, command, &mut **out)?;
                }
            }
        }
    }
}
