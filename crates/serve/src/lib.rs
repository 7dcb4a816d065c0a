//! # shashki-serve
//!
//! `shashki serve`: a local web board. Play any engine or arena player,
//! watch the engine analyse live, step through PDN games, and follow
//! training runs, in the browser. The page (plain HTML, CSS, JavaScript
//! and SVG) is built into the binary; the API is JSON over HTTP with
//! server-sent events for live analysis (routes in [`router`]).
//!
//! The server holds no game state (every request carries its game), binds
//! to 127.0.0.1 unless told otherwise, bounds request bodies, search time
//! and searches at once, and answers every bad request with a 4xx and a
//! JSON `{"error": ...}`.
//!
//! # Security
//!
//! A request never names a program, a path or a player spec: it picks one
//! of the engines the command line named ([`players`]) and may set only
//! bounded parameters; PDN files are asked for by index and runs by their
//! folder's name in the listing. Every route sits behind `access` (crates/serve/src/access.rs): the
//! `Host` header must be this server's (DNS rebinding), a state-changing
//! request must come from its own page (`Origin`), and off loopback every
//! request needs the token. docs/SERVE.md lists every door through which
//! outside input names a file or a program, with what each accepts.

mod access;
mod analysis;
mod assets;
pub mod error;
mod games;
mod play;
pub mod players;
pub mod position;
mod runs;
mod state;

pub use access::{MIN_TOKEN_LEN, new_token};
pub use analysis::{InfoView, ScoreView};
pub use games::{GameList, GameSummary};
pub use play::EngineMoveReply;
pub use players::{EngineMaker, EngineSettings, NamedEngine, NamedPlayer};
pub use position::PositionView;
pub use runs::{RunDetail, RunSummary};

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::rejection::BytesRejection;
use axum::routing::{get, post};
use error::{ApiError, ApiResult, WithStatus};
use serde::de::DeserializeOwned;
use shashki_search::tablebase::Tablebases;
use state::AppState;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The server's settings.
#[derive(Clone)]
pub struct ServeOptions {
    /// Where to listen (127.0.0.1 unless the user asks otherwise).
    pub addr: SocketAddr,
    /// Engines by name; the first is the default for analysis and play.
    pub engines: Vec<NamedEngine>,
    /// Arena players by name: opponents that cannot analyse.
    pub players: Vec<NamedPlayer>,
    /// Host names the server answers for beside its own address (`*`:
    /// any; see `access.rs`).
    pub allow_hosts: Vec<String>,
    /// The secret every request must carry; required off loopback.
    pub token: Option<String>,
    /// Endgame tables for the position view.
    pub tablebases: Option<Arc<Tablebases>>,
    /// PDN files the page may open.
    pub pdn_files: Vec<PathBuf>,
    /// A folder of training runs.
    pub runs: Option<PathBuf>,
    /// Searches (analyses and engine replies) running at once.
    pub max_searches: usize,
    /// Longest time per move of an engine reply.
    pub max_movetime: Duration,
    /// Longest analysis of one position.
    pub max_analysis: Duration,
    /// Deepest search a request may ask for, in plies.
    pub max_depth: u32,
    /// Most search threads a request may ask for.
    pub max_threads: usize,
    /// Largest request body (a pasted PDN file) in bytes.
    pub max_body: usize,
}

impl ServeOptions {
    /// Defaults: 127.0.0.1:8000, 2 searches, 10 s a move, 60 s of
    /// analysis, depth 64, threads up to the machine's cores, 16 MB
    /// bodies; no player, extra host, token, tables, files or runs.
    pub fn new(engines: Vec<NamedEngine>) -> ServeOptions {
        ServeOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 8000)),
            engines,
            players: Vec::new(),
            allow_hosts: Vec::new(),
            token: None,
            tablebases: None,
            pdn_files: Vec::new(),
            runs: None,
            max_searches: 2,
            max_movetime: Duration::from_secs(10),
            max_analysis: Duration::from_secs(60),
            max_depth: shashki_search::alphabeta::MAX_DEPTH,
            max_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_body: 16 << 20,
        }
    }
}

/// The body of a request, or why axum refused it (too large, ...).
pub(crate) type RawBody = Result<Bytes, BytesRejection>;

/// Parses a JSON body; malformed JSON or unknown fields are a 400 naming
/// the problem.
pub(crate) fn json_body<T: DeserializeOwned>(body: RawBody) -> ApiResult<T> {
    let bytes = body.map_err(|e| ApiError::from(WithStatus(e)))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return serde_json::from_slice(b"{}")
            .map_err(|e| ApiError::bad_request(format!("the request needs a JSON body: {e}")));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad_request(format!("bad JSON request body: {e}")))
}

