//! `shashki match A B --games N`: one pairing under the official rules, each
//! balloted opening played twice with colours swapped; prints W/D/L, score,
//! draw rate, logistic and normalized Elo with their 95 % intervals, the
//! pentanomial counts, the book and its distinct openings played; stops at
//! an SPRT decision with `--sprt`, and can add the result to a ratings file
//! and write PDN, JSON and CSV. `--pairs` plays a share of the ballot (the
//! cluster driver deals the shares).

use crate::arena_args::{OutputOptions, PlayOptions, SprtOptions, anchor};
use anyhow::{Result, anyhow, bail};
use shashki_arena::Pairing;
use shashki_arena::matches::parse_pair_list;
use shashki_arena::roster::read_players;

/// Options of `shashki match`.
#[derive(clap::Args)]
pub struct Args {
    /// First player (results are from its point of view), e.g. `ab:depth=4`.
    first: String,
    /// Second player, e.g. `random`.
    second: String,
    /// Number of games (rounded up to whole opening pairs).
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Play only these pairs of the ballot, numbered from 1 as the PDN
    /// `Round` tags number them (`1-8,12`): one machine's share of a match
    /// spread over a cluster (scripts/ray/match.py). Each pair plays the
    /// same opening with the same seeds as in the whole match; with
    /// `--resume` and every listed pair in the PDN file, nothing is played
    /// and the report (and the SPRT, in pair order) covers those pairs.
    #[arg(long, value_name = "LIST")]
    pairs: Option<String>,
    /// Fix this player's rating in the table: NAME=ELO (default: random=0,
    /// else ab:depth=1=0, else the first name in order).
    #[arg(long, value_name = "NAME=ELO")]
    anchor: Option<String>,
    #[command(flatten)]
    play: PlayOptions,
    #[command(flatten)]
    sprt: SprtOptions,
    #[command(flatten)]
    out: OutputOptions,
}

/// Runs `shashki match`.
pub fn run(args: Args) -> Result<()> {
    let first = read_players(&args.first, false, None).map_err(|e| anyhow!(e))?;
    let second = read_players(&args.second, false, None).map_err(|e| anyhow!(e))?;
    if first.len() != 1 || second.len() != 1 {
        bail!("match takes exactly one player on each side (use `shashki rate` for more)");
    }
    if first[0].name == second[0].name {
        bail!("a player cannot play itself: {}", first[0].name);
    }
    let specs = vec![first[0].clone(), second[0].clone()];
    let anchor = anchor(args.anchor.as_deref())?;
    let mut settings = args.play.settings(args.games)?;
    if let Some(list) = &args.pairs {
        let only = parse_pair_list(list, settings.pairs()).map_err(|e| anyhow!(e))?;
        settings.only_pairs = Some(only);
    }
    // One pairing, at the seed given.
    let pairing = Pairing {
        first: 0,
        second: 1,
        settings,
        sprt: args.sprt.test()?,
    };
    args.out.rate(&specs, &[pairing], anchor)
}
