//! The session core both protocols run on: one command loop that reads
//! the GUI's lines on a thread of their own, lends the engine to one search
//! at a time on a scoped thread (so `stop` ends a search at once), and
//! writes every line flushed. What differs between the protocols (their
//! syntax, which commands are answered during a search, what a search
//! writes) is a [`Dialect`]: `line::dialect` and `hub::dialect`.

mod input;
mod search_thread;

use input::{Input, spawn_line_reader};
use search_thread::{Answered, SearchThread};
use shashki_rules::{Game, Move, Position};
use shashki_search::{Engine, SearchLimits, SearchReport, StopHandle};
use std::fmt::Display;
use std::io::{self, BufRead, Write};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::Scope;
use std::time::{Duration, Instant};

/// The output, shared by the command loop and the search thread.
pub(crate) type Out<'o> = Mutex<&'o mut (dyn Write + Send)>;

/// Writes one line and flushes it.
pub(crate) fn send(out: &Out<'_>, line: &dyn Display) -> io::Result<()> {
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    writeln!(out, "{line}")?;
    out.flush()
}

/// What the command loop does with a parsed command.
pub(crate) enum Route {
    /// Stop the running search and wait for its answer.
    Stop,
    /// Stop the running search, wait for its answer and end the session.
    Quit,
    /// Answered at once, even during a search ([`Dialect::answer_now`]).
    Now,
    /// Refused with this error message (a command the protocol does not
    /// read during a search).
    Refuse(String),
    /// Starts a search once the running one has ended ([`Dialect::go`]).
    Go,
    /// Needs the engine: answered once the running search has ended
    /// ([`Dialect::respond`]).
    Engine,
}

/// A search to run: the game, its limits, and the lines it writes.
pub(crate) struct Search {
    pub(crate) game: Game,
    pub(crate) limits: SearchLimits,
    /// The line for each progress report.
    pub(crate) info: fn(&SearchReport) -> String,
    /// The answer: from the game and the final report (`None` when the
    /// side to move had no legal move and nothing was searched).
    pub(crate) answer: fn(&Game, Option<&SearchReport>) -> String,
    /// An infinite search answers only after `stop`, even when it ended
    /// sooner (a proven root), as UCI's `go infinite` does.
    pub(crate) answer_after_stop: bool,
}

/// One protocol's side of a session.
pub(crate) trait Dialect {
    type Command;
    /// The command of one input line and its first word; `None` for a
    /// line to skip (blank).
    fn parse(&self, line: &str) -> Result<Option<(String, Self::Command)>, String>;
    /// The line that reports an error.
    fn error(&self, message: &str) -> String;
    /// What the loop does with `command` (`word` its first word), given
    /// whether a search is under way.
    fn route(&self, word: &str, command: &Self::Command, searching: bool) -> Route;
    /// Answers a [`Route::Now`] command.
    fn answer_now(
        &mut self,
        command: Self::Command,
        searching: bool,
        out: &Out<'_>,
    ) -> io::Result<()>;
    /// Answers a [`Route::Engine`] command with the idle engine.
    fn respond(
        &mut self,
        command: Self::Command,
        engine: &mut dyn Engine,
        out: &Out<'_>,
    ) -> io::Result<()>;
    /// The search a [`Route::Go`] command asks for, or `None` when it is
    /// refused (its answer written here). `can_stop`: whether the engine
    /// can be stopped (an infinite search needs it).
    fn go(
        &mut self,
        command: Self::Command,
        can_stop: bool,
        out: &Out<'_>,
    ) -> io::Result<Option<Search>>;
    /// When the running search must be stopped, if ever.
    fn deadline(&self) -> Option<Instant> {
        None
    }
    /// The deadline has passed (the search was asked to stop).
    fn deadline_passed(&mut self) {}
    /// The running search, if any, is being joined.
    fn search_over(&mut self) {}
    /// Whether the end of input stops a running search (or lets it end).
    fn stop_at_end(&self) -> bool;
}

/// The game from `start` after `moves`, each read by `parse_move` (given
/// the game so far and the move's index from 0), or the first refusal.
pub(crate) fn replay(
    start: Position,
    moves: &[String],
    mut parse_move: impl FnMut(&Game, usize, &str) -> Result<Move, String>,
) -> Result<Game, String> {
    let mut game = Game::new(start);
    for (i, text) in moves.iter().enumerate() {
        let mv = parse_move(&game, i, text)?;
        game.play(&mv);
    }
    Ok(game)
}

