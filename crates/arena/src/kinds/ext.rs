//! `ext:"/path/engine --opt"[@movetime=100][,depth=N][,nodes=N][,timeout=5000]`:
//! an external engine over the line protocol ([`crate::external`]), one
//! process per game. Its handshake is tried once when the match is
//! prepared, so an engine that does not start stops the match before any
//! game is played or rated.

use super::Kind;
use super::options::{number, options};
use crate::external::ExternalPlayer;
use crate::player::{GameSetup, Player, PlayerFailure, PlayerMaker};
use crate::spec::PlayerKind;
use shashki_search::SearchLimits;
use std::time::Duration;

/// Default movetime of an external engine without limits.
pub const DEFAULT_EXT_MOVETIME_MS: u64 = 1000;

/// `ext:COMMAND[@options]`.
pub(crate) const KIND: Kind = Kind {
    prefix: "ext",
    syntax: "ext:\"COMMAND\"@...",
    example: "ext:\"/path/engine --opt, x\"@movetime=100,timeout=900",
    takes_path: false,
    options: &["depth", "nodes", "movetime", "timeout"],
    parse,
};

fn parse(rest: Option<&str>) -> Result<PlayerKind, String> {
    let rest = rest
        .filter(|r| !r.trim().is_empty())
        .ok_or("ext needs a command")?;
    let (command_text, opts) = split_command(rest)?;
    let command = shell_words(&command_text)?;
    if command.is_empty() {
        return Err("ext needs a command".into());
    }
    let mut limits = SearchLimits::default();
    let mut timeout = None;
    for (key, value) in options(opts)? {
        let v = value.ok_or_else(|| format!("{key} needs a number"))?;
        let n: u64 = number(key, v)?;
        match key {
            "depth" => limits.depth = Some(n as u32),
            "nodes" => limits.nodes = Some(n),
            "movetime" => limits.movetime = Some(Duration::from_millis(n)),
            "timeout" => timeout = Some(Duration::from_millis(n)),
            _ => return Err(super::unknown_option("ext", key, KIND.options)),
        }
    }
    if limits.is_unlimited() {
        limits.movetime = Some(Duration::from_millis(DEFAULT_EXT_MOVETIME_MS));
    }
    // Default: the movetime plus a generous margin, or 30 s for
    // depth/node limits whose duration is unknown.
    let timeout = timeout.unwrap_or(match limits.movetime {
        Some(t) if limits.depth.is_none() && limits.nodes.is_none() => {
            t * 2 + Duration::from_secs(5)
        }
        _ => Duration::from_secs(30),
    });
    Ok(PlayerKind::External {
        command,
        limits,
        timeout,
    })
}

/// Starts one engine process per game.
pub(crate) struct Maker {
    command: Vec<String>,
    limits: SearchLimits,
    timeout: Duration,
}

impl Maker {
    /// Checks that the engine starts and answers its handshake (the
    /// process is then closed): a crash later forfeits one game only.
    pub(crate) fn check(
        command: &[String],
        limits: SearchLimits,
        timeout: Duration,
    ) -> Result<Maker, String> {
        ExternalPlayer::start(command, limits, timeout)
            .map_err(|failure| format!("the engine failed its handshake: {failure}"))?;
        Ok(Maker {
            command: command.to_vec(),
            limits,
            timeout,
        })
    }
}

impl PlayerMaker for Maker {
    fn create(&self, _setup: &GameSetup<'_>) -> Result<Box<dyn Player>, PlayerFailure> {
        Ok(Box::new(ExternalPlayer::start(
            &self.command,
            self.limits,
            self.timeout,
        )?))
    }

    fn is_timed(&self) -> bool {
        self.limits.movetime.is_some()
    }
}

/// Splits `"command args"@opts` (or `command@opts`) into the command text
/// and the options.
fn split_command(text: &str) -> Result<(String, &str), String> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix('"') {
        let end = inner.find('"').ok_or("unterminated quote in the command")?;
        let after = inner[end + 1..].trim();
        let opts = match after.strip_prefix('@') {
            Some(o) => o,
            None if after.is_empty() => "",
            None => return Err(format!("unexpected {after:?} after the quoted command")),
        };
        Ok((inner[..end].to_string(), opts))
    } else {
        match t.rsplit_once('@') {
            Some((c, o)) => Ok((c.to_string(), o)),
            None => Ok((t.to_string(), "")),
        }
    }
}

/// Splits a command line into words: whitespace separates, single quotes
/// keep text literally, double quotes and backslashes as in a shell.
pub fn shell_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unterminated ' in the command".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => word.push(c),
                            None => return Err("trailing \\ in the command".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("unterminated \" in the command".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("trailing \\ in the command".into()),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}
