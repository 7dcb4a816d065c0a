//! `--disk-floor-gb`, for the commands that write for hours outside a run
//! directory (`relabel`, `book score`): the floor watched while they work,
//! which stops them as a signal does (everything done so far kept).

use shashki_atomic::room::DEFAULT_FLOOR_GB;
use shashki_atomic::{DiskFloor, FloorWatch};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The floor option.
#[derive(clap::Args)]
pub(crate) struct FloorArgs {
    /// Gigabytes that must stay free on the output's disk: below them the
    /// command stops with what it did saved (exit status 75); run it again
    /// once there is room. 0: no floor.
    #[arg(long, value_name = "GB", default_value_t = DEFAULT_FLOOR_GB)]
    pub(crate) disk_floor_gb: f64,
}

impl FloorArgs {
    /// Watches the disk of `out` (a folder, or a file's folder), raising
    /// `stop` below the floor.
    pub(crate) fn watch(&self, out: &Path, file: bool, stop: &Arc<AtomicBool>) -> FloorWatch {
        let floor = DiskFloor::of_output(out, file, self.disk_floor_gb);
        FloorWatch::start(floor, Arc::clone(stop), Duration::from_secs(1))
    }
}
