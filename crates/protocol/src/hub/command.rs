//! The commands a Hub GUI sends, read from [`Line`]s, and the search limits
//! a `level` sets.

use super::syntax::Line;
use crate::ProtocolError;
use shashki_rules::Color;
use shashki_search::SearchLimits;
use shashki_search::limits::MOVE_OVERHEAD;
use std::time::Duration;

/// What `go` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `go think`: play a move within the level.
    Think,
    /// `go ponder`: think on the opponent's time; the clock starts at
    /// `ponder-hit`.
    Ponder,
    /// `go analyze`: search for the GUI's display (until `stop` when the
    /// level sets no limit).
    Analyze,
}

/// One command from the GUI. Arguments the engine does not know are
/// ignored, as Hub asks.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `hub`: list the engine's identity and parameters, then `wait`.
    Hub,
    /// `set-param name=... value=...`.
    SetParam {
        /// The parameter.
        name: String,
        /// Its new value (as text).
        value: String,
    },
    /// `init`: answer `ready`.
    Init,
    /// `pos [pos=<position>] [start] [moves="<m1> <m2> ..."]`; no `pos=` means
    /// the start position.
    Pos {
        /// The position text, if given.
        position: Option<String>,
        /// The moves played from it, in Hub move text.
        moves: Vec<String>,
    },
    /// `level ...`: limits for the next search.
    Level(Level),
    /// `go think|ponder|analyze` (a bare `go` thinks).
    Go(Mode),
    /// `ponder-hit`: the opponent played the expected move.
    PonderHit,
    /// `stop`: answer `done` now.
    Stop,
    /// `ping`: answer `pong`.
    Ping,
    /// `new-game`: the next search is unrelated to the previous ones.
    NewGame,
    /// `quit`.
    Quit,
}

impl Command {
    /// Reads a command from a parsed line.
    pub fn parse(line: &Line) -> Result<Command, ProtocolError> {
        Ok(match line.command.as_str() {
            "hub" => Command::Hub,
            "init" => Command::Init,
            "set-param" => {
                let name = line
                    .value("name")
                    .filter(|n| !n.is_empty())
                    .ok_or_else(|| ProtocolError::new("set-param: missing name=..."))?;
                let value = line.value("value").ok_or_else(|| {
                    ProtocolError::new(format!("set-param {name}: missing value=..."))
                })?;
                Command::SetParam {
                    name: name.to_string(),
                    value: value.to_string(),
                }
            }
            "pos" => Command::Pos {
                position: line.value("pos").map(str::to_string),
                moves: line
                    .value("moves")
                    .unwrap_or("")
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            },
            "level" => Command::Level(Level::parse(line)?),
            // A bare `go` thinks, as in Scan.
            "go" if line.has("ponder") => Command::Go(Mode::Ponder),
            "go" if line.has("analyze") => Command::Go(Mode::Analyze),
            "go" => Command::Go(Mode::Think),
            "ponder-hit" => Command::PonderHit,
            "stop" => Command::Stop,
            "ping" => Command::Ping,
            "new-game" => Command::NewGame,
            "quit" => Command::Quit,
            other => return Err(ProtocolError::new(format!("unknown command {other:?}"))),
        })
    }
}

/// The limits `level` lines set for the next search (each line adds to the
/// previous ones; `pos` and `go` start afresh, as in Scan). Times are in
/// seconds, as Hub writes them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Level {
    /// `depth=N`: plies (alpha-beta).
    pub depth: Option<u32>,
    /// `nodes=N`: nodes (alpha-beta) or simulations (MCTS).
    pub nodes: Option<u64>,
    /// `move-time=S`: time for this move.
    pub move_time: Option<Duration>,
    /// `moves=N`: moves until the next time control.
    pub moves: Option<u32>,
    /// `time=S`: clock time left, before this move's increment is added
    /// (so it may be negative by less than the increment).
    pub time: Option<f64>,
    /// `inc=S`: increment added before every move.
    pub inc: Option<Duration>,
    /// `infinite`: until `stop`.
    pub infinite: bool,
}

