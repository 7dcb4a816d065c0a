//! `shashki`: the one binary of Shashki Zero. Each subcommand lives in its own
//! file under `commands/`; this file only parses the command line and
//! dispatches.

use clap::{Parser, Subcommand};

mod commands;

/// Shashki Zero: train Russian checkers engines from zero by self-play.
#[derive(Parser)]
#[command(name = "shashki", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the move tree (move generator check and speed).
    Perft(commands::perft::Args),
    /// List the legal moves of positions.
    Moves(commands::moves::Args),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => commands::perft::run(args),
        Command::Moves(args) => commands::moves::run(args),
    };
    if let Err(err) = result {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}