/// Runs a whole session: reads lines from `input` until `quit` or the end
/// of input, answering on `output`. Lines that are not UTF-8 get an error.
pub(crate) fn run<D: Dialect>(
    dialect: &mut D,
    engine: &mut dyn Engine,
    input: impl BufRead + Send + 'static,
    output: &mut (dyn Write + Send),
) -> io::Result<()> {
    let lines = spawn_line_reader(input);
    let out: Out<'_> = Mutex::new(output);
    std::thread::scope(|scope| {
        command_loop(dialect, SearchThread::new(engine), &lines, &out, scope)
    })
}

/// What the command loop waits for next.
enum Next {
    Input(Input),
    /// The dialect's deadline is over.
    Deadline,
    /// The input is closed.
    End,
}

fn next_event(lines: &Receiver<Input>, deadline: Option<Instant>) -> Next {
    let Some(deadline) = deadline else {
        return lines.recv().map_or(Next::End, Next::Input);
    };
    match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(input) => Next::Input(input),
        Err(RecvTimeoutError::Timeout) => Next::Deadline,
        Err(RecvTimeoutError::Disconnected) => Next::End,
    }
}

/// The command loop: a search starts on a scoped thread; the dialect says
/// which commands act on it at once and which wait for it or are refused.
fn command_loop<'scope, 'e: 'scope, D: Dialect>(
    dialect: &mut D,
    mut search: SearchThread<'scope, 'e>,
    lines: &Receiver<Input>,
    out: &'scope Out<'_>,
    scope: &'scope Scope<'scope, '_>,
) -> io::Result<()> {
    let join = |dialect: &mut D, search: &mut SearchThread<'scope, 'e>| {
        dialect.search_over();
        search.join()
    };
    loop {
        let text = match next_event(lines, dialect.deadline()) {
            Next::Input(Input::Line(text)) => text,
            Next::Input(Input::NotUtf8) => {
                send(out, &dialect.error("input line is not UTF-8"))?;
                continue;
            }
            Next::Deadline => {
                search.stop();
                dialect.deadline_passed();
                continue;
            }
            Next::End => {
                if dialect.stop_at_end() {
                    search.stop();
                }
                return join(dialect, &mut search);
            }
        };
        let (word, command) = match dialect.parse(&text) {
            Ok(Some(parsed)) => parsed,
            Ok(None) => continue,
            Err(message) => {
                send(out, &dialect.error(&message))?;
                continue;
            }
        };
        let searching = search.searching();
        match dialect.route(&word, &command, searching) {
            Route::Stop => {
                search.stop();
                join(dialect, &mut search)?;
            }
            Route::Quit => {
                search.stop();
                return join(dialect, &mut search);
            }
            Route::Now => dialect.answer_now(command, searching, out)?,
            Route::Refuse(message) => send(out, &dialect.error(&message))?,
            Route::Go => {
                join(dialect, &mut search)?;
                if let Some(request) = dialect.go(command, search.can_stop(), out)? {
                    let stop = search.stop_handle();
                    search.start(scope, move |engine, answered| {
                        run_search(engine, &request, out, answered, stop.as_ref())
                    })?;
                }
            }
            Route::Engine => {
                join(dialect, &mut search)?;
                dialect.respond(command, search.engine()?, out)?;
            }
        }
    }
}

/// Runs one search, writing a line for each progress report and then its
/// answer (marking it answered just before).
fn run_search(
    engine: &mut dyn Engine,
    request: &Search,
    out: &Out<'_>,
    answered: &Answered,
    stop: Option<&StopHandle>,
) -> io::Result<()> {
    let report = if request.game.legal_moves().is_empty() {
        None
    } else {
        let mut write_error = None;
        let report = engine.go(&request.game, &request.limits, &mut |progress| {
            if write_error.is_none()
                && let Err(err) = send(out, &(request.info)(progress))
            {
                write_error = Some(err);
            }
        });
        if let Some(err) = write_error {
            return Err(err);
        }
        Some(report)
    };
    if request.answer_after_stop
        && request.limits.infinite
        && let Some(stop) = stop
    {
        while !stop.is_stopped() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    answered.mark();
    send(out, &(request.answer)(&request.game, report.as_ref()))
}
