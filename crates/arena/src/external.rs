//! A client for external engines over the line protocol of
//! `docs/ENGINE_PROTOCOL.md` (the same [`Command`] and [`Reply`] types as
//! `shashki engine` serves).
//!
//! One engine process per game: it is started, asked `name` and `isready`,
//! sent `newgame`, then for each move `position ...` and `go ...` and waited
//! on for `bestmove`. Every wait has a time-out. A crash (the process exits
//! or closes its output), a time-out, an `error` reply or an illegal or
//! unreadable `bestmove` fails the move, which forfeits that game; the
//! process is then killed. The process is asked to `quit` and reaped when
//! the game ends.

use crate::player::{Player, PlayerFailure};
use shashki_protocol::line::{Command, Reply};
use shashki_rules::{Game, Move};
use shashki_search::SearchLimits;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long an engine may take to answer `name` and `isready` at start.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// What the reader thread passes on.
enum Line {
    Text(String),
    Closed(Option<String>),
}

/// A running external engine playing one game.
pub struct ExternalPlayer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    limits: SearchLimits,
    timeout: Duration,
    /// The name the engine gave.
    pub engine_name: String,
    broken: bool,
}

impl ExternalPlayer {
    /// Starts `command` (program and arguments) and does the handshake.
    pub fn start(
        command: &[String],
        limits: SearchLimits,
        timeout: Duration,
    ) -> Result<ExternalPlayer, PlayerFailure> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| PlayerFailure::Crashed("empty command".into()))?;
        let mut child = Process::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| PlayerFailure::Crashed(format!("cannot start {program:?}: {e}")))?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| PlayerFailure::Crashed("no stdout".into()))?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(0) => {
                        let _ = tx.send(Line::Closed(None));
                        return;
                    }
                    Ok(_) => {
                        if tx.send(Line::Text(line.trim_end().to_string())).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Line::Closed(Some(e.to_string())));
                        return;
                    }
                }
            }
        });
        let mut player = ExternalPlayer {
            child,
            stdin,
            lines: rx,
            limits,
            timeout,
            engine_name: String::new(),
            broken: false,
        };
        player.send(&Command::Name)?;
        let reply = player.wait_for(HANDSHAKE_TIMEOUT, |r| matches!(r, Reply::Name(_)))?;
        if let Reply::Name(name) = reply {
            player.engine_name = name;
        }
        player.send(&Command::IsReady)?;
        player.wait_for(HANDSHAKE_TIMEOUT, |r| matches!(r, Reply::ReadyOk))?;
        player.send(&Command::NewGame)?;
        Ok(player)
    }

    fn send(&mut self, command: &Command) -> Result<(), PlayerFailure> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| PlayerFailure::Crashed("input closed".into()))?;
        let written = writeln!(stdin, "{command}").and_then(|()| stdin.flush());
        written.map_err(|e| {
            self.broken = true;
            self.crash(format!("cannot write to the engine: {e}"))
        })
    }

    /// A crash failure, with the exit status when the process has ended.
    fn crash(&mut self, what: String) -> PlayerFailure {
        let status = (0..20).find_map(|_| match self.child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            Ok(None) => {
                std::thread::sleep(Duration::from_millis(5));
                None
            }
            Err(_) => Some("status unknown".into()),
        });
        match status {
            Some(s) => PlayerFailure::Crashed(format!("{what} ({s})")),
            None => PlayerFailure::Crashed(what),
        }
    }

    /// The failure for an engine whose output has closed.
    fn closed(&mut self, err: Option<String>) -> PlayerFailure {
        self.broken = true;
        let what = match err {
            Some(e) => format!("output closed: {e}"),
            None => "output closed".to_string(),
        };
        self.crash(what)
    }

    /// Reads replies until one satisfies `wanted`; `info` and unknown lines
    /// are skipped, `error` fails.
    fn wait_for(
        &mut self,
        timeout: Duration,
        wanted: impl Fn(&Reply) -> bool,
    ) -> Result<Reply, PlayerFailure> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Line::Text(text)) => match Reply::parse(&text) {
                    Ok(reply) if wanted(&reply) => return Ok(reply),
                    Ok(Reply::Error(message)) => {
                        self.broken = true;
                        return Err(PlayerFailure::Protocol(format!(
                            "engine said error: {message}"
                        )));
                    }
                    // Info lines, other replies and noise are not ours to judge.
                    _ => {}
                },
                Ok(Line::Closed(err)) => return Err(self.closed(err)),
                Err(RecvTimeoutError::Disconnected) => return Err(self.closed(None)),
                Err(RecvTimeoutError::Timeout) => {
                    self.broken = true;
                    return Err(PlayerFailure::TimedOut(timeout));
                }
            }
        }
    }
}

impl Player for ExternalPlayer {
    fn choose_move(&mut self, game: &Game) -> Result<Move, PlayerFailure> {
        self.play(game, self.limits, self.timeout)
    }

    /// The engine gets the game clock with `go wtime/btime/winc/binc`; it is
    /// waited for until its clock (plus the arena's margin) has run out.
    fn choose_move_on_clock(
        &mut self,
        game: &Game,
        clock: &SearchLimits,
        allowance: Duration,
    ) -> Result<Move, PlayerFailure> {
        let limits = crate::player::limits_on_clock(&self.limits, clock);
        self.play(game, limits, allowance + Duration::from_millis(10))
    }
}

impl ExternalPlayer {
    /// Sends the position and `go limits`, and reads the move within `timeout`.
    fn play(
        &mut self,
        game: &Game,
        limits: SearchLimits,
        timeout: Duration,
    ) -> Result<Move, PlayerFailure> {
        self.send(&Command::position(game.start(), game.moves()))?;
        self.send(&Command::Go(limits))?;
        let reply = self.wait_for(timeout, |r| matches!(r, Reply::BestMove(_)))?;
        let Reply::BestMove(text) = reply else {
            return Err(PlayerFailure::Protocol("expected bestmove".into()));
        };
        match text {
            None => Err(PlayerFailure::IllegalMove {
                text: "none".into(),
                reason: "the position has legal moves".into(),
            }),
            Some(text) => {
                game.position()
                    .parse_move(&text)
                    .map_err(|e| PlayerFailure::IllegalMove {
                        text: text.clone(),
                        reason: e.to_string(),
                    })
            }
        }
    }
}

impl Drop for ExternalPlayer {
    fn drop(&mut self) {
        if !self.broken {
            let _ = self.send(&Command::Quit);
        }
        // Closing stdin tells a well-behaved engine to exit too.
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
