//! What a run tells its caller: progress as it goes ([`Observer`], from
//! which the command line draws its progress bars), a line per generation
//! ([`GenerationSummary`]) and the outcome ([`RunSummary`]).

use crate::gate::GateVerdict;
use crate::net_learner::StepReport;
use crate::state::LearnerState;
use shashki_atomic::LowDisk;
use shashki_atomic::room::size;
use shashki_selfplay::SelfPlayStats;
use std::path::PathBuf;

/// Receives progress (the command line draws progress bars from it).
pub trait Observer {
    /// A note or warning, one line.
    fn message(&mut self, _line: &str) {}
    /// Self-play of a generation starts.
    fn selfplay_started(&mut self, _generation: u64, _games: usize) {}
    /// A self-play game finished (`done` of `total`).
    fn selfplay_progress(&mut self, _done: usize, _total: usize) {}
    /// Training of a generation starts (at most `steps` steps).
    fn training_started(&mut self, _generation: u64, _steps: u64) {}
    /// A training step finished; `losses` names its losses as the
    /// family does (`loss 0.0300 (expected-score MSE)`).
    fn training_step(&mut self, _report: &StepReport, _losses: &str) {}
    /// A generation is complete.
    fn generation_done(&mut self, _summary: &GenerationSummary) {}
}

/// An observer that ignores everything.
pub struct Silent;
impl Observer for Silent {}

/// What one generation did.
#[derive(Clone, Debug)]
pub struct GenerationSummary {
    /// Generation number (1 = the first completed).
    pub generation: u64,
    /// Learner step at the end.
    pub step: u64,
    /// Self-play counters.
    pub selfplay: SelfPlayStats,
    /// Steps trained in this generation.
    pub steps: u64,
    /// Mean losses over those steps, as the family words them (MCTS:
    /// total, policy, value), if any step ran.
    pub losses: Option<String>,
    /// Samples in the replay window.
    pub window: usize,
    /// Training samples per second.
    pub train_samples_per_second: f64,
    /// The gate's verdict, if one ran.
    pub gate: Option<GateVerdict>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Samples trained per sample played over the run, in concurrent runs
    /// (where the learner is held to a target).
    pub replay_ratio: Option<f64>,
    /// The run directory's bytes after it (chunks, checkpoints, logs).
    pub run_bytes: Option<u64>,
}

impl GenerationSummary {
    /// The one-line summary printed per generation.
    pub fn line(&self) -> String {
        let s = &self.selfplay;
        let [w, d, b] = s.result_shares();
        let losses = match &self.losses {
            Some(line) => line.clone(),
            None => "no training (waiting for samples)".into(),
        };
        let ratio = match self.replay_ratio {
            Some(r) => format!(", replay ratio {r:.2}"),
            None => String::new(),
        };
        let gate = match &self.gate {
            Some(g) => format!(" | gate: {}", g.line),
            None => String::new(),
        };
        let size = match self.run_bytes {
            Some(bytes) => format!(" | run {}", size(bytes)),
            None => String::new(),
        };
        // Alpha-beta self-play makes no network batches, and counts the
        // new distinct positions it produces.
        let fill = if s.batch_capacity > 0 {
            format!(", batch fill {:.0}%", 100.0 * s.mean_batch_fill())
        } else if s.distinct_positions > 0 {
            format!(", {:.0} new pos/h", s.distinct_positions_per_hour())
        } else {
            String::new()
        };
        format!(
            "gen {:>4} | step {:>7} | {} games {:.1}/min, {:.0} pos/s, len {:.0}, W/D/B {:.0}/{:.0}/{:.0}%{fill} \
             | {} steps, {}, window {}{ratio} | {:.0}s{size}{}",
            self.generation,
            self.step,
            s.games,
            60.0 * s.games_per_second(),
            s.positions_per_second(),
            s.mean_game_length(),
            100.0 * w,
            100.0 * d,
            100.0 * b,
            self.steps,
            losses,
            self.window,
            self.seconds,
            gate,
        )
    }
}

/// What the whole run did.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// Learner state at the end.
    pub state: LearnerState,
    /// Generations run by this call.
    pub generations_run: u64,
    /// The newest checkpoint.
    pub checkpoint: PathBuf,
    /// True if the run ended because a stop was requested or the disk's
    /// free space fell below its floor.
    pub stopped: bool,
    /// The disk's free space below its floor: why it stopped, if so.
    pub low_disk: Option<LowDisk>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(selfplay: SelfPlayStats) -> GenerationSummary {
        GenerationSummary {
            generation: 3,
            step: 120,
            selfplay,
            steps: 40,
            losses: Some("loss 1.500 (policy 1.000, value 0.500)".into()),
            window: 5000,
            train_samples_per_second: 800.0,
            gate: None,
            seconds: 61.4,
            replay_ratio: None,
            run_bytes: None,
        }
    }

    /// Ten games of 50 plies (400 samples) in 20 s: 6 White wins, 3 draws.
    fn ten_games() -> SelfPlayStats {
        SelfPlayStats {
            games: 10,
            plies: 500,
            samples: 400,
            white_wins: 6,
            draws: 3,
            black_wins: 1,
            wall_seconds: 20.0,
            ..SelfPlayStats::default()
        }
    }

    #[test]
    fn the_line_of_an_alpha_beta_generation_has_no_batch_fill() {
        assert_eq!(
            summary(ten_games()).line(),
            "gen    3 | step     120 | 10 games 30.0/min, 20 pos/s, len 50, W/D/B 60/30/10% \
             | 40 steps, loss 1.500 (policy 1.000, value 0.500), window 5000 | 61s"
        );
    }

    #[test]
    fn the_line_of_an_alpha_beta_generation_counts_new_positions_per_hour() {
        // 300 new distinct positions in 20 s: 54,000 an hour.
        let line = summary(SelfPlayStats {
            distinct_positions: 300,
            ..ten_games()
        })
        .line();
        assert!(
            line.contains("W/D/B 60/30/10%, 54000 new pos/h |"),
            "{line}"
        );
    }

    #[test]
    fn the_line_shows_batch_fill_waiting_and_the_gate() {
        let mut s = summary(SelfPlayStats {
            evaluations: 300,
            batch_capacity: 400,
            ..ten_games()
        });
        s.steps = 0;
        s.losses = None;
        s.replay_ratio = Some(1.996);
        s.gate = Some(GateVerdict {
            passed: true,
            games: 40,
            score: 0.6,
            elo: 70.4,
            llr: None,
            line: "passed".into(),
        });
        assert_eq!(
            s.line(),
            "gen    3 | step     120 | 10 games 30.0/min, 20 pos/s, len 50, W/D/B 60/30/10%, \
             batch fill 75% | 0 steps, no training (waiting for samples), window 5000, \
             replay ratio 2.00 | 61s | gate: passed"
        );
    }
}
