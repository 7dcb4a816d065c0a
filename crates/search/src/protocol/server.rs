//! The engine side of the protocol: reads commands, keeps the game, runs the
//! engine and writes replies.
//!
//! The search runs on a thread of its own while this side keeps reading, so
//! `stop` ends a search at once and `isready` is answered during one, as
//! UCI engines do. A line reader thread feeds the commands in order.

use super::command::{Command, StartPosition};
use super::reply::{Info, Reply};
use crate::engine::Engine;
use crate::limits::{SearchLimits, StopHandle};
use shashki_rules::{Game, Move, Position};
use std::io::{self, BufRead, Write};
use std::sync::Mutex;
use std::sync::mpsc;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Duration;

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

    /// Handles one input line, writing its replies (flushed) to `out`; a
    /// `go` searches to its end on this thread. Protocol errors become
    /// `error ...` replies; only I/O errors fail.
    pub fn handle_line(&mut self, line: &str, out: &mut dyn Write) -> io::Result<Flow> {
        if line.trim().is_empty() {
            return Ok(Flow::Continue);
        }
        let flow = match Command::parse(line) {
            Err(err) => {
                send(out, &Reply::Error(err.message))?;
                Flow::Continue
            }
            Ok(Command::Go(limits)) => {
                let stop = self.engine.stop_handle();
                if let Some(stop) = &stop {
                    stop.reset();
                }
                let mut out: &mut dyn Write = out;
                let writer = Mutex::new(&mut out);
                search_and_answer(
                    &mut *self.engine,
                    &self.game,
                    &limits,
                    &writer,
                    stop.as_ref(),
                )?;
                Flow::Continue
            }
            Ok(command) => {
                let mut writer = out;
                self.run(command, &mut writer)?
            }
        };
        Ok(flow)
    }

    fn run(&mut self, command: Command, out: &mut dyn Write) -> io::Result<Flow> {
        respond(&mut *self.engine, &mut self.game, &self.name, command, out)
    }
}

/// Answers every command but `go` (which the caller runs).
fn respond(
    engine: &mut dyn Engine,
    game: &mut Game,
    name: &str,
    command: Command,
    out: &mut dyn Write,
) -> io::Result<Flow> {
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
        // Nothing is running: nothing to stop.
        Command::Stop => {}
        Command::Go(_) => unreachable!("go is handled by the caller"),
        Command::Quit => return Ok(Flow::Quit),
    }
    out.flush()?;
    Ok(Flow::Continue)
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

/// One input line as the reader thread passes it on (the Hub session
/// reads its input the same way).
pub(crate) enum Input {
    Line(String),
    NotUtf8,
}

/// The lines of `input`, read on their own thread until the end of input,
/// a read error or `quit`. The thread is detached: a reader blocked on an
/// open input must not keep a session from ending at `quit`.
pub(crate) fn spawn_line_reader(input: impl BufRead + Send + 'static) -> mpsc::Receiver<Input> {
    let (sender, lines) = mpsc::channel();
    std::thread::spawn(move || read_lines(input, sender));
    lines
}

/// Reads lines into `lines` until the end of input, a read error or `quit`
/// (after which nothing is read).
fn read_lines(mut input: impl BufRead, lines: mpsc::Sender<Input>) {
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match input.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let item = match std::str::from_utf8(&buffer) {
            Ok(line) => Input::Line(line.to_string()),
            Err(_) => Input::NotUtf8,
        };
        let quit = matches!(&item, Input::Line(l) if l.split_whitespace().next() == Some("quit"));
        if lines.send(item).is_err() || quit {
            return;
        }
    }
}

/// A search running on its own thread; it gives the engine back when joined.
type Running<'scope, 'e> = ScopedJoinHandle<'scope, (&'e mut dyn Engine, io::Result<()>)>;

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
    let stop = engine.stop_handle();
    let mut session = Session {
        engine: Some(engine),
        game: Game::new(Position::startpos()),
        name,
        stop,
        infinite: false,
    };
    std::thread::scope(|scope| session.run(&lines, &out, scope))
}

/// The state of [`serve`]: the engine (lent to the search thread while
/// one runs), the game and the engine's stop handle.
struct Session<'e, 'n> {
    engine: Option<&'e mut dyn Engine>,
    game: Game,
    name: &'n str,
    stop: Option<StopHandle>,
    /// Whether the last search started is `go infinite`.
    infinite: bool,
}

impl<'e> Session<'e, '_> {
    /// The command loop: `go` starts the search on a scoped thread; `stop`,
    /// `isready` and `quit` act on it at once; any other command waits for
    /// it to end first.
    fn run<'scope, W: Write + Send>(
        &mut self,
        lines: &mpsc::Receiver<Input>,
        out: &'scope Mutex<&mut W>,
        scope: &'scope Scope<'scope, '_>,
    ) -> io::Result<()>
    where
        'e: 'scope,
    {
        let lock = || out.lock().unwrap_or_else(|e| e.into_inner());
        let mut running: Option<Running<'scope, 'e>> = None;
        loop {
            let Ok(item) = lines.recv() else {
                // End of input: finish what runs (stopping an infinite search).
                if self.infinite {
                    self.stop_search();
                }
                return self.join(&mut running);
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
            let searching = running.as_ref().is_some_and(|r| !r.is_finished());
            match command {
                Command::Stop | Command::Quit => {
                    self.stop_search();
                    self.join(&mut running)?;
                    if command == Command::Quit {
                        return Ok(());
                    }
                }
                Command::IsReady if searching => {
                    let mut out = lock();
                    send(&mut **out, &Reply::ReadyOk)?;
                    out.flush()?;
                }
                Command::Go(limits) => {
                    self.join(&mut running)?;
                    if let Some(stop) = &self.stop {
                        stop.reset();
                    }
                    let engine = self.engine.take().expect("the engine is back after join");
                    self.infinite = limits.infinite;
                    let game = self.game.clone();
                    let stop = self.stop.clone();
                    running = Some(scope.spawn(move || {
                        let result = search_and_answer(engine, &game, &limits, out, stop.as_ref());
                        (engine, result)
                    }));
                }
                command => {
                    self.join(&mut running)?;
                    let engine = self
                        .engine
                        .as_deref_mut()
                        .expect("the engine is back after join");
                    let mut out = lock();
                    respond(engine, &mut self.game, self.name, command, &mut **out)?;
                }
            }
        }
    }

    fn stop_search(&self) {
        if let Some(stop) = &self.stop {
            stop.stop();
        }
    }

    /// Waits for the running search, if any, and takes the engine back.
    fn join(&mut self, running: &mut Option<Running<'_, 'e>>) -> io::Result<()> {
        let Some(handle) = running.take() else {
            return Ok(());
        };
        match handle.join() {
            Ok((engine, result)) => {
                self.engine = Some(engine);
                result
            }
            Err(_) => Err(io::Error::other("the search thread panicked")),
        }
    }
}
