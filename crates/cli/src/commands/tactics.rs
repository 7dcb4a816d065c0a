//! `shashki tactics`: make a suite of single-winning-move positions from
//! game records, and count how many of a suite an engine solves at a fixed
//! budget (`shashki_arena::tactics`).
//!
//! ```text
//! shashki tactics make --pdn games.pdn --out suite.txt --max 80
//! shashki tactics solve --suite tests/data/tactics.txt --engine builtin:sel=none --nodes 40000
//! ```

use crate::engine_choice::{EngineArgs, LimitArgs};
use anyhow::{Context, Result, bail};
use shashki_arena::tactics::{Criteria, MakeSettings, make_suite, read_suite, solve, write_suite};
use shashki_search::SearchLimits;
use std::path::PathBuf;

/// Options of `shashki tactics`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Find single-winning-move positions in PDN files: every move of each
    /// position searched shallowly, the candidates again deeply.
    Make {
        /// PDN files to read (repeat the flag for more).
        #[arg(long, required = true)]
        pdn: Vec<PathBuf>,
        /// Where to write the suite (atomically).
        #[arg(long)]
        out: PathBuf,
        /// Stop after this many positions.
        #[arg(long, default_value_t = 100)]
        max: usize,
        /// Fewest pieces on the board.
        #[arg(long, default_value_t = 7)]
        min_pieces: u32,
        /// Only positions whose best move at the root differs between this
        /// depth and the screen's are screened.
        #[arg(long, default_value_t = 4)]
        shallow_depth: u32,
        /// Depth of the screen of each move's reply (and of the root search
        /// compared with the shallow one).
        #[arg(long, default_value_t = 8)]
        screen_depth: u32,
        /// Depth of the confirming search of each move's reply.
        #[arg(long, default_value_t = 14)]
        depth: u32,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Search each position of a suite and count the winning moves found.
    Solve {
        /// The suite (`FEN | move | note` lines).
        #[arg(long)]
        suite: PathBuf,
        #[command(flatten)]
        engine: EngineArgs,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

/// Runs `shashki tactics`.
pub fn run(args: Args) -> Result<()> {
    match args.command {
        Command::Make {
            pdn,
            out,
            max,
            min_pieces,
            shallow_depth,
            screen_depth,
            depth,
            engine,
        } => {
            let texts = pdn
                .iter()
                .map(|p| {
                    std::fs::read_to_string(p).with_context(|| format!("--pdn {}", p.display()))
                })
                .collect::<Result<Vec<_>>>()?;
            let spec = engine.spec()?;
            let mut searcher = engine.build(&spec)?;
            let settings = MakeSettings {
                min_pieces,
                shallow: SearchLimits::depth(shallow_depth),
                screen: SearchLimits::depth(screen_depth),
                confirm: SearchLimits::depth(depth),
                criteria: Criteria::default(),
                max,
            };
            let suite = make_suite(&mut *searcher, &texts, &settings, &mut |t| {
                println!("{} {} ({})", t.position.to_fen(), t.best, t.note);
            });
            let header = format!(
                "Single winning moves ({} positions): the best move's value >= {} centi-men, \
                 every other <= {}, by {} at depth {screen_depth} and again at depth {depth} \
                 (each move's reply searched), positions of {min_pieces}+ pieces whose best \
                 move at depth {shallow_depth} is another than at depth {screen_depth}, from {}.",
                suite.len(),
                settings.criteria.win,
                settings.criteria.others_at_most,
                spec.name,
                pdn.iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            shashki_atomic::write_atomic(&out, write_suite(&header, &suite).as_bytes())
                .with_context(|| format!("--out {}", out.display()))?;
            println!("{} positions written to {}", suite.len(), out.display());
        }
        Command::Solve {
            suite,
            engine,
            limits,
        } => {
            let text = std::fs::read_to_string(&suite)
                .with_context(|| format!("--suite {}", suite.display()))?;
            let tactics =
                read_suite(&text).with_context(|| format!("--suite {}", suite.display()))?;
            let spec = engine.spec()?;
            let limits = limits.limits_for(&spec)?;
            if limits.is_unlimited() {
                bail!("give a budget: --nodes, --depth or --movetime");
            }
            let mut searcher = engine.build(&spec)?;
            let solved = solve(&mut *searcher, &tactics, &limits);
            let missed: Vec<String> = solved
                .hits
                .iter()
                .enumerate()
                .filter(|(_, hit)| !**hit)
                .map(|(i, _)| (i + 1).to_string())
                .collect();
            println!(
                "{}: {} of {} solved ({:.0} %); missed: {}",
                spec.name,
                solved.count(),
                tactics.len(),
                100.0 * solved.count() as f64 / tactics.len().max(1) as f64,
                if missed.is_empty() {
                    "none".into()
                } else {
                    missed.join(" ")
                }
            );
        }
    }
    Ok(())
}
