//! `builtin`, `builtin:depth=6`, `builtin:movetime=100[,threads=2]`: the
//! strongest shipped model, `models/nnue-data-2h` (alpha-beta with its NNUE; its
//! ratings at equal time are in models/README.md), the engine `play`,
//! `analyse`, `engine`, `hub` and `serve` run when none is named. Its
//! integer weights are built into the binary (43 kB), so it works from any
//! folder and after `cargo install`. Options as `ab`'s.

use super::ab::{AB_OPTIONS, ab_options};
use super::{EngineSetup, Kind};
use crate::spec::{AbSearch, PlayerKind};
use shashki_nnue::{NnueError, NnueEval, QuantNet, load_quantized_bytes};
use shashki_search::Engine;
use std::path::Path;
use std::sync::Arc;

/// The shipped model built in.
pub const BUILTIN_MODEL: &str = "models/nnue-data-2h";

const MODEL_JSON: &str = include_str!("../../../../models/nnue-data-2h/model.json");
const QUANTIZED: &[u8] = include_bytes!("../../../../models/nnue-data-2h/quantized.safetensors");

/// `builtin[:options]`.
pub(crate) const KIND: Kind = Kind {
    prefix: "builtin",
    syntax: "builtin:...",
    example: "builtin:depth=6,threads=2",
    takes_path: false,
    options: AB_OPTIONS,
    parse,
};

fn parse(rest: Option<&str>) -> Result<PlayerKind, String> {
    let (limits, search) = ab_options(rest.unwrap_or(""), "builtin")?;
    Ok(PlayerKind::Builtin { limits, search })
}

/// The built-in model's network, checked like a model folder on disk.
pub fn builtin_net() -> Result<QuantNet, NnueError> {
    load_quantized_bytes(MODEL_JSON, QUANTIZED, &origin())
}

fn origin() -> std::path::PathBuf {
    Path::new("built-in").join(BUILTIN_MODEL)
}

/// The built-in model's evaluation.
fn builtin_evaluator() -> Result<NnueEval, NnueError> {
    Ok(NnueEval::new(
        Arc::new(builtin_net()?),
        format!("built-in nnue {BUILTIN_MODEL}"),
    ))
}

/// The standalone engine: alpha-beta with the built-in model.
pub(crate) fn engine(search: AbSearch, setup: &EngineSetup) -> Result<Box<dyn Engine>, String> {
    let eval = builtin_evaluator().map_err(|e| e.to_string())?;
    Ok(super::ab::engine(search, Some(Box::new(eval)), setup))
}
