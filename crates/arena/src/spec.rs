//! Player specifications as written on the command line or in a config:
//!
//! | spec | player |
//! |---|---|
//! | `random` | uniform random legal moves |
//! | `ab:depth=4`, `ab:movetime=100[,threads=2]`, `ab:nodes=20000` | the reference alpha-beta engine (default depth 4; `threads`: Lazy SMP, default 1) |
//! | `nnue:models/x@depth=6`, `@movetime=100[,threads=2]`, `@nodes=N` | alpha-beta with an NNUE model folder (or a training checkpoint) as its evaluation (default depth 4, one thread) |
//! | `mcts:sims=64[,gumbel][,rollouts=2][,leaves=1]`, `mcts:movetime=1000[,threads=2]` | MCTS over random playouts (default 64 simulations, PUCT) |
//! | `net:runs/a/ckpt-120@sims=64[,gumbel][,device=cpu][,batch=64]`, `net:models/cpu-2h@movetime=1000[,threads=2][,leaves=16]` | a network checkpoint (file) or exported model (folder) with MCTS |
//! | `ext:"/path/engine --opt"[@movetime=100][,depth=N][,nodes=N][,timeout=5000]` | an external engine over the line protocol |
//!
//! A player's name (in tables, PDN and the ratings file) is its spec text.
//!
//! A player with `movetime` (or any player in a match with a clock, `--tc`)
//! thinks for a time rather than a fixed amount of work. Timed MCTS and
//! network players search with `threads` threads (default: one per core)
//! and `leaves` leaves per thread and network call (default 16 for a
//! network), on the network directly rather than through the match's
//! batching service.

use shashki_search::{Algorithm, SearchLimits};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;
use thiserror::Error;

/// A spec that could not be read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("player spec {spec:?}: {reason}")]
pub struct SpecError {
    /// The text given.
    pub spec: String,
    /// What is wrong.
    pub reason: String,
}

/// Which kind of player, with its settings.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerKind {
    /// Uniform random legal moves.
    Random,
    /// The reference alpha-beta engine.
    AlphaBeta {
        /// Depth, nodes and/or time per move.
        limits: SearchLimits,
        /// Lazy SMP search threads (default 1).
        threads: usize,
    },
    /// Alpha-beta with an NNUE model as its evaluation.
    Nnue {
        /// The model folder (or its `model.json`), or a training checkpoint.
        path: PathBuf,
        /// Depth, nodes and/or time per move.
        limits: SearchLimits,
        /// Lazy SMP search threads (default 1).
        threads: usize,
    },
    /// MCTS with random-playout evaluation.
    Mcts {
        /// The search settings.
        search: MctsSettings,
        /// Playouts per evaluated position.
        rollouts: u32,
    },
    /// MCTS over a network checkpoint or exported model.
    Net {
        /// A checkpoint file or an exported model folder.
        path: PathBuf,
        /// The search settings.
        search: MctsSettings,
        /// Device name for the network (`cpu`, or a GPU name with the
        /// `wgpu` feature).
        device: String,
        /// Target batch of the batching service shared by all games.
        batch: usize,
    },
    /// An external engine over the line protocol.
    External {
        /// Program and arguments.
        command: Vec<String>,
        /// Limits sent with every `go`.
        limits: SearchLimits,
        /// Longest wait for a `bestmove` before the game is forfeited.
        timeout: Duration,
    },
}

/// MCTS settings of a player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsSettings {
    /// Simulations per move.
    pub simulations: u32,
    /// PUCT or Gumbel.
    pub algorithm: Algorithm,
    /// Leaves gathered per evaluator call within one search (per thread).
    pub leaves_per_batch: u32,
    /// Time per move: the player is timed and ignores `simulations`.
    pub movetime: Option<Duration>,
    /// Search threads of a timed player (default: one per core).
    pub threads: Option<usize>,
}

impl Default for MctsSettings {
    fn default() -> Self {
        MctsSettings {
            simulations: 64,
            algorithm: Algorithm::Puct,
            leaves_per_batch: 1,
            movetime: None,
            threads: None,
        }
    }
}

