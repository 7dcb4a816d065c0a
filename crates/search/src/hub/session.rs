//! The engine side of Hub: reads the GUI's lines, keeps the position, the
//! level and the parameters, runs searches on a thread of their own and
//! writes `info` / `done`.
//!
//! During a search only `ping`, `ponder-hit` and `stop` are read (Hub's
//! rule); anything else gets an `error` line and is dropped. A search
//! answers `done` when its limit ends it, when `stop` arrives, or when
//! the time a `ponder-hit` started runs out; the end of input and `quit`
//! stop it and end the session.

use super::command::{Command, Level, Mode};
use super::notation::{parse_move, parse_position};
use super::params::Params;
use super::report::{done_line, info_line};
use super::syntax::Line;
use crate::engine::Engine;
use crate::limits::SearchLimits;
use crate::protocol::{Answered, Input, ProtocolError, SearchThread, spawn_line_reader};
use shashki_rules::{Color, Game, Position};
use std::io::{self, BufRead, Write};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::Scope;
use std::time::Instant;

/// Who the engine says it is in its `id` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// `name=`.
    pub name: String,
    /// `version=`.
    pub version: String,
    /// `author=`.
    pub author: String,
    /// What runs behind the protocol (`engine=`), e.g. `alpha-beta`.
    pub engine: String,
}

impl Identity {
    /// The `id` line. `=` is kept out of the values: pydraughts splits
    /// them at every `=`.
    fn line(&self) -> Line {
        let clean = |text: &str| text.replace('=', ":");
        Line::new("id")
            .with("name", clean(&self.name))
            .with("version", clean(&self.version))
            .with("author", clean(&self.author))
            .with("engine", clean(&self.engine))
    }
}

/// Runs a Hub session over `input` and `output` until `quit` or the end of
/// input (a running search is stopped and answered first). The GUI closing
/// the output also ends it without an error.
pub fn serve_hub<W: Write + Send>(
    engine: &mut dyn Engine,
    identity: &Identity,
    input: impl BufRead + Send + 'static,
    mut output: W,
) -> io::Result<()> {
    let lines = spawn_line_reader(input);
    let out = Mutex::new(&mut output);
    let mut session = Session {
        identity,
        params: Params::default(),
        game: Some(Game::new(Position::startpos())),
        level: Level::default(),
        ponder: None,
        deadline: None,
    };
    match std::thread::scope(|scope| session.run(SearchThread::new(engine), &lines, &out, scope)) {
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        result => result,
    }
}

/// The output, shared by the command loop and the search thread.
type Out<'o, W> = Mutex<&'o mut W>;

/// What a ponder search needs at `ponder-hit` to start its clock.
struct PonderClock {
    level: Level,
    side: Color,
}

/// What the command loop waits for next.
enum Next {
    Input(Input),
    /// The time a `ponder-hit` granted is over.
    Deadline,
    /// The input is closed.
    End,
}

struct Session<'i> {
    identity: &'i Identity,
    params: Params,
    /// The position to search; `None` after a refused `pos`.
    game: Option<Game>,
    /// The limits set since the last `pos` or `go`.
    level: Level,
    /// Set while a `go ponder` search waits for `ponder-hit`.
    ponder: Option<PonderClock>,
    /// When the running search must be stopped (armed by `ponder-hit`).
    deadline: Option<Instant>,
}

