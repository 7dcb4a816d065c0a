//! Helpers shared by the integration tests.

#![allow(dead_code)]

use shashki_train::RunConfig;
use std::path::Path;

pub use shashki_atomic::testing::temp_dir;

/// configs/smoke.toml.
pub fn smoke_config() -> RunConfig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/smoke.toml");
    RunConfig::load(&path).unwrap()
}