/// A player: its name (the spec text) and what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerSpec {
    /// Display name: the spec as written.
    pub name: String,
    /// The player.
    pub kind: PlayerKind,
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// Default depth of `ab` without limits.
pub const DEFAULT_AB_DEPTH: u32 = 4;
/// Default movetime of an external engine without limits.
pub const DEFAULT_EXT_MOVETIME_MS: u64 = 1000;

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<PlayerSpec, SpecError> {
        let spec = text.trim();
        let fail = |reason: &str| SpecError {
            spec: spec.to_string(),
            reason: reason.to_string(),
        };
        let (head, rest) = match spec.split_once(':') {
            Some((h, r)) => (h, Some(r)),
            None => (spec, None),
        };
        let kind = match head {
            "random" => {
                if rest.is_some() {
                    return Err(fail("random takes no options"));
                }
                PlayerKind::Random
            }
            "ab" => {
                let (limits, threads) =
                    ab_options(rest.unwrap_or(""), "ab").map_err(|r| fail(&r))?;
                PlayerKind::AlphaBeta { limits, threads }
            }
            "nnue" => {
                let rest = rest
                    .filter(|r| !r.is_empty())
                    .ok_or_else(|| fail("nnue needs a path"))?;
                let (path, opts) = match rest.rsplit_once('@') {
                    Some((p, o)) => (p, o),
                    None => (rest, ""),
                };
                let path = unquote(path);
                if path.is_empty() {
                    return Err(fail("nnue needs a path"));
                }
                let (limits, threads) = ab_options(opts, "nnue").map_err(|r| fail(&r))?;
                PlayerKind::Nnue {
                    path: PathBuf::from(path),
                    limits,
                    threads,
                }
            }
            "mcts" => {
                let mut search = MctsSettings::default();
                let mut rollouts = 1;
                for (key, value) in options(rest.unwrap_or("")).map_err(|r| fail(&r))? {
                    if key == "rollouts" {
                        let v = value.ok_or_else(|| fail("rollouts needs a number"))?;
                        rollouts = number(key, v).map_err(|r| fail(&r))?;
                    } else if !search_option(&mut search, key, value).map_err(|r| fail(&r))? {
                        return Err(fail(&format!(
                            "unknown mcts option {key:?} (sims, movetime, threads, gumbel, puct, leaves, rollouts)"
                        )));
                    }
                }
                PlayerKind::Mcts { search, rollouts }
            }
            "net" => {
                let rest = rest
                    .filter(|r| !r.is_empty())
                    .ok_or_else(|| fail("net needs a path"))?;
                let (path, opts) = match rest.rsplit_once('@') {
                    Some((p, o)) => (p, o),
                    None => (rest, ""),
                };
                let path = unquote(path);
                if path.is_empty() {
                    return Err(fail("net needs a path"));
                }
                let mut search = MctsSettings::default();
                let mut device = "cpu".to_string();
                let mut batch = 64;
                for (key, value) in options(opts).map_err(|r| fail(&r))? {
                    match (key, value) {
                        ("device", Some(v)) => device = v.to_string(),
                        ("batch", Some(v)) => batch = number(key, v).map_err(|r| fail(&r))?,
                        _ => {
                            if !search_option(&mut search, key, value).map_err(|r| fail(&r))? {
                                return Err(fail(&format!(
                                    "unknown net option {key:?} (sims, movetime, threads, gumbel, puct, leaves, device, batch)"
                                )));
                            }
                        }
                    }
                }
                PlayerKind::Net {
                    path: PathBuf::from(path),
                    search,
                    device,
                    batch: batch.max(1),
                }
            }
            "ext" => {
                let rest = rest
                    .filter(|r| !r.trim().is_empty())
                    .ok_or_else(|| fail("ext needs a command"))?;
                let (command_text, opts) = split_command(rest).map_err(|r| fail(&r))?;
                let command = shell_words(&command_text).map_err(|r| fail(&r))?;
                if command.is_empty() {
                    return Err(fail("ext needs a command"));
                }
                let mut limits = SearchLimits::default();
                let mut timeout = None;
                for (key, value) in options(opts).map_err(|r| fail(&r))? {
                    let v = value.ok_or_else(|| fail(&format!("{key} needs a number")))?;
                    let n: u64 = number(key, v).map_err(|r| fail(&r))?;
                    match key {
                        "depth" => limits.depth = Some(n as u32),
                        "nodes" => limits.nodes = Some(n),
                        "movetime" => limits.movetime = Some(Duration::from_millis(n)),
                        "timeout" => timeout = Some(Duration::from_millis(n)),
                        _ => {
                            return Err(fail(&format!(
                                "unknown ext option {key:?} (depth, nodes, movetime, timeout)"
                            )));
                        }
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
                PlayerKind::External {
                    command,
                    limits,
                    timeout,
                }
            }
            _ => {
                return Err(fail(
                    "unknown player (expected random, ab:..., nnue:PATH@..., mcts:..., net:PATH@..., ext:\"COMMAND\"@...)",
                ));
            }
        };
        Ok(PlayerSpec {
            name: spec.to_string(),
            kind,
        })
    }
}

/// The limits of an alpha-beta player (`depth`, `nodes`, `movetime`);
/// [`DEFAULT_AB_DEPTH`] when none is given. `kind` names the player in errors.
/// The limits and Lazy SMP threads of an alpha-beta player's options.
fn ab_options(text: &str, kind: &str) -> Result<(SearchLimits, usize), String> {
    let mut limits = SearchLimits::default();
    let mut threads = 1;
    for (key, value) in options(text)? {
        match (key, value) {
            ("depth", Some(v)) => limits.depth = Some(number(key, v)?),
            ("nodes", Some(v)) => limits.nodes = Some(number(key, v)?),
            ("movetime", Some(v)) => limits.movetime = Some(Duration::from_millis(number(key, v)?)),
            ("threads", Some(v)) => threads = number::<usize>(key, v)?.clamp(1, 256),
            _ => {
                return Err(format!(
                    "unknown {kind} option {key:?} (depth, nodes, movetime, threads)"
                ));
            }
        }
    }
    if limits.is_unlimited() {
        limits.depth = Some(DEFAULT_AB_DEPTH);
    }
    Ok((limits, threads))
}

/// Applies an MCTS option; false if the key is not one.
fn search_option(
    search: &mut MctsSettings,
    key: &str,
    value: Option<&str>,
) -> Result<bool, String> {
    match (key, value) {
        ("sims", Some(v)) => search.simulations = number::<u32>(key, v)?.max(1),
        ("leaves", Some(v)) => search.leaves_per_batch = number::<u32>(key, v)?.max(1),
        ("movetime", Some(v)) => {
            search.movetime = Some(Duration::from_millis(number::<u64>(key, v)?.max(1)))
        }
        ("threads", Some(v)) => search.threads = Some(number::<usize>(key, v)?.clamp(1, 256)),
        ("gumbel", None) => search.algorithm = Algorithm::Gumbel,
        ("puct", None) => search.algorithm = Algorithm::Puct,
        _ => return Ok(false),
    }
    Ok(true)
}

/// `key=value,flag,...` into pairs (empty text: none).
fn options(text: &str) -> Result<Vec<(&str, Option<&str>)>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
                out.push((k.trim(), Some(v.trim())))
            }
            Some(_) => return Err(format!("option {part:?} needs key=value")),
            None => out.push((part, None)),
        }
    }
    Ok(out)
}

