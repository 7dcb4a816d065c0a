//! How long a search may run: fixed depth, node budget or time per move.

use std::time::Duration;

/// Limits for one search. Every set limit applies; the search stops at the
/// first one reached. With none set, each engine uses its own default.
///
/// `nodes` means alpha-beta nodes for the alpha-beta engine and simulations
/// for MCTS; `depth` means plies for alpha-beta.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// Deepest nominal depth in plies (iterative deepening stops there).
    pub depth: Option<u32>,
    /// Budget of nodes (alpha-beta) or simulations (MCTS).
    pub nodes: Option<u64>,
    /// Wall-clock time for the move.
    pub movetime: Option<Duration>,
}

impl SearchLimits {
    /// Search to a fixed depth in plies.
    pub fn depth(depth: u32) -> SearchLimits {
        SearchLimits {
            depth: Some(depth),
            ..SearchLimits::default()
        }
    }

    /// Search for at most this many nodes (or simulations).
    pub fn nodes(nodes: u64) -> SearchLimits {
        SearchLimits {
            nodes: Some(nodes),
            ..SearchLimits::default()
        }
    }

    /// Search for at most this long.
    pub fn movetime(movetime: Duration) -> SearchLimits {
        SearchLimits {
            movetime: Some(movetime),
            ..SearchLimits::default()
        }
    }

    /// True if no limit is set.
    pub fn is_unlimited(&self) -> bool {
        self.depth.is_none() && self.nodes.is_none() && self.movetime.is_none()
    }
}
