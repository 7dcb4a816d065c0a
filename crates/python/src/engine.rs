//! `shashki.Engine`: any player spec the arena knows that can search on
//! its own (`builtin`, `ab:depth=6`, `nnue:PATH`, `mcts`, `net:PATH`, each
//! with its options), searching a position under a limit with the GIL
//! released; `shashki.Analysis`: what a search found.

use crate::errors::{load_error, value_error};
use crate::positions::game_of;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use shashki_arena::PlayerSpec;
use shashki_arena::kinds::{EngineSetup, build_engine, builds_engine};
use shashki_rules::{DrawRules, Move};
use shashki_search::tablebase::{self, MAX_TABLEBASE_PIECES};
use shashki_search::{Engine, Score, SearchLimits, SearchReport};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

/// An engine: one search at a time (a second caller waits for the first).
#[pyclass(module = "shashki._shashki", name = "Engine", frozen)]
pub struct PyEngine {
    spec: PlayerSpec,
    description: String,
    engine: Mutex<Box<dyn Engine>>,
}

/// What a search found, from the side to move's view.
#[pyclass(module = "shashki._shashki", name = "Analysis", frozen, get_all)]
pub struct PyAnalysis {
    /// The move to play in long notation; `None` when there is no legal move.
    best_move: Option<String>,
    /// The score as the engine protocol spells it: `cp 35`, `mate 7`,
    /// `value 0.250`, `tb win 12`, `tb draw`, ...
    score: String,
    /// `"cp"`, `"mate"`, `"value"`, `"proven_draw"`, `"tb_win"`,
    /// `"tb_loss"` or `"tb_draw"`.
    score_kind: &'static str,
    /// Centi-men (`cp`), half-moves (`mate`, negative when losing; the
    /// tables' distance for `tb_win` / `tb_loss`), the expected outcome in
    /// [-1, 1] (`value`); 0 for the draws.
    score_value: f64,
    /// Depth reached (alpha-beta plies; MCTS: the line's length).
    depth: u32,
    /// Nodes (alpha-beta) or simulations (MCTS).
    nodes: u64,
    /// Seconds spent.
    time: f64,
    /// The expected line, best move first.
    pv: Vec<String>,
}

/// A score's kind and number.
fn score_parts(score: Score) -> (&'static str, f64) {
    match score {
        Score::Centi(cp) => ("cp", f64::from(cp)),
        Score::Mate(plies) => ("mate", f64::from(plies)),
        Score::Value(v) => ("value", f64::from(v)),
        Score::ProvenDraw => ("proven_draw", 0.0),
        Score::TbWin(d) => ("tb_win", f64::from(d)),
        Score::TbLoss(d) => ("tb_loss", f64::from(d)),
        Score::TbDraw => ("tb_draw", 0.0),
    }
}

impl From<SearchReport> for PyAnalysis {
    fn from(report: SearchReport) -> PyAnalysis {
        let (score_kind, score_value) = score_parts(report.score);
        PyAnalysis {
            best_move: report.best_move.map(|mv| mv.to_string()),
            score: report.score.to_string(),
            score_kind,
            score_value,
            depth: report.depth,
            nodes: report.nodes,
            time: report.elapsed.as_secs_f64(),
            pv: report.pv.iter().map(Move::to_string).collect(),
        }
    }
}

#[pymethods]
impl PyAnalysis {
    fn __repr__(&self) -> String {
        format!(
            "Analysis(best_move={:?}, score={:?}, depth={}, nodes={}, time={:.3}, pv={:?})",
            self.best_move, self.score, self.depth, self.nodes, self.time, self.pv
        )
    }
}