impl Session<'_> {
    fn run<'scope, 'e: 'scope, W: Write + Send>(
        &mut self,
        mut search: SearchThread<'scope, 'e>,
        lines: &Receiver<Input>,
        out: &'scope Out<'_, W>,
        scope: &'scope Scope<'scope, '_>,
    ) -> io::Result<()> {
        loop {
            let input = match self.next_event(lines) {
                Next::Input(input) => input,
                Next::Deadline => {
                    search.stop();
                    self.deadline = None;
                    continue;
                }
                Next::End => {
                    search.stop();
                    return self.join(&mut search);
                }
            };
            let (word, command) = match read_command(input) {
                Ok(Some(parsed)) => parsed,
                Ok(None) => continue,
                Err(err) => {
                    send(out, &error_line(&err.message))?;
                    continue;
                }
            };
            let searching = search.searching();
            match command {
                Command::Ping => send(out, &Line::new("pong"))?,
                Command::Stop => {
                    search.stop();
                    self.join(&mut search)?;
                }
                Command::Quit => {
                    search.stop();
                    return self.join(&mut search);
                }
                Command::PonderHit => self.ponder_hit(searching),
                _ if searching => send(
                    out,
                    &error_line(&format!(
                        "{word} during a search: only ping, ponder-hit and stop are read \
                         then (send stop first)"
                    )),
                )?,
                Command::Go(mode) => {
                    self.join(&mut search)?;
                    self.start(mode, &mut search, out, scope)?;
                }
                command => {
                    self.join(&mut search)?;
                    self.respond(command, search.engine()?, out)?;
                }
            }
        }
    }

    fn next_event(&self, lines: &Receiver<Input>) -> Next {
        let Some(deadline) = self.deadline else {
            return lines.recv().map_or(Next::End, Next::Input);
        };
        match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(input) => Next::Input(input),
            Err(RecvTimeoutError::Timeout) => Next::Deadline,
            Err(RecvTimeoutError::Disconnected) => Next::End,
        }
    }

    /// Answers the commands that do not search.
    fn respond<W: Write>(
        &mut self,
        command: Command,
        engine: &mut dyn Engine,
        out: &Out<'_, W>,
    ) -> io::Result<()> {
        match command {
            Command::Hub => {
                send(out, &self.identity.line())?;
                for param in self.params.declarations() {
                    send(out, &param)?;
                }
                send(out, &Line::new("wait"))?;
            }
            Command::Init => send(out, &Line::new("ready"))?,
            Command::SetParam { name, value } => {
                if let Err(err) = self.params.set(&name, &value) {
                    send(out, &error_line(&err.message))?;
                }
            }
            Command::Pos { position, moves } => {
                self.level = Level::default();
                match build_game(position.as_deref(), &moves) {
                    Ok(game) => self.game = Some(game),
                    Err(err) => {
                        // Searching the previous position instead would
                        // answer a move for the wrong game.
                        self.game = None;
                        send(out, &error_line(&err.message))?;
                    }
                }
            }
            Command::Level(level) => self.level = self.level.merged(level),
            Command::NewGame => engine.new_game(),
            // Handled by the command loop.
            Command::Go(_) | Command::PonderHit | Command::Stop | Command::Ping | Command::Quit => {
            }
        }
        Ok(())
    }

    /// Starts the search `go` asks for; the level is used up.
    fn start<'scope, 'e: 'scope, W: Write + Send>(
        &mut self,
        mode: Mode,
        search: &mut SearchThread<'scope, 'e>,
        out: &'scope Out<'_, W>,
        scope: &'scope Scope<'scope, '_>,
    ) -> io::Result<()> {
        let level = std::mem::take(&mut self.level);
        let Some(game) = self.game.clone() else {
            send(
                out,
                &error_line("go: no position to search (the last pos was refused)"),
            )?;
            send(out, &done_line(None, None, &[]))?;
            return Ok(());
        };
        if game.legal_moves().is_empty() {
            send(out, &error_line("go: the side to move has no legal move"))?;
            send(out, &done_line(None, None, &[]))?;
            return Ok(());
        }
        let side = game.side_to_move();
        let mut limits = match mode {
            Mode::Think => level.limits(side, self.params.overhead),
            Mode::Analyze if level.is_empty() => SearchLimits::infinite(),
            Mode::Analyze => level.limits(side, self.params.overhead),
            Mode::Ponder => level.ponder_limits(),
        };
        if limits.infinite && !search.can_stop() {
            send(
                out,
                &error_line("this engine cannot be stopped: searching with its default limits"),
            )?;
            limits = SearchLimits::default();
        }
        self.ponder = (mode == Mode::Ponder).then_some(PonderClock { level, side });
        self.deadline = None;
        search.start(scope, move |engine, answered| {
            search_and_answer(engine, &game, &limits, out, answered)
        })
    }

    /// `ponder-hit`: the clock of the level given with `go ponder` starts
    /// now; the search is stopped when its planned time is spent.
    fn ponder_hit(&mut self, searching: bool) {
        let Some(clock) = self.ponder.take() else {
            return;
        };
        let limits = clock.level.limits(clock.side, self.params.overhead);
        if searching && let Some(budget) = limits.time_budget(clock.side) {
            self.deadline = Some(Instant::now() + budget.soft);
        }
    }

    /// Waits for the running search, if any: its ponder clock and
    /// deadline end with it.
    fn join<'s, 'e: 's>(&mut self, search: &mut SearchThread<'s, 'e>) -> io::Result<()> {
        self.deadline = None;
        self.ponder = None;
        search.join()
    }
}

