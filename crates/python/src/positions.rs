//! The "a `Game` or a FEN string" arguments every face takes, and the
//! input planes of a batch of them (`shashki.encode`).
//!
//! A `Game` brings its draw-rule state (repetitions, the running count),
//! which the networks see; a FEN is a position seen for the first time
//! with no count running.

use crate::board::{Seen, fresh, parse_fen, planes_array};
use crate::game::PyGame;
use numpy::PyArray4;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use shashki_rules::Game;

/// `obj` (a `Game` or a FEN) as a game: a copy of the `Game`, or a new
/// game under the official rules from the FEN.
pub fn game_of(obj: &Bound<'_, PyAny>) -> PyResult<Game> {
    if let Ok(game) = obj.cast::<PyGame>() {
        return Ok(game.borrow().game.clone());
    }
    Ok(Game::new(parse_fen(&fen_of(obj)?)?))
}

/// `obj` (a `Game` or a FEN) as the position and draw state a network sees.
pub fn seen_of(obj: &Bound<'_, PyAny>) -> PyResult<Seen> {
    if let Ok(game) = obj.cast::<PyGame>() {
        let game = &game.borrow().game;
        return Ok((*game.position(), game.draw_state()));
    }
    Ok((parse_fen(&fen_of(obj)?)?, fresh()))
}

/// Every item of `positions` (a sequence of `Game`s or FENs), the error
/// naming the item.
pub fn seen_all(positions: &Bound<'_, PyAny>) -> PyResult<Vec<Seen>> {
    if positions.cast::<pyo3::types::PyString>().is_ok() || positions.cast::<PyGame>().is_ok() {
        return Err(PyTypeError::new_err(
            "positions: expected a sequence of shashki.Game or FEN strings, not a single one \
             (wrap it in a list)",
        ));
    }
    let mut seen = Vec::new();
    for (i, item) in positions.try_iter()?.enumerate() {
        let item = item?;
        seen.push(seen_of(&item).map_err(|e| {
            let py = item.py();
            PyErr::from_type(e.get_type(py), format!("positions[{i}]: {}", e.value(py)))
        })?);
    }
    Ok(seen)
}

/// The FEN text of `obj`, or a `TypeError` naming what it is.
fn fen_of(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    obj.extract::<String>().map_err(|_| {
        let kind = obj
            .get_type()
            .name()
            .map_or_else(|_| "?".to_string(), |n| n.to_string());
        PyTypeError::new_err(format!(
            "expected a shashki.Game or a FEN string, got {kind}"
        ))
    })
}

/// The network input planes of `positions` (`Game`s or FENs), each from
/// its side to move's view (docs/MODEL.md): float32, shape (n, 7, 8, 8).
#[pyfunction]
pub fn encode<'py>(
    py: Python<'py>,
    positions: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray4<f32>>> {
    let seen = seen_all(positions)?;
    planes_array(py, &seen)
}
