//! `shashki.Tablebase`: the endgame tables (`shashki tb generate`), exact
//! under the official draw rules, probed for a game or a FEN.

use crate::errors::{load_error, value_error};
use crate::positions::game_of;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use shashki_rules::{DrawRules, Move};
use shashki_search::tablebase::{self, MAX_TABLEBASE_PIECES, Tablebases, TbWdl};
use std::path::PathBuf;
use std::sync::Arc;

/// A folder of endgame tables.
#[pyclass(module = "shashki._shashki", name = "Tablebase", frozen)]
pub struct PyTablebase {
    tables: Arc<Tablebases>,
    dir: PathBuf,
}

fn wdl_word(wdl: TbWdl) -> &'static str {
    match wdl {
        TbWdl::Win => "win",
        TbWdl::Draw => "draw",
        TbWdl::Loss => "loss",
    }
}

#[pymethods]
impl PyTablebase {
    /// Loads every table (up to 5 pieces) in `dir`.
    #[new]
    fn new(dir: PathBuf) -> PyResult<PyTablebase> {
        if !dir.is_dir() {
            return Err(load_error("tablebase", &dir, "not a folder"));
        }
        let tables = tablebase::load(&dir, DrawRules::default(), MAX_TABLEBASE_PIECES)
            .map_err(|e| value_error(format!("tablebase {e}")))?;
        Ok(PyTablebase { tables, dir })
    }

    /// The most pieces of a loaded table.
    #[getter]
    fn max_pieces(&self) -> u8 {
        self.tables.max_pieces()
    }

    /// The value of `position` (a `Game`, with its draw counters, or a FEN,
    /// counters fresh) for the side to move: a dict with `wdl` (`"win"`,
    /// `"draw"`, `"loss"`), `dtz` (half-moves to the next capture,
    /// promotion or end of the game with best play; `None` for a draw) and
    /// `best_moves` (long notation); `None` when the position is not in
    /// the tables.
    fn probe<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let game = game_of(position)?;
        if !self.tables.follows(game.rules()) {
            return Err(value_error(
                "tablebase: the tables hold under the official draw rules only; this game \
                 has other rules",
            ));
        }
        let Some(probe) = tablebase::probe(&self.tables, &game) else {
            return Ok(None);
        };
        let best: Vec<String> = self
            .tables
            .best_moves(game.position(), game.counters())
            .map(|(_, moves)| moves.iter().map(Move::to_string).collect())
            .unwrap_or_default();
        let dict = PyDict::new(py);
        dict.set_item("wdl", wdl_word(probe.wdl))?;
        dict.set_item("dtz", probe.dtz)?;
        dict.set_item("best_moves", best)?;
        Ok(Some(dict))
    }

    fn __repr__(&self) -> String {
        format!(
            "Tablebase({:?}, {} tables, up to {} pieces)",
            self.dir.display().to_string(),
            self.tables.len(),
            self.tables.max_pieces()
        )
    }
}
