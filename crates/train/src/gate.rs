//! The gate a run's new networks must pass before self-play uses them: the
//! trait the caller implements (the command line, with the arena; the
//! train crate does not depend on it) and its verdict.

use crate::config::RunConfig;
use std::path::Path;

/// What a gate decided (from the candidate's view).
#[derive(Clone, Debug, PartialEq)]
pub struct GateVerdict {
    /// Promote the candidate.
    pub passed: bool,
    /// Games played.
    pub games: u64,
    /// Candidate's score (points per game).
    pub score: f64,
    /// Elo difference estimate (candidate - best).
    pub elo: f64,
    /// Final log-likelihood ratio (SPRT only).
    pub llr: Option<f64>,
    /// One line saying why.
    pub line: String,
}

/// Plays a candidate checkpoint against the best one (implemented with the
/// arena by the command line; the train crate does not depend on it).
pub trait Gatekeeper {
    /// Plays `candidate` against `best` under the run's `[gating]`,
    /// `[search]` and `[draw_rules]` settings and decides; `log` receives
    /// progress lines.
    fn gate(
        &mut self,
        config: &RunConfig,
        candidate: &Path,
        best: &Path,
        log: &mut dyn FnMut(&str),
    ) -> Result<GateVerdict, String>;
}
