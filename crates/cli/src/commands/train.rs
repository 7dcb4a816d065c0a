//! `shashki train`: the whole loop, generation by generation (self-play ->
//! training -> gating -> repeat), resumable from its run directory.
//!
//! With no arguments it uses `configs/cpu.toml` (or the copy built into the
//! binary when that file is not there) and `runs/default`.

use crate::signals::stop_on_signals;
use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use shashki_arena::{
    EloModel, GateConfig, GateMethod, MctsSettings, PlayerFactory, PlayerKind, PlayerSpec,
};
use shashki_net::device_from_name;
use shashki_search::{Algorithm, SearchLimits};
use shashki_train::config::{EngineFamily, GateMethodKind, GatingSection};
use shashki_train::pipeline::mix;
use shashki_train::{
    GateVerdict, Gatekeeper, GenerationSummary, Observer, RunConfig, RunSummary, StepReport,
    TrainOptions,
};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The default configuration, built in so `shashki train` works from any
/// directory.
const BUILTIN_CPU_CONFIG: &str = include_str!("../../../../configs/cpu.toml");
/// The config path used when none is given.
const DEFAULT_CONFIG: &str = "configs/cpu.toml";

/// Options of `shashki train`.
#[derive(clap::Args)]
pub struct Args {
    /// Run configuration (TOML; see configs/). A resumed run keeps the
    /// configuration saved in its run directory.
    #[arg(long, default_value = DEFAULT_CONFIG)]
    config: PathBuf,
    /// Run directory: chunks, checkpoints, tensorboard logs. Rerunning on an
    /// existing one resumes it.
    #[arg(long, default_value = "runs/default")]
    run_dir: PathBuf,
    #[command(flatten)]
    run: RunArgs,
    /// Total generations to reach (overrides `[run] generations`; counts the
    /// ones already done when resuming). 0 runs until stopped.
    #[arg(long)]
    generations: Option<u64>,
    /// Start from a fresh network when the run's checkpoints exist but none
    /// loads (they are moved to `checkpoints/unreadable/`, not deleted).
    #[arg(long)]
    restart: bool,
}

/// Options shared by the long-running network commands (train, selfplay,
/// learn).
#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// Compute device: cpu, or wgpu / wgpu:N in builds with the wgpu feature.
    #[arg(long, default_value = "cpu")]
    pub(crate) device: String,
    /// Plain log lines instead of progress bars.
    #[arg(long)]
    pub(crate) plain: bool,
    /// Seconds between plain progress lines on stdout, printed when stdout
    /// is not a terminal (a log file, `| tee`, CI) or with --plain.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub(crate) progress_every: f64,
}

/// Loads a config file; the default path falls back to the built-in copy.
pub(crate) fn load_config(path: &Path) -> Result<RunConfig> {
    if !path.exists() && path == Path::new(DEFAULT_CONFIG) {
        eprintln!("{DEFAULT_CONFIG} not found here; using the built-in copy");
        return Ok(RunConfig::from_toml(
            BUILTIN_CPU_CONFIG,
            Path::new("<built-in cpu.toml>"),
        )?);
    }
    Ok(RunConfig::load(path)?)
}

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
    pub(crate) fn new(args: &RunArgs) -> Progress {
        let bar = if args.plain {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr())
        };
        let lines = bar.is_hidden() || !std::io::stdout().is_terminal();
        let every = Duration::try_from_secs_f64(args.progress_every.max(0.0))
            .unwrap_or(Duration::from_secs(10));
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

    fn training_step(&mut self, report: &StepReport) {
        self.bar.inc(1);
        self.bar.set_message(format!(
            "step {} loss {:.3} (p {:.3} v {:.3})",
            report.step, report.total, report.policy, report.value
        ));
        let (done, len) = (self.bar.position(), self.bar.length().unwrap_or(0));
        self.tick(|| {
            format!(
                "{done}/{len} steps, step {}, loss {:.4} (policy {:.4}, value {:.4})",
                report.step, report.total, report.policy, report.value
            )
        });
    }

    fn generation_done(&mut self, summary: &GenerationSummary) {
        self.line(&summary.line());
    }
}

/// Where a stopped run stands and the command (`resume`) that goes on
/// from there.
pub(crate) fn stopped_line(resume: &str, summary: &RunSummary) -> String {
    format!(
        "stopped at generation {}, step {} (checkpoint {}); to resume: {resume}",
        summary.state.generation,
        summary.state.step,
        summary.checkpoint.display(),
    )
}

/// Gating with the arena: candidate and best checkpoint play a match
/// (SPRT or fixed games) under the official rules; the games are saved as
/// PDN in `<run-dir>/gating/`.
struct ArenaGate {
    device: String,
    pdn_dir: PathBuf,
    gates: u64,
}

impl ArenaGate {
    /// An NNUE gating player: the checkpoint itself (quantized on loading,
    /// as its export would be), searched by alpha-beta at `[nnue]
    /// gate_depth` on one thread.
    fn nnue_player(&self, path: &Path, depth: u32) -> Result<PlayerFactory, String> {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let spec = PlayerSpec {
            name,
            kind: PlayerKind::Nnue {
                path: path.to_path_buf(),
                limits: SearchLimits {
                    depth: Some(depth),
                    ..SearchLimits::default()
                },
                threads: 1,
            },
        };
        PlayerFactory::new(spec).map_err(|e| e.to_string())
    }

