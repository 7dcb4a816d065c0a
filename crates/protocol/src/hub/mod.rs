//! The Hub protocol (version 2, Scan 3.1's `protocol.txt`), the text
//! protocol of the draughts world: pydraughts, lidraughts-bot and the Hub
//! GUIs drive engines with it. `shashki hub` serves it for any
//! [`Engine`](shashki_search::Engine); `docs/ENGINE_PROTOCOL.md` describes it and the
//! choices made for the 8x8 Russian board.
//!
//! - [`syntax`]: the `command name=value flag` line syntax, both ways;
//! - [`notation`]: Hub positions and moves on the Russian board;
//! - [`command`]: the GUI's commands and the `level` limits;
//! - [`params`]: the engine parameters (`variant`, `move-overhead`);
//! - [`report`]: `info` and `done` lines from a search;
//! - [`dialect`]: the engine side on the session core, [`serve_hub`].

pub mod command;
pub mod dialect;
pub mod notation;
pub mod params;
pub mod report;
pub mod syntax;

pub use command::{Command, Level, Mode};
pub use dialect::{Identity, serve_hub};
pub use syntax::{Arg, Line};