impl PyEngine {
    /// The limits of one search: those given, else the spec's own, else
    /// the engine's default (alpha-beta depth 8, MCTS 800 simulations).
    fn limits(
        &self,
        depth: Option<u32>,
        nodes: Option<u64>,
        time: Option<f64>,
    ) -> PyResult<SearchLimits> {
        let movetime = time
            .map(|t| {
                Duration::try_from_secs_f64(t)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| value_error(format!("time {t}: expected seconds > 0")))
            })
            .transpose()?;
        let given = SearchLimits {
            depth,
            nodes,
            movetime,
            ..SearchLimits::default()
        };
        if depth.is_some() && self.spec.kind.is_tree_search() {
            return Err(value_error(format!(
                "depth applies to the alpha-beta engines only; limit {} by nodes \
                 (simulations) or time",
                self.spec.name
            )));
        }
        Ok(if given.is_unlimited() {
            self.spec.kind.stated_limits()
        } else {
            given
        })
    }
}

#[pymethods]
impl PyEngine {
    /// The engine of `spec` (a player spec of `shashki rate`; `builtin` is
    /// the strongest shipped model). `tablebase`: a folder of endgame
    /// tables (`shashki tb generate`) the search probes; `seed`: the seed of
    /// an MCTS engine's random choices.
    #[new]
    #[pyo3(signature = (spec = "builtin", *, tablebase = None, seed = 1))]
    fn new(
        py: Python<'_>,
        spec: &str,
        tablebase: Option<PathBuf>,
        seed: u64,
    ) -> PyResult<PyEngine> {
        let spec: PlayerSpec = spec.parse().map_err(value_error)?;
        if !builds_engine(&spec.kind) {
            return Err(value_error(format!(
                "engine {}: plays in matches only; an engine is builtin, ab, nnue:PATH, mcts \
                 or net:PATH with its options",
                spec.name
            )));
        }
        if let Some(path) = spec.kind.network_path()
            && !path.exists()
        {
            return Err(load_error("engine network", path, ""));
        }
        let tablebases = tablebase
            .map(|dir| tablebase::load(&dir, DrawRules::default(), MAX_TABLEBASE_PIECES))
            .transpose()
            .map_err(|e| value_error(format!("tablebase {e}")))?;
        let engine = py
            .detach(|| build_engine(&spec, &EngineSetup { seed, tablebases }))
            .map_err(value_error)?;
        Ok(PyEngine {
            description: engine.description(),
            spec,
            engine: Mutex::new(engine),
        })
    }

    /// The spec as given.
    #[getter]
    fn spec(&self) -> &str {
        &self.spec.name
    }

    /// What the engine is, e.g. `alpha-beta (nnue builtin)`.
    #[getter]
    fn description(&self) -> &str {
        &self.description
    }

    /// Searches `position` (a `Game`, whose history and draw counters the
    /// search sees, or a FEN) under the limits given: `depth` (alpha-beta
    /// plies), `nodes` (alpha-beta nodes or MCTS simulations), `time`
    /// (seconds). With none, the spec's limits, else the engine's default.
    /// The GIL is released while it searches.
    #[pyo3(signature = (position, *, depth = None, nodes = None, time = None))]
    fn analyse(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        depth: Option<u32>,
        nodes: Option<u64>,
        time: Option<f64>,
    ) -> PyResult<PyAnalysis> {
        let game = game_of(position)?;
        let limits = self.limits(depth, nodes, time)?;
        let engine = &self.engine;
        let report = py.detach(move || {
            let mut engine = engine
                .lock()
                .map_err(|_| "an earlier search of this engine failed".to_string())?;
            Ok::<_, String>(engine.go(&game, &limits, &mut |_| {}))
        });
        report
            .map(PyAnalysis::from)
            .map_err(PyRuntimeError::new_err)
    }

    /// The move the engine plays in `position` (long notation; `None` when
    /// there is none), under the same limits as `analyse`.
    #[pyo3(signature = (position, *, depth = None, nodes = None, time = None))]
    fn best_move(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        depth: Option<u32>,
        nodes: Option<u64>,
        time: Option<f64>,
    ) -> PyResult<Option<String>> {
        Ok(self.analyse(py, position, depth, nodes, time)?.best_move)
    }

    /// Forgets what the engine kept from earlier searches (tables, trees).
    fn new_game(&self) -> PyResult<()> {
        self.engine
            .lock()
            .map_err(|_| PyRuntimeError::new_err("an earlier search of this engine failed"))?
            .new_game();
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!("Engine({:?})", self.spec.name)
    }
}
