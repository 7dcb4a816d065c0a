//! What every request handler shares: the options, the engines and players,
//! the tables, and the search slots that bound how many searches run.

use crate::ServeOptions;
use crate::error::ApiError;
use crate::players::{Opponents, RequestLimits};
use shashki_search::StopHandle;
use shashki_search::tablebase::Tablebases;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The server's shared state.
pub struct AppState {
    /// Engines by name and arena players.
    pub opponents: Opponents,
    /// Endgame tables, when given.
    pub tablebases: Option<Arc<Tablebases>>,
    /// PDN files given on the command line (served by index only).
    pub pdn_files: Vec<std::path::PathBuf>,
    /// The folder of training runs, when given.
    pub runs: Option<std::path::PathBuf>,
    /// Longest time per move of an engine reply.
    pub max_movetime: Duration,
    /// Longest analysis.
    pub max_analysis: Duration,
    slots: Arc<Semaphore>,
    max_searches: usize,
}

impl AppState {
    /// The state for `options`; two engines of one name are an error.
    pub fn new(options: ServeOptions) -> Result<AppState, String> {
        let max_searches = options.max_searches.max(1);
        let limits = RequestLimits {
            max_depth: options.max_depth.max(1),
            max_threads: options.max_threads.max(1),
        };
        Ok(AppState {
            opponents: Opponents::new(
                options.engines,
                options.players,
                options.tablebases.clone(),
                limits,
            )?,
            tablebases: options.tablebases,
            pdn_files: options.pdn_files,
            runs: options.runs,
            max_movetime: options.max_movetime,
            max_analysis: options.max_analysis,
            slots: Arc::new(Semaphore::new(max_searches)),
            max_searches,
        })
    }

    /// A search slot, or 429 when every one is taken. The slot is freed
    /// when the permit drops (the search thread holds it).
    pub fn search_slot(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        Arc::clone(&self.slots).try_acquire_owned().map_err(|_| {
            ApiError::busy(format!(
                "the server already runs {} searches (its limit, --max-searches); \
                 stop an analysis or wait for a reply",
                self.max_searches
            ))
        })
    }

    /// Searches running now.
    pub fn searches_running(&self) -> usize {
        self.max_searches - self.slots.available_permits()
    }

    /// The limit on searches at once.
    pub fn max_searches(&self) -> usize {
        self.max_searches
    }
}

/// Stops a search when dropped: held by the request (or its event stream),
/// so a closed tab or dropped connection stops the search it started.
pub struct StopOnDrop(pub Option<StopHandle>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(stop) = &self.0 {
            stop.stop();
        }
    }
}

/// A requested time clamped to `[10 ms, max]`; `None` gives `default`.
pub fn clamp_time(requested_ms: Option<u64>, default: Duration, max: Duration) -> Duration {
    requested_ms
        .map_or(default, Duration::from_millis)
        .clamp(Duration::from_millis(10), max)
}
