//! What the long-running network commands (`train`, `selfplay`, `learn`)
//! share: the run options, the configuration with its built-in default,
//! and the line that says how to resume a stopped run.

use crate::progress::Progress;
use anyhow::Result;
use shashki_train::{RunConfig, RunSummary};
use std::path::Path;

/// The default configuration, built in so `shashki train` works from any
/// directory.
const BUILTIN_CPU_CONFIG: &str = include_str!("../../../configs/cpu.toml");
/// The config path used when none is given.
pub(crate) const DEFAULT_CONFIG: &str = "configs/cpu.toml";

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

impl RunArgs {
    /// The progress display these options ask for.
    pub(crate) fn progress(&self) -> Progress {
        Progress::new(self.plain, self.progress_every)
    }
}

/// Says where a stopped run stands and the command (`resume`) that goes on
/// from there; a run stopped for want of disk space is then an error
/// (exit status [`crate::LOW_DISK_EXIT`]).
pub(crate) fn report_stop(resume: &str, summary: &RunSummary) -> Result<()> {
    println!(
        "stopped at generation {}, step {} (checkpoint {}); to resume: {resume}",
        summary.state.generation,
        summary.state.step,
        summary.checkpoint.display(),
    );
    match &summary.low_disk {
        Some(low) => Err(low.clone().into()),
        None => Ok(()),
    }
}
