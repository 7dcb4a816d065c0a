//! When iterative deepening starts no new iteration under a clock. The
//! plain rule: none past half the planned time (an iteration costs several
//! times the one before). The adaptive rule (Scan's, with a score term)
//! scales that point by how settled the search is: each iteration that
//! keeps the best move shortens it (x 0.9, down to 0.6), a new best move
//! lengthens it (x 1.2 from at least 1, up to 2), and a score that fell
//! by a quarter of a man or more since the last iteration asks for at
//! least 1.5. The hard limit stays the engine's deadline either way.

use shashki_rules::Move;
use std::time::Duration;

/// How the planned time of a move is spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TimeUse {
    /// Stop starting iterations at half the planned time.
    #[default]
    Plain,
    /// The same point, scaled by the stability of the best move and score.
    Adaptive,
}

impl TimeUse {
    /// Reads `plain` or `adaptive`.
    pub fn parse(text: &str) -> Result<TimeUse, String> {
        match text {
            "plain" => Ok(TimeUse::Plain),
            "adaptive" => Ok(TimeUse::Adaptive),
            _ => Err(format!(
                "unknown time use '{text}' (known: plain, adaptive)"
            )),
        }
    }
}

/// A score drop (centi-men) between iterations that asks for more time.
const SCORE_DROP: i32 = 25;

/// The running decision of one timed search.
pub struct IterationClock {
    rule: TimeUse,
    /// Half the planned time: `None` without a clock (or a fixed movetime).
    base: Option<Duration>,
    factor: f64,
    last: Option<(Move, i32)>,
}

impl IterationClock {
    /// A clock for a search whose planned time's half is `base`.
    pub fn new(rule: TimeUse, base: Option<Duration>) -> IterationClock {
        IterationClock {
            rule,
            base,
            factor: 1.0,
            last: None,
        }
    }

    /// An iteration completed with `best` and `score`.
    pub fn completed(&mut self, best: Option<Move>, score: i32) {
        let Some(best) = best else { return };
        if let (TimeUse::Adaptive, Some((last_move, last_score))) = (self.rule, self.last) {
            self.factor = if best == last_move {
                (self.factor * 0.9).max(0.6)
            } else {
                (self.factor.max(1.0) * 1.2).min(2.0)
            };
            if score <= last_score - SCORE_DROP {
                self.factor = self.factor.max(1.5);
            }
        }
        self.last = Some((best, score));
    }

    /// True when no new iteration should start after `elapsed`.
    pub fn should_stop(&self, elapsed: Duration) -> bool {
        self.base
            .is_some_and(|base| elapsed >= base.mul_f64(self.factor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_rules::Position;

    #[test]
    fn a_settled_search_stops_sooner_and_an_unsettled_one_later() {
        let moves = Position::startpos().legal_moves();
        let (a, b) = (moves[0], moves[1]);
        let half = Duration::from_millis(100);
        let mut plain = IterationClock::new(TimeUse::Plain, Some(half));
        let mut settled = IterationClock::new(TimeUse::Adaptive, Some(half));
        for _ in 0..6 {
            plain.completed(Some(a), 10);
            settled.completed(Some(a), 10);
        }
        let at = Duration::from_millis(70);
        assert!(
            !plain.should_stop(at) && settled.should_stop(at),
            "0.6 x 100 ms"
        );
        let mut changing = IterationClock::new(TimeUse::Adaptive, Some(half));
        for i in 0..6 {
            changing.completed(Some(if i % 2 == 0 { a } else { b }), 10);
        }
        assert!(
            !changing.should_stop(Duration::from_millis(190)),
            "up to 2 x"
        );
        let mut falling = IterationClock::new(TimeUse::Adaptive, Some(half));
        falling.completed(Some(a), 50);
        falling.completed(Some(a), 20);
        assert!(
            !falling.should_stop(Duration::from_millis(140)),
            "1.5 x on a drop"
        );
        let none = IterationClock::new(TimeUse::Adaptive, None);
        assert!(!none.should_stop(Duration::from_secs(100)), "no clock");
        assert_eq!(TimeUse::parse("adaptive"), Ok(TimeUse::Adaptive));
        assert!(TimeUse::parse("fast").is_err());
    }
}
