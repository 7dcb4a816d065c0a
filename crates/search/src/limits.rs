//! How long a search may run: fixed depth, node budget, time per move, a
//! game clock (`go wtime/btime/winc/binc/movestogo`) or until stopped, and
//! the time manager that turns a clock into a budget for one move.

use shashki_rules::Color;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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
    /// White's remaining clock time.
    pub wtime: Option<Duration>,
    /// Black's remaining clock time.
    pub btime: Option<Duration>,
    /// White's increment per move.
    pub winc: Option<Duration>,
    /// Black's increment per move.
    pub binc: Option<Duration>,
    /// Moves (of the side to move) until the next time control, if any.
    pub movestogo: Option<u32>,
    /// Search until stopped (`go infinite`); the other limits are ignored.
    pub infinite: bool,
}

/// Time the engine keeps in hand on every clocked move for what happens
/// outside its search: reading the command, one network batch finishing
/// after the deadline, writing `bestmove`, process scheduling.
pub const MOVE_OVERHEAD: Duration = Duration::from_millis(30);

/// Moves assumed left in the game when the clock does not say
/// (`movestogo`): a checkers game lasts about 40-60 moves a side, and an
/// engine that assumes more moves than remain only keeps time in hand.
pub const DEFAULT_MOVES_TO_GO: u32 = 30;

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

    /// Search with both sides' clocks: `time` left and `increment` per move.
    pub fn clock(white: (Duration, Duration), black: (Duration, Duration)) -> SearchLimits {
        SearchLimits {
            wtime: Some(white.0),
            winc: Some(white.1),
            btime: Some(black.0),
            binc: Some(black.1),
            ..SearchLimits::default()
        }
    }

    /// Search until stopped.
    pub fn infinite() -> SearchLimits {
        SearchLimits {
            infinite: true,
            ..SearchLimits::default()
        }
    }

    /// True if no limit is set (each engine then uses its default).
    pub fn is_unlimited(&self) -> bool {
        !self.infinite
            && self.depth.is_none()
            && self.nodes.is_none()
            && self.movetime.is_none()
            && self.wtime.is_none()
            && self.btime.is_none()
    }

    /// The remaining time and increment of `side`, if its clock is given.
    pub fn clock_of(&self, side: Color) -> Option<(Duration, Duration)> {
        let (time, inc) = match side {
            Color::White => (self.wtime, self.winc),
            Color::Black => (self.btime, self.binc),
        };
        time.map(|t| (t, inc.unwrap_or(Duration::ZERO)))
    }

    /// How long `side` may think on this move: `None` without a time limit
    /// (or with `infinite`). `movetime` is taken as it is; a clock is
    /// shared out by [`TimeBudget::from_clock`]; with both, the smaller.
    pub fn time_budget(&self, side: Color) -> Option<TimeBudget> {
        if self.infinite {
            return None;
        }
        let fixed = self.movetime.map(TimeBudget::fixed);
        let clock = self
            .clock_of(side)
            .map(|(time, inc)| TimeBudget::from_clock(time, inc, self.movestogo, MOVE_OVERHEAD));
        match (fixed, clock) {
            (Some(a), Some(b)) => Some(TimeBudget {
                soft: a.soft.min(b.soft),
                hard: a.hard.min(b.hard),
            }),
            (a, b) => a.or(b),
        }
    }
}

/// The time for one move: the engine aims to stop at `soft` (sooner when the
/// answer is clear, later when it is not) and never searches past `hard`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// The planned time.
    pub soft: Duration,
    /// The most the move may take.
    pub hard: Duration,
}

impl TimeBudget {
    /// Exactly `movetime` (`go movetime`): soft and hard are the same.
    pub fn fixed(movetime: Duration) -> TimeBudget {
        TimeBudget {
            soft: movetime,
            hard: movetime,
        }
    }

    /// Shares out a clock: `time` left, `increment` per move, `moves_to_go`
    /// until the next control (else [`DEFAULT_MOVES_TO_GO`]), keeping
    /// `overhead` in hand. The planned time is an equal share of what is
    /// left plus most of the increment; the hard limit allows three times
    /// that for unclear positions, and neither ever exceeds 80 % of the time
    /// left after the overhead, so the clock cannot run out.
    pub fn from_clock(
        time: Duration,
        increment: Duration,
        moves_to_go: Option<u32>,
        overhead: Duration,
    ) -> TimeBudget {
        let usable = time.saturating_sub(overhead);
        let cap = usable.mul_f64(0.8).max(Duration::from_millis(1));
        let moves = moves_to_go.unwrap_or(DEFAULT_MOVES_TO_GO).clamp(1, 100);
        let share = usable / moves + increment.mul_f64(0.75);
        let floor = Duration::from_millis(1);
        TimeBudget {
            soft: share.min(cap).max(floor),
            hard: (share * 3).min(cap).max(floor),
        }
    }
}

