//! Replies an engine writes, parsed from and printed to protocol lines.

use crate::ProtocolError;
use shashki_rules::Move;
use shashki_search::{Score, SearchReport};
use std::fmt;

/// An `info` line: search progress. Every field is optional.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Info {
    /// Depth reached (plies for alpha-beta).
    pub depth: Option<u32>,
    /// Evaluation from the side to move's view.
    pub score: Option<Score>,
    /// Nodes or simulations spent.
    pub nodes: Option<u64>,
    /// Milliseconds spent.
    pub time_ms: Option<u64>,
    /// Principal variation in long notation, best move first.
    pub pv: Vec<String>,
}

impl Info {
    /// The `info` line for a search report.
    pub fn from_report(report: &SearchReport) -> Info {
        Info {
            depth: Some(report.depth),
            score: Some(report.score),
            nodes: Some(report.nodes),
            time_ms: Some(report.elapsed.as_millis() as u64),
            pv: report.pv.iter().map(Move::to_string).collect(),
        }
    }

    fn parse(tokens: &[&str]) -> Result<Info, ProtocolError> {
        let mut info = Info::default();
        let mut i = 0;
        let value = |i: usize, key: &str| {
            tokens
                .get(i)
                .copied()
                .ok_or_else(|| ProtocolError::new(format!("info {key}: missing value")))
        };
        let number = |text: &str, key: &str| {
            text.parse::<u64>()
                .map_err(|_| ProtocolError::new(format!("info {key}: {text:?} is not a number")))
        };
        while i < tokens.len() {
            let key = tokens[i];
            match key {
                "depth" => info.depth = Some(number(value(i + 1, key)?, key)? as u32),
                "nodes" => info.nodes = Some(number(value(i + 1, key)?, key)?),
                "time" => info.time_ms = Some(number(value(i + 1, key)?, key)?),
                "score" => {
                    let kind = value(i + 1, key)?;
                    let text = value(i + 2, key)?;
                    let bad =
                        || ProtocolError::new(format!("info score {kind}: bad value {text:?}"));
                    info.score = Some(match kind {
                        "cp" => Score::Centi(text.parse().map_err(|_| bad())?),
                        "mate" => Score::Mate(text.parse().map_err(|_| bad())?),
                        "value" if tokens.get(i + 3) == Some(&"proven") => {
                            i += 1;
                            Score::ProvenDraw
                        }
                        "value" => Score::Value(text.parse().map_err(|_| bad())?),
                        "tb" if text == "draw" => Score::TbDraw,
                        "tb" => {
                            let plies = value(i + 3, key)?;
                            let plies: u32 = plies.parse().map_err(|_| {
                                ProtocolError::new(format!(
                                    "info score tb {text}: bad distance {plies:?}"
                                ))
                            })?;
                            i += 1;
                            match text {
                                "win" => Score::TbWin(plies),
                                "loss" => Score::TbLoss(plies),
                                _ => return Err(bad()),
                            }
                        }
                        other => {
                            return Err(ProtocolError::new(format!(
                                "info score: unknown kind {other:?} (expected cp, mate, value or tb)"
                            )));
                        }
                    });
                    i += 1;
                }
                "pv" => {
                    info.pv = tokens[i + 1..].iter().map(|t| t.to_string()).collect();
                    break;
                }
                // Unknown keys are skipped with their value, so engines may add fields.
                _ => {}
            }
            i += 2;
        }
        Ok(info)
    }
}

/// `info depth 5 score cp 35 nodes 1234 time 12 pv c3-d4 f6-g5`.
impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        if let Some(depth) = self.depth {
            write!(f, " depth {depth}")?;
        }
        if let Some(score) = self.score {
            write!(f, " score {score}")?;
        }
        if let Some(nodes) = self.nodes {
            write!(f, " nodes {nodes}")?;
        }
        if let Some(time) = self.time_ms {
            write!(f, " time {time}")?;
        }
        if !self.pv.is_empty() {
            write!(f, " pv {}", self.pv.join(" "))?;
        }
        Ok(())
    }
}

