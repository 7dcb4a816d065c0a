//! `shashki rate`: a round-robin (or a gauntlet) between players, Elo by
//! maximum likelihood over every game in the ratings file, as a table, CSV
//! and JSON, and a PNG of Elo against training steps for checkpoints.
//!
//! ```text
//! shashki rate --players random,ab:depth=1,net:runs/a/ckpt-*@sims=64 --games 40 \
//!     --ratings runs/a/ratings.json --json ratings-out.json
//! ```

use crate::arena_args::{OutputOptions, PlayOptions, anchor};
use crate::arena_rater::ArenaRater;
use crate::signals::stop_on_signals;
use anyhow::{Result, anyhow, bail};
use shashki_arena::kinds::KINDS;
use shashki_arena::roster::read_players;
use shashki_arena::tournament::{gauntlet, round_robin};
use shashki_arena::{Pairing, PlayerFactory};
use shashki_train::ratings::TbPoints;
use shashki_train::watch::{Hooks, WatchOptions, watch_run};
use shashki_train::{RatingsLog, RunDir};
use std::path::PathBuf;
use std::time::Duration;

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
        required_unless_present_any = ["ladder", "players_file", "watch"],
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
    #[command(flatten)]
    watch: WatchArgs,
}

/// `rate --watch RUN`: a training run's Elo curve as it trains.
#[derive(clap::Args)]
struct WatchArgs {
    /// Rate the checkpoints of the training run in RUN as they appear (a
    /// running run's or a finished one's), each against `--against` for
    /// `--games` games, into RUN/ratings.jsonl and RUN's tensorboard
    /// (`eval/elo` and its interval); resumable (it goes on after the last
    /// recorded step), until stopped (Ctrl-C) or `--until-step`.
    #[arg(
        long,
        value_name = "RUN",
        conflicts_with_all = ["players", "players_file", "ladder", "gauntlet", "anchor"]
    )]
    watch: Option<PathBuf>,
    /// `--watch`: the anchor every checkpoint plays (a player spec), the
    /// same for every point so that runs share one scale.
    #[arg(long, value_name = "SPEC", default_value = "ab:depth=4")]
    against: String,
    /// `--watch`: rate a checkpoint only this many steps or more after
    /// the last rated one (0: every checkpoint).
    #[arg(long, value_name = "STEPS", default_value_t = 0)]
    every_steps: u64,
    /// `--watch`: stop after rating a checkpoint at or past this step.
    #[arg(long, value_name = "STEP")]
    until_step: Option<u64>,
    /// `--watch`: seconds between two looks at the run's checkpoints.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    poll: f64,
    /// `--watch`: device of an MCTS run's networks (cpu, or wgpu with the
    /// wgpu feature).
    #[arg(long, default_value = "cpu")]
    device: String,
}

/// Runs `shashki rate --watch`.
fn watch(run_dir: &std::path::Path, args: &Args) -> Result<()> {
    let w = &args.watch;
    if !(w.poll > 0.0 && w.poll.is_finite()) {
        bail!("--poll {}: expected seconds > 0", w.poll);
    }
    let anchor = PlayerFactory::from_text(&w.against).map_err(|e| anyhow!("--against {e}"))?;
    let stop = stop_on_signals()?;
    let mut rater = ArenaRater {
        anchor,
        settings: args.play.settings(args.games)?,
        device: w.device.clone(),
    };
    let options = WatchOptions {
        every_steps: w.every_steps,
        until_step: w.until_step,
        poll: Duration::from_secs_f64(w.poll),
        seed: args.play.seed,
    };
    let mut tb = TbPoints::new(RunDir::new(run_dir).tensorboard_dir().join("evaluator"));
    let hooks = Hooks {
        rater: &mut rater,
        gate: None,
        on_point: &mut |point| {
            if let Err(e) = tb.write(point) {
                println!("warning: {e}");
            }
        },
        log: &mut |line| println!("{line}"),
    };
    let points = watch_run(run_dir, hooks, &options, &stop, &|| false)
        .map_err(|e| anyhow!("--watch {}: {e}", run_dir.display()))?;
    println!(
        "rated {} checkpoint(s) this time -> {}",
        points.len(),
        RatingsLog::of_run(run_dir).path().display()
    );
    Ok(())
}

/// Runs `shashki rate`.
pub fn run(args: Args) -> Result<()> {
    if let Some(run_dir) = &args.watch.watch {
        return watch(run_dir, &args);
    }
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
