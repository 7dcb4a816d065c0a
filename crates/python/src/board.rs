//! Positions as Rust values for the faces: a FEN read with an error that
//! names it, the draw state of a position seen fresh, and the input planes
//! of a batch as a numpy array.

use crate::errors::value_error;
use numpy::{PyArray1, PyArray4, PyArrayMethods};
use pyo3::prelude::*;
use shashki_net::INPUT_LEN;
use shashki_net::encoding::{BOARD, INPUT_PLANES, encode_input};
use shashki_rules::{DrawState, Position};

/// A position and the draw state the networks see with it.
pub type Seen = (Position, DrawState);

/// The state of a position met for the first time, no count running.
pub fn fresh() -> DrawState {
    DrawState {
        repetitions: 1,
        plies_to_draw: None,
    }
}

/// A FEN read, the error naming it.
pub fn parse_fen(fen: &str) -> PyResult<Position> {
    Position::from_fen(fen).map_err(|e| value_error(format!("FEN {fen:?}: {e}")))
}

/// The input planes of `seen` as one array (n, planes, 8, 8), float32.
pub fn planes_array<'py>(py: Python<'py>, seen: &[Seen]) -> PyResult<Bound<'py, PyArray4<f32>>> {
    let mut data = vec![0.0f32; seen.len() * INPUT_LEN];
    for ((position, state), out) in seen.iter().zip(data.chunks_exact_mut(INPUT_LEN)) {
        encode_input(position, *state, out);
    }
    PyArray1::from_vec(py, data).reshape([seen.len(), INPUT_PLANES, BOARD, BOARD])
}
