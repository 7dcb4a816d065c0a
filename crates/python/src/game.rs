//! `shashki.Game`: a game under the official draw rules (or none), its
//! legal moves in notation and as indices of the policy layout, play and
//! undo, how it ended, its input planes; copy and pickle.

use crate::board::{parse_fen, planes_array};
use crate::errors::value_error;
use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use shashki_net::POLICY_LEN;
use shashki_net::encoding::{BOARD, INPUT_PLANES, policy_index};
use shashki_rules::perft::perft as count_leaves;
use shashki_rules::{
    Color, DrawRules, EndReason, Game, Move, PathMode, PdnGame, Position, read_pdn, write_pdn,
};

/// A game of Russian checkers under the official draw rules.
#[pyclass(module = "shashki._shashki", name = "Game")]
#[derive(Clone)]
pub struct PyGame {
    pub(crate) game: Game,
}

/// `"white"` or `"black"`.
pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// A colour from its name.
fn color_of(name: &str) -> PyResult<Color> {
    match name {
        "white" => Ok(Color::White),
        "black" => Ok(Color::Black),
        _ => Err(value_error(format!(
            "colour {name:?}: expected \"white\" or \"black\""
        ))),
    }
}

/// The draw rules of a new game: the official ones or none, with an
/// optional adjudication after `max_plies`.
fn rules(draw_rules: bool, max_plies: Option<u32>) -> DrawRules {
    let mut rules = if draw_rules {
        DrawRules::default()
    } else {
        DrawRules::none()
    };
    rules.max_plies = max_plies;
    rules
}

/// The first legal move of `moves` with policy index `action` (moves that
/// share an index, captures with the same start and end but different
/// pieces taken, are told apart only by notation: the first in generator
/// order is played).
pub fn move_of_action(position: &Position, moves: &[Move], action: usize) -> Option<Move> {
    let side = position.side_to_move();
    moves
        .iter()
        .find(|mv| policy_index(mv, side) == action)
        .copied()
}

impl PyGame {
    /// The move `mv` names: notation (str) or a policy index (int).
    fn move_named(&self, mv: &Bound<'_, PyAny>) -> PyResult<Move> {
        let position = self.game.position();
        if let Ok(action) = mv.extract::<i64>() {
            let moves = self.game.legal_moves();
            return usize::try_from(action)
                .ok()
                .and_then(|a| move_of_action(position, moves.as_slice(), a))
                .ok_or_else(|| {
                    value_error(format!(
                        "action {action}: no legal move has this policy index in {}",
                        position.to_fen()
                    ))
                });
        }
        let text: String = mv.extract().map_err(|_| {
            PyTypeError::new_err("a move is its notation (str) or its policy index (int)")
        })?;
        position
            .parse_move(&text)
            .map_err(|e| value_error(format!("move {text:?} in {}: {e}", position.to_fen())))
    }

    /// How a game that was not decided on the board ended (resignation or
    /// agreement), for pickling: `"resign white"`, `"agree"` or `None`.
    fn declared_end(&self) -> Option<String> {
        let outcome = self.game.outcome()?;
        match outcome.reason {
            EndReason::Resignation => outcome
                .result
                .winner()
                .map(|winner| format!("resign {}", color_name(winner.opponent()))),
            EndReason::Agreed => Some("agree".to_string()),
            _ => None,
        }
    }
}

#[pymethods]
impl PyGame {
    /// A game from `fen` (the standard start when `None`). `draw_rules`:
    /// the official draw rules (repetition, the counting rules 7.2.3-7.2.8,
    /// king against king); `False` ends a game only when a side cannot
    /// move. `max_plies`: adjudicate a draw after that many half-moves.
    #[new]
    #[pyo3(signature = (fen = None, *, draw_rules = true, max_plies = None))]
    fn new(fen: Option<&str>, draw_rules: bool, max_plies: Option<u32>) -> PyResult<PyGame> {
        let start = match fen {
            Some(fen) => parse_fen(fen)?,
            None => Position::startpos(),
        };
        Ok(PyGame {
            game: Game::with_rules(start, rules(draw_rules, max_plies)),
        })
    }

