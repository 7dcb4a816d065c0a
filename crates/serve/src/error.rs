//! Every refused request answers a 4xx (or 5xx) status with a JSON body
//! `{"error": "what is wrong, and where"}`, so the page can show it.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// A refused request: its status and a message for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What is wrong.
    pub message: String,
}

impl ApiError {
    /// 400: the request itself is wrong (a bad FEN, an illegal move, ...).
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404: no such page, file, game or run.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    /// 429: every search slot is taken.
    pub fn busy(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::TOO_MANY_REQUESTS, message)
    }

    /// 500: the server could not do what was asked (an engine that failed
    /// to load, an unreadable file it was given).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// Any status.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(ErrorBody {
                error: &self.message,
            }),
        )
            .into_response()
    }
}

/// The rejections of axum's extractors (a body over the size limit, a
/// malformed query) as our JSON errors, keeping their status.
impl<R: std::fmt::Display + IntoResponse> From<WithStatus<R>> for ApiError {
    fn from(WithStatus(rejection): WithStatus<R>) -> ApiError {
        let text = rejection.to_string();
        let status = rejection.into_response().status();
        ApiError::new(status, text)
    }
}

/// Wraps an extractor's rejection for the conversion above.
pub struct WithStatus<R>(pub R);

/// The result type of every handler.
pub type ApiResult<T> = Result<T, ApiError>;