/// The command of one input line and its first word; `None` for a blank line.
fn read_command(input: Input) -> Result<Option<(String, Command)>, ProtocolError> {
    let text = match input {
        Input::Line(text) => text,
        Input::NotUtf8 => return Err(ProtocolError::new("input line is not UTF-8")),
    };
    let Some(line) = Line::parse(&text)? else {
        return Ok(None);
    };
    let command = Command::parse(&line)?;
    Ok(Some((line.command, command)))
}

/// The game `pos` describes: `position` (the start when absent) and the
/// moves played from it. Moves after an end by the draw rules are kept:
/// the GUI decides when its game is over.
fn build_game(position: Option<&str>, moves: &[String]) -> Result<Game, ProtocolError> {
    let start = position.map_or(Ok(Position::startpos()), parse_position)?;
    let mut game = Game::new(start);
    for (i, text) in moves.iter().enumerate() {
        let mv = parse_move(game.position(), text).map_err(|err| {
            ProtocolError::new(format!("pos: move {} of moves=: {}", i + 1, err.message))
        })?;
        game.play(&mv);
    }
    Ok(game)
}

/// Runs one search, writing its progress as `info` and its result as `done`.
fn search_and_answer<W: Write>(
    engine: &mut dyn Engine,
    game: &Game,
    limits: &SearchLimits,
    out: &Out<'_, W>,
    answered: &Answered,
) -> io::Result<()> {
    let mut write_error = None;
    let report = engine.go(game, limits, &mut |progress| {
        if write_error.is_none()
            && let Err(err) = send(out, &info_line(progress))
        {
            write_error = Some(err);
        }
    });
    if let Some(err) = write_error {
        return Err(err);
    }
    answered.mark();
    send(
        out,
        &done_line(Some(game.position()), report.best_move, &report.pv),
    )
}

fn error_line(message: &str) -> Line {
    Line::new("error").with("message", message)
}