/// One reply line.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// `name <text>`.
    Name(String),
    /// `readyok`.
    ReadyOk,
    /// `info ...`.
    Info(Info),
    /// `bestmove <move>` in long notation, or `bestmove none` (`None`).
    BestMove(Option<String>),
    /// `error <message>`: the command was refused; the engine keeps running.
    Error(String),
}

impl Reply {
    /// Parses one reply line (surrounding whitespace ignored).
    pub fn parse(line: &str) -> Result<Reply, ProtocolError> {
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match word {
            "name" => Ok(Reply::Name(rest.to_string())),
            "readyok" => Ok(Reply::ReadyOk),
            "info" => Ok(Reply::Info(Info::parse(
                &rest.split_whitespace().collect::<Vec<_>>(),
            )?)),
            "bestmove" => match rest {
                "" => Err(ProtocolError::new("bestmove: missing move")),
                "none" => Ok(Reply::BestMove(None)),
                mv if mv.contains(char::is_whitespace) => Err(ProtocolError::new(format!(
                    "bestmove: expected one move, got {mv:?}"
                ))),
                mv => Ok(Reply::BestMove(Some(mv.to_string()))),
            },
            "error" => Ok(Reply::Error(rest.to_string())),
            "" => Err(ProtocolError::new("empty reply")),
            other => Err(ProtocolError::new(format!("unknown reply {other:?}"))),
        }
    }
}

/// The protocol line (without the newline); parses back to the same reply.
impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Name(name) => write!(f, "name {name}"),
            Reply::ReadyOk => f.write_str("readyok"),
            Reply::Info(info) => write!(f, "{info}"),
            Reply::BestMove(Some(mv)) => write!(f, "bestmove {mv}"),
            Reply::BestMove(None) => f.write_str("bestmove none"),
            // Keep the reply on one line whatever the message holds.
            Reply::Error(message) => write!(f, "error {}", message.replace(['\n', '\r'], " ")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_round_trip() {
        for reply in [
            Reply::Name("Shashki Zero 0.1.0".into()),
            Reply::ReadyOk,
            Reply::BestMove(Some("a3:c5:e7".into())),
            Reply::BestMove(None),
            Reply::Error("illegal move \"c3-c4\"".into()),
            Reply::Info(Info {
                depth: Some(7),
                score: Some(Score::Centi(-35)),
                nodes: Some(12345),
                time_ms: Some(17),
                pv: vec!["c3-d4".into(), "f6-g5".into()],
            }),
            Reply::Info(Info {
                score: Some(Score::Mate(-4)),
                ..Info::default()
            }),
            Reply::Info(Info {
                score: Some(Score::Value(0.25)),
                ..Info::default()
            }),
            Reply::Info(Info {
                score: Some(Score::TbWin(12)),
                nodes: Some(3),
                pv: vec!["c3-d4".into()],
                ..Info::default()
            }),
            Reply::Info(Info {
                score: Some(Score::TbLoss(0)),
                ..Info::default()
            }),
            Reply::Info(Info {
                score: Some(Score::TbDraw),
                time_ms: Some(1),
                ..Info::default()
            }),
            Reply::Info(Info {
                score: Some(Score::ProvenDraw),
                nodes: Some(9),
                pv: vec!["a1-b2".into()],
                ..Info::default()
            }),
        ] {
            assert_eq!(Reply::parse(&reply.to_string()).unwrap(), reply);
        }
    }

    #[test]
    fn unknown_info_fields_are_skipped_and_bad_lines_rejected() {
        let reply = Reply::parse("info depth 3 seldepth 9 nodes 50 pv c3-d4").unwrap();
        let Reply::Info(info) = reply else {
            panic!("not info")
        };
        assert_eq!((info.depth, info.nodes), (Some(3), Some(50)));
        assert_eq!(info.pv, vec!["c3-d4".to_string()]);
        assert!(Reply::parse("bestmove").is_err());
        assert!(Reply::parse("bestmove c3-d4 extra").is_err());
        assert!(Reply::parse("info depth x").is_err());
        assert!(Reply::parse("info score elo 5").is_err());
        assert!(Reply::parse("hello").is_err());
    }
}
