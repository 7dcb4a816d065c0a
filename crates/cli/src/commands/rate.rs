//! `shashki rate`: a round-robin (or a gauntlet) between players, Elo by
//! maximum likelihood over every game in the ratings file, as a table, CSV
//! and JSON, and a PNG of Elo against training steps for checkpoints.
//!
//! ```text
//! shashki rate --players random,ab:depth=1,net:runs/a/ckpt-*@sims=64 --games 40 \
//!     --ratings runs/a/ratings.json --json ratings-out.json
//! ```

use super::record::Recorder;
use anyhow::{Context, Result, anyhow, bail};
use shashki_arena::atomic::write_atomic;
use shashki_arena::clock::{DEFAULT_TIME_MARGIN, TimeControl};
use shashki_arena::matches::{Control, DEFAULT_MAX_PLIES, MatchSettings, mix_seed, run_match};
use shashki_arena::plot::write_elo_plot;
use shashki_arena::spec::{parse_players_file, split_spec_list};
use shashki_arena::tournament::{
    LADDER, common_run_dir, default_anchor, expand_wildcards, gauntlet, parse_anchor, plot_data,
    round_robin, training_steps,
};
use shashki_arena::{PlayerFactory, PlayerSpec};
use shashki_search::tablebase::{self, MAX_TABLEBASE_PIECES};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options of `shashki rate`.
#[derive(clap::Args)]
pub struct Args {
    /// Comma-separated players: random, ab:depth=N, ab:movetime=MS,
    /// mcts:sims=N[,gumbel], net:PATH@sims=N[,gumbel], nnue:PATH@depth=N|movetime=MS
    /// (a `*` in the file name of net: or nnue: takes every matching
    /// checkpoint), ext:"COMMAND"@movetime=MS.
    #[arg(long, required_unless_present_any = ["ladder", "players_file"])]
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

/// How the games are played (shared with `shashki match`).
#[derive(clap::Args)]
pub struct PlayOptions {
    /// Opening book: a PDN file or lines of `Name | moves` / FEN; default:
    /// the built-in book of the usual openings.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Seed of the opening ballot and of every player.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once (0: one per CPU core, or one at a time when a
    /// player is timed or a clock is set, so players do not share cores).
    #[arg(long, default_value_t = 0)]
    pub concurrency: usize,
    /// Adjudicate a draw after this many half-moves.
    #[arg(long, default_value_t = DEFAULT_MAX_PLIES)]
    pub max_plies: u32,
    /// Game clock for every player, `BASE+INC` in seconds (e.g. `60+1`):
    /// the arena keeps both clocks, sends them with `go wtime/btime/winc/binc`,
    /// and a side whose clock runs out loses on time.
    #[arg(long, value_name = "BASE+INC")]
    pub tc: Option<TimeControl>,
    /// Milliseconds past a clock's zero tolerated for process latency
    /// before a side loses on time.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_TIME_MARGIN.as_millis() as u64)]
    pub time_margin: u64,
    /// Endgame tablebase folder (`shashki tb generate`): a game that reaches
    /// a position in its tables ends at once with their exact result,
    /// recorded as `Termination "tablebase adjudication"`.
    #[arg(long, value_name = "DIR")]
    pub tablebase: Option<PathBuf>,
}

impl PlayOptions {
    /// Match settings for `games` games.
    pub fn settings(&self, games: usize) -> Result<MatchSettings> {
        let settings = MatchSettings::with_options(
            games,
            self.openings.as_deref(),
            self.seed,
            self.concurrency,
            self.max_plies,
            "Shashki Zero rating",
        )?;
        let tablebases = self
            .tablebase
            .as_deref()
            .map(|dir| tablebase::load(dir, settings.rules, MAX_TABLEBASE_PIECES))
            .transpose()
            .map_err(|e| anyhow!("--tablebase {e}"))?;
        Ok(MatchSettings {
            time_control: self.tc,
            time_margin: Duration::from_millis(self.time_margin),
            tablebases,
            ..settings
        })
    }
}

/// Where results go (shared with `shashki match`).
#[derive(clap::Args)]
pub struct OutputOptions {
    /// Ratings file: results are added to those already in it, and the Elo
    /// fit uses them all.
    #[arg(long, value_name = "FILE")]
    pub ratings: Option<PathBuf>,
    /// Write `{"players": [...], "pairs": [...]}` here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the ratings table as CSV here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Append every game to this PDN file as it ends (with the ratings file,
    /// so an interrupted run keeps every finished game).
    #[arg(long, value_name = "FILE")]
    pub pdn: Option<PathBuf>,
    /// Go on with an interrupted run of the same command: games already in
    /// the `--pdn` file (same players and round) are not played or counted
    /// again.
    #[arg(long, requires = "pdn")]
    pub resume: bool,
    /// PNG of Elo against training steps (default: `elo.png` in the run
    /// directory when the rated players are checkpoints of one run; none
    /// otherwise).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Virtual draws added to every pair that played (keeps 0 % and 100 %
    /// scores finite).
    #[arg(long, default_value_t = 1.0)]
    pub prior_draws: f64,
}

/// Prepares every player (loading networks once).
pub fn factories(specs: &[PlayerSpec]) -> Result<Vec<PlayerFactory>> {
    specs
        .iter()
        .map(|s| PlayerFactory::new(s.clone()).map_err(|e| anyhow!(e)))
        .collect()
}

/// Runs one pairing, recording each pair of games as it ends, printing
/// progress to stderr and the result table; a pairing whose games are all
/// in the PDN file already (`--resume`) is skipped.
pub fn play_pairing(
    a: &PlayerFactory,
    b: &PlayerFactory,
    settings: &MatchSettings,
    recorder: &mut Recorder,
) -> Result<()> {
    let pairs = settings.pairs();
    if recorder.pairing_done(a.name(), b.name(), pairs) {
        eprintln!(
            "{} vs {}: all {} games are in the PDN file already; skipped",
            a.name(),
            b.name(),
            pairs * 2
        );
        return Ok(());
    }
    let every = (pairs / 10).max(1);
    let mut done = 0;
    let mut failed = None;
    eprintln!("{} vs {}: {} games", a.name(), b.name(), pairs * 2);
    let report = run_match(a, b, settings, &mut |pair, summary| {
        if let Err(e) = recorder.record_pair(pair) {
            failed = Some(e);
            return Control::Stop;
        }
        done += 1;
        if done % every == 0 || done == pairs {
            eprintln!(
                "  {done}/{pairs} pairs: {} (W/D/L for {})",
                summary.wdl,
                a.name()
            );
        }
        Control::Continue
    });
    if let Some(e) = failed {
        return Err(e.context("recording the games"));
    }
    println!("{}", report.result_table());
    for player in [a, b] {
        // Timed net players search on their own threads, not through the batcher.
        if let Some(stats) = player.batch_stats().filter(|s| s.batches > 0) {
            eprintln!(
                "{}: {} network batches, mean size {:.1} (target {})",
                player.name(),
                stats.batches,
                stats.mean_batch_size(),
                stats.target
            );
        }
    }
    Ok(())
}

/// Rates everything in the ratings (this run's games were recorded as they
/// ended) and writes the requested outputs: the table on stdout, JSON, CSV
/// and the plot.
pub fn finish(
    recorder: &mut Recorder,
    specs: &[PlayerSpec],
    anchor: Option<(String, f64)>,
    out: &OutputOptions,
) -> Result<()> {
    for spec in specs {
        if let Some(steps) = training_steps(spec) {
            recorder
                .ratings
                .players
                .entry(spec.name.clone())
                .or_default()
                .steps = Some(steps);
        }
    }
    recorder.save_ratings()?;
    let file = &recorder.ratings;
    let (ratings_path, pdn_path) = recorder.paths();
    if let Some(path) = ratings_path {
        eprintln!(
            "ratings file {} ({} pairs)",
            path.display(),
            file.pairs.len()
        );
    }
    if let Some(path) = pdn_path {
        eprintln!("games in {}", path.display());
    }
    let names = file.player_names();
    let (anchor, elo) = anchor
        .or_else(|| default_anchor(&names))
        .ok_or_else(|| anyhow!("no games to rate"))?;
    let table = file.rate(&anchor, elo, out.prior_draws)?;
    print!("{}", table.to_text());
    if let Some(path) = &out.json {
        write_file(path, &table.to_json())?;
    }
    if let Some(path) = &out.csv {
        write_file(path, &table.to_csv())?;
    }
    let plot_path = out
        .plot
        .clone()
        .or_else(|| common_run_dir(specs).map(|dir| dir.join("elo.png")));
    if let Some(path) = plot_path {
        let (points, refs) = plot_data(&table);
        if points.is_empty() {
            if out.plot.is_some() {
                bail!("--plot: no rated player has known training steps (only checkpoints do)");
            }
        } else {
            let title = format!("Elo vs training steps (anchor {anchor} = {elo})");
            write_elo_plot(&path, &title, &points, &refs)?;
            eprintln!("plot {}", path.display());
        }
    }
    Ok(())
}

impl OutputOptions {
    /// The recorder for these outputs.
    pub fn recorder(&self, event: &str) -> Result<Recorder> {
        Recorder::open(self.ratings.clone(), self.pdn.clone(), self.resume, event)
    }
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    write_atomic(path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))
}