impl Level {
    fn parse(line: &Line) -> Result<Level, ProtocolError> {
        let mut level = Level {
            infinite: line.has("infinite"),
            ..Level::default()
        };
        for arg in &line.args {
            let text = arg.value.as_deref().unwrap_or("");
            let name = arg.name.as_str();
            match name {
                "depth" => level.depth = Some(integer(name, text)?),
                "nodes" => level.nodes = Some(integer(name, text)?),
                "moves" => level.moves = Some(integer(name, text)?),
                "move-time" => level.move_time = Some(seconds(name, text)?),
                "inc" => level.inc = Some(seconds(name, text)?),
                "time" => level.time = Some(real(name, text)?),
                // Unknown arguments (and `infinite`) are not errors.
                _ => {}
            }
        }
        if level.moves == Some(0) {
            return Err(ProtocolError::new("level moves=0: expected at least 1"));
        }
        Ok(level)
    }

    /// This level with `newer`'s settings laid over it.
    pub fn merged(self, newer: Level) -> Level {
        Level {
            depth: newer.depth.or(self.depth),
            nodes: newer.nodes.or(self.nodes),
            move_time: newer.move_time.or(self.move_time),
            moves: newer.moves.or(self.moves),
            time: newer.time.or(self.time),
            inc: newer.inc.or(self.inc),
            infinite: self.infinite || newer.infinite,
        }
    }

    /// Whether a time limit (move time or clock) is set.
    pub fn is_timed(&self) -> bool {
        self.move_time.is_some() || self.time.is_some()
    }

    /// Whether no limit at all is set.
    pub fn is_empty(&self) -> bool {
        self.depth.is_none() && self.nodes.is_none() && !self.is_timed() && !self.infinite
    }

    /// The search limits for `side` to move. The clock holds `time + inc`
    /// (Hub adds the increment before the move); `overhead` is the time
    /// kept in hand on every move, of which the search's own time manager
    /// already keeps [`MOVE_OVERHEAD`].
    pub fn limits(&self, side: Color, overhead: Duration) -> SearchLimits {
        let mut limits = SearchLimits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.move_time,
            movestogo: self.moves,
            infinite: self.infinite,
            ..SearchLimits::default()
        };
        if let Some(time) = self.time {
            let inc = self.inc.unwrap_or(Duration::ZERO);
            let clock = Duration::from_secs_f64((time + inc.as_secs_f64()).max(0.0))
                .saturating_sub(overhead.saturating_sub(MOVE_OVERHEAD));
            match side {
                Color::White => (limits.wtime, limits.winc) = (Some(clock), Some(inc)),
                Color::Black => (limits.btime, limits.binc) = (Some(clock), Some(inc)),
            }
        }
        limits
    }

    /// The limits of a ponder search: the same without time, since the
    /// clock only starts at `ponder-hit`; a timed level runs until then (or
    /// `stop`).
    pub fn ponder_limits(&self) -> SearchLimits {
        SearchLimits {
            depth: self.depth,
            nodes: self.nodes,
            infinite: self.infinite || self.is_timed(),
            ..SearchLimits::default()
        }
    }
}

fn integer<T: std::str::FromStr>(name: &str, text: &str) -> Result<T, ProtocolError> {
    text.parse().map_err(|_| {
        ProtocolError::new(format!(
            "level {name}={text:?}: expected a non-negative integer"
        ))
    })
}

fn real(name: &str, text: &str) -> Result<f64, ProtocolError> {
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && v.abs() < 1e9)
        .ok_or_else(|| ProtocolError::new(format!("level {name}={text:?}: expected seconds")))
}

