//! `POST /api/position` (the view of a game's position) and
//! `POST /api/engine-move` (a named engine's or arena player's reply).

use crate::error::{ApiError, ApiResult};
use crate::players::choose_move;
use crate::position::{GameRequest, MoveView, PositionView, SearchRequest};
use crate::state::{AppState, StopOnDrop, clamp_time};
use crate::{RawBody, json_body};
use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Default time per move of an engine reply.
pub const DEFAULT_MOVETIME: Duration = Duration::from_millis(1000);

/// `POST /api/position`: `{fen?, moves?}` → [`PositionView`].
pub async fn position(
    State(state): State<Arc<AppState>>,
    body: RawBody,
) -> ApiResult<Json<PositionView>> {
    let request: GameRequest = json_body(body)?;
    let game = request.replay()?;
    Ok(Json(PositionView::of(&game, state.tablebases.as_deref())))
}

/// The reply.
#[derive(Serialize, Deserialize)]
pub struct EngineMoveReply {
    /// The move chosen.
    #[serde(rename = "move")]
    pub mv: MoveView,
    /// Milliseconds it took.
    pub time_ms: u64,
    /// The position after it.
    pub position: PositionView,
}

/// `POST /api/engine-move`: the chosen player's move in the game's position.
/// Dropping the request (a closed tab) stops an engine's search.
pub async fn engine_move(
    State(state): State<Arc<AppState>>,
    body: RawBody,
) -> ApiResult<Json<EngineMoveReply>> {
    let request: SearchRequest = json_body(body)?;
    let mut game = request.game("there is no move to find")?;
    let movetime = clamp_time(request.time_ms, DEFAULT_MOVETIME, state.max_movetime);
    // The name and the bounds are checked before anything is made.
    let ask = request.ask();
    let choice = state
        .opponents
        .choose_for(request.engine.as_deref(), &ask)
        .map_err(ApiError::bad_request)?;
    let permit = state.search_slot()?;
    let seed = game.ply() as u64 + 1;
    let worker_state = Arc::clone(&state);
    let (made_tx, made_rx) = tokio::sync::oneshot::channel();
    let search_game = game.clone();
    let search = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let mut mover = match worker_state.opponents.mover(&choice, &ask, seed) {
            Ok(m) => m,
            Err(e) => {
                let _ = made_tx.send(None);
                return Err(e);
            }
        };
        let _ = made_tx.send(mover.stop_handle());
        let start = Instant::now();
        choose_move(mover.as_mut(), &search_game, movetime).map(|mv| (mv, start.elapsed()))
    });
    // Held across the await: if the client goes away this future is
    // dropped, and with it the guard that stops the search.
    let _guard = StopOnDrop(made_rx.await.ok().flatten());
    let (mv, elapsed) = search
        .await
        .map_err(|e| ApiError::internal(format!("the search thread failed: {e}")))?
        .map_err(ApiError::internal)?;
    // An external engine's answer is checked like a user's move.
    if !game.legal_moves().iter().any(|m| m.key() == mv.key()) {
        return Err(ApiError::internal(format!(
            "the engine answered an illegal move {mv}"
        )));
    }
    game.play(&mv);
    Ok(Json(EngineMoveReply {
        mv: MoveView::of(&mv),
        time_ms: elapsed.as_millis() as u64,
        position: PositionView::of(&game, state.tablebases.as_deref()),
    }))
}