    /// The first game of a PDN text, replayed under the official rules (the
    /// arbiter's verdict, not the record's `Result` tag, says how it ended).
    #[staticmethod]
    fn from_pdn(text: &str) -> PyResult<PyGame> {
        PyGame::read_pdn(text)?
            .into_iter()
            .next()
            .ok_or_else(|| value_error("PDN: no game in the text"))
    }

    /// Every game of a PDN text, replayed under the official rules.
    #[staticmethod]
    fn read_pdn(text: &str) -> PyResult<Vec<PyGame>> {
        read_pdn(text)
            .into_iter()
            .enumerate()
            .map(|(i, game)| {
                let game = game.map_err(|e| value_error(format!("PDN game {}: {e}", i + 1)))?;
                let game = game
                    .replay(DrawRules::default())
                    .map_err(|e| value_error(format!("PDN game {}: {e}", i + 1)))?;
                Ok(PyGame { game })
            })
            .collect()
    }

    /// The game as a PDN record (GameType 25, with its result and how it ended).
    fn to_pdn(&self) -> String {
        write_pdn(&[PdnGame::from_game(&self.game)])
    }

    /// The current position (PDN FEN).
    #[getter]
    fn fen(&self) -> String {
        self.game.position().to_fen()
    }

    /// The start position (PDN FEN).
    #[getter]
    fn start_fen(&self) -> String {
        self.game.start().to_fen()
    }

