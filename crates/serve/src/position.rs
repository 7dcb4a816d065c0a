//! A game as the page sends it (a start FEN and the moves played) and the
//! position view the page draws: pieces, legal moves with their full
//! capture paths, the end of the game in words, the draw-rule counters and
//! the tablebase's verdict.
//!
//! The server keeps no game state: every request carries its game, and the
//! rules crate replays it (a few microseconds), so any number of tabs and a
//! restarted server need nothing in common.

use crate::error::{ApiError, ApiResult};
use crate::players::SearchAsk;
use serde::{Deserialize, Serialize};
use shashki_rules::{Color, EndReason, Game, GameResult, Move, Position, Square};
use shashki_search::tablebase::{self, Tablebases, TbWdl};

/// The longest game a request may carry (the rules end real games long
/// before: the counting rules draw after at most 60 quiet half-moves).
pub const MAX_PLIES: usize = 2000;

/// A game: its start (the standard one by default) and the moves played,
/// each in any notation the rules accept (`c3-d4`, `a3:e7`, `22-18`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRequest {
    /// PDN FEN of the start position.
    #[serde(default)]
    pub fen: Option<String>,
    /// The moves from the start.
    #[serde(default)]
    pub moves: Vec<String>,
}

impl GameRequest {
    /// Replays the game; a bad FEN or a move that is not legal where it is
    /// played is a 400 naming it.
    pub fn replay(&self) -> ApiResult<Game> {
        let start = match self.fen.as_deref().map(str::trim) {
            None | Some("") => Position::startpos(),
            Some(fen) => {
                Position::from_fen(fen).map_err(|e| ApiError::bad_request(e.to_string()))?
            }
        };
        if self.moves.len() > MAX_PLIES {
            return Err(ApiError::bad_request(format!(
                "{} moves: a game may hold at most {MAX_PLIES}",
                self.moves.len()
            )));
        }
        let mut game = Game::new(start);
        for (ply, text) in self.moves.iter().enumerate() {
            game.play_notation(text).map_err(|e| {
                ApiError::bad_request(format!(
                    "half-move {} ({}): {e}",
                    ply + 1,
                    move_number(ply, &start)
                ))
            })?;
        }
        Ok(game)
    }
}

/// A request for one search of a game: `GET /api/analyse`'s query and
/// `POST /api/engine-move`'s body. Every field is optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// PDN FEN of the start position.
    #[serde(default)]
    pub fen: Option<String>,
    /// The moves from the start: a list, or one text with the moves
    /// separated by spaces or commas (what a query string can carry).
    #[serde(default, deserialize_with = "list_or_text")]
    pub moves: Vec<String>,
    /// The name of one of the server's engines (or, for a move, arena
    /// players); never a spec or a path. The default engine if absent.
    #[serde(default)]
    pub engine: Option<String>,
    /// How long to search, in milliseconds (clamped to the server's
    /// limit): `time_ms` for an analysis, `movetime_ms` for a move.
    #[serde(default, alias = "movetime_ms")]
    pub time_ms: Option<u64>,
    /// A depth cap in plies (engines only; within the server's limit).
    #[serde(default)]
    pub depth: Option<u32>,
    /// Search threads (engines only; within the server's limit).
    #[serde(default)]
    pub threads: Option<usize>,
}

impl SearchRequest {
    /// The game to search; a finished one is a 400 that says there is
    /// `nothing` (to analyse, no move to find).
    pub fn game(&self, nothing: &str) -> ApiResult<Game> {
        let game = GameRequest {
            fen: self.fen.clone(),
            moves: self.moves.clone(),
        }
        .replay()?;
        match game.outcome() {
            Some(outcome) => Err(ApiError::bad_request(format!(
                "the game is over ({outcome}): {nothing}"
            ))),
            None => Ok(game),
        }
    }

    /// What it asks of the search beside its time.
    pub fn ask(&self) -> SearchAsk {
        SearchAsk {
            depth: self.depth,
            threads: self.threads,
        }
    }
}

