//! `shashki`: the one binary of Shashki Zero. Each subcommand lives in its own
//! file under `commands/`; this file only parses the command line and
//! dispatches.

// The doc comments of the argument structs are clap's `--help` text, written
// for the terminal (`[net]` is a config section, `[,gumbel]` an option), not
// links for rustdoc.
#![allow(rustdoc::broken_intra_doc_links)]

use clap::{Parser, Subcommand};
use shashki_atomic::LowDisk;

/// Fewer page faults in training steps (see the `mimalloc` feature).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod arena_args;
mod arena_gate;
mod arena_rater;
mod commands;
mod disk_floor;
mod engine_choice;
mod label_search;
mod nnue_layout;
mod progress;
mod run_options;
mod signals;

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
    /// Check and replay PDN game records.
    Pdn(commands::pdn::Args),
    /// Search one position: best move, evaluation, principal variation.
    Analyse(commands::analyse::Args),
    /// Play against the engine in the terminal.
    Play(commands::play::Args),
    /// Measure search speed against the raw evaluator, and time overshoot.
    BenchSearch(commands::bench_search::Args),
    /// Speak the engine line protocol on stdin/stdout (docs/ENGINE_PROTOCOL.md).
    Engine(commands::engine::Args),
    /// Speak the Hub protocol of the draughts world on stdin/stdout
    /// (pydraughts, lidraughts-bot, Hub GUIs; docs/ENGINE_PROTOCOL.md).
    Hub(commands::hub::Args),
    /// Write a checkpoint's network as model.safetensors + model.json, or
    /// as model.onnx (`--format onnx`).
    Export(commands::export::Args),
    /// Check a model.onnx against the documented contract (docs/MODEL.md).
    CheckOnnx(commands::check_onnx::Args),
    /// Read an exported model folder back into a checkpoint.
    Import(commands::import::Args),
    /// Write an untrained NNUE model folder (for `--engine nnue:DIR`).
    NnueInit(commands::nnue_init::Args),
    /// A wider NNUE training checkpoint that evaluates as the narrow one
    /// (new feature-transformer units with zero weights out).
    NnueWiden(commands::nnue_widen::Args),
    /// Why an NNUE run stops improving: held-out losses, label noise,
    /// capacity (issue 24).
    NnueDiagnose(commands::nnue_diagnose::Args),
    /// Deeper labels for the self-play samples a cheap screen picks
    /// (parallel, resumable, atomic; issue 36).
    Relabel(commands::relabel::Args),
    /// The network's W/D/L and policy for one position.
    Eval(commands::eval::Args),
    /// Play one pairing (each opening twice, colours swapped) and report
    /// W/D/L, score and the Elo difference.
    Match(commands::match_cmd::Args),
    /// Unbalanced opening books: score positions into a resumable pool,
    /// then cut books out of it by band of advantage (held-out split).
    Book(commands::book::Args),
    /// Rate players by a round-robin or gauntlet: Elo with error bars, table,
    /// CSV, JSON, and a plot of Elo against training steps.
    Rate(commands::rate::Args),
    /// Train from zero: self-play, training, gating, repeat (resumable).
    Train(commands::train::Args),
    /// Self-play alone, writing sample chunks into a directory.
    Selfplay(commands::selfplay::Args),
    /// The learner alone, training on a directory of sample chunks.
    Learn(commands::learn::Args),
    /// Print the samples of chunk files, one JSON line each.
    Samples(commands::samples::Args),
    /// Single-winning-move suites: make one from PDN games, count what an
    /// engine solves at a fixed budget.
    Tactics(commands::tactics::Args),
    /// Endgame tablebases exact under the official draw rules: generate,
    /// probe, verify, bench (docs/TABLEBASES.md).
    Tb(commands::tb::Args),
    /// A web board on a local port: play the engines, watch them analyse,
    /// step through PDN games, follow training runs.
    Serve(commands::serve::Args),
}

/// Exit status of a process killed by SIGPIPE (128 + 13): what `yes | head`
/// reports when the reader goes away.
const BROKEN_PIPE_EXIT: i32 = 141;

/// Exit status of a command that stopped, everything saved, because the
/// disk's free space fell below its floor (`EX_TEMPFAIL` of sysexits.h:
/// the same command succeeds later, once there is room).
pub(crate) const LOW_DISK_EXIT: i32 = 75;

fn main() {
    quiet_on_broken_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => commands::perft::run(args),
        Command::Moves(args) => commands::moves::run(args),
        Command::Pdn(args) => commands::pdn::run(args),
        Command::Analyse(args) => commands::analyse::run(args),
        Command::Play(args) => commands::play::run(args),
        Command::BenchSearch(args) => commands::bench_search::run(args),
        Command::Engine(args) => commands::engine::run(args),
        Command::Hub(args) => commands::hub::run(args),
        Command::Export(args) => commands::export::run(args),
        Command::CheckOnnx(args) => commands::check_onnx::run(args),
        Command::Import(args) => commands::import::run(args),
        Command::NnueInit(args) => commands::nnue_init::run(args),
        Command::NnueWiden(args) => commands::nnue_widen::run(args),
        Command::NnueDiagnose(args) => commands::nnue_diagnose::run(args),
        Command::Relabel(args) => commands::relabel::run(args),
        Command::Eval(args) => commands::eval::run(args),
        Command::Match(args) => commands::match_cmd::run(args),
        Command::Book(args) => commands::book::run(args),
        Command::Rate(args) => commands::rate::run(args),
        Command::Train(args) => commands::train::run(args),
        Command::Selfplay(args) => commands::selfplay::run(args),
        Command::Learn(args) => commands::learn::run(args),
        Command::Samples(args) => commands::samples::run(args),
        Command::Tactics(args) => commands::tactics::run(args),
        Command::Tb(args) => commands::tb::run(args),
        Command::Serve(args) => commands::serve::run(args),
    };
    if let Err(err) = result {
        if is_broken_pipe(&err) {
            std::process::exit(BROKEN_PIPE_EXIT);
        }
        if err.chain().any(|c| c.downcast_ref::<LowDisk>().is_some()) {
            eprintln!("stopped: {}", error_text(&err));
            std::process::exit(LOW_DISK_EXIT);
        }
        eprintln!("error: {}", error_text(&err));
        std::process::exit(1);
    }
}

/// True if `err` comes from writing to a reader that went away
/// (`shashki perft | head`).
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Rust ignores SIGPIPE, so `println!` to a closed pipe panics; that panic
/// (and only that one) becomes a quiet exit with the usual status. SIGPIPE
/// itself stays ignored: a crashed external engine must not kill a match.
fn quiet_on_broken_pipe() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        let broken_pipe = message.contains("Broken pipe") || message.contains("os error 32");
        if message.starts_with("failed printing to std") && broken_pipe {
            std::process::exit(BROKEN_PIPE_EXIT);
        }
        default_hook(info);
    }));
}

/// The error and its causes, `: `-separated, without repeating a cause that
/// an outer message already quotes (`{path}: {source}` errors would print
/// their source twice with anyhow's `{:#}`).
fn error_text(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}