    /// `"white"` or `"black"`.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        color_name(self.game.side_to_move())
    }

    /// Half-moves played.
    #[getter]
    fn ply(&self) -> usize {
        self.game.ply()
    }

    /// The moves played, in long notation.
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.game.moves().iter().map(Move::to_string).collect()
    }

    /// The legal moves in long notation (`c3-d4`, `c3:e5:g3`), in the
    /// generator's order; empty once the game is over.
    fn legal_moves(&self) -> Vec<String> {
        if self.game.is_over() {
            return Vec::new();
        }
        self.game
            .legal_moves()
            .iter()
            .map(Move::to_string)
            .collect()
    }

    /// The policy index of each legal move (same order as `legal_moves`;
    /// captures with the same start and end square share one).
    fn legal_actions(&self) -> Vec<usize> {
        if self.game.is_over() {
            return Vec::new();
        }
        let side = self.game.side_to_move();
        self.game
            .legal_moves()
            .iter()
            .map(|mv| policy_index(mv, side))
            .collect()
    }

    /// 1 at the policy index of every legal move, 0 elsewhere: int8,
    /// shape (1024,); all zero once the game is over.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let mut mask = vec![0i8; POLICY_LEN];
        for action in self.legal_actions() {
            mask[action] = 1;
        }
        PyArray1::from_vec(py, mask)
    }

    /// Plays `move` (its notation, long or short, or its policy index) and
    /// returns it in long notation. An illegal move, or any move once the
    /// game is over, raises `ValueError`.
    fn play(&mut self, r#move: &Bound<'_, PyAny>) -> PyResult<String> {
        if let Some(outcome) = self.game.outcome() {
            return Err(value_error(format!("the game is over ({outcome})")));
        }
        let mv = self.move_named(r#move)?;
        self.game.play(&mv);
        Ok(mv.to_string())
    }

    /// Takes back the last move and returns it (`None` at the start).
    fn undo(&mut self) -> Option<String> {
        self.game.undo().map(|mv| mv.to_string())
    }

    /// `color` resigns; false if the game was already over.
    fn resign(&mut self, color: &str) -> PyResult<bool> {
        Ok(self.game.resign(color_of(color)?))
    }

    /// The players agree a draw; false if the game was already over.
    fn agree_draw(&mut self) -> bool {
        self.game.agree_draw()
    }

    /// True once the game has ended.
    #[getter]
    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// The result in PDN (`"2-0"`, `"1-1"`, `"0-2"`), `None` while it goes on.
    #[getter]
    fn result(&self) -> Option<&'static str> {
        self.game.outcome().map(|o| o.result.pdn())
    }

    /// `"white"`, `"black"`, or `None` (a draw, or not over).
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        self.game
            .outcome()
            .and_then(|o| o.result.winner())
            .map(color_name)
    }

    /// Why the game ended (`"no legal moves"`, `"7.2.3 threefold repetition"`,
    /// `"adjudication"`, ...), `None`
    /// while it goes on.
    #[getter]
    fn end_reason(&self) -> Option<&'static str> {
        self.game.outcome().map(|o| o.reason.label())
    }

    /// The result for `color`: 1 win, 0 draw, -1 loss; `None` while the
    /// game goes on.
    fn score_for(&self, color: &str) -> PyResult<Option<f32>> {
        let color = color_of(color)?;
        Ok(self.game.outcome().map(|o| o.result.score_for(color)))
    }

    /// The draw-rule state the networks see: `repetitions` (occurrences of
    /// this position, 1 = first) and `plies_to_draw` (half-moves until a
    /// running count declares a draw, `None` when none runs).
    #[getter]
    fn draw_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let state = self.game.draw_state();
        let dict = PyDict::new(py);
        dict.set_item("repetitions", state.repetitions)?;
        dict.set_item("plies_to_draw", state.plies_to_draw)?;
        Ok(dict)
    }

    /// The input planes of the current position (docs/MODEL.md): float32,
    /// shape (7, 8, 8), from the side to move's view, or from `perspective`
    /// (`"white"` / `"black"`): the same pieces as that side sees them.
    #[pyo3(signature = (perspective = None))]
    fn planes<'py>(
        &self,
        py: Python<'py>,
        perspective: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let position = *self.game.position();
        let position = match perspective.map(color_of).transpose()? {
            Some(side) if side != position.side_to_move() => {
                Position::from_masks(position.white(), position.black(), position.kings(), side)
                    .map_err(value_error)?
            }
            _ => position,
        };
        let planes = planes_array(py, &[(position, self.game.draw_state())])?;
        planes.reshape([INPUT_PLANES, BOARD, BOARD])
    }

    /// Leaves of the legal-move tree `depth` half-moves deep from the
    /// current position (one move per start, end and captured set, as the
    /// rules count them).
    fn perft(&self, py: Python<'_>, depth: u32) -> u64 {
        let position = *self.game.position();
        py.detach(move || count_leaves(&position, depth, PathMode::Distinct))
    }

    /// An independent copy.
    fn copy(&self) -> PyGame {
        self.clone()
    }

    fn __copy__(&self) -> PyGame {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.clone()
    }

    /// Pickles as the start, the moves, the rules and a declared end.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let rules = serde_json::to_string(this.game.rules()).map_err(value_error)?;
        let state = (this.start_fen(), this.moves(), rules, this.declared_end());
        let restore = py.get_type::<PyGame>().getattr("_restore")?;
        PyTuple::new(py, [restore, state.into_pyobject(py)?.into_any()])
    }

    /// The inverse of `__reduce__`.
    #[staticmethod]
    fn _restore(
        start_fen: &str,
        moves: Vec<String>,
        rules: &str,
        declared_end: Option<&str>,
    ) -> PyResult<PyGame> {
        let rules: DrawRules = serde_json::from_str(rules).map_err(value_error)?;
        let mut game = Game::with_rules(parse_fen(start_fen)?, rules);
        for (ply, text) in moves.iter().enumerate() {
            game.play_notation(text)
                .map_err(|e| value_error(format!("pickled game, half-move {ply}: {text}: {e}")))?;
        }
        match declared_end {
            None => {}
            Some("agree") => {
                game.agree_draw();
            }
            Some(other) => {
                let color = other.strip_prefix("resign ").unwrap_or(other);
                game.resign(color_of(color)?);
            }
        }
        Ok(PyGame { game })
    }

    fn __str__(&self) -> String {
        self.game.position().to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Game(fen={:?}, ply={}{})",
            self.fen(),
            self.ply(),
            self.game
                .outcome()
                .map_or(String::new(), |o| format!(", over: {o}"))
        )
    }
}

/// Leaves of the legal-move tree of `fen` (the standard start when
/// `None`), `depth` half-moves deep.
#[pyfunction]
#[pyo3(signature = (depth, fen = None))]
pub fn perft(py: Python<'_>, depth: u32, fen: Option<&str>) -> PyResult<u64> {
    let position = match fen {
        Some(fen) => parse_fen(fen)?,
        None => Position::startpos(),
    };
    Ok(py.detach(move || count_leaves(&position, depth, PathMode::Distinct)))
}
