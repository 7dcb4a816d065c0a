//! The engine line protocol (see `docs/ENGINE_PROTOCOL.md`): one command per
//! line on the engine's stdin, one reply per line on its stdout.
//!
//! Both sides live here: [`Command`] and [`Reply`] parse and print every
//! line, so the server ([`serve`], behind `shashki engine`) and a client that
//! drives external engines (the arena) share one definition.

mod command;
mod dialect;
mod reply;

pub use command::{Command, StartPosition};
pub use dialect::serve;
pub use reply::{Info, Reply};
