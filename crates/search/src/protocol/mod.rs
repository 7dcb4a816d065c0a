//! The engine line protocol (see `docs/ENGINE_PROTOCOL.md`): one command per
//! line on the engine's stdin, one reply per line on its stdout.
//!
//! Both sides live here: [`Command`] and [`Reply`] parse and print every
//! line, so the server ([`serve`], behind `shashki engine`) and a client that
//! drives external engines (the arena) share one definition.

mod command;
mod reply;
mod search_thread;
mod server;

pub use command::{Command, StartPosition};
pub use reply::{Info, Reply};
pub(crate) use search_thread::{Answered, Input, SearchThread, spawn_line_reader};
pub use server::serve;

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