/// Moves as a list, or as one text separated by spaces or commas.
fn list_or_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Moves {
        List(Vec<String>),
        Text(String),
    }
    Ok(match Moves::deserialize(d)? {
        Moves::List(list) => list,
        Moves::Text(text) => text
            .split([' ', ','])
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .collect(),
    })
}

/// `12.` or `12...`: the PDN move number of half-move `ply` from `start`.
fn move_number(ply: usize, start: &Position) -> String {
    let offset = usize::from(start.side_to_move() == Color::Black);
    let n = (ply + offset) / 2 + 1;
    if (ply + offset).is_multiple_of(2) {
        format!("move {n}.")
    } else {
        format!("move {n}...")
    }
}

/// What the page draws for one position.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PositionView {
    /// PDN FEN of the position.
    pub fen: String,
    /// `white` or `black`.
    pub side_to_move: String,
    /// The 32 dark squares, a1 = 0 ... h8 = 31 (the rules' layout): `null`,
    /// `w`/`b` for a man, `W`/`B` for a king.
    pub board: Vec<Option<String>>,
    /// The square names in the same order (`a1`, `c1`, ...).
    pub squares: Vec<String>,
    /// Every legal move.
    pub legal: Vec<MoveView>,
    /// The moves played, in long notation (canonical form of what was sent).
    pub moves: Vec<String>,
    /// How the game ended, if it has.
    pub outcome: Option<OutcomeView>,
    /// The draw-rule counters.
    pub draw: DrawView,
    /// The tablebase's verdict, when tables were given and hold the position.
    pub tablebase: Option<TablebaseView>,
}

/// One legal move.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MoveView {
    /// Long notation: `c3-d4`, `a3:c5:e7`.
    pub text: String,
    /// The landing squares, start first.
    pub path: Vec<String>,
    /// The captured squares.
    pub captured: Vec<String>,
    /// A man becomes a king.
    pub promotes: bool,
}

impl MoveView {
    /// The view of `mv`.
    pub fn of(mv: &Move) -> MoveView {
        MoveView {
            text: mv.to_string(),
            path: mv.path().map(|s| s.to_string()).collect(),
            captured: mv.captured_squares().map(|s| s.to_string()).collect(),
            promotes: mv.promotes(),
        }
    }
}

/// The end of a game.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OutcomeView {
    /// `2-0`, `1-1` or `0-2`.
    pub result: String,
    /// The rule's label, as in the PDN `Termination` tag.
    pub reason: String,
    /// The whole verdict in words.
    pub text: String,
}

/// The draw-rule state of the position.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DrawView {
    /// Occurrences of this position so far (the third is a draw).
    pub repetitions: u8,
    /// Half-moves until the nearest counting rule (7.2.4-7.2.8) draws.
    pub plies_to_draw: Option<u16>,
    /// Half-moves since the last capture or man move (7.2.5).
    pub reversible: u32,
    /// Half-moves since the last capture or promotion (7.2.4, 7.2.6, 7.2.8).
    pub balance: u32,
    /// The counters in words.
    pub text: String,
}

/// A tablebase probe.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TablebaseView {
    /// `win`, `draw` or `loss` for the side to move.
    pub wdl: String,
    /// Half-moves to the next capture, promotion or end of the game.
    pub dtz: Option<u32>,
    /// The verdict in words.
    pub text: String,
}

