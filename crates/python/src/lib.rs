//! # shashki-python
//!
//! The extension module `shashki._shashki` behind `import shashki`: the
//! rules core, the engines, the networks, the self-play data and the
//! tablebases of Shashki Zero as a Python library (PyO3; built and
//! installed by maturin, `pip install ./crates/python`). The pure-Python
//! parts (the PettingZoo and Gymnasium environments, the type stubs) live
//! in `python/shashki`.
//!
//! One file per face: `game.rs` (rules: a game under the official draw
//! rules, its moves as notation and as policy indices, the input planes),
//! `engine.rs` (any player spec the arena knows, searching with the GIL
//! released), `network.rs` (the MCTS network's W/D/L and priors, the NNUE's
//! score), `data.rs` (sample chunks as numpy arrays), `tablebase.rs`
//! (probes); `positions.rs` reads the "a `Game` or a FEN" arguments they
//! share, `board.rs` reads FENs and makes input planes, `errors.rs` turns
//! our errors into Python exceptions.
//!
//! Bad input (a malformed FEN, an illegal move, a missing file) raises a
//! Python exception naming what and where; nothing here panics on it.

use pyo3::prelude::*;

mod board;
mod data;
mod engine;
mod errors;
mod game;
mod network;
mod positions;
mod tablebase;

/// The module `shashki._shashki`; `shashki/__init__.py` re-exports it.
#[pymodule]
fn _shashki(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<game::PyGame>()?;
    m.add_class::<engine::PyEngine>()?;
    m.add_class::<engine::PyAnalysis>()?;
    m.add_class::<network::PyNetwork>()?;
    m.add_class::<network::PyNnue>()?;
    m.add_class::<tablebase::PyTablebase>()?;
    m.add_function(wrap_pyfunction!(positions::encode, m)?)?;
    m.add_function(wrap_pyfunction!(game::perft, m)?)?;
    m.add_function(wrap_pyfunction!(data::read_chunk, m)?)?;
    m.add_function(wrap_pyfunction!(data::read_chunks, m)?)?;
    m.add("START_FEN", shashki_rules::START_FEN)?;
    m.add("POLICY_SIZE", shashki_net::POLICY_LEN)?;
    m.add("INPUT_PLANES", shashki_net::encoding::INPUT_PLANES)?;
    m.add("PLANE_NAMES", shashki_net::encoding::Plane::NAMES.to_vec())?;
    data::add_flags(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
