//! `GET /api/analyse`: a live analysis of one position as server-sent
//! events. An `info` event follows each completed iteration of the search
//! (score, depth, nodes, principal variation), a `done` event its end. The
//! search is bounded by the server's analysis time; when the page closes
//! the stream (the Stop button, another position, a closed tab) the
//! stream is dropped and the search stops.

use crate::error::{ApiError, ApiResult, WithStatus};
use crate::players::EngineSettings;
use crate::position::SearchRequest;
use crate::state::{AppState, StopOnDrop, clamp_time};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use shashki_rules::{Color, Game, Move};
use shashki_search::{Score, SearchLimits, SearchReport};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio_stream::wrappers::UnboundedReceiverStream;

/// One report of the search, as the page shows it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct InfoView {
    /// The score from the side to move's view.
    pub score: ScoreView,
    /// Depth (alpha-beta plies; MCTS: the principal variation's length).
    pub depth: u32,
    /// Nodes or simulations.
    pub nodes: u64,
    /// Milliseconds searched.
    pub time_ms: u64,
    /// Nodes per second.
    pub nps: u64,
    /// The principal variation in long notation.
    pub pv: Vec<String>,
    /// The best move so far.
    pub best: Option<String>,
}

/// A score for display.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ScoreView {
    /// The protocol's spelling: `cp 35`, `mate 7`, `value 0.250`, `tb win 12`.
    pub text: String,
    /// Short, from White's point of view: `+0.35`, `W#7`, `B wins (TB)`.
    pub display: String,
    /// The expected result for White in [-1, 1], for the evaluation bar.
    pub white: f64,
}

impl ScoreView {
    /// The view of `score`, given by a search with `side` to move.
    pub fn of(score: Score, side: Color) -> ScoreView {
        let sign = if side == Color::White { 1.0 } else { -1.0 };
        let (mover, display): (f64, String) = match score {
            Score::Centi(cp) => {
                let v = 2.0 / (1.0 + (-f64::from(cp) / 250.0).exp()) - 1.0;
                (v, format!("{:+.2}", sign * f64::from(cp) / 100.0))
            }
            Score::Mate(n) => {
                let winner = if (n > 0) == (side == Color::White) {
                    "White"
                } else {
                    "Black"
                };
                (
                    f64::from(n.signum()),
                    format!("{winner} wins in {} half-moves", n.abs()),
                )
            }
            Score::Value(v) => (f64::from(v), format!("{:+.3}", sign * f64::from(v))),
            Score::ProvenDraw => (0.0, "0.00 (proven draw)".into()),
            Score::TbWin(_) | Score::TbLoss(_) => {
                let win = matches!(score, Score::TbWin(_));
                let winner = if win == (side == Color::White) {
                    "White"
                } else {
                    "Black"
                };
                (
                    if win { 1.0 } else { -1.0 },
                    format!("{winner} wins (tablebase)"),
                )
            }
            Score::TbDraw => (0.0, "draw (tablebase)".into()),
        };
        ScoreView {
            text: score.to_string(),
            display,
            white: (sign * mover).clamp(-1.0, 1.0),
        }
    }
}

impl InfoView {
    fn of(report: &SearchReport, side: Color) -> InfoView {
        let ms = report.elapsed.as_millis() as u64;
        InfoView {
            score: ScoreView::of(report.score, side),
            depth: report.depth,
            nodes: report.nodes,
            time_ms: ms,
            nps: report.nodes * 1000 / ms.max(1),
            pv: report.pv.iter().map(Move::to_string).collect(),
            best: report.best_move.map(|m| m.to_string()),
        }
    }
}

/// `GET /api/analyse?fen=..&moves=..&engine=..&time_ms=..`.
pub async fn analyse(
    State(state): State<Arc<AppState>>,
    query: Result<Query<SearchRequest>, QueryRejection>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let Query(query) = query.map_err(|e| ApiError::from(WithStatus(e)))?;
    let game = query.game("nothing to analyse")?;
    let ask = query.ask();
    let named = state
        .opponents
        .analysis_engine(query.engine.as_deref(), &ask)
        .map_err(ApiError::bad_request)?;
    let time = clamp_time(query.time_ms, state.max_analysis, state.max_analysis);
    let permit = state.search_slot()?;
    let engine = (named.make)(&EngineSettings {
        threads: ask.threads,
    })
    .map_err(ApiError::internal)?;
    let guard = StopOnDrop(engine.stop_handle());
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let limits = SearchLimits {
        depth: ask.depth,
        ..SearchLimits::movetime(time)
    };
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        run_search(engine, &game, &limits, &tx);
    });
    // The guard lives as long as the stream: dropping the stream (the
    // client went away) stops the search.
    let stream = UnboundedReceiverStream::new(rx).map(move |event| {
        let _ = &guard;
        Ok(event)
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(1))))
}

fn run_search(
    mut engine: Box<dyn shashki_search::Engine>,
    game: &Game,
    limits: &SearchLimits,
    tx: &tokio::sync::mpsc::UnboundedSender<Event>,
) {
    let side = game.side_to_move();
    let stop = engine.stop_handle();
    let send = |name: &str, info: &InfoView| {
        let event = Event::default().event(name).json_data(info);
        event.is_ok_and(|e| tx.send(e).is_ok())
    };
    let report = engine.go(game, limits, &mut |report| {
        if !send("info", &InfoView::of(report, side))
            && let Some(stop) = &stop
        {
            stop.stop();
        }
    });
    send("done", &InfoView::of(&report, side));
}