/// Every route, behind the access checks; settings that cannot work (a
/// non-loopback address without a token, two engines of one name) are an
/// error.
pub fn router(options: ServeOptions) -> Result<Router, ServeError> {
    let max_body = options.max_body;
    let access = Arc::new(
        access::Access::new(options.addr, &options.allow_hosts, options.token.clone())
            .map_err(ServeError::Settings)?,
    );
    let state = Arc::new(AppState::new(options).map_err(ServeError::Settings)?);
    Ok(Router::new()
        .route("/", get(assets::index))
        .route("/assets/{name}", get(assets::asset))
        .route("/api/info", get(info))
        .route("/api/position", post(play::position))
        .route("/api/engine-move", post(play::engine_move))
        .route("/api/analyse", get(analysis::analyse))
        .route("/api/pdn", post(games::parse_pasted))
        .route("/api/pdn-files", get(games::list_files))
        .route("/api/pdn-files/{index}", get(games::read_file))
        .route("/api/runs", get(runs::list))
        .route("/api/runs/{name}", get(runs::detail))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(access, access::guard)))
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no such page or endpoint: {}", uri.path()))
}

/// What the page needs to know about the server.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub struct ServerInfo {
    /// Engine names and descriptions; the first is the default. These
    /// analyse and play.
    pub engines: Vec<(String, String)>,
    /// Arena players' names and descriptions: these only play.
    #[serde(default)]
    pub players: Vec<(String, String)>,
    /// True if endgame tables are loaded.
    pub tablebase: bool,
    /// True if a run folder was given.
    pub runs: bool,
    /// Searches running now.
    pub searches_running: usize,
    /// Searches allowed at once.
    pub max_searches: usize,
    /// Longest engine reply, in milliseconds.
    pub max_movetime_ms: u64,
    /// Longest analysis, in milliseconds.
    pub max_analysis_ms: u64,
    /// Deepest search a request may ask for.
    #[serde(default)]
    pub max_depth: u32,
    /// Most search threads a request may ask for.
    #[serde(default)]
    pub max_threads: usize,
}

async fn info(
    axum::extract::State(state): axum::extract::State<Arc<AppState>>,
) -> axum::Json<ServerInfo> {
    axum::Json(ServerInfo {
        engines: state
            .opponents
            .engines()
            .iter()
            .map(|e| (e.name.clone(), e.description.clone()))
            .collect(),
        players: state
            .opponents
            .players()
            .iter()
            .map(|p| (p.name.clone(), p.description.clone()))
            .collect(),
        tablebase: state.tablebases.is_some(),
        runs: state.runs.is_some(),
        searches_running: state.searches_running(),
        max_searches: state.max_searches(),
        max_movetime_ms: state.max_movetime.as_millis() as u64,
        max_analysis_ms: state.max_analysis.as_millis() as u64,
        max_depth: state.opponents.limits().max_depth,
        max_threads: state.opponents.limits().max_threads,
    })
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The settings cannot work (no token off loopback, a bad token, two
    /// engines of one name).
    #[error("{0}")]
    Settings(String),
    /// The runtime or the server failed.
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
}

/// A running server: it listens from [`Server::start`] until it is
/// stopped or dropped.
pub struct Server {
    addr: SocketAddr,
    token: Option<String>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl Server {
    /// Binds `options.addr` (port 0 picks a free port) and serves on a
    /// thread of its own. Settings that cannot work are refused before
    /// anything listens.
    pub fn start(options: ServeOptions) -> Result<Server, ServeError> {
        access::Access::new(options.addr, &options.allow_hosts, options.token.clone())
            .map_err(ServeError::Settings)?;
        let listener = TcpListener::bind(options.addr).map_err(|source| ServeError::Bind {
            addr: options.addr,
            source,
        })?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let token = options.token.clone();
        let threads = options.max_searches.max(1) + 4;
        // The Host check needs the port actually bound (port 0 picks one).
        let app = router(ServeOptions { addr, ..options })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .max_blocking_threads(threads)
            .thread_name("shashki-serve")
            .enable_all()
            .build()?;
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("shashki-serve".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = tokio::net::TcpListener::from_std(listener)?;
                    axum::serve(listener, app)
                        .with_graceful_shutdown(async move {
                            let _ = stopped.await;
                        })
                        .await
                })
            })?;
        Ok(Server {
            addr,
            token,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL, with the token when the server requires one.
    pub fn url(&self) -> String {
        match &self.token {
            Some(token) => format!("http://{}/?{}={token}", self.addr, access::TOKEN_PARAM),
            None => format!("http://{}/", self.addr),
        }
    }

    /// Serves until the server fails (normally: forever).
    pub fn wait(mut self) -> Result<(), ServeError> {
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .map_err(|_| ServeError::Io(std::io::Error::other("the server thread panicked")))?
                .map_err(ServeError::Io),
            None => Ok(()),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        // Graceful shutdown waits for open connections (a live analysis
        // stream); the thread is left to finish on its own rather than
        // block the caller.
        drop(self.thread.take());
    }
}
