//! `shashki rate`: a round-robin (or a gauntlet) between players, Elo by
//! maximum likelihood over every game in the ratings file, as a table, CSV
//! and JSON, and a PNG of Elo against training steps for checkpoints.
//!
//! ```text
//! shashki rate --players random,ab:depth=1,net:runs/a/ckpt-*@sims=64 --games 40 \
//!     --ratings runs/a/ratings.json --json ratings-out.json
//! ```

use crate::arena_args::{OutputOptions, PlayOptions, anchor};
use anyhow::{Result, anyhow, bail};
use shashki_arena::Pairing;
use shashki_arena::kinds::KINDS;
use shashki_arena::roster::read_players;
use shashki_arena::tournament::{gauntlet, round_robin};
use std::path::PathBuf;

/// `--players`' help: every kind of the registry with an example.
fn players_help() -> String {
    let kinds: Vec<String> = KINDS
        .iter()
        .map(|k| format!("  {:<16} e.g. {}", k.syntax, k.example))
        .collect();
    format!(
        "Comma-separated players, of the kinds (a `*` in the file name of a kind with a \
         path takes every matching checkpoint):\n{}",
        kinds.join("\n")
    )
}

/// Options of `shashki rate`.
#[derive(clap::Args)]
pub struct Args {
    /// Comma-separated players (the kinds below; a `*` in the file name of
    /// a kind with a path takes every matching checkpoint).
    #[arg(
        long,
        required_unless_present_any = ["ladder", "players_file"],
        long_help = players_help()
    )]
    players: Option<String>,
    /// Players from a TOML file: `players = ["random", "ab:depth=4"]` and/or
    /// `[[player]]` tables with `spec` and an optional display `name`.
    #[arg(long, value_name = "FILE")]
    players_file: Option<PathBuf>,
    /// Add the ladder of fixed anchors: random, ab:depth=1, 2, 4 and 6.
    #[arg(long)]
    ladder: bool,
    /// Games per pairing (rounded up to whole opening pairs).
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Fix this player's rating: NAME=ELO (default: random=0, else
    /// ab:depth=1=0, else the first player at 0).
    #[arg(long, value_name = "NAME=ELO")]
    anchor: Option<String>,
    /// Play only this player against each of the others.
    #[arg(long, value_name = "NAME")]
    gauntlet: Option<String>,
    #[command(flatten)]
    play: PlayOptions,
    #[command(flatten)]
    out: OutputOptions,
}

/// Runs `shashki rate`.
pub fn run(args: Args) -> Result<()> {
    let specs = read_players(
        args.players.as_deref().unwrap_or(""),
        args.ladder,
        args.players_file.as_deref(),
    )
    .map_err(|e| anyhow!(e))?;
    if specs.len() < 2 {
        bail!("rate needs at least two players, got {}", specs.len());
    }
    let anchor = anchor(args.anchor.as_deref())?;
    let pairings = match &args.gauntlet {
        Some(hero) => {
            let i = specs
                .iter()
                .position(|s| &s.name == hero)
                .ok_or_else(|| anyhow!("--gauntlet {hero:?} is not among the players"))?;
            gauntlet(specs.len(), i)
        }
        None => round_robin(specs.len()),
    };
    let base = args.play.settings(args.games)?;
    args.out
        .rate(&specs, &Pairing::round(&pairings, &base), anchor)
}
