//! The progress display of the long-running commands (`train`,
//! `selfplay`, `learn`): bars on a terminal, plain lines at a steady
//! interval where nobody sees a bar; it receives the training crate's
//! [`Observer`] events.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use shashki_train::{GenerationSummary, Observer, StepReport};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Progress bars on a terminal, and plain progress lines at a steady
/// interval where nobody sees the bar (piped stdout, --plain).
pub(crate) struct Progress {
    bar: ProgressBar,
    /// Print plain progress lines to stdout.
    lines: bool,
    ticker: Ticker,
    /// What runs now ("gen 3 self-play") and since when.
    phase: String,
    phase_started: Instant,
}

/// Says when a plain progress line is due: every `every`, counted from the
/// start of each phase.
#[derive(Debug)]
struct Ticker {
    every: Duration,
    last: Instant,
}

impl Ticker {
    fn restart(&mut self, now: Instant) {
        self.last = now;
    }

    fn due(&mut self, now: Instant) -> bool {
        if now.duration_since(self.last) >= self.every {
            self.last = now;
            true
        } else {
            false
        }
    }
}

impl Progress {
    /// Bars on stderr when it is a terminal and `plain` is not asked for;
    /// plain lines every `every_seconds` when stdout is not a terminal or
    /// the bar is off.
    pub(crate) fn new(plain: bool, every_seconds: f64) -> Progress {
        let bar = if plain {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr())
        };
        let lines = bar.is_hidden() || !std::io::stdout().is_terminal();
        let every =
            Duration::try_from_secs_f64(every_seconds.max(0.0)).unwrap_or(Duration::from_secs(10));
        let now = Instant::now();
        Progress {
            bar,
            lines,
            ticker: Ticker { every, last: now },
            phase: String::new(),
            phase_started: now,
        }
    }

    fn restyle(&mut self, template: &str, len: u64, prefix: String) {
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        self.bar.set_style(style);
        self.bar.set_length(len);
        // Position, elapsed time and ETA all count from this phase.
        self.bar.reset();
        self.bar.set_prefix(prefix.trim_end().to_string());
        self.phase = prefix.trim_end().to_string();
        self.phase_started = Instant::now();
        self.ticker.restart(self.phase_started);
    }

    /// A plain progress line, if one is due.
    fn tick(&mut self, what: impl FnOnce() -> String) {
        if self.lines && self.ticker.due(Instant::now()) {
            println!(
                "{}: {} ({:.0}s)",
                self.phase,
                what(),
                self.phase_started.elapsed().as_secs_f64()
            );
        }
    }

    /// Prints a line above the bar.
    pub(crate) fn line(&self, text: &str) {
        if self.bar.is_hidden() {
            println!("{text}");
        } else {
            self.bar.println(text);
        }
    }

    /// Removes the bar.
    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Observer for Progress {
    fn message(&mut self, line: &str) {
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
    }

    fn selfplay_started(&mut self, generation: u64, games: usize) {
        self.restyle(
            "{prefix} [{bar:30}] {pos}/{len} games {elapsed_precise} (eta {eta})",
            games as u64,
            format!("gen {generation} self-play"),
        );
    }

    fn selfplay_progress(&mut self, done: usize, total: usize) {
        self.bar.set_position(done as u64);
        self.tick(|| format!("{done}/{total} games"));
    }

    fn training_started(&mut self, generation: u64, steps: u64) {
        self.restyle(
            "{prefix} [{bar:30}] {pos}/{len} steps {msg}",
            steps,
            format!("gen {generation} training "),
        );
    }

    fn training_step(&mut self, report: &StepReport, losses: &str) {
        self.bar.inc(1);
        self.bar
            .set_message(format!("step {} {losses}", report.step));
        let (done, len) = (self.bar.position(), self.bar.length().unwrap_or(0));
        self.tick(|| format!("{done}/{len} steps, step {}, {losses}", report.step));
    }

    fn generation_done(&mut self, summary: &GenerationSummary) {
        self.line(&summary.line());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ticker_fires_once_per_interval_from_the_phase_start() {
        let start = Instant::now();
        let mut ticker = Ticker {
            every: Duration::from_secs(10),
            last: start,
        };
        assert!(!ticker.due(start + Duration::from_secs(9)));
        assert!(ticker.due(start + Duration::from_secs(10)));
        assert!(!ticker.due(start + Duration::from_secs(19)));
        assert!(ticker.due(start + Duration::from_secs(21)));
        ticker.restart(start + Duration::from_secs(100));
        assert!(!ticker.due(start + Duration::from_secs(105)));
    }

    #[test]
    fn a_new_phase_restarts_the_bar_clock() {
        let mut progress = Progress::new(true, 10.0);
        std::thread::sleep(Duration::from_millis(300));
        assert!(progress.bar.elapsed() >= Duration::from_millis(300));
        progress.selfplay_started(2, 10);
        assert!(
            progress.bar.elapsed() < Duration::from_millis(300),
            "the timer counts from the start of the generation"
        );
        assert_eq!(progress.phase, "gen 2 self-play");
    }
}
