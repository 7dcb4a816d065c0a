//! The Hub protocol (version 2, Scan 3.1's `protocol.txt`), the text
//! protocol of the draughts world: pydraughts, lidraughts-bot and the Hub
//! GUIs drive engines with it. `shashki hub` serves it for any
//! [`Engine`](crate::Engine); `docs/ENGINE_PROTOCOL.md` describes it and the
//! choices made for the 8x8 Russian board.
//!
//! - [`syntax`]: the `command name=value flag` line syntax, both ways;
//! - [`notation`]: Hub positions and moves on the Russian board;
//! - [`command`]: the GUI's commands and the `level` limits;
//! - [`params`]: the engine parameters (`variant`, `move-overhead`);
//! - [`report`]: `info` and `done` lines from a search;
//! - [`session`]: the engine side, [`serve_hub`].

pub mod command;
pub mod notation;
pub mod params;
pub mod report;
pub mod session;
pub mod syntax;

pub use command::{Command, Level, Mode};
pub use session::{Identity, serve_hub};
pub use syntax::{Arg, Line};
