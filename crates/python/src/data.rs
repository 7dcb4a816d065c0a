//! Self-play sample chunks as numpy arrays (`shashki.read_chunk`,
//! `shashki.read_chunks`): the board fields of each record, and the
//! network's view of it exactly as the learner encodes it (input planes,
//! policy target spread over the legal moves, legal-move mask), so a model
//! can be trained in PyTorch on our data.

use crate::errors::{load_error, os_error, value_error};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use shashki_net::encoding::{BOARD, INPUT_PLANES};
use shashki_net::{INPUT_LEN, POLICY_LEN, encode_sample};
use shashki_rules::Color;
use shashki_selfplay::sample::{
    FLAG_ADJUDICATED, FLAG_EXACT, FLAG_FULL_SEARCH, FLAG_RELABELLED, FLAG_RESIGNED, FLAG_TABLEBASE,
    FLAG_TREE,
};
use shashki_selfplay::{Sample, list_chunks, read_chunk as read_chunk_file};
use std::path::{Path, PathBuf};

/// The sample flags as module constants (`shashki.FLAG_FULL_SEARCH`, ...).
pub fn add_flags(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for (name, bit) in [
        ("FLAG_FULL_SEARCH", FLAG_FULL_SEARCH),
        ("FLAG_RESIGNED", FLAG_RESIGNED),
        ("FLAG_ADJUDICATED", FLAG_ADJUDICATED),
        ("FLAG_TABLEBASE", FLAG_TABLEBASE),
        ("FLAG_TREE", FLAG_TREE),
        ("FLAG_EXACT", FLAG_EXACT),
        ("FLAG_RELABELLED", FLAG_RELABELLED),
    ] {
        m.add(name, bit)?;
    }
    Ok(())
}

/// The samples of the chunk files, each with its network's training step.
fn read_samples(files: &[PathBuf]) -> PyResult<Vec<(Sample, u64)>> {
    let mut samples = Vec::new();
    for file in files {
        let chunk = read_chunk_file(file).map_err(|e| load_error("chunk", file, e))?;
        let decoded = chunk
            .samples()
            .map_err(|e| value_error(format!("chunk {}: {e}", file.display())))?;
        samples.extend(decoded.into_iter().map(|s| (s, chunk.header.net_step)));
    }
    Ok(samples)
}

/// The chunk files `source` names: one file, a folder of chunks, a run
/// folder (its `data/`), or a list of files.
fn chunk_files(source: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if let Ok(path) = source.extract::<PathBuf>() {
        if path.is_file() {
            return Ok(vec![path]);
        }
        if !path.is_dir() {
            return Err(load_error("chunks", &path, ""));
        }
        let data = path.join("data");
        let dir = if list_chunks(&path)
            .map_err(|e| os_error(&path, e))?
            .is_empty()
            && data.is_dir()
        {
            data
        } else {
            path
        };
        return list_chunks(&dir).map_err(|e| os_error(&dir, e));
    }
    source.extract::<Vec<PathBuf>>().map_err(|_| {
        value_error(
            "chunks: expected a chunk file, a folder of chunks, a run folder or a list of files",
        )
    })
}

/// The columns of a set of samples, filled without the GIL.
#[derive(Default)]
struct Columns {
    planes: Vec<f32>,
    policy: Vec<f32>,
    legal_mask: Vec<bool>,
    white: Vec<u32>,
    black: Vec<u32>,
    kings: Vec<u32>,
    side_to_move: Vec<u8>,
    repetitions: Vec<u8>,
    plies_to_draw: Vec<i32>,
    result: Vec<i8>,
    flags: Vec<u8>,
    plies_left: Vec<u16>,
    ply: Vec<u16>,
    legal_moves: Vec<u16>,
    root_wdl: Vec<f32>,
    net_step: Vec<u64>,
}

