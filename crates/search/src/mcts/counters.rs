//! What a search spent its network calls on: the figures behind the
//! forced-move pass-through and the capture leaves (docs/BENCHMARKS.md).

use std::ops::AddAssign;

/// Counts since a [`Search`](super::Search) was made (over all its
/// searches). A node is counted once, when it is first expanded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchCounters {
    /// Positions evaluated (network calls' positions; roots included).
    pub evaluations: u64,
    /// ... of which had exactly one legal move.
    pub forced_evaluations: u64,
    /// ... of which had a capture due (the side to move must capture).
    pub capture_evaluations: u64,
    /// Positions with exactly one legal move expanded without an evaluation
    /// of their own (passed through to their child).
    pub passed_through: u64,
    /// Positions with a choice of captures expanded without an evaluation
    /// (`capture_leaves`).
    pub passed_captures: u64,
}

impl SearchCounters {
    /// Share of the expanded positions that had exactly one legal move
    /// (evaluated or passed through).
    pub fn forced_share(&self) -> f64 {
        share(
            self.forced_evaluations + self.passed_through,
            self.evaluations + self.passed_through + self.passed_captures,
        )
    }

    /// Share of the evaluated positions that had exactly one legal move.
    pub fn forced_evaluation_share(&self) -> f64 {
        share(self.forced_evaluations, self.evaluations)
    }

    /// Share of the evaluated positions with a capture due.
    pub fn capture_evaluation_share(&self) -> f64 {
        share(self.capture_evaluations, self.evaluations)
    }

    /// One line for benchmarks and logs.
    pub fn summary(&self) -> String {
        format!(
            "{} evaluations ({:.1} % forced, {:.1} % with a capture due), {} forced nodes and {} \
             capture choices passed through; forced share of expanded nodes {:.1} %",
            self.evaluations,
            100.0 * self.forced_evaluation_share(),
            100.0 * self.capture_evaluation_share(),
            self.passed_through,
            self.passed_captures,
            100.0 * self.forced_share(),
        )
    }
}

fn share(n: u64, of: u64) -> f64 {
    if of == 0 { 0.0 } else { n as f64 / of as f64 }
}

impl AddAssign for SearchCounters {
    fn add_assign(&mut self, other: SearchCounters) {
        self.evaluations += other.evaluations;
        self.forced_evaluations += other.forced_evaluations;
        self.capture_evaluations += other.capture_evaluations;
        self.passed_through += other.passed_through;
        self.passed_captures += other.passed_captures;
    }
}