/// Parses and expands the player list.
pub fn parse_players(list: &str, ladder: bool) -> Result<Vec<PlayerSpec>> {
    let mut texts: Vec<String> = if ladder {
        LADDER.iter().map(|s| s.to_string()).collect()
    } else {
        Vec::new()
    };
    texts.extend(split_spec_list(list));
    let texts = expand_wildcards(&texts).map_err(|e| anyhow!(e))?;
    let mut specs: Vec<PlayerSpec> = Vec::new();
    for t in texts {
        let spec: PlayerSpec = t.parse()?;
        if !specs.iter().any(|s| s.name == spec.name) {
            specs.push(spec);
        }
    }
    Ok(specs)
}

/// Runs `shashki rate`.
pub fn run(args: Args) -> Result<()> {
    let mut specs = parse_players(args.players.as_deref().unwrap_or(""), args.ladder)?;
    if let Some(path) = &args.players_file {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        for spec in parse_players_file(&text, &path.display().to_string())? {
            if !specs.iter().any(|s| s.name == spec.name) {
                specs.push(spec);
            }
        }
    }
    if specs.len() < 2 {
        bail!("rate needs at least two players, got {}", specs.len());
    }
    let anchor = args
        .anchor
        .as_deref()
        .map(parse_anchor)
        .transpose()
        .map_err(|e| anyhow!(e))?;
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
    let mut recorder = args.out.recorder(&base.event)?;
    let players = factories(&specs)?;
    for (k, &(i, j)) in pairings.iter().enumerate() {
        let settings = MatchSettings {
            seed: mix_seed(base.seed, k as u64, 0),
            ..base.clone()
        };
        play_pairing(&players[i], &players[j], &settings, &mut recorder)?;
    }
    finish(&mut recorder, &specs, anchor, &args.out)
}
