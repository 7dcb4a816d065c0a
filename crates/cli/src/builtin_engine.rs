//! The engine `play`, `analyse` and `engine` run when none is named: the
//! strongest shipped model, `models/nnue-2h` (alpha-beta with its NNUE;
//! its ratings at equal time are in models/README.md). Its integer weights
//! are built into the binary (43 kB), so the default works from any folder
//! and after `cargo install`.

use shashki_nnue::{NnueError, NnueEval, load_quantized_bytes};
use std::path::Path;
use std::sync::Arc;

/// The shipped model built in.
pub const BUILTIN_MODEL: &str = "models/nnue-2h";

const MODEL_JSON: &str = include_str!("../../../models/nnue-2h/model.json");
const QUANTIZED: &[u8] = include_bytes!("../../../models/nnue-2h/quantized.safetensors");

/// The built-in model's evaluation, checked like a model folder on disk.
pub fn builtin_evaluator() -> Result<NnueEval, NnueError> {
    let origin = Path::new("built-in").join(BUILTIN_MODEL);
    let net = load_quantized_bytes(MODEL_JSON, QUANTIZED, &origin)?;
    Ok(NnueEval::new(
        Arc::new(net),
        format!("built-in nnue {BUILTIN_MODEL}"),
    ))
}
