//! `shashki book`: unbalanced opening books. `book score` fills a scored
//! pool (resumable: run it again to go on), `book select` cuts a book out
//! of it for a band of advantage and a held-out part, `book stats` shows
//! how many positions each band would hold. The logic is in
//! `shashki_arena::book`.

use crate::disk_floor::FloorArgs;
use crate::engine_choice::{EngineArgs, default_threads, engine_of};
use crate::signals::stop_on_signals;
use anyhow::{Context, Result, anyhow, bail};
use shashki_arena::OpeningBook;
use shashki_arena::book::candidates::{
    chunk_candidates, distinct, line_candidates, pdn_candidates, pdn_files,
};
use shashki_arena::book::pool::{Pool, PoolContents, PoolSettings, Stage};
use shashki_arena::book::scoring::{ScoreSettings, StageProgress, fill_pool};
use shashki_arena::book::select::{Selection, histogram, select, write_book};
use shashki_arena::book::{Part, PlyRange, ScoreBand};
use shashki_rules::Color;
use shashki_search::SearchLimits;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Options of `shashki book`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: BookCommand,
}

#[derive(clap::Subcommand)]
enum BookCommand {
    /// Screen the candidates with a cheap search and score the survivors
    /// with a deep one, appending every result to a pool file; run again
    /// with the same options to resume.
    Score(Box<ScoreArgs>),
    /// Write a book of the pool's positions in a band of advantage, for
    /// `match --openings`.
    Select(SelectArgs),
    /// How many of the pool's positions lie in each band of advantage.
    Stats(StatsArgs),
}

/// Options of `shashki book score`.
#[derive(clap::Args)]
struct ScoreArgs {
    /// The pool file (JSON lines), created or resumed.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Candidates: every distinct position at these plies along every line
    /// from the standard start (`6`, `4..=6`).
    #[arg(long, value_name = "PLIES", default_value = "6..=7")]
    plies: PlyRange,
    /// No candidates from the lines of the first plies.
    #[arg(long)]
    no_lines: bool,
    /// Candidates from recorded games: a PDN file, or a folder searched
    /// for `.pdn` files (repeatable).
    #[arg(long, value_name = "PATH")]
    pdn: Vec<PathBuf>,
    /// Candidates from a folder of self-play chunks (repeatable).
    #[arg(long, value_name = "DIR")]
    chunks: Vec<PathBuf>,
    /// The plies of recorded and self-play games taken as candidates.
    #[arg(long, value_name = "PLIES", default_value = "8..=12")]
    game_plies: PlyRange,
    /// Depth of the cheap search that screens every candidate.
    #[arg(long, default_value_t = 8)]
    screen_depth: u32,
    /// The screen keeps a position for the deep search when its advantage
    /// for either side (centi-men, a man is 100) lies in this window.
    #[arg(long, value_name = "LOW..HIGH", default_value = "40..=300")]
    window: ScoreBand,
    /// Depth of the deep search (default 15, unless --movetime is given).
    #[arg(long)]
    depth: Option<u32>,
    /// Milliseconds of the deep search per position (instead of a depth,
    /// or as a cap beside it; timed searches are not reproducible).
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Node cap of each deep search (deterministic, unlike --movetime).
    #[arg(long)]
    nodes: Option<u64>,
    /// Positions searched at once, one engine and one thread each; 0: one
    /// per core.
    #[arg(long, default_value_t = 0)]
    jobs: usize,
    /// Stop once the pool holds this many deep scores.
    #[arg(long, value_name = "N")]
    max_deep: Option<usize>,
    /// Start no search after this many minutes (those in flight finish);
    /// the same command resumes.
    #[arg(long, value_name = "MINUTES")]
    max_minutes: Option<f64>,
    /// Seconds between progress lines on stderr.
    #[arg(long, default_value_t = 30.0)]
    progress_every: f64,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    floor: FloorArgs,
}

