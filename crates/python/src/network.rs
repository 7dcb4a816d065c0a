//! The networks: `shashki.Network` (the MCTS family's policy/value net:
//! W/D/L and move priors for a batch) and `shashki.Nnue` (the alpha-beta
//! family's NNUE: the engine's integer score).

use crate::board::Seen;
use crate::errors::{load_error, value_error};
use crate::positions::{seen_all, seen_of};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use shashki_arena::kinds::builtin::builtin_net;
use shashki_net::encoding::policy_index;
use shashki_net::{NetEvaluator, POLICY_LEN, device_from_name, load_checkpoint_or_model};
use shashki_nnue::{NnueEval, load_engine_net};
use shashki_rules::MoveList;
use shashki_search::alphabeta::StaticEval;
use shashki_search::{EvalRequest, Evaluation};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// W/D/L (n, 3) and priors on the policy layout (n, 1024).
type WdlAndPolicy<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<f32>>);

/// Positions evaluated per network call.
const BATCH: usize = 256;

/// A policy/value network (a checkpoint file or an exported model folder).
#[pyclass(module = "shashki._shashki", name = "Network", frozen)]
pub struct PyNetwork {
    evaluator: NetEvaluator,
    path: PathBuf,
}

impl PyNetwork {
    /// The evaluations of `seen`, in batches, and each one's legal moves.
    fn evaluate_seen(&self, seen: &[Seen]) -> Result<Vec<(MoveList, Evaluation)>, String> {
        let mut results = Vec::with_capacity(seen.len());
        for batch in seen.chunks(BATCH) {
            let moves: Vec<MoveList> = batch.iter().map(|(p, _)| p.legal_moves()).collect();
            let requests: Vec<EvalRequest<'_>> = batch
                .iter()
                .zip(&moves)
                .map(|((position, draw_state), moves)| EvalRequest {
                    position,
                    draw_state: *draw_state,
                    moves: moves.as_slice(),
                })
                .collect();
            let mut out = vec![Evaluation::default(); batch.len()];
            self.evaluator
                .try_evaluate(&requests, &mut out)
                .map_err(|e| e.to_string())?;
            results.extend(moves.into_iter().zip(out));
        }
        Ok(results)
    }
}

#[pymethods]
impl PyNetwork {
    /// Loads a network: a training checkpoint (`.shzk`) or an exported model
    /// folder (`model.json` + `model.safetensors`). `device`: `cpu`, or
    /// `wgpu` in builds with that feature.
    #[new]
    #[pyo3(signature = (path, *, device = "cpu"))]
    fn new(py: Python<'_>, path: PathBuf, device: &str) -> PyResult<PyNetwork> {
        let checkpoint =
            load_checkpoint_or_model(&path).map_err(|e| load_error("network", &path, e))?;
        let device = device_from_name(device).map_err(value_error)?;
        let net = py
            .detach(|| checkpoint.inference_net(&device))
            .map_err(|e| load_error("network", &path, e))?;
        Ok(PyNetwork {
            evaluator: NetEvaluator::new(net, BATCH),
            path,
        })
    }

    /// W/D/L (side to move's view) and move priors of `positions` (`Game`s
    /// or FENs): float32 arrays (n, 3) and (n, 1024), the priors on the
    /// policy layout (index `from * 32 + to` in the side to move's squares;
    /// 0 off the legal moves; each row sums to 1 when there is a legal
    /// move). The GIL is released while the network runs.
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
    ) -> PyResult<WdlAndPolicy<'py>> {
        let seen = seen_all(positions)?;
        let results = py
            .detach(|| self.evaluate_seen(&seen))
            .map_err(PyRuntimeError::new_err)?;
        let mut wdl = Vec::with_capacity(3 * seen.len());
        let mut policy = vec![0.0f32; POLICY_LEN * seen.len()];
        for (((position, _), (moves, eval)), row) in seen
            .iter()
            .zip(&results)
            .zip(policy.chunks_exact_mut(POLICY_LEN))
        {
            wdl.extend([eval.wdl.win, eval.wdl.draw, eval.wdl.loss]);
            let side = position.side_to_move();
            for (mv, prior) in moves.iter().zip(&eval.priors) {
                row[policy_index(mv, side)] += prior;
            }
        }
        let n = seen.len();
        Ok((
            PyArray1::from_vec(py, wdl).reshape([n, 3])?,
            PyArray1::from_vec(py, policy).reshape([n, POLICY_LEN])?,
        ))
    }

    /// The prior of each legal move of `position` (a `Game` or a FEN), by
    /// long notation: what `shashki eval --json` prints as `policy`.
    fn move_priors(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<(String, f32)>> {
        let seen = [seen_of(position)?];
        let results = py
            .detach(|| self.evaluate_seen(&seen))
            .map_err(PyRuntimeError::new_err)?;
        let (moves, eval) = &results[0];
        Ok(moves
            .iter()
            .map(|mv| mv.to_string())
            .zip(eval.priors.iter().copied())
            .collect())
    }

    fn __repr__(&self) -> String {
        format!("Network({:?})", self.path.display().to_string())
    }
}

/// An NNUE: the alpha-beta engine's evaluation, integer arithmetic exactly
/// as the engine runs it.
#[pyclass(module = "shashki._shashki", name = "Nnue", frozen)]
pub struct PyNnue {
    eval: Mutex<NnueEval>,
    name: String,
}

#[pymethods]
impl PyNnue {
    /// Loads an NNUE model folder or training checkpoint, or `"builtin"`
    /// (the shipped model the `builtin` engine plays with).
    #[new]
    fn new(path: PathBuf) -> PyResult<PyNnue> {
        let name = path.display().to_string();
        let net = if name == "builtin" {
            builtin_net().map_err(value_error)?
        } else {
            load_engine_net(&path).map_err(|e| load_error("NNUE", &path, e))?
        };
        Ok(PyNnue {
            eval: Mutex::new(NnueEval::new(Arc::new(net), name.clone())),
            name,
        })
    }

    /// The static evaluation of `positions` (`Game`s or FENs) in centi-men
    /// (a man is about 100) from each side to move's view: int32, (n,).
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<i32>>> {
        let seen = seen_all(positions)?;
        let scores = py.detach(|| {
            let mut eval = self
                .eval
                .lock()
                .map_err(|_| "an earlier evaluation failed".to_string())?;
            Ok::<_, String>(
                seen.iter()
                    .map(|(position, _)| {
                        eval.reset(position);
                        eval.evaluate(position)
                    })
                    .collect::<Vec<i32>>(),
            )
        });
        Ok(PyArray1::from_vec(
            py,
            scores.map_err(PyRuntimeError::new_err)?,
        ))
    }

    fn __repr__(&self) -> String {
        format!("Nnue({:?})", self.name)
    }
}
