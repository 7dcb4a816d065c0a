//! One module per subcommand.

pub mod moves;
pub mod perft;
