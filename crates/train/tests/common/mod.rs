//! Helpers shared by the integration tests.

#![allow(dead_code)]

use shashki_train::RunConfig;
use std::path::{Path, PathBuf};

/// A fresh empty directory under the system temp dir.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "shashki-train-it-{tag}-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// configs/smoke.toml.
pub fn smoke_config() -> RunConfig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/smoke.toml");
    RunConfig::load(&path).unwrap()
}