fn number<T: FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{key}={value:?} is not a non-negative integer"))
}

fn unquote(text: &str) -> &str {
    let t = text.trim();
    t.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(t)
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

/// A players file (TOML): a list of specs, and/or tables that give a spec
/// its own display name:
///
/// ```toml
/// players = ["random", "ab:depth=4"]
///
/// [[player]]
/// name = "my-engine"
/// spec = 'ext:"/opt/engine --fast"@movetime=100'
/// ```
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayersFile {
    #[serde(default)]
    players: Vec<String>,
    #[serde(default)]
    player: Vec<NamedPlayer>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NamedPlayer {
    name: Option<String>,
    spec: String,
}

/// Reads the players of a TOML players file: `players = [...]` and/or
/// `[[player]]` tables with `spec` and an optional display `name`.
pub fn parse_players_file(text: &str, source: &str) -> Result<Vec<PlayerSpec>, SpecError> {
    let file: PlayersFile = toml::from_str(text).map_err(|e| SpecError {
        spec: source.to_string(),
        reason: format!("not a players file: {e}"),
    })?;
    let mut out = Vec::new();
    for text in &file.players {
        out.push(text.parse()?);
    }
    for named in &file.player {
        let mut spec: PlayerSpec = named.spec.parse()?;
        if let Some(name) = named
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            spec.name = name.to_string();
        }
        out.push(spec);
    }
    Ok(out)
}

/// Splits a comma-separated list of specs, keeping commas inside quotes and
/// after `@`/`:` options together with their spec (`ab:depth=2,movetime=50`
/// stays one spec): a new spec starts only at a known kind prefix.
pub fn split_spec_list(text: &str) -> Vec<String> {
    let mut specs: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    let starts_spec = |s: &str| {
        let s = s.trim_start();
        s == "random"
            || s.starts_with("random,")
            || ["ab", "mcts", "net:", "ext:"].iter().any(|p| {
                s.starts_with(p)
                    && (p.ends_with(':')
                        || s.len() == p.len()
                        || s[p.len()..].starts_with([':', ',']))
            })
    };
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            in_quotes = !in_quotes;
        }
        if c == ',' && !in_quotes {
            let rest: String = chars[i + 1..].iter().collect();
            if starts_spec(&rest) {
                specs.push(std::mem::take(&mut current));
                i += 1;
                continue;
            }
        }
        current.push(c);
        i += 1;
    }
    specs.push(current);
    specs
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> PlayerKind {
        s.parse::<PlayerSpec>().unwrap().kind
    }

    #[test]
    fn parses_every_kind() {
        assert_eq!(parse("random"), PlayerKind::Random);
        assert_eq!(
            parse("ab:depth=4"),
            PlayerKind::AlphaBeta {
                limits: SearchLimits::depth(4),
                threads: 1
            }
        );
        assert_eq!(
            parse("ab:movetime=100,threads=2"),
            PlayerKind::AlphaBeta {
                limits: SearchLimits::movetime(Duration::from_millis(100)),
                threads: 2
            }
        );
        assert_eq!(
            parse("ab"),
            PlayerKind::AlphaBeta {
                limits: SearchLimits::depth(DEFAULT_AB_DEPTH),
                threads: 1
            }
        );
        assert_eq!(
            parse("nnue:models/x@depth=6,threads=4"),
            PlayerKind::Nnue {
                path: PathBuf::from("models/x"),
                limits: SearchLimits::depth(6),
                threads: 4
            }
        );
        assert_eq!(
            parse("nnue:\"my models/x\""),
            PlayerKind::Nnue {
                path: PathBuf::from("my models/x"),
                limits: SearchLimits::depth(DEFAULT_AB_DEPTH),
                threads: 1
            }
        );
        assert!(
            "nnue:models/x@sims=3"
                .parse::<PlayerSpec>()
                .unwrap_err()
                .to_string()
                .contains("unknown nnue option")
        );
        assert!("nnue:".parse::<PlayerSpec>().is_err());
        match parse("mcts:sims=32,gumbel,rollouts=3") {
            PlayerKind::Mcts { search, rollouts } => {
                assert_eq!(
                    (search.simulations, search.algorithm, rollouts),
                    (32, Algorithm::Gumbel, 3)
                );
            }
            other => panic!("{other:?}"),
        }
        match parse("net:runs/a/ckpt-120@sims=64") {
            PlayerKind::Net {
                path,
                search,
                device,
                ..
            } => {
                assert_eq!(path, PathBuf::from("runs/a/ckpt-120"));
                assert_eq!(
                    (search.simulations, search.algorithm),
                    (64, Algorithm::Puct)
                );
                assert_eq!(device, "cpu");
            }
            other => panic!("{other:?}"),
        }
        match parse("net:models/NAME@sims=64,gumbel") {
            PlayerKind::Net { path, search, .. } => {
                assert_eq!(path, PathBuf::from("models/NAME"));
                assert_eq!(search.algorithm, Algorithm::Gumbel);
            }
            other => panic!("{other:?}"),
        }
        match parse("ext:\"/path/engine --opt 'a b'\"@movetime=100,timeout=900") {
            PlayerKind::External {
                command,
                limits,
                timeout,
            } => {
                assert_eq!(command, vec!["/path/engine", "--opt", "a b"]);
                assert_eq!(limits.movetime, Some(Duration::from_millis(100)));
                assert_eq!(timeout, Duration::from_millis(900));
            }
            other => panic!("{other:?}"),
        }
        match parse("ext:/bin/eng") {
            PlayerKind::External {
                command, limits, ..
            } => {
                assert_eq!(command, vec!["/bin/eng"]);
                assert_eq!(
                    limits.movetime,
                    Some(Duration::from_millis(DEFAULT_EXT_MOVETIME_MS))
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_specs_say_why() {
        for bad in [
            "",
            "rand",
            "ab:depth=x",
            "ab:speed=3",
            "net:",
            "ext:",
            "ext:\"x",
            "mcts:sims",
            "random:1",
        ] {
            let e = bad.parse::<PlayerSpec>().unwrap_err();
            assert!(!e.reason.is_empty(), "{bad}");
        }
    }

    #[test]
    fn players_files_list_specs_and_named_players() {
        let text = "players = [\"random\", \"ab:depth=2\"]\n\n[[player]]\nname = \"engine\"\nspec = 'ext:\"/bin/eng --x\"@movetime=50'\n";
        let specs = parse_players_file(text, "p.toml").unwrap();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["random", "ab:depth=2", "engine"]);
        assert!(matches!(specs[2].kind, PlayerKind::External { .. }));
        let e = parse_players_file("players = 3", "p.toml").unwrap_err();
        assert!(e.to_string().contains("p.toml"), "{e}");
        assert!(parse_players_file("players = [\"ab:depth=q\"]", "p.toml").is_err());
    }

    #[test]
    fn spec_lists_split_at_spec_starts_only() {
        assert_eq!(
            split_spec_list(
                "random,ab:depth=2,movetime=50,mcts:sims=8,gumbel,ext:\"a, b\"@depth=1,net:x@sims=4"
            ),
            vec![
                "random",
                "ab:depth=2,movetime=50",
                "mcts:sims=8,gumbel",
                "ext:\"a, b\"@depth=1",
                "net:x@sims=4"
            ]
        );
        assert_eq!(
            split_spec_list("ab:depth=1, ab:depth=2"),
            vec!["ab:depth=1", "ab:depth=2"]
        );
    }
}
