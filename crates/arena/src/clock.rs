//! Game clocks: a base time plus an increment per move (the FMJD's
//! controls, e.g. `--tc 60+1`), kept by the arena for each side. A side
//! whose clock runs out (beyond the arena's latency margin) loses the game
//! on time.

use shashki_rules::Color;
use shashki_search::SearchLimits;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// Default allowance for process and pipe latency before a side flags.
pub const DEFAULT_TIME_MARGIN: Duration = Duration::from_millis(50);

/// A time control: `base` for the game plus `increment` after each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Time for the whole game at the start.
    pub base: Duration,
    /// Time added after each move.
    pub increment: Duration,
}

/// `BASE[+INC]` in seconds, decimals allowed: `60+1`, `0.5+0.05`, `300`.
impl FromStr for TimeControl {
    type Err = String;

    fn from_str(text: &str) -> Result<TimeControl, String> {
        let seconds = |part: &str, what: &str| -> Result<Duration, String> {
            let value: f64 = part.trim().parse().map_err(|_| {
                format!("time control {text:?}: {what} {part:?} is not a number of seconds")
            })?;
            if !(value.is_finite() && (0.0..=86_400.0).contains(&value)) {
                return Err(format!(
                    "time control {text:?}: {what} {part:?} must be between 0 and 86400 seconds"
                ));
            }
            Ok(Duration::from_secs_f64(value))
        };
        let (base, increment) = match text.split_once('+') {
            Some((b, i)) => (seconds(b, "base")?, seconds(i, "increment")?),
            None => (seconds(text, "base")?, Duration::ZERO),
        };
        if base.is_zero() {
            return Err(format!(
                "time control {text:?}: the base time must be positive"
            ));
        }
        Ok(TimeControl { base, increment })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}+{}",
            self.base.as_secs_f64(),
            self.increment.as_secs_f64()
        )
    }
}

/// Both sides' clocks during one game.
#[derive(Clone, Debug)]
pub struct GameClock {
    control: TimeControl,
    margin: Duration,
    left: [Duration; 2],
}

/// A side used more time than its clock held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flagged {
    /// Time the move took.
    pub used: Duration,
    /// Time the clock held before the move.
    pub had: Duration,
}

impl fmt::Display for Flagged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "time forfeit: the move took {} ms with {} ms on the clock",
            self.used.as_millis(),
            self.had.as_millis()
        )
    }
}

fn index(side: Color) -> usize {
    match side {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl GameClock {
    /// Fresh clocks for both sides; `margin` is tolerated past zero.
    pub fn new(control: TimeControl, margin: Duration) -> GameClock {
        GameClock {
            control,
            margin,
            left: [control.base; 2],
        }
    }

    /// Time left on `side`'s clock.
    pub fn left(&self, side: Color) -> Duration {
        self.left[index(side)]
    }

    /// The limits sent with `go`: both clocks and increments.
    pub fn limits(&self) -> SearchLimits {
        SearchLimits::clock(
            (self.left[0], self.control.increment),
            (self.left[1], self.control.increment),
        )
    }

    /// The longest `side` may take before it has lost on time.
    pub fn allowance(&self, side: Color) -> Duration {
        self.left(side) + self.margin
    }

    /// Charges `used` to `side` after its move and adds the increment; a
    /// move longer than the clock (plus the margin) has lost on time.
    pub fn charge(&mut self, side: Color, used: Duration) -> Result<(), Flagged> {
        let had = self.left(side);
        if used > had + self.margin {
            return Err(Flagged { used, had });
        }
        self.left[index(side)] = had.saturating_sub(used) + self.control.increment;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_controls_and_refuses_nonsense() {
        let tc: TimeControl = "60+1".parse().unwrap();
        assert_eq!(tc.base, Duration::from_secs(60));
        assert_eq!(tc.increment, Duration::from_secs(1));
        let tc: TimeControl = "0.5+0.05".parse().unwrap();
        assert_eq!(tc.increment, Duration::from_millis(50));
        assert_eq!(
            "300".parse::<TimeControl>().unwrap().increment,
            Duration::ZERO
        );
        for bad in ["", "+1", "0+1", "x+1", "60+y", "-5", "1e9", "NaN"] {
            let err = bad.parse::<TimeControl>().unwrap_err();
            assert!(err.contains("time control"), "{bad}: {err}");
        }
    }

    #[test]
    fn clocks_run_down_add_increments_and_flag() {
        let tc = TimeControl {
            base: Duration::from_millis(1000),
            increment: Duration::from_millis(100),
        };
        let mut clock = GameClock::new(tc, Duration::from_millis(50));
        clock
            .charge(Color::White, Duration::from_millis(300))
            .unwrap();
        assert_eq!(clock.left(Color::White), Duration::from_millis(800));
        assert_eq!(clock.left(Color::Black), Duration::from_millis(1000));
        let limits = clock.limits();
        assert_eq!(limits.wtime, Some(Duration::from_millis(800)));
        assert_eq!(limits.binc, Some(Duration::from_millis(100)));
        // Within the margin: no flag, the clock stays at zero.
        clock
            .charge(Color::Black, Duration::from_millis(1040))
            .unwrap();
        assert_eq!(clock.left(Color::Black), Duration::from_millis(100));
        let flag = clock
            .charge(Color::White, Duration::from_millis(900))
            .unwrap_err();
        assert_eq!(flag.had, Duration::from_millis(800));
        assert!(flag.to_string().starts_with("time forfeit"));
    }
}
