//! The engine parameters a Hub GUI sees (`param` lines) and sets
//! (`set-param`).

use super::syntax::Line;
use crate::ProtocolError;
use shashki_search::limits::MOVE_OVERHEAD;
use std::time::Duration;

/// The only variant this engine plays: the `variant` parameter's one value.
pub const VARIANT: &str = "russian";

/// Most milliseconds `move-overhead` may keep in hand per move.
pub const MAX_OVERHEAD_MS: u64 = 60_000;

/// The parameters' current values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Time kept in hand on every timed move for what happens outside the
    /// search (`move-overhead`, in milliseconds; a bot on a server sets it
    /// to its network lag). Never below [`MOVE_OVERHEAD`].
    pub overhead: Duration,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            overhead: MOVE_OVERHEAD,
        }
    }
}

impl Params {
    /// The `param` lines of the `hub` answer.
    pub fn declarations(&self) -> Vec<Line> {
        vec![
            Line::new("param")
                .with("name", "variant")
                .with("value", VARIANT)
                .with("type", "enum")
                .with("values", VARIANT),
            Line::new("param")
                .with("name", "move-overhead")
                .with("value", self.overhead.as_millis())
                .with("type", "int")
                .with("min", MOVE_OVERHEAD.as_millis())
                .with("max", MAX_OVERHEAD_MS),
        ]
    }

    /// Applies `set-param name=<name> value=<value>`; a refused value leaves
    /// the parameter as it was.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ProtocolError> {
        match name {
            "variant" if value.eq_ignore_ascii_case(VARIANT) => Ok(()),
            "variant" => Err(ProtocolError::new(format!(
                "set-param variant: {value:?} is not supported (this engine plays {VARIANT} only)"
            ))),
            "move-overhead" => {
                let min = MOVE_OVERHEAD.as_millis() as u64;
                match value.parse::<u64>() {
                    Ok(ms) if (min..=MAX_OVERHEAD_MS).contains(&ms) => {
                        self.overhead = Duration::from_millis(ms);
                        Ok(())
                    }
                    _ => Err(ProtocolError::new(format!(
                        "set-param move-overhead: {value:?} is out of range \
                         (milliseconds from {min} to {MAX_OVERHEAD_MS})"
                    ))),
                }
            }
            // lidraughts-bot sets the game's initial clock on every engine;
            // the time manager works from `level` alone.
            "initial-time" => Ok(()),
            other => Err(ProtocolError::new(format!(
                "set-param: unknown parameter {other:?} (expected variant or move-overhead)"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declares_its_parameters_as_hub_lines() {
        let lines: Vec<String> = Params::default()
            .declarations()
            .iter()
            .map(Line::to_string)
            .collect();
        assert_eq!(
            lines,
            [
                "param name=variant value=russian type=enum values=russian",
                "param name=move-overhead value=30 type=int min=30 max=60000",
            ]
        );
    }

    #[test]
    fn accepts_russian_and_overheads_in_range_only() {
        let mut params = Params::default();
        params.set("variant", "russian").unwrap();
        params.set("variant", "Russian").unwrap();
        params.set("move-overhead", "500").unwrap();
        params.set("initial-time", "180").unwrap();
        assert_eq!(params.overhead, Duration::from_millis(500));
        for (name, value, needle) in [
            ("variant", "normal", "not supported"),
            ("move-overhead", "5", "out of range"),
            ("move-overhead", "60001", "out of range"),
            ("move-overhead", "soon", "out of range"),
            ("book", "true", "unknown parameter"),
        ] {
            let err = params.set(name, value).unwrap_err();
            assert!(
                err.message.contains(needle),
                "{name}={value}: {}",
                err.message
            );
        }
        assert_eq!(params.overhead, Duration::from_millis(500));
    }
}
