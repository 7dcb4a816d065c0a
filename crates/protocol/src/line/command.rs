//! Commands sent to an engine, parsed from and printed to protocol lines.

use crate::ProtocolError;
use shashki_rules::{Move, Position};
use shashki_search::SearchLimits;
use std::fmt;
use std::time::Duration;

/// Where a `position` command starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartPosition {
    /// The standard start position (`position startpos`).
    StartPos,
    /// A PDN FEN (`position fen <FEN>`), checked by the receiver.
    Fen(String),
}

/// One command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `name`: asks for the engine's name.
    Name,
    /// `isready`: asks the engine to answer `readyok` once idle.
    IsReady,
    /// `newgame`: forget the previous game; the position becomes the start.
    NewGame,
    /// `position startpos|fen <FEN> [moves m1 m2 ...]`.
    Position {
        /// The start of the game.
        start: StartPosition,
        /// Moves played from it, in any notation the rules crate reads.
        moves: Vec<String>,
    },
    /// `go [depth N] [nodes N] [movetime MS] [wtime MS] [btime MS] [winc MS]
    /// [binc MS] [movestogo N] [infinite]`: search and answer `bestmove`.
    Go(SearchLimits),
    /// `stop`: end the running search; it answers `bestmove` at once.
    Stop,
    /// `quit`: the engine exits.
    Quit,
}

fn parse_number<T: std::str::FromStr>(
    keyword: &str,
    token: Option<&str>,
) -> Result<T, ProtocolError> {
    let token = token.ok_or_else(|| ProtocolError::new(format!("go {keyword}: missing number")))?;
    token.parse().map_err(|_| {
        // Digits alone that do not parse can only be too many of them.
        let why = if token.bytes().all(|b| b.is_ascii_digit()) {
            "is too large"
        } else {
            "is not a non-negative integer"
        };
        ProtocolError::new(format!("go {keyword}: {token:?} {why}"))
    })
}

impl Command {
    /// Parses one line (surrounding whitespace ignored). The FEN and the move
    /// texts are only split out here; the receiver checks them.
    pub fn parse(line: &str) -> Result<Command, ProtocolError> {
        let mut tokens = line.split_whitespace();
        let Some(word) = tokens.next() else {
            return Err(ProtocolError::new("empty command"));
        };
        let rest: Vec<&str> = tokens.collect();
        let no_arguments = |command: Command| {
            if rest.is_empty() {
                Ok(command)
            } else {
                Err(ProtocolError::new(format!(
                    "{word} takes no arguments, got {:?}",
                    rest.join(" ")
                )))
            }
        };
        match word {
            "name" => no_arguments(Command::Name),
            "isready" => no_arguments(Command::IsReady),
            "newgame" => no_arguments(Command::NewGame),
            "quit" => no_arguments(Command::Quit),
            "stop" => no_arguments(Command::Stop),
            "position" => Command::parse_position(&rest),
            "go" => Command::parse_go(&rest),
            other => Err(ProtocolError::new(format!("unknown command {other:?}"))),
        }
    }

    fn parse_position(args: &[&str]) -> Result<Command, ProtocolError> {
        let moves_at = args.iter().position(|t| *t == "moves");
        let (head, moves) = match moves_at {
            Some(i) => (
                &args[..i],
                args[i + 1..].iter().map(|m| m.to_string()).collect(),
            ),
            None => (args, Vec::new()),
        };
        let start = match head.first() {
            Some(&"startpos") if head.len() == 1 => StartPosition::StartPos,
            Some(&"startpos") => {
                return Err(ProtocolError::new(format!(
                    "position startpos: unexpected {:?} (expected \"moves\")",
                    head[1]
                )));
            }
            Some(&"fen") if head.len() > 1 => StartPosition::Fen(head[1..].join(" ")),
            Some(&"fen") => return Err(ProtocolError::new("position fen: missing FEN")),
            Some(other) => {
                return Err(ProtocolError::new(format!(
                    "position: expected \"startpos\" or \"fen\", got {other:?}"
                )));
            }
            None => {
                return Err(ProtocolError::new(
                    "position: expected \"startpos\" or \"fen\"",
                ));
            }
        };
        Ok(Command::Position { start, moves })
    }

    fn parse_go(args: &[&str]) -> Result<Command, ProtocolError> {
        let mut limits = SearchLimits::default();
        let mut tokens = args.iter().copied();
        while let Some(keyword) = tokens.next() {
            let mut millis = || -> Result<Option<Duration>, ProtocolError> {
                let ms: u64 = parse_number(keyword, tokens.next())?;
                Ok(Some(Duration::from_millis(ms)))
            };
            match keyword {
                "movetime" => limits.movetime = millis()?,
                "wtime" => limits.wtime = millis()?,
                "btime" => limits.btime = millis()?,
                "winc" => limits.winc = millis()?,
                "binc" => limits.binc = millis()?,
                "depth" => limits.depth = Some(parse_number(keyword, tokens.next())?),
                "nodes" => limits.nodes = Some(parse_number(keyword, tokens.next())?),
                "movestogo" => limits.movestogo = Some(parse_number(keyword, tokens.next())?),
                "infinite" => limits.infinite = true,
                other => {
                    return Err(ProtocolError::new(format!(
                        "go: unknown limit {other:?} (expected depth, nodes, movetime, \
                         wtime, btime, winc, binc, movestogo or infinite)"
                    )));
                }
            }
        }
        Ok(Command::Go(limits))
    }