/// Options of `shashki book select`.
#[derive(clap::Args)]
struct SelectArgs {
    /// The pool file written by `book score`.
    #[arg(long, value_name = "FILE")]
    pool: PathBuf,
    /// The band of advantage for either side, centi-men (`80..160`: from
    /// 80 up to 159; `80..=160` includes 160).
    #[arg(long, value_name = "LOW..HIGH")]
    band: ScoreBand,
    /// The held-out part: `test` (books for matches, rating and the gate),
    /// `train` (self-play starts) or `all`. The split is by position, the
    /// same for every pool and band, so the parts never share a position.
    #[arg(long)]
    part: PartChoice,
    /// The share of positions in the test part.
    #[arg(long, default_value_t = 0.5)]
    test_share: f64,
    /// Only positions that favour this side: `white`, `black` or `either`.
    #[arg(long, default_value = "either")]
    favours: Favours,
    /// Only deep scores of at least this depth (default: all).
    #[arg(long, default_value_t = 0)]
    min_depth: u32,
    /// The book file to write (lines `Name | moves`, `Name | FEN | moves`).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// Options of `shashki book stats`.
#[derive(clap::Args)]
struct StatsArgs {
    /// The pool file written by `book score`.
    #[arg(long, value_name = "FILE")]
    pool: PathBuf,
    /// Width of each band, centi-men.
    #[arg(long, default_value_t = 20)]
    step: i32,
    /// Bands up to this advantage; everything above is one last band.
    #[arg(long, default_value_t = 400)]
    top: i32,
    /// The share of positions in the test part.
    #[arg(long, default_value_t = 0.5)]
    test_share: f64,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum PartChoice {
    Test,
    Train,
    All,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Favours {
    White,
    Black,
    Either,
}

/// Runs `shashki book`.
pub fn run(args: Args) -> Result<()> {
    match args.command {
        BookCommand::Score(args) => score(*args),
        BookCommand::Select(args) => select_book(args),
        BookCommand::Stats(args) => {
            check_share(args.test_share)?;
            let pool = PoolContents::read(&args.pool)?;
            print!("{}", histogram(&pool, args.step, args.top, args.test_share));
            Ok(())
        }
    }
}

impl ScoreArgs {
    /// The deep search's limits: depth 15 unless a time is given.
    fn deep_limits(&self) -> SearchLimits {
        let depth = match (self.depth, self.movetime) {
            (None, None) => Some(15),
            (depth, _) => depth,
        };
        SearchLimits {
            depth,
            nodes: self.nodes,
            movetime: self.movetime.map(Duration::from_millis),
            ..SearchLimits::default()
        }
    }

    /// Every candidate, each position once, lines first.
    fn candidates(&self) -> Result<Vec<shashki_arena::Opening>> {
        let mut all = Vec::new();
        if !self.no_lines {
            all.extend(line_candidates(self.plies));
        }
        for path in &self.pdn {
            for file in pdn_files(path)? {
                all.extend(pdn_candidates(&file, self.game_plies)?);
            }
        }
        for dir in &self.chunks {
            all.extend(chunk_candidates(dir, self.game_plies)?);
        }
        Ok(distinct(all))
    }
}

fn limits_text(limits: &SearchLimits) -> String {
    let mut parts = Vec::new();
    if let Some(d) = limits.depth {
        parts.push(format!("depth {d}"));
    }
    if let Some(n) = limits.nodes {
        parts.push(format!("nodes {n}"));
    }
    if let Some(t) = limits.movetime {
        parts.push(format!("movetime {} ms", t.as_millis()));
    }
    parts.join(", ")
}

fn score(args: ScoreArgs) -> Result<()> {
    let spec = args.engine.spec()?;
    if spec.kind.is_tree_search() {
        bail!(
            "--engine {}: a book needs scores in centi-men; use an alpha-beta engine \
             (builtin, ab or nnue:PATH)",
            spec.name
        );
    }
    let stop = stop_on_signals()?;
    let watch = args.floor.watch(&args.out, true, &stop);
    let tablebases = args.engine.tablebases()?;
    let make =
        || engine_of(&spec, args.engine.seed, tablebases.clone()).map_err(|e| format!("{e:#}"));
    let mut engine_text = make().map_err(|e| anyhow!(e))?.description();
    if let Some(dir) = &args.engine.tablebase {
        engine_text.push_str(&format!(", tablebases {}", dir.display()));
    }
    let settings = ScoreSettings {
        screen: SearchLimits::depth(args.screen_depth),
        deep: args.deep_limits(),
        window: args.window,
        jobs: if args.jobs == 0 {
            default_threads()
        } else {
            args.jobs
        },
        max_deep: args.max_deep,
        progress_every: Duration::try_from_secs_f64(args.progress_every.max(0.1))
            .context("--progress-every")?,
        deadline: args
            .max_minutes
            .map(|m| Duration::try_from_secs_f64(m * 60.0).context("--max-minutes"))
            .transpose()?
            .map(|d| Instant::now() + d),
    };
    let header = PoolSettings {
        engine: engine_text,
        screen: limits_text(&settings.screen),
        deep: limits_text(&settings.deep),
    };
    let candidates = args.candidates()?;
    let mut pool = Pool::open(&args.out, &header)?;
    eprintln!(
        "book: {} distinct candidates; the pool {} holds {} screened, {} deep; {} jobs, \
         screen {}, deep {}, {}",
        candidates.len(),
        args.out.display(),
        pool.contents.screen.len(),
        pool.contents.deep.len(),
        settings.jobs,
        header.screen,
        header.deep,
        header.engine
    );
    let summary = fill_pool(&candidates, &mut pool, &settings, &make, &stop, &mut report)?;
    println!(
        "{} candidates: {} screened now, {} kept by the screen (window {}), {} deep-scored \
         now; the pool holds {} deep scores{}",
        summary.candidates,
        summary.screened,
        summary.survivors,
        args.window,
        summary.deep_scored,
        summary.deep_in_pool,
        if summary.stopped {
            " (stopped: run the same command again to go on)"
        } else {
            ""
        }
    );
    print!("{}", histogram(&pool.contents, 40, 400, 0.5));
    Ok(watch.finish()?)
}

/// A progress line on stderr.
fn report(p: &StageProgress) {
    let stage = match p.stage {
        Stage::Screen => "screen",
        Stage::Deep => "deep",
    };
    let per = if p.done > 0 {
        format!(", {:.2} s each", p.elapsed.as_secs_f64() / p.done as f64)
    } else {
        String::new()
    };
    let eta = p.eta().map_or_else(|| "?".into(), |t| clock(t.as_secs()));
    eprintln!(
        "book {stage}: {}/{} ({:.1} %), {} won/lost, {} elapsed{per}, ETA {eta}",
        p.done,
        p.total,
        100.0 * p.done as f64 / p.total.max(1) as f64,
        p.decided,
        clock(p.elapsed.as_secs()),
    );
}

fn clock(seconds: u64) -> String {
    format!(
        "{}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

fn check_share(share: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&share) {
        bail!("--test-share {share}: a share between 0 and 1");
    }
    Ok(())
}

fn select_book(args: SelectArgs) -> Result<()> {
    check_share(args.test_share)?;
    let pool = PoolContents::read(&args.pool)?;
    let selection = Selection {
        band: args.band,
        favours: match args.favours {
            Favours::White => Some(Color::White),
            Favours::Black => Some(Color::Black),
            Favours::Either => None,
        },
        part: match args.part {
            PartChoice::Test => Some(Part::Test),
            PartChoice::Train => Some(Part::Train),
            PartChoice::All => None,
        },
        test_share: args.test_share,
        min_depth: args.min_depth,
    };
    let chosen = select(&pool, &selection);
    if chosen.is_empty() {
        bail!(
            "no position of {} lies in the band {} in the part asked: nothing to write",
            args.pool.display(),
            args.band,
        );
    }
    let settings = pool.settings.clone().unwrap_or_else(|| PoolSettings {
        engine: "?".into(),
        screen: "?".into(),
        deep: "?".into(),
    });
    let side = match args.favours {
        Favours::White => "White",
        Favours::Black => "Black",
        Favours::Either => "either side",
    };
    let part = match args.part {
        PartChoice::Test => "the test part",
        PartChoice::Train => "the train part (self-play starts)",
        PartChoice::All => "both parts",
    };
    let heading = format!(
        "Unbalanced book: {} positions whose deep score favours {side} by {} centi-men \
         (a man is 100), {part} of a split by position ({} test).\n\
         Made by `shashki book select` from {} ({}, deep search {}).\n\
         Each name: White's advantage, the side favoured, the search depth, the source, the key.",
        chosen.len(),
        args.band,
        args.test_share,
        args.pool.display(),
        settings.engine,
        settings.deep,
    );
    write_book(&args.out, &chosen, &heading)?;
    // What `match --openings` will see.
    let book = OpeningBook::load(&args.out).map_err(|e| anyhow!(e))?;
    println!(
        "{}: {} openings (band {}, favouring {side}, {part})",
        args.out.display(),
        book.len(),
        args.band,
    );
    Ok(())
}
