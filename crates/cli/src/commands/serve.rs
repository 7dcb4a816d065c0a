//! `shashki serve`: the web board (crates/serve) on a local port. This file
//! only reads the options and hands the server what it may play: each
//! `--engine [NAME=]SPEC` and each player of `--players-file` under its
//! name, and `builtin` always. Requests pick among these names only.

use crate::engine_choice::{EngineOptions, engine_of, load_tablebases};
use anyhow::{Context, Result, anyhow, bail};
use shashki_arena::kinds::builds_engine;
use shashki_arena::roster::parse_players_file;
use shashki_arena::{PlayerFactory, PlayerKind, PlayerSpec};
use shashki_search::tablebase::Tablebases;
use shashki_serve::{EngineMaker, EngineSettings, NamedEngine, NamedPlayer, ServeOptions, Server};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Options of `shashki serve`.
#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on. Only 127.0.0.1 (this machine) by default;
    /// another address (e.g. 0.0.0.0) lets other machines use the board and
    /// its engines: it then requires a token (`--token`, or one generated
    /// and printed in the URL) and prints a warning.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// Port (0: any free port).
    #[arg(long, default_value_t = 8000)]
    port: u16,
    /// An engine the page may play and analyse with, optionally under a
    /// name (repeat for more; the first is the default, `builtin` is always
    /// offered), a player spec as `shashki rate` reads it. An engine that
    /// runs on its own (`builtin`, `ab`, `mcts`, `nnue:PATH`, `net:PATH`,
    /// with options such as `threads=2` but no limits) plays and analyses
    /// at the request's limits; any other spec (`ab:depth=6`,
    /// `net:PATH@sims=64`, `ext:"/path/engine"`, `random`) is an opponent
    /// at its own settings. Requests name these, never a spec or path.
    #[arg(long = "engine", value_name = "[NAME=]SPEC")]
    engines: Vec<String>,
    /// A players file (TOML, as `shashki rate --players-file` reads): each
    /// of its players is an opponent under its name.
    #[arg(long, value_name = "FILE")]
    players_file: Option<PathBuf>,
    /// A host name the board answers for beside its own address (repeat for
    /// more; `*` for any, e.g. behind a reverse proxy). Other `Host`
    /// headers are refused (against DNS rebinding).
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
    /// The token every request must carry (at least 16 characters); off
    /// loopback one is generated when none is given. The page keeps it in
    /// a cookie after the printed URL's `?token=` opened it.
    #[arg(long)]
    token: Option<String>,
    /// Seed of the engines' random choices (MCTS).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Endgame tablebase folder: the position view shows the tables'
    /// verdict and every engine and player probes them.
    #[arg(long, value_name = "DIR")]
    tablebase: Option<PathBuf>,
    /// The engines' options as in `shashki analyse` (a request may ask for
    /// other threads, within the machine's cores).
    #[command(flatten)]
    options: EngineOptions,
    /// A PDN file the page may open (repeat for more); only these files are
    /// served.
    #[arg(long = "pdn", value_name = "FILE")]
    pdn: Vec<PathBuf>,
    /// A folder of training runs (`runs/`) whose progress and curves the
    /// page shows; it may not exist yet (no runs so far).
    #[arg(long, value_name = "DIR")]
    runs: Option<PathBuf>,
    /// Searches (analyses and engine replies) running at once; more are
    /// refused with 429 until one ends.
    #[arg(long, default_value_t = 2)]
    max_searches: usize,
    /// Longest time per move the page may ask of an engine, in ms.
    #[arg(long, default_value_t = 10_000)]
    max_movetime: u64,
    /// Deepest search the page may ask for, in plies.
    #[arg(long, default_value_t = shashki_search::alphabeta::MAX_DEPTH)]
    max_depth: u32,
    /// Longest live analysis of one position, in ms.
    #[arg(long, default_value_t = 60_000)]
    analysis_time: u64,
    /// Largest request body (a pasted PDN file), in MB.
    #[arg(long, default_value_t = 16)]
    max_body_mb: usize,
}

/// `[NAME=]SPEC`: a name is letters, digits and `_.+-` before the first
/// `=` (a spec's own `=` comes after its `:`).
fn split_name(text: &str) -> (Option<&str>, &str) {
    match text.split_once('=') {
        Some((name, spec))
            if !name.is_empty()
                && !spec.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.+-".contains(c)) =>
        {
            (Some(name), spec)
        }
        _ => (None, text),
    }
}

/// True if `spec` is offered as an engine (it plays and analyses at the
/// request's limits): a kind that runs on its own, stating no limits.
/// Anything else is an arena player that plays at its spec's settings.
fn is_engine(spec: &PlayerSpec) -> bool {
    builds_engine(&spec.kind) && spec.kind.stated_limits().is_unlimited()
}

