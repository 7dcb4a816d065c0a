//! Ctrl-C and SIGTERM for the long-running commands: the first one sets a
//! flag the loops check at safe points (finish the step, save, say how to
//! resume); a second one ends the process at once (status 130).

use anyhow::{Context, Result};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Exit status after a second interrupt (128 + SIGINT).
const SECOND_SIGNAL_EXIT: i32 = 130;

/// A flag set by the first SIGINT or SIGTERM.
pub fn stop_on_signals() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as the earlier signal left it.
        signal_hook::flag::register_conditional_shutdown(
            signal,
            SECOND_SIGNAL_EXIT,
            Arc::clone(&stop),
        )
        .context("cannot install the signal handler")?;
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .context("cannot install the signal handler")?;
    }
    Ok(stop)
}
