//! The page's files, built into the binary: the server answers only these
//! names, whatever else the request asks for.

use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// (name, content type, bytes) of every asset.
static ASSETS: [(&str, &str, &[u8]); 4] = [
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/app.js"),
    ),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_bytes!("../assets/app.css"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/board.js"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_bytes!("../assets/favicon.svg"),
    ),
];

const INDEX: &str = include_str!("../assets/index.html");

fn respond(content_type: &'static str, body: &'static [u8]) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

/// `GET /`.
pub async fn index() -> Response {
    respond("text/html; charset=utf-8", INDEX.as_bytes())
}

/// `GET /assets/{name}`.
pub async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some(&(_, content_type, body)) => respond(content_type, body),
        None => ApiError::not_found(format!("no asset {name:?}")).into_response(),
    }
}
