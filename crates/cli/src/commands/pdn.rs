//! `shashki pdn`: check and replay PDN game records.
//!
//! - `shashki pdn check FILE`: one line per game, ok or the error (game, line,
//!   move number, text); fails if any game is broken.
//! - `shashki pdn replay FILE [--game N] [--json]`: every position of each
//!   game as a board, then the outcome as our arbiter judges it; with
//!   `--json`, `{"games": [{"game": 1, "plies": N, "result": "2-0" | "1-1" |
//!   "0-2" | null, "reason": "..." | null}]}` instead (a broken game gets
//!   `"error"` in place of the rest).

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use shashki_rules::{Color, DrawRules, PdnError, PdnGame, read_pdn};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Options of `shashki pdn`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Read every game of a PDN file and report, per game, ok or the error.
    Check {
        /// The PDN file.
        file: PathBuf,
    },
    /// Print every position of the games and the outcome our arbiter gives.
    Replay {
        /// The PDN file.
        file: PathBuf,
        /// Only this game (1 = the first in the file).
        #[arg(long)]
        game: Option<usize>,
        /// Print JSON instead: plies, result and reason per game.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `shashki pdn`.
pub fn run(args: Args) -> Result<()> {
    match args.action {
        Action::Check { file } => check(&file),
        Action::Replay { file, game, json } => replay(&file, game, json),
    }
}

/// Reads the file (any bytes: invalid UTF-8 is replaced, moves are ASCII).
fn load(file: &Path) -> Result<Vec<Result<PdnGame, PdnError>>> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    Ok(read_pdn(&String::from_utf8_lossy(&bytes)))
}

fn check(file: &Path) -> Result<()> {
    let games = load(file)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (mut broken, mut disputed) = (0, 0);
    for (i, game) in games.iter().enumerate() {
        let number = i + 1;
        let game = match game {
            Ok(game) => game,
            Err(err) => {
                broken += 1;
                // The error names its game, line and move itself.
                writeln!(out, "{err}")?;
                continue;
            }
        };
        match verdict(game) {
            Ok(Some(dispute)) => {
                disputed += 1;
                writeln!(out, "game {number}: {} plies, {dispute}", game.moves.len())?;
            }
            Ok(None) => {
                let recorded = game.result.map_or("*", |r| r.pdn());
                writeln!(
                    out,
                    "game {number}: ok, {} plies, result {recorded}",
                    game.moves.len()
                )?;
            }
            Err(err) => {
                broken += 1;
                writeln!(out, "game {number}: {err}")?;
            }
        }
    }
    let ok = games.len() - broken - disputed;
    writeln!(
        out,
        "{} games, {ok} ok, {broken} broken, {disputed} with a result the arbiter disputes",
        games.len()
    )?;
    if broken + disputed > 0 {
        bail!(
            "{} of {} games in {} are broken or disputed",
            broken + disputed,
            games.len(),
            file.display()
        );
    }
    Ok(())
}

/// Replays a game under the default rules: `Some(why)` when the arbiter's
/// result differs from the recorded one. A record of a game the arbiter
/// finds unfinished (resigned, adjourned) is not disputed.
fn verdict(game: &PdnGame) -> Result<Option<String>> {
    let judged = game.replay(DrawRules::default())?;
    Ok(match (game.result, judged.outcome()) {
        (Some(recorded), Some(outcome)) if recorded != outcome.result => Some(format!(
            "the record says {} but the arbiter gives {outcome}",
            recorded.pdn()
        )),
        _ => None,
    })
}

fn replay(file: &Path, only: Option<usize>, json: bool) -> Result<()> {
    let games = load(file)?;
    let selected: Vec<(usize, &Result<PdnGame, PdnError>)> = match only {
        Some(n) if n == 0 || n > games.len() => {
            bail!(
                "--game {n}: {} holds games 1 to {}",
                file.display(),
                games.len()
            )
        }
        Some(n) => vec![(n, &games[n - 1])],
        None => games.iter().enumerate().map(|(i, g)| (i + 1, g)).collect(),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut reports = Vec::new();
    let mut broken = 0;
    for (number, game) in selected {
        let record = match game {
            Ok(record) => record,
            Err(err) => {
                broken += 1;
                if json {
                    reports.push(json!({"game": number, "error": err.to_string()}));
                } else {
                    writeln!(out, "=== {err}\n")?;
                }
                continue;
            }
        };
        let judged = record.replay(DrawRules::default())?;
        let outcome = judged.outcome();
        if json {
            reports.push(json!({
                "game": number,
                "plies": record.moves.len(),
                "result": outcome.map(|o| o.result.pdn()),
                "reason": outcome.map(|o| o.reason.label()),
            }));
            continue;
        }
        writeln!(out, "=== game {number}")?;
        for (name, value) in &record.tags {
            writeln!(out, "[{name} \"{value}\"]")?;
        }
        writeln!(out, "\n{}\n", record.start)?;
        // Black's half-moves are numbered `N...`; a start with Black to move
        // opens with `1...`.
        let black_first = usize::from(record.start.side_to_move() == Color::Black);
        for (ply, mv) in record.moves.iter().enumerate() {
            let position = judged.position_at(ply + 1).expect("replayed every move");
            let index = ply + black_first;
            let dots = if index % 2 == 0 { "." } else { "..." };
            writeln!(out, "{}{dots} {mv}\n{position}\n", index / 2 + 1)?;
        }
        let recorded = record.result.map_or("*", |r| r.pdn());
        match (outcome, judged.ended_at()) {
            (Some(o), Some(ply)) if ply < record.moves.len() => writeln!(
                out,
                "outcome: {o} after half-move {ply} of {}; record says {recorded}\n",
                record.moves.len()
            )?,
            (Some(o), _) => writeln!(out, "outcome: {o}; record says {recorded}\n")?,
            (None, _) => writeln!(out, "outcome: not over; record says {recorded}\n")?,
        }
    }
    if json {
        let doc: Value = json!({ "games": reports });
        writeln!(out, "{doc}")?;
    }
    if let Some(n) = only
        && broken > 0
    {
        bail!("game {n} of {} cannot be replayed", file.display());
    }
    Ok(())
}
