//! `shashki serve`: the web board (crates/serve) on a local port. This file
//! only reads the options and hands the server its engines: `builtin`
//! always, and the `--engine` choice (the default) when it is another.

use crate::engine_choice::{EngineArgs, EngineChoice};
use anyhow::{Context, Result, anyhow};
use shashki_search::tablebase::Tablebases;
use shashki_serve::{EngineMaker, NamedEngine, ServeOptions, Server};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Options of `shashki serve`.
#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on. Only 127.0.0.1 (this machine) by default;
    /// another address (e.g. 0.0.0.0) lets other machines use the board and
    /// its engines, and prints a warning.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// Port (0: any free port).
    #[arg(long, default_value_t = 8000)]
    port: u16,
    #[command(flatten)]
    engine: EngineArgs,
    /// A PDN file the page may open (repeat for more); only these files are
    /// served.
    #[arg(long = "pdn", value_name = "FILE")]
    pdn: Vec<PathBuf>,
    /// A folder of training runs (`runs/`) whose progress and curves the
    /// page shows.
    #[arg(long, value_name = "DIR")]
    runs: Option<PathBuf>,
    /// Searches (analyses and engine replies) running at once; more are
    /// refused with 429 until one ends.
    #[arg(long, default_value_t = 2)]
    max_searches: usize,
    /// Longest time per move the page may ask of an engine, in ms.
    #[arg(long, default_value_t = 10_000)]
    max_movetime: u64,
    /// Longest live analysis of one position, in ms.
    #[arg(long, default_value_t = 60_000)]
    analysis_time: u64,
    /// Largest request body (a pasted PDN file), in MB.
    #[arg(long, default_value_t = 16)]
    max_body_mb: usize,
}

/// `args`' engine under its `--engine` name (`builtin`, `ab`, `nnue:PATH`, ...).
fn named(args: &EngineArgs, tb: Option<Arc<Tablebases>>, description: String) -> NamedEngine {
    let name = args.engine.to_string();
    let args = args.clone();
    let make: EngineMaker =
        Arc::new(move || args.build_with(tb.clone()).map_err(|e| format!("{e:#}")));
    NamedEngine {
        name,
        description,
        make,
    }
}

/// Runs `shashki serve`.
pub fn run(args: Args) -> Result<()> {
    for file in &args.pdn {
        if !file.is_file() {
            return Err(anyhow!("--pdn {}: no such file", file.display()));
        }
    }
    if let Some(dir) = &args.runs
        && !dir.is_dir()
    {
        return Err(anyhow!("--runs {}: no such folder", dir.display()));
    }
    let tb = args.engine.tablebases()?;
    let mut engines = Vec::new();
    let chosen = args.engine.build_with(tb.clone())?;
    engines.push(named(&args.engine, tb.clone(), chosen.description()));
    if args.engine.engine != EngineChoice::Builtin {
        let builtin = EngineArgs {
            engine: EngineChoice::Builtin,
            ..args.engine.clone()
        };
        let description = builtin.build_with(tb.clone())?.description();
        engines.push(named(&builtin, tb.clone(), description));
    }
    let addr = SocketAddr::new(args.host, args.port);
    let options = ServeOptions {
        addr,
        tablebases: tb,
        pdn_files: args.pdn.clone(),
        runs: args.runs.clone(),
        max_searches: args.max_searches.max(1),
        max_movetime: Duration::from_millis(args.max_movetime.max(10)),
        max_analysis: Duration::from_millis(args.analysis_time.max(10)),
        max_body: args.max_body_mb.max(1) << 20,
        ..ServeOptions::new(engines)
    };
    let server = Server::start(options).context("shashki serve")?;
    if !args.host.is_loopback() {
        eprintln!(
            "warning: listening on {}: anyone who can reach this machine can use the board, \
             its engines and the files given; use only on a trusted network",
            server.addr()
        );
    }
    println!("Shashki Zero board at {}  (Ctrl-C stops)", server.url());
    server.wait().context("shashki serve")?;
    Ok(())
}