/// Writes one line and flushes it.
fn send<W: Write>(out: &Out<'_, W>, line: &Line) -> io::Result<()> {
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    writeln!(out, "{line}")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AbConfig, AlphaBeta};
    use std::io::{BufRead, BufReader, PipeReader, PipeWriter};

    /// A session on its own thread, talked to through pipes as a GUI would.
    struct Gui {
        input: Option<PipeWriter>,
        output: BufReader<PipeReader>,
        session: Option<std::thread::JoinHandle<io::Result<()>>>,
    }

    impl Gui {
        fn start() -> Gui {
            let (input_reader, input) = io::pipe().unwrap();
            let (output_reader, output_writer) = io::pipe().unwrap();
            let session = std::thread::spawn(move || {
                let mut engine = AlphaBeta::new(AbConfig::default());
                let identity = Identity {
                    name: "Test".into(),
                    version: "1".into(),
                    author: "us".into(),
                    engine: "a=b".into(),
                };
                serve_hub(
                    &mut engine,
                    &identity,
                    BufReader::new(input_reader),
                    output_writer,
                )
            });
            Gui {
                input: Some(input),
                output: BufReader::new(output_reader),
                session: Some(session),
            }
        }

        fn send(&mut self, line: &str) {
            writeln!(self.input.as_mut().unwrap(), "{line}").unwrap();
        }

        fn read(&mut self) -> String {
            let mut line = String::new();
            assert!(
                self.output.read_line(&mut line).unwrap() > 0,
                "output closed"
            );
            line.trim_end().to_string()
        }

        /// Lines up to the first starting with `word`, `info` lines left out.
        fn until(&mut self, word: &str) -> Vec<String> {
            let mut lines = Vec::new();
            loop {
                let line = self.read();
                let done = line.split(' ').next() == Some(word);
                if !line.starts_with("info ") {
                    lines.push(line);
                }
                if done {
                    return lines;
                }
            }
        }

        /// Closes the input; the session must end without an error.
        fn close(mut self) {
            self.input = None;
            self.session.take().unwrap().join().unwrap().unwrap();
        }
    }

    const START: &str = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";

    #[test]
    fn answers_the_handshake_and_searches() {
        let mut gui = Gui::start();
        gui.send("hub");
        assert_eq!(
            gui.until("wait"),
            [
                "id name=Test version=1 author=us engine=a:b",
                "param name=variant value=russian type=enum values=russian",
                "param name=move-overhead value=30 type=int min=30 max=60000",
                "wait",
            ]
        );
        gui.send("set-param name=variant value=russian");
        gui.send("init");
        assert_eq!(gui.read(), "ready");
        gui.send(&format!("pos pos={START} moves=\"9-13 22-18\""));
        gui.send("level depth=3");
        gui.send("go think");
        let done = gui.until("done").pop().unwrap();
        let line = Line::parse(&done).unwrap().unwrap();
        let mut game = Game::new(Position::startpos());
        for text in ["9-13", "22-18"] {
            let mv = parse_move(game.position(), text).unwrap();
            game.play(&mv);
        }
        let best = parse_move(game.position(), line.value("move").unwrap()).unwrap();
        let after = game.position().make_move(&best);
        parse_move(&after, line.value("ponder").unwrap()).unwrap();
        gui.close();
    }

    #[test]
    fn refuses_bad_input_and_keeps_serving() {
        let mut gui = Gui::start();
        for bad in [
            "fly",
            "set-param name=variant value=normal",
            "level nodes=-1",
            &format!("pos pos={START} moves=\"9-14\""),
        ] {
            gui.send(bad);
            gui.send("ping");
            let lines = gui.until("pong");
            assert_eq!(lines.len(), 2, "{bad}: {lines:?}");
            assert!(lines[0].starts_with("error message="), "{bad}: {lines:?}");
        }
        // The refused pos left no position to search.
        gui.send("go think");
        let lines = gui.until("done");
        assert!(lines[0].contains("no position"), "{lines:?}");
        assert_eq!(lines[1], "done");
        gui.close();
    }

    #[test]
    fn stop_ends_an_infinite_search_and_only_ping_is_read_during_it() {
        let mut gui = Gui::start();
        gui.send("pos start");
        gui.send("level infinite");
        gui.send("go analyze");
        gui.send("new-game");
        gui.send("ping");
        let lines = gui.until("pong");
        assert!(lines[0].contains("new-game during a search"), "{lines:?}");
        gui.send("stop");
        let done = gui.until("done").pop().unwrap();
        assert!(done.starts_with("done move="), "{done}");
        // The end of input stops a search too.
        gui.send("go analyze");
        gui.close();
    }

    #[test]
    fn ponder_hit_starts_the_clock() {
        let mut gui = Gui::start();
        gui.send("pos start");
        gui.send("level time=2 inc=0.1");
        gui.send("go ponder");
        std::thread::sleep(std::time::Duration::from_millis(200));
        gui.send("ping");
        assert_eq!(gui.until("pong"), ["pong"]);
        let hit = Instant::now();
        gui.send("ponder-hit");
        let done = gui.until("done").pop().unwrap();
        assert!(done.starts_with("done move="), "{done}");
        // The planned share of a 2.1 s clock is about 0.14 s (the bound
        // leaves room for a busy machine).
        assert!(hit.elapsed() < std::time::Duration::from_secs(2));
        gui.close();
    }
}