    /// A `position` command for a game from `start` with `moves` played
    /// (what a client sends before each `go`).
    pub fn position(start: &Position, moves: &[Move]) -> Command {
        let start = if *start == Position::startpos() {
            StartPosition::StartPos
        } else {
            StartPosition::Fen(start.to_fen())
        };
        Command::Position {
            start,
            moves: moves.iter().map(Move::to_string).collect(),
        }
    }
}

/// The protocol line (without the newline); parses back to the same command.
impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Name => f.write_str("name"),
            Command::IsReady => f.write_str("isready"),
            Command::NewGame => f.write_str("newgame"),
            Command::Quit => f.write_str("quit"),
            Command::Stop => f.write_str("stop"),
            Command::Position { start, moves } => {
                match start {
                    StartPosition::StartPos => f.write_str("position startpos")?,
                    StartPosition::Fen(fen) => write!(f, "position fen {fen}")?,
                }
                if !moves.is_empty() {
                    write!(f, " moves {}", moves.join(" "))?;
                }
                Ok(())
            }
            Command::Go(limits) => {
                f.write_str("go")?;
                if let Some(depth) = limits.depth {
                    write!(f, " depth {depth}")?;
                }
                if let Some(nodes) = limits.nodes {
                    write!(f, " nodes {nodes}")?;
                }
                let times = [
                    ("movetime", limits.movetime),
                    ("wtime", limits.wtime),
                    ("btime", limits.btime),
                    ("winc", limits.winc),
                    ("binc", limits.binc),
                ];
                for (key, time) in times {
                    if let Some(time) = time {
                        write!(f, " {key} {}", time.as_millis())?;
                    }
                }
                if let Some(moves) = limits.movestogo {
                    write!(f, " movestogo {moves}")?;
                }
                if limits.infinite {
                    f.write_str(" infinite")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_command() {
        assert_eq!(Command::parse("name").unwrap(), Command::Name);
        assert_eq!(Command::parse("  isready \r").unwrap(), Command::IsReady);
        assert_eq!(Command::parse("newgame").unwrap(), Command::NewGame);
        assert_eq!(Command::parse("quit").unwrap(), Command::Quit);
        assert_eq!(
            Command::parse("position startpos moves c3-d4 f6-g5").unwrap(),
            Command::Position {
                start: StartPosition::StartPos,
                moves: vec!["c3-d4".into(), "f6-g5".into()],
            }
        );
        assert_eq!(
            Command::parse("position fen W:Wc3,e3:Bf6").unwrap(),
            Command::Position {
                start: StartPosition::Fen("W:Wc3,e3:Bf6".into()),
                moves: vec![],
            }
        );
        assert_eq!(
            Command::parse("go depth 6 movetime 250").unwrap(),
            Command::Go(SearchLimits {
                depth: Some(6),
                movetime: Some(Duration::from_millis(250)),
                ..SearchLimits::default()
            })
        );
        assert_eq!(
            Command::parse("go wtime 60000 btime 59000 winc 1000 binc 500 movestogo 20").unwrap(),
            Command::Go(SearchLimits {
                wtime: Some(Duration::from_millis(60_000)),
                btime: Some(Duration::from_millis(59_000)),
                winc: Some(Duration::from_millis(1_000)),
                binc: Some(Duration::from_millis(500)),
                movestogo: Some(20),
                ..SearchLimits::default()
            })
        );
        assert_eq!(
            Command::parse("go infinite").unwrap(),
            Command::Go(SearchLimits::infinite())
        );
        assert_eq!(Command::parse("stop").unwrap(), Command::Stop);
        assert_eq!(
            Command::parse("go").unwrap(),
            Command::Go(SearchLimits::default())
        );
    }

    #[test]
    fn rejects_malformed_lines_with_a_reason() {
        for (line, needle) in [
            ("", "empty"),
            ("hello", "unknown command \"hello\""),
            ("go depth", "missing number"),
            ("go depth -3", "\"-3\""),
            ("go ply 3", "unknown limit \"ply\""),
            ("position", "startpos"),
            ("position fen", "missing FEN"),
            ("position startpos c3-d4", "\"c3-d4\""),
            ("isready now", "no arguments"),
        ] {
            let err = Command::parse(line).unwrap_err();
            assert!(err.message.contains(needle), "{line:?}: {}", err.message);
        }
    }

    #[test]
    fn printing_round_trips() {
        let pos = Position::from_fen("B:WKa1,c3:Bh8,f6").unwrap();
        let mv = pos.legal_moves()[0];
        for command in [
            Command::Name,
            Command::IsReady,
            Command::NewGame,
            Command::Quit,
            Command::position(&Position::startpos(), &[]),
            Command::position(&pos, &[mv]),
            Command::Go(SearchLimits::depth(4)),
            Command::Go(SearchLimits {
                depth: Some(3),
                nodes: Some(1000),
                movetime: Some(Duration::from_millis(20)),
                ..SearchLimits::default()
            }),
            Command::Go(SearchLimits::clock(
                (Duration::from_millis(5000), Duration::from_millis(100)),
                (Duration::from_millis(4000), Duration::ZERO),
            )),
            Command::Go(SearchLimits::infinite()),
            Command::Stop,
        ] {
            assert_eq!(Command::parse(&command.to_string()).unwrap(), command);
        }
    }
}