    fn player(
        &self,
        path: &Path,
        gating: &GatingSection,
        algorithm: Algorithm,
        batch: usize,
    ) -> Result<PlayerFactory, String> {
        let evaluator = shashki_arena::net::load_evaluator(path, &self.device)?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let search = MctsSettings {
            simulations: gating.simulations,
            algorithm,
            ..MctsSettings::default()
        };
        Ok(PlayerFactory::with_evaluator(
            &name, evaluator, search, batch,
        ))
    }
}

impl Gatekeeper for ArenaGate {
    fn gate(
        &mut self,
        run: &RunConfig,
        candidate: &Path,
        best: &Path,
        log: &mut dyn FnMut(&str),
    ) -> Result<GateVerdict, String> {
        self.gates += 1;
        let g = &run.gating;
        let config = GateConfig {
            method: match g.method {
                GateMethodKind::Sprt => GateMethod::Sprt,
                GateMethodKind::Fixed => GateMethod::Fixed,
            },
            elo0: g.elo0,
            elo1: g.elo1,
            alpha: g.alpha,
            beta: g.beta,
            model: EloModel::Logistic,
            min_games: g.min_games.into(),
            max_games: g.max_games.into(),
            games: g.games.into(),
            threshold: g.threshold,
            concurrency: g.concurrency,
            max_plies: run.max_plies(),
            openings: None,
            seed: mix(run.run.seed, self.gates),
        };
        let batch = run.selfplay.batch_size;
        let (candidate_player, best_player) = match run.run.engine {
            EngineFamily::Mcts => (
                self.player(candidate, g, run.search.algorithm, batch)?,
                self.player(best, g, run.search.algorithm, batch)?,
            ),
            EngineFamily::Nnue => (
                self.nnue_player(candidate, run.nnue.gate_depth)?,
                self.nnue_player(best, run.nnue.gate_depth)?,
            ),
        };
        let outcome = shashki_arena::gate(&candidate_player, &best_player, &config, log)?;
        let pdn = self.pdn_dir.join(format!(
            "{}-vs-{}.pdn",
            candidate_player.name(),
            best_player.name()
        ));
        if let Err(e) = std::fs::create_dir_all(&self.pdn_dir)
            .and_then(|()| outcome.report.write_pdn(&pdn, "Shashki Zero gating"))
        {
            log(&format!(
                "warning: gating games not saved to {}: {e}",
                pdn.display()
            ));
        }
        let elo = outcome.summary.elo().elo;
        Ok(GateVerdict {
            passed: outcome.passed,
            games: outcome.summary.wdl.games(),
            score: outcome.summary.wdl.score(),
            // A 100 % score has an infinite estimate; keep the sums finite.
            elo: if elo.is_finite() {
                elo
            } else {
                elo.signum() * 800.0
            },
            llr: outcome.llr,
            line: outcome.verdict,
        })
    }
}

/// Runs `shashki train`.
pub fn run(args: Args) -> Result<()> {
    let config = load_config(&args.config)?;
    let device = device_from_name(&args.run.device)?;
    let stop = stop_on_signals()?;
    let mut progress = Progress::new(&args.run);
    let net = match config.run.engine {
        EngineFamily::Mcts => format!(
            "net {} {}x{}",
            config.net.kind, config.net.blocks, config.net.channels
        ),
        EngineFamily::Nnue => format!(
            "nnue {}x{:?}, alpha-beta self-play at depth {}",
            config.nnue.ft, config.nnue.hidden, config.nnue.depth
        ),
    };
    progress.line(&format!(
        "shashki train: run {} | config {} | device {} | {net} | self-play on {} | {} games/gen, {} steps/gen",
        args.run_dir.display(),
        args.config.display(),
        args.run.device,
        config.selfplay.threads_line(),
        config.selfplay.games_per_generation,
        config.train.steps_per_generation
    ));
    let mut gate = ArenaGate {
        device: args.run.device.clone(),
        pdn_dir: args.run_dir.join("gating"),
        gates: 0,
    };
    let options = TrainOptions {
        config,
        run_dir: args.run_dir.clone(),
        device,
        generations: args.generations,
        restart: args.restart,
        stop,
    };
    let summary = shashki_train::train(options, &mut progress, Some(&mut gate))
        .with_context(|| format!("training in {}", args.run_dir.display()))?;
    progress.finish();
    if summary.stopped {
        let resume = format!("shashki train --run-dir {}", args.run_dir.display());
        println!("{}", stopped_line(&resume, &summary));
        return Ok(());
    }
    println!(
        "done: generation {}, step {}, {} games, {} samples; newest checkpoint {}",
        summary.state.generation,
        summary.state.step,
        summary.state.games,
        summary.state.samples,
        summary.checkpoint.display()
    );
    Ok(())
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
        let args = RunArgs {
            device: "cpu".into(),
            plain: true,
            progress_every: 10.0,
        };
        let mut progress = Progress::new(&args);
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