/// A flag that stops a running search from another thread (the protocol's
/// `stop`). Cloning gives another handle to the same flag.
#[derive(Clone, Debug, Default)]
pub struct StopHandle(Arc<AtomicBool>);

impl StopHandle {
    /// A new, unset flag.
    pub fn new() -> StopHandle {
        StopHandle::default()
    }

    /// Asks the search to stop as soon as it can (it still answers a move).
    pub fn stop(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether a stop was asked for.
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    /// Clears the flag (done by whoever starts the next search).
    pub fn reset(&self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The deadlines of one running search, from its limits and start time.
#[derive(Clone, Debug)]
pub struct Deadlines {
    start: Instant,
    soft: Option<Instant>,
    hard: Option<Instant>,
    stop: Option<StopHandle>,
}

impl Deadlines {
    /// The deadlines of a search of `side`'s move started at `start`.
    pub fn new(
        limits: &SearchLimits,
        side: Color,
        start: Instant,
        stop: Option<StopHandle>,
    ) -> Deadlines {
        let budget = limits.time_budget(side);
        Deadlines {
            start,
            soft: budget.map(|b| start + b.soft),
            hard: budget.map(|b| start + b.hard),
            stop,
        }
    }

    /// When the search started.
    pub fn start(&self) -> Instant {
        self.start
    }

    /// True if the search has a time limit (it must end on time).
    pub fn is_timed(&self) -> bool {
        self.hard.is_some()
    }

    /// True when the search must end now: stopped, or past the hard limit.
    pub fn must_stop(&self) -> bool {
        self.stopped() || self.hard.is_some_and(|h| Instant::now() >= h)
    }

    /// True once the planned time is spent.
    pub fn soft_passed(&self) -> bool {
        self.soft.is_some_and(|s| Instant::now() >= s)
    }

    /// Time left until the planned time (zero once passed; `None` if untimed).
    pub fn until_soft(&self) -> Option<Duration> {
        self.soft
            .map(|s| s.saturating_duration_since(Instant::now()))
    }

    /// True if soft and hard differ (a clock, not a fixed move time): the
    /// engine may stop early or extend.
    pub fn is_flexible(&self) -> bool {
        self.soft != self.hard
    }

    /// Whether the stop flag is set.
    pub fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(StopHandle::is_stopped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn a_clock_is_shared_out_and_never_overdrawn() {
        let b = TimeBudget::from_clock(MS(60_000), MS(1_000), None, MOVE_OVERHEAD);
        // 59.97 s / 30 + 0.75 s
        assert_eq!(b.soft, MS(1999) + MS(750));
        assert_eq!(b.hard, b.soft * 3);
        // The last move before the control may use most, never all.
        let b = TimeBudget::from_clock(MS(1_000), MS(0), Some(1), MOVE_OVERHEAD);
        assert_eq!(b.hard, MS(776));
        assert!(b.soft <= b.hard);
        // Almost flagged: still a positive budget, well inside the clock.
        let b = TimeBudget::from_clock(MS(10), MS(0), None, MOVE_OVERHEAD);
        assert_eq!(b.hard, MS(1));
        // A big increment cannot push past the time left.
        let b = TimeBudget::from_clock(MS(200), MS(5_000), None, MOVE_OVERHEAD);
        assert!(b.hard <= MS(200 - 30));
    }

    #[test]
    fn the_side_to_move_uses_its_own_clock() {
        let limits = SearchLimits::clock((MS(10_000), MS(0)), (MS(1_000), MS(0)));
        let white = limits.time_budget(Color::White).unwrap();
        let black = limits.time_budget(Color::Black).unwrap();
        assert!(white.soft > black.soft * 5);
        let mut both = limits;
        both.movetime = Some(MS(5));
        assert_eq!(both.time_budget(Color::White).unwrap().hard, MS(5));
        assert_eq!(SearchLimits::infinite().time_budget(Color::White), None);
        assert!(!SearchLimits::infinite().is_unlimited());
        assert!(!limits.is_unlimited());
    }

    #[test]
    fn deadlines_follow_the_stop_flag() {
        let stop = StopHandle::new();
        let d = Deadlines::new(
            &SearchLimits::infinite(),
            Color::White,
            Instant::now(),
            Some(stop.clone()),
        );
        assert!(!d.must_stop() && !d.is_timed());
        stop.stop();
        assert!(d.must_stop());
        stop.reset();
        assert!(!d.must_stop());
        let d = Deadlines::new(
            &SearchLimits::movetime(MS(0)),
            Color::Black,
            Instant::now(),
            None,
        );
        assert!(d.must_stop() && d.is_timed() && !d.is_flexible());
    }
}
