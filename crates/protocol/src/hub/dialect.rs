//! The engine side of Hub, on the session core: keeps the position, the
//! level and the parameters, and writes `info` / `done` for each search.
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
use crate::ProtocolError;
use crate::session::{self, Dialect, Out, Route, Search, send};
use shashki_rules::{Color, Game, Position};
use shashki_search::{Engine, SearchLimits, SearchReport};
use std::io::{self, BufRead, Write};
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
    let mut dialect = HubDialect {
        identity,
        params: Params::default(),
        game: Some(Game::new(Position::startpos())),
        level: Level::default(),
        ponder: None,
        deadline: None,
    };
    match session::run(&mut dialect, engine, input, &mut output) {
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        result => result,
    }
}

/// What a ponder search needs at `ponder-hit` to start its clock.
struct PonderClock {
    level: Level,
    side: Color,
}

struct HubDialect<'i> {
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

impl Dialect for HubDialect<'_> {
    type Command = Command;

    fn parse(&self, text: &str) -> Result<Option<(String, Command)>, String> {
        let parsed = || -> Result<Option<(String, Command)>, ProtocolError> {
            let Some(line) = Line::parse(text)? else {
                return Ok(None);
            };
            let command = Command::parse(&line)?;
            Ok(Some((line.command, command)))
        };
        parsed().map_err(|err| err.message)
    }

    fn error(&self, message: &str) -> String {
        Line::new("error").with("message", message).to_string()
    }

    fn route(&self, word: &str, command: &Command, searching: bool) -> Route {
        match command {
            Command::Stop => Route::Stop,
            Command::Quit => Route::Quit,
            Command::Ping | Command::PonderHit => Route::Now,
            _ if searching => Route::Refuse(format!(
                "{word} during a search: only ping, ponder-hit and stop are read \
                 then (send stop first)"
            )),
            Command::Go(_) => Route::Go,
            _ => Route::Engine,
        }
    }

    fn answer_now(&mut self, command: Command, searching: bool, out: &Out<'_>) -> io::Result<()> {
        match command {
            Command::PonderHit => {
                self.ponder_hit(searching);
                Ok(())
            }
            _ => send(out, &Line::new("pong")),
        }
    }

    /// Answers the commands that do not search.
    fn respond(
        &mut self,
        command: Command,
        engine: &mut dyn Engine,
        out: &Out<'_>,
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
                    send(out, &self.error(&err.message))?;
                }
            }
            Command::Pos { position, moves } => {
                self.level = Level::default();
                match build_game(position.as_deref(), &moves) {
                    Ok(game) => self.game = Some(game),
                    Err(message) => {
                        // Searching the previous position instead would
                        // answer a move for the wrong game.
                        self.game = None;
                        send(out, &self.error(&message))?;
                    }
                }
            }
            Command::Level(level) => self.level = self.level.merged(level),
            Command::NewGame => engine.new_game(),
            // Routed elsewhere.
            Command::Go(_) | Command::PonderHit | Command::Stop | Command::Ping | Command::Quit => {
            }
        }
        Ok(())
    }

    /// Starts the search `go` asks for; the level is used up.
    fn go(
        &mut self,
        command: Command,
        can_stop: bool,
        out: &Out<'_>,
    ) -> io::Result<Option<Search>> {
        let Command::Go(mode) = command else {
            unreachable!("only go is routed here")
        };
        let level = std::mem::take(&mut self.level);
        let Some(game) = self.game.clone() else {
            send(
                out,
                &self.error("go: no position to search (the last pos was refused)"),
            )?;
            send(out, &done_line(None, None, &[]))?;
            return Ok(None);
        };
        if game.legal_moves().is_empty() {
            send(out, &self.error("go: the side to move has no legal move"))?;
            send(out, &done_line(None, None, &[]))?;
            return Ok(None);
        }
        let side = game.side_to_move();
        let mut limits = match mode {
            Mode::Think => level.limits(side, self.params.overhead),
            Mode::Analyze if level.is_empty() => SearchLimits::infinite(),
            Mode::Analyze => level.limits(side, self.params.overhead),
            Mode::Ponder => level.ponder_limits(),
        };
        if limits.infinite && !can_stop {
            send(
                out,
                &self.error("this engine cannot be stopped: searching with its default limits"),
            )?;
            limits = SearchLimits::default();
        }
        self.ponder = (mode == Mode::Ponder).then_some(PonderClock { level, side });
        self.deadline = None;
        Ok(Some(Search {
            game,
            limits,
            info: |progress: &SearchReport| info_line(progress).to_string(),
            answer: |game: &Game, report: Option<&SearchReport>| {
                match report {
                    Some(report) => done_line(Some(game.position()), report.best_move, &report.pv),
                    None => done_line(None, None, &[]),
                }
                .to_string()
            },
            answer_after_stop: false,
        }))
    }

    fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    fn deadline_passed(&mut self) {
        self.deadline = None;
    }

    /// The ponder clock and the deadline end with their search.
    fn search_over(&mut self) {
        self.deadline = None;
        self.ponder = None;
    }

    fn stop_at_end(&self) -> bool {
        true
    }
}

impl HubDialect<'_> {
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
}

/// The game `pos` describes: `position` (the start when absent) and the
/// moves played from it. Moves after an end by the draw rules are kept:
/// the GUI decides when its game is over.
fn build_game(position: Option<&str>, moves: &[String]) -> Result<Game, String> {
    let start = position
        .map_or(Ok(Position::startpos()), parse_position)
        .map_err(|err| err.message)?;
    session::replay(start, moves, |game, i, text| {
        parse_move(game.position(), text)
            .map_err(|err| format!("pos: move {} of moves=: {}", i + 1, err.message))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_search::{AbConfig, AlphaBeta};
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