impl PositionView {
    /// The view of the current position of `game`.
    pub fn of(game: &Game, tables: Option<&Tablebases>) -> PositionView {
        let pos = game.position();
        let mut legal = if game.is_over() {
            shashki_rules::MoveList::new()
        } else {
            game.legal_moves()
        };
        legal.sort_by_notation();
        PositionView {
            fen: pos.to_fen(),
            side_to_move: colour_name(pos.side_to_move()).into(),
            board: Square::ALL
                .iter()
                .map(|&sq| {
                    pos.piece_at(sq).map(|p| {
                        let c = if p.color == Color::White { 'w' } else { 'b' };
                        let c = if p.king { c.to_ascii_uppercase() } else { c };
                        c.to_string()
                    })
                })
                .collect(),
            squares: Square::ALL.iter().map(|s| s.to_string()).collect(),
            legal: legal.iter().map(MoveView::of).collect(),
            moves: game.moves().iter().map(Move::to_string).collect(),
            outcome: game.outcome().map(|o| OutcomeView {
                result: o.result.pdn().into(),
                reason: o.reason.label().into(),
                text: outcome_words(o.result, o.reason),
            }),
            draw: draw_view(game),
            tablebase: tables.and_then(|tb| tablebase_view(tb, game)),
        }
    }
}

/// `white` / `black`.
pub fn colour_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The verdict in words: who won or that it is drawn, and which rule said so.
pub fn outcome_words(result: GameResult, reason: EndReason) -> String {
    let head = match result {
        GameResult::WhiteWins => "White wins",
        GameResult::BlackWins => "Black wins",
        GameResult::Draw => "Draw",
    };
    let why = match reason {
        EndReason::NoMoves => "the side to move has no legal move",
        EndReason::Repetition => "the same position occurred for the third time (rule 7.2.3)",
        EndReason::ThreeKingsVsKing => {
            "three kings against a lone king did not win within 15 moves (rule 7.2.4)"
        }
        EndReason::KingsOnly => {
            "only kings moved, without a capture or a man's move, for 15 moves (rule 7.2.5)"
        }
        EndReason::MaterialUnchanged => {
            "both sides have kings and the balance of forces did not change in time (rule 7.2.6)"
        }
        EndReason::MainDiagonal => {
            "three pieces against a lone king on the main road did not win within 5 moves (rule 7.2.7)"
        }
        EndReason::FewPieces => {
            "with 2-3 pieces and kings on both sides the balance did not change within 5 moves (rule 7.2.8)"
        }
        EndReason::InsufficientMaterial => "one king against one king: neither side can win",
        EndReason::Agreed => "the players agreed a draw",
        EndReason::Resignation => "a side resigned",
        EndReason::Adjudication => "adjudicated at the maximum game length",
    };
    format!("{head}: {why}.")
}

fn draw_view(game: &Game) -> DrawView {
    let state = game.draw_state();
    let counters = game.counters();
    let mut text = match state.plies_to_draw {
        Some(n) => format!(
            "A counting rule draws in {n} half-move{} unless a capture or a man's move (or promotion) comes first.",
            if n == 1 { "" } else { "s" }
        ),
        None => "No draw count is running.".to_string(),
    };
    if state.repetitions > 1 {
        text.push_str(&format!(
            " This position has occurred {} times; the third is a draw.",
            state.repetitions
        ));
    }
    DrawView {
        repetitions: state.repetitions,
        plies_to_draw: state.plies_to_draw,
        reversible: counters.reversible,
        balance: counters.balance,
        text,
    }
}

fn tablebase_view(tables: &Tablebases, game: &Game) -> Option<TablebaseView> {
    if game.is_over() {
        return None;
    }
    let probe = tablebase::probe(tables, game)?;
    let side = colour_name(game.side_to_move());
    let (wdl, text) = match (probe.wdl, probe.dtz) {
        (TbWdl::Win, d) => ("win", format!("{side} wins{}", dtz_words(d))),
        (TbWdl::Loss, d) => ("loss", format!("{side} loses{}", dtz_words(d))),
        (TbWdl::Draw, _) => ("draw", "a draw with best play".to_string()),
    };
    Some(TablebaseView {
        wdl: wdl.into(),
        dtz: probe.dtz,
        text: format!("Tablebase: {text}."),
    })
}

fn dtz_words(dtz: Option<u32>) -> String {
    dtz.map_or(String::new(), |d| {
        format!(" (next capture, promotion or end in {d} half-moves)")
    })
}
