//! PDN games: `POST /api/pdn` reads pasted or opened text; `GET
//! /api/pdn-files` lists the files given on the command line and `GET
//! /api/pdn-files/{index}` reads one. Files are named by their index in
//! that list only, so nothing else on the disk can be asked for.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use shashki_rules::pdn::ROSTER;
use shashki_rules::{DrawRules, Move, PdnGame, read_pdn};
use std::sync::Arc;

/// One game of a PDN text, or why it could not be read.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GameSummary {
    /// 1 = the first game of the text.
    pub number: usize,
    /// `White` tag.
    pub white: String,
    /// `Black` tag.
    pub black: String,
    /// `Event` tag.
    pub event: String,
    /// `Date` tag.
    pub date: String,
    /// `2-0`, `1-1`, `0-2` or `*`.
    pub result: String,
    /// The `Termination` tag, else our arbiter's verdict when the moves end
    /// the game.
    pub termination: String,
    /// Every tag, in file order.
    pub tags: Vec<(String, String)>,
    /// PDN FEN of the start position.
    pub fen: String,
    /// The moves in long notation.
    pub moves: Vec<String>,
    /// Why the game could not be read (then it has no moves).
    pub error: Option<String>,
}

/// The games of a text.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GameList {
    /// Where they came from (a file name, or `pasted text`).
    pub source: String,
    /// The games, broken ones included with their error.
    pub games: Vec<GameSummary>,
}

fn summary(number: usize, game: &PdnGame) -> GameSummary {
    let tag = |name: &str| {
        game.tag(name).map(str::to_string).unwrap_or_else(|| {
            ROSTER
                .iter()
                .find(|(n, _)| *n == name)
                .map_or("?", |(_, v)| v)
                .to_string()
        })
    };
    let verdict = game
        .replay(DrawRules::default())
        .ok()
        .and_then(|g| g.outcome())
        .map(|o| o.reason.label().to_string());
    GameSummary {
        number,
        white: tag("White"),
        black: tag("Black"),
        event: tag("Event"),
        date: tag("Date"),
        result: game.result.map_or("*".into(), |r| r.pdn().to_string()),
        termination: game
            .tag(shashki_rules::pdn::TERMINATION_TAG)
            .map(str::to_string)
            .or(verdict)
            .unwrap_or_default(),
        tags: game.tags.clone(),
        fen: game.start.to_fen(),
        moves: game.moves.iter().map(Move::to_string).collect(),
        error: None,
    }
}

/// Reads every game of `text`; a text with no game at all is a 400.
pub fn game_list(source: &str, text: &str) -> ApiResult<GameList> {
    let games: Vec<GameSummary> = read_pdn(text)
        .iter()
        .enumerate()
        .map(|(i, game)| match game {
            Ok(game) => summary(i + 1, game),
            Err(e) => GameSummary {
                number: i + 1,
                white: "?".into(),
                black: "?".into(),
                event: "?".into(),
                date: "?".into(),
                result: "*".into(),
                termination: String::new(),
                tags: Vec::new(),
                fen: String::new(),
                moves: Vec::new(),
                error: Some(e.to_string()),
            },
        })
        .collect();
    if games.is_empty() {
        return Err(ApiError::bad_request(format!(
            "{source}: no PDN game found (expected tags like [White \"...\"] and moves like 1. c3-d4 f6-g5)"
        )));
    }
    if games.iter().all(|g| g.error.is_some()) {
        let first = games[0].error.clone().unwrap_or_default();
        return Err(ApiError::bad_request(format!(
            "{source}: no game could be read; the first error: {first}"
        )));
    }
    Ok(GameList {
        source: source.to_string(),
        games,
    })
}

/// `POST /api/pdn`: the body is the PDN text (UTF-8).
pub async fn parse_pasted(body: crate::RawBody) -> ApiResult<Json<GameList>> {
    let bytes: Bytes = body.map_err(|e| ApiError::from(crate::error::WithStatus(e)))?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| ApiError::bad_request(format!("the PDN text is not UTF-8: {e}")))?;
    Ok(Json(game_list("pasted text", text)?))
}

/// One file given on the command line.
#[derive(Serialize, Deserialize)]
pub struct FileEntry {
    /// Its index in `GET /api/pdn-files/{index}`.
    pub index: usize,
    /// Its file name.
    pub name: String,
}

/// `GET /api/pdn-files`.
pub async fn list_files(State(state): State<Arc<AppState>>) -> Json<Vec<FileEntry>> {
    Json(
        state
            .pdn_files
            .iter()
            .enumerate()
            .map(|(index, path)| FileEntry {
                index,
                name: file_name(path),
            })
            .collect(),
    )
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `GET /api/pdn-files/{index}`.
pub async fn read_file(
    State(state): State<Arc<AppState>>,
    Path(index): Path<String>,
) -> ApiResult<Json<GameList>> {
    let path = index
        .parse::<usize>()
        .ok()
        .and_then(|i| state.pdn_files.get(i))
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "no PDN file {index:?}: this server was given {} file(s), numbered from 0",
                state.pdn_files.len()
            ))
        })?;
    let path = path.clone();
    let text = tokio::task::spawn_blocking(move || std::fs::read(&path).map(|b| (path, b)))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let (path, bytes) =
        text.map_err(|e| ApiError::internal(format!("cannot read the PDN file: {e}")))?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(Json(game_list(&file_name(&path), &text)?))
}