fn seconds(name: &str, text: &str) -> Result<Duration, ProtocolError> {
    let value = real(name, text)?;
    if value < 0.0 {
        return Err(ProtocolError::new(format!(
            "level {name}={text}: expected a non-negative time"
        )));
    }
    Ok(Duration::from_secs_f64(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Command, ProtocolError> {
        Command::parse(&Line::parse(text).unwrap().unwrap())
    }

    fn level(text: &str) -> Level {
        match parse(text).unwrap() {
            Command::Level(level) => level,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn reads_every_command() {
        assert_eq!(parse("hub").unwrap(), Command::Hub);
        assert_eq!(parse("init").unwrap(), Command::Init);
        assert_eq!(
            parse("set-param name=variant value=russian").unwrap(),
            Command::SetParam {
                name: "variant".into(),
                value: "russian".into()
            }
        );
        assert_eq!(
            parse("pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves=\"9-13 22-18\"").unwrap(),
            Command::Pos {
                position: Some("Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww".into()),
                moves: vec!["9-13".into(), "22-18".into()],
            }
        );
        assert_eq!(
            parse("pos start").unwrap(),
            Command::Pos {
                position: None,
                moves: vec![]
            }
        );
        assert_eq!(parse("go think").unwrap(), Command::Go(Mode::Think));
        assert_eq!(parse("go").unwrap(), Command::Go(Mode::Think));
        assert_eq!(parse("go ponder").unwrap(), Command::Go(Mode::Ponder));
        assert_eq!(parse("go analyze").unwrap(), Command::Go(Mode::Analyze));
        // Scan's own GUI code has been seen sending `go analyze=true`.
        assert_eq!(
            parse("go analyze=true").unwrap(),
            Command::Go(Mode::Analyze)
        );
        for (text, command) in [
            ("ponder-hit", Command::PonderHit),
            ("stop", Command::Stop),
            ("ping", Command::Ping),
            ("new-game", Command::NewGame),
            ("quit", Command::Quit),
        ] {
            assert_eq!(parse(text).unwrap(), command);
        }
    }

    #[test]
    fn refuses_what_it_cannot_use_with_the_reason() {
        for (text, needle) in [
            ("fly", "unknown command \"fly\""),
            ("set-param value=1", "missing name"),
            ("set-param name=variant", "missing value"),
            ("level depth=-3", "non-negative integer"),
            ("level nodes=many", "non-negative integer"),
            ("level move-time=-1", "non-negative time"),
            ("level time=abc", "expected seconds"),
            ("level time=inf", "expected seconds"),
            ("level moves=0", "at least 1"),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.message.contains(needle), "{text}: {}", err.message);
        }
    }

    #[test]
    fn levels_read_seconds_and_merge() {
        let l = level("level move-time=0.25 depth=6 future=1");
        assert_eq!(l.move_time, Some(Duration::from_millis(250)));
        assert_eq!(l.depth, Some(6));
        let l = level("level moves=9 time=291.587 inc=1");
        assert_eq!((l.moves, l.time), (Some(9), Some(291.587)));
        let merged = level("level depth=4").merged(level("level nodes=100"));
        assert_eq!((merged.depth, merged.nodes), (Some(4), Some(100)));
        assert!(level("level infinite").infinite);
        assert!(Level::default().is_empty());
    }

    #[test]
    fn a_clock_holds_time_plus_increment_for_the_side_to_move() {
        // pydraughts sends time minus the increment: 9.5 s left + 0.5 s.
        let l = level("level time=9.5 inc=0.5");
        let limits = l.limits(Color::Black, MOVE_OVERHEAD);
        assert_eq!(limits.btime, Some(Duration::from_secs(10)));
        assert_eq!(limits.binc, Some(Duration::from_millis(500)));
        assert_eq!((limits.wtime, limits.winc), (None, None));
        // A larger overhead comes off the clock.
        let limits = l.limits(Color::White, Duration::from_millis(1030));
        assert_eq!(limits.wtime, Some(Duration::from_secs(9)));
        // Time below zero by less than the increment: the increment is left.
        let limits = level("level time=-0.2 inc=0.5").limits(Color::White, MOVE_OVERHEAD);
        let clock = limits.wtime.unwrap();
        assert!(clock > Duration::from_millis(299) && clock < Duration::from_millis(301));
        // Never more than the clock: the hard limit stays inside it.
        let budget = limits.time_budget(Color::White).unwrap();
        assert!(budget.hard < clock);
    }

    #[test]
    fn pondering_drops_the_time_and_keeps_depth() {
        let timed = level("level time=10 inc=1").ponder_limits();
        assert!(timed.infinite && timed.wtime.is_none() && timed.btime.is_none());
        let deep = level("level depth=5").ponder_limits();
        assert_eq!((deep.depth, deep.infinite), (Some(5), false));
        // No level: the engine's own default, as for `go think`.
        assert!(Level::default().ponder_limits().is_unlimited());
    }
}