/// The engine `spec` (as written: `text`) under `name`, built once here (a
/// missing network fails now) and again for every search with the
/// request's threads; the engine flags are its options.
fn named_engine(
    args: &Args,
    name: Option<&str>,
    text: &str,
    tb: &Option<Arc<Tablebases>>,
) -> Result<NamedEngine> {
    let spec = args.options.spec(text, "--engine")?;
    let description = engine_of(&spec, args.seed, tb.clone())?.description();
    let name = name.unwrap_or(text).to_string();
    let (text, options, seed, tb) = (
        text.to_string(),
        args.options.clone(),
        args.seed,
        tb.clone(),
    );
    let make: EngineMaker = Arc::new(move |settings: &EngineSettings| {
        let options = EngineOptions {
            threads: settings.threads.or(options.threads),
            ..options.clone()
        };
        let spec = options
            .spec(&text, "--engine")
            .map_err(|e| format!("{e:#}"))?;
        engine_of(&spec, seed, tb.clone()).map_err(|e| format!("{e:#}"))
    });
    Ok(NamedEngine {
        name,
        description,
        make,
    })
}

/// An arena player prepared now (its network loaded, an external engine's
/// handshake passed).
fn named_player(name: Option<&str>, spec: PlayerSpec, description: String) -> Result<NamedPlayer> {
    let name = name.map_or_else(|| spec.name.clone(), str::to_string);
    let factory = PlayerFactory::new(spec).map_err(|e| anyhow!("--engine {e}"))?;
    Ok(NamedPlayer {
        name,
        description,
        factory: Arc::new(factory),
    })
}

/// Every engine and player the command line names; `builtin` is added
/// when no `--engine` named it.
fn offers(
    args: &Args,
    tb: &Option<Arc<Tablebases>>,
) -> Result<(Vec<NamedEngine>, Vec<NamedPlayer>)> {
    let (mut engines, mut players) = (Vec::new(), Vec::new());
    let mut has_builtin = false;
    for text in &args.engines {
        let (name, text) = split_name(text.trim());
        let spec: PlayerSpec = text.parse().map_err(|e| anyhow!("--engine {e}"))?;
        if is_engine(&spec) {
            has_builtin |= matches!(spec.kind, PlayerKind::Builtin { .. });
            engines.push(named_engine(args, name, text, tb)?);
        } else {
            let description = format!("arena player {}", spec.name);
            players.push(named_player(name, spec, description)?);
        }
    }
    if !has_builtin {
        engines.push(named_engine(args, None, "builtin", tb)?);
    }
    if let Some(path) = &args.players_file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("--players-file {}", path.display()))?;
        let specs = parse_players_file(&text, &path.display().to_string())
            .map_err(|e| anyhow!("--players-file {e}"))?;
        for spec in specs {
            let description = format!("from the players file: {}", spec.name);
            players.push(named_player(None, spec, description).context("--players-file")?);
        }
    }
    Ok((engines, players))
}

/// Runs `shashki serve`.
pub fn run(args: Args) -> Result<()> {
    for file in &args.pdn {
        if !file.is_file() {
            bail!("--pdn {}: no such file", file.display());
        }
    }
    if let Some(dir) = &args.runs {
        if dir.exists() && !dir.is_dir() {
            bail!("--runs {}: not a folder", dir.display());
        }
        if !dir.exists() {
            eprintln!(
                "note: --runs {}: no such folder yet; the board lists no runs until training \
                 writes some there",
                dir.display()
            );
        }
    }
    let tb = load_tablebases(args.tablebase.as_deref())?;
    let (engines, players) = offers(&args, &tb)?;
    let loopback = args.host.is_loopback();
    let token = match (&args.token, loopback) {
        (Some(token), _) => Some(token.clone()),
        (None, false) => Some(shashki_serve::new_token()),
        (None, true) => None,
    };
    let options = ServeOptions {
        addr: SocketAddr::new(args.host, args.port),
        players,
        allow_hosts: args.allow_hosts.clone(),
        token,
        tablebases: tb,
        pdn_files: args.pdn.clone(),
        runs: args.runs.clone(),
        max_searches: args.max_searches.max(1),
        max_movetime: Duration::from_millis(args.max_movetime.max(10)),
        max_analysis: Duration::from_millis(args.analysis_time.max(10)),
        max_depth: args.max_depth.max(1),
        max_body: args.max_body_mb.max(1) << 20,
        ..ServeOptions::new(engines)
    };
    let server = Server::start(options).context("shashki serve")?;
    if !loopback {
        eprintln!(
            "warning: listening on {}: anyone who can reach this machine and has the token \
             can use the board, its engines and the files given; use only on a trusted network",
            server.addr()
        );
    }
    println!("Shashki Zero board at {}  (Ctrl-C stops)", server.url());
    server.wait().context("shashki serve")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_before_the_first_equals_sign_only_when_they_are_names() {
        assert_eq!(split_name("fast=ab:depth=4"), (Some("fast"), "ab:depth=4"));
        assert_eq!(split_name("ab:depth=4"), (None, "ab:depth=4"));
        assert_eq!(split_name("builtin"), (None, "builtin"));
        assert_eq!(
            split_name("ext:\"/bin/x --a=b\""),
            (None, "ext:\"/bin/x --a=b\"")
        );
        let spec = |text: &str| text.parse::<PlayerSpec>().unwrap();
        assert!(is_engine(&spec("nnue:models/x")));
        assert!(is_engine(&spec("nnue:models/x@threads=2")));
        assert!(
            !is_engine(&spec("nnue:models/x@depth=6")),
            "plays at its depth"
        );
        assert!(!is_engine(&spec("random")));
        assert!(!is_engine(&spec("ext:/bin/engine")));
        assert!("nonsense:x".parse::<PlayerSpec>().is_err());
    }
}