impl Columns {
    fn of(samples: &[(Sample, u64)]) -> Columns {
        let n = samples.len();
        let mut c = Columns {
            planes: vec![0.0; n * INPUT_LEN],
            policy: vec![0.0; n * POLICY_LEN],
            ..Columns::default()
        };
        let mut mask = vec![0.0f32; POLICY_LEN];
        let mut probs = Vec::new();
        for (((s, step), planes), policy) in samples
            .iter()
            .zip(c.planes.chunks_exact_mut(INPUT_LEN))
            .zip(c.policy.chunks_exact_mut(POLICY_LEN))
        {
            let p = &s.position;
            let moves = p.legal_moves();
            s.move_probabilities(moves.as_slice(), &mut probs);
            encode_sample(
                p,
                s.draw_state,
                moves.as_slice(),
                &probs,
                planes,
                policy,
                &mut mask,
            );
            c.legal_mask.extend(mask.iter().map(|&m| m != 0.0));
            c.white.push(p.white());
            c.black.push(p.black());
            c.kings.push(p.kings());
            c.side_to_move
                .push(u8::from(p.side_to_move() == Color::Black));
            c.repetitions.push(s.draw_state.repetitions);
            c.plies_to_draw
                .push(s.draw_state.plies_to_draw.map_or(-1, i32::from));
            c.result.push(s.result);
            c.flags.push(s.flags);
            c.plies_left.push(s.plies_left);
            c.ply.push(s.ply);
            c.legal_moves.push(s.legal_moves);
            c.root_wdl.extend(s.root_wdl);
            c.net_step.push(*step);
        }
        c
    }

    fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let n = self.result.len();
        let dict = PyDict::new(py);
        let planes =
            PyArray1::from_vec(py, self.planes).reshape([n, INPUT_PLANES, BOARD, BOARD])?;
        dict.set_item("planes", planes)?;
        dict.set_item(
            "policy",
            PyArray1::from_vec(py, self.policy).reshape([n, POLICY_LEN])?,
        )?;
        dict.set_item(
            "legal_mask",
            PyArray1::from_vec(py, self.legal_mask).reshape([n, POLICY_LEN])?,
        )?;
        dict.set_item(
            "root_wdl",
            PyArray1::from_vec(py, self.root_wdl).reshape([n, 3])?,
        )?;
        dict.set_item("white", PyArray1::from_vec(py, self.white))?;
        dict.set_item("black", PyArray1::from_vec(py, self.black))?;
        dict.set_item("kings", PyArray1::from_vec(py, self.kings))?;
        dict.set_item("side_to_move", PyArray1::from_vec(py, self.side_to_move))?;
        dict.set_item("repetitions", PyArray1::from_vec(py, self.repetitions))?;
        dict.set_item("plies_to_draw", PyArray1::from_vec(py, self.plies_to_draw))?;
        dict.set_item("result", PyArray1::from_vec(py, self.result))?;
        dict.set_item("flags", PyArray1::from_vec(py, self.flags))?;
        dict.set_item("plies_left", PyArray1::from_vec(py, self.plies_left))?;
        dict.set_item("ply", PyArray1::from_vec(py, self.ply))?;
        dict.set_item("legal_moves", PyArray1::from_vec(py, self.legal_moves))?;
        dict.set_item("net_step", PyArray1::from_vec(py, self.net_step))?;
        Ok(dict)
    }
}

/// The samples of `files` as a dict of numpy arrays (see `read_chunks`).
fn read<'py>(py: Python<'py>, files: &[PathBuf]) -> PyResult<Bound<'py, PyDict>> {
    let columns = py.detach(|| read_samples(files).map(|samples| Columns::of(&samples)))?;
    columns.into_dict(py)
}

/// The samples of one chunk file (`.shzc`), as `read_chunks` gives them.
#[pyfunction]
pub fn read_chunk<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    if !Path::new(&path).is_file() {
        return Err(load_error("chunk", &path, "not a file"));
    }
    read(py, &[path])
}

/// The samples of many chunks, in file order, as one dict of numpy arrays
/// (n samples): `planes` float32 (n, 7, 8, 8) and `policy` float32
/// (n, 1024), the learner's input and policy target (all zero without a
/// full search); `legal_mask` bool (n, 1024); `root_wdl` float32 (n, 3),
/// the search's W/D/L; `result` int8 (+1 win, 0 draw, -1 loss, side to
/// move's view); `white`, `black`, `kings` uint32 masks (bit = square
/// index), `side_to_move` uint8 (0 White, 1 Black), `repetitions` uint8,
/// `plies_to_draw` int32 (-1: no count running), `flags` uint8
/// (`FLAG_*`), `plies_left`, `ply`, `legal_moves` uint16, `net_step`
/// uint64. `source`: a chunk file, a folder of chunks, a run folder (its
/// `data/`) or a list of files.
#[pyfunction]
pub fn read_chunks<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let files = chunk_files(source)?;
    read(py, &files)
}
