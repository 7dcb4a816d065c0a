//! # shashki-protocol
//!
//! The text protocols an engine speaks to the world, apart from the
//! searches they drive (as Stockfish's `uci.cpp` and lc0 keep them):
//!
//! - [`mod@line`]: the engine line protocol, server and client side
//!   (`shashki engine`, and the arena's client for external engines);
//! - [`hub`]: the draughts world's Hub protocol (v2), engine side
//!   (`shashki hub`);
//! - `session`: the one session core both run on (the command loop, the
//!   search thread, the input reader); a protocol is a `Dialect` of it.
//!
//! A new command goes into its protocol's `command.rs` (parse and print)
//! and `dialect.rs` (route and answer); the session core stays as it is.

pub mod hub;
pub mod line;
mod session;

use std::fmt;

/// A line that does not follow the protocol, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError {
    /// What is wrong, naming the offending token.
    pub message: String,
}

impl ProtocolError {
    pub(crate) fn new(message: impl Into<String>) -> ProtocolError {
        ProtocolError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ProtocolError {}
