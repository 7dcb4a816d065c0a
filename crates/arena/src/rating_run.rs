//! A rating run: pairings played one after another, every pair of games
//! written to the [`Journal`] as it ends (so an interrupted run resumes),
//! then Elo by maximum likelihood over every game in the ratings file, with
//! the table, CSV, JSON and the plot of Elo against training steps.
//! `shashki rate`, `shashki match` and the training gate share
//! [`play_pairing`].

use crate::factory::PlayerFactory;
use crate::figures::PairingFigures;
use crate::journal::{Journal, JournalError};
use crate::matches::{
    Control, GameRecord, MatchReport, MatchSettings, mix_seed, pair_list, run_match_resuming,
};
use crate::player::PlayerError;
use crate::plot::{PlotError, write_elo_plot};
use crate::ratings_file::{RatingsError, RatingsTable};
use crate::score::PairingSummary;
use crate::spec::PlayerSpec;
use crate::sprt::{Sprt, SprtDecision};
use crate::tournament::{common_run_dir, default_anchor, plot_data, training_steps};
use shashki_atomic::write_atomic;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a rating run stopped.
#[derive(Debug, Error)]
pub enum RatingError {
    /// A player could not be prepared (nothing was played with it).
    #[error(transparent)]
    Player(#[from] PlayerError),
    /// A finished pair could not be written to the journal.
    #[error("recording the games")]
    Recording(#[source] JournalError),
    /// The journal could not be opened or the ratings saved.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The ratings could not be fitted.
    #[error(transparent)]
    Ratings(#[from] RatingsError),
    /// An output could not be written.
    #[error("writing {}: {source}", path.display())]
    Output {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The plot could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// Nothing to rate, or a plot asked for with nothing to plot.
    #[error("{0}")]
    Nothing(String),
}

/// Where a rating run's messages go (the commands print progress on stderr
/// and results on stdout).
pub trait RatingLog {
    /// A progress line.
    fn progress(&mut self, line: &str);
    /// A result: a pairing's table, the ratings table.
    fn result(&mut self, text: &str);
}

/// One pairing of a run: `first` against `second` (indices into the
/// players) under `settings`, stopped at the decision of `sprt` if given.
#[derive(Clone, Debug)]
pub struct Pairing {
    /// The player whose view the results take.
    pub first: usize,
    /// Its opponent.
    pub second: usize,
    /// How the games are played (`games` is the most played).
    pub settings: MatchSettings,
    /// A fresh test that stops the pairing at its decision (`match --sprt`).
    pub sprt: Option<Sprt>,
}

impl Pairing {
    /// A round of `pairings`, each with its own seed drawn from `base`'s.
    pub fn round(pairings: &[(usize, usize)], base: &MatchSettings) -> Vec<Pairing> {
        pairings
            .iter()
            .enumerate()
            .map(|(k, &(first, second))| Pairing {
                first,
                second,
                settings: MatchSettings {
                    seed: mix_seed(base.seed, k as u64, 0),
                    ..base.clone()
                },
                sprt: None,
            })
            .collect()
    }
}

/// The files a finished run writes besides the journal.
#[derive(Clone, Debug, Default)]
pub struct RatingOutputs {
    /// `{"players": [...], "pairs": [...]}`.
    pub json: Option<PathBuf>,
    /// The ratings table as CSV.
    pub csv: Option<PathBuf>,
    /// PNG of Elo against training steps (`None`: `elo.png` in the run
    /// directory when the players are checkpoints of one run).
    pub plot: Option<PathBuf>,
    /// Virtual draws added to every pair that played.
    pub prior_draws: f64,
}

/// What a pairing's watcher sees after each pair: the pair, the running
/// summary, and the SPRT with the pair counted (if one runs).
pub type PairWatch<'w> =
    dyn FnMut(&[GameRecord; 2], &PairingSummary, Option<&Sprt>) -> Control + 'w;

/// Plays `a` against `b`: one pairing of a rating run, a match or a gate.
/// Each pair of games is written to `journal` as it ends, counted by `sprt`
/// (if given), then shown to `watch`, which may stop the match. At the
/// SPRT's decision no new pair starts and the pairs under way are not
/// counted (nor recorded), so the journal holds exactly the games the test
/// saw; the report carries the test's final state.
///
/// Resuming, pairs already in the journal are not played again: their
/// recorded games are counted (and shown to `sprt` and `watch`) in their
/// place, so the report and the test cover every game in the PDN file,
/// timed players' too.
pub fn play_pairing(
    a: &PlayerFactory,
    b: &PlayerFactory,
    settings: &MatchSettings,
    mut sprt: Option<Sprt>,
    journal: &mut Journal,
    watch: &mut PairWatch<'_>,
) -> Result<MatchReport, JournalError> {
    let recorded = journal.recorded_pairs(a.name(), b.name(), settings.pairs(), settings.rules);
    let mut failed = None;
    let mut report = run_match_resuming(a, b, settings, &recorded, &mut |pair, summary| {
        if let Err(e) = journal.record_pair(pair) {
            failed = Some(e);
            return Control::Stop;
        }
        let decided = sprt.as_mut().is_some_and(|test| {
            test.add_pair(pair[0].points_for_first(), pair[1].points_for_first());
            test.decision() != SprtDecision::Continue
        });
        match watch(pair, summary, sprt.as_ref()) {
            _ if decided => Control::Stop,
            control => control,
        }
    });
    report.sprt = sprt.map(|test| test.status());
    match failed {
        Some(e) => Err(e),
        None => Ok(report),
    }
}

/// Plays every pairing between `specs` (each player prepared once, its
/// network loaded once), then rates everything in the journal's ratings
/// (this run's games and earlier ones) at `anchor` (default: `random` = 0,
/// else `ab:depth=1` = 0, else the first player) and writes `outputs`.
pub fn rate_players(
    specs: &[PlayerSpec],
    pairings: &[Pairing],
    journal: &mut Journal,
    anchor: Option<(String, f64)>,
    outputs: &RatingOutputs,
    log: &mut dyn RatingLog,
) -> Result<RatingsTable, RatingError> {
    let players = specs
        .iter()
        .map(|s| PlayerFactory::new(s.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut played = Vec::new();
    for pairing in pairings {
        let (a, b) = (&players[pairing.first], &players[pairing.second]);
        played.push(play_logged(a, b, pairing, journal, log)?);
    }
    let mut table = finish(journal, specs, anchor, outputs.prior_draws, log)?;
    table.matches = played;
    write_outputs(&table, specs, outputs, log)?;
    Ok(table)
}

/// One pairing with its progress lines (about ten), its result table and
/// the network batching figures; its figures (recorded pairs of a resumed
/// run included).
fn play_logged(
    a: &PlayerFactory,
    b: &PlayerFactory,
    pairing: &Pairing,
    journal: &mut Journal,
    log: &mut dyn RatingLog,
) -> Result<PairingFigures, RatingError> {
    let settings = &pairing.settings;
    let todo = settings.pair_indices();
    let pairs = todo.len();
    let (first, second) = (a.name(), b.name());
    let most = if pairing.sprt.is_some() {
        "at most "
    } else {
        ""
    };
    // A share of the ballot (`only_pairs`) says which share.
    let share = match settings.only_pairs {
        Some(_) => format!(" (pairs {} of {})", pair_list(&todo), settings.pairs()),
        None => String::new(),
    };
    // Counted by tags only: play_pairing reads the recorded games back.
    let recorded = journal.recorded_count(first, second, &todo);
    if recorded == pairs {
        log.progress(&format!(
            "{first} vs {second}: all {} games{share} are in the PDN file already: skipped, \
             the recorded games reported",
            pairs * 2
        ));
    } else if recorded > 0 {
        log.progress(&format!(
            "{first} vs {second}: {most}{} games{share}, {} of them in the PDN file already \
             (counted, not played again)",
            pairs * 2,
            recorded * 2
        ));
    } else {
        log.progress(&format!(
            "{first} vs {second}: {most}{} games{share}",
            pairs * 2
        ));
    }
    let every = (pairs / 10).max(1);
    let mut done = 0;
    let sprt = pairing.sprt.clone();
    let report = play_pairing(a, b, settings, sprt, journal, &mut |_, summary, sprt| {
        done += 1;
        if done % every == 0 || done == pairs {
            let llr = sprt.map_or(String::new(), |t| {
                let (lower, upper) = t.config.bounds();
                format!(", LLR {:.3} [{lower:.3}, {upper:.3}]", t.llr())
            });
            log.progress(&format!(
                "  {done}/{pairs} pairs: {} (W/D/L for {first}){llr}",
                summary.wdl
            ));
        }
        Control::Continue
    })
    .map_err(RatingError::Recording)?;
    // Shown with a blank line after it.
    log.result(&format!("{}\n", report.result_table()));
    let figures = report.figures();
    for player in [a, b] {
        // Timed net players search on their own threads, not through the batcher.
        if let Some(stats) = player.batch_stats().filter(|s| s.batches > 0) {
            log.progress(&format!(
                "{}: {} network batches, mean size {:.1} (target {})",
                player.name(),
                stats.batches,
                stats.mean_batch_size(),
                stats.target
            ));
        }
    }
    Ok(figures)
}

/// Rates everything in the journal's ratings (this run's games were
/// recorded as they ended) and shows the table.
fn finish(
    journal: &mut Journal,
    specs: &[PlayerSpec],
    anchor: Option<(String, f64)>,
    prior_draws: f64,
    log: &mut dyn RatingLog,
) -> Result<RatingsTable, RatingError> {
    for spec in specs {
        if let Some(steps) = training_steps(spec) {
            journal
                .ratings
                .players
                .entry(spec.name.clone())
                .or_default()
                .steps = Some(steps);
        }
    }
    journal.save_ratings()?;
    let file = &journal.ratings;
    let (ratings_path, pdn_path) = journal.paths();
    if let Some(path) = ratings_path {
        log.progress(&format!(
            "ratings file {} ({} pairs)",
            path.display(),
            file.pairs.len()
        ));
    }
    if let Some(path) = pdn_path {
        log.progress(&format!("games in {}", path.display()));
    }
    let (anchor, elo) = anchor
        .or_else(|| default_anchor(&file.player_names()))
        .ok_or_else(|| RatingError::Nothing("no games to rate".into()))?;
    let table = file.rate(&anchor, elo, prior_draws)?;
    log.result(&table.to_text());
    Ok(table)
}

/// Writes the outputs of a rated run: JSON (with this run's pairings'
/// figures), CSV and the plot.
fn write_outputs(
    table: &RatingsTable,
    specs: &[PlayerSpec],
    outputs: &RatingOutputs,
    log: &mut dyn RatingLog,
) -> Result<(), RatingError> {
    if let Some(path) = &outputs.json {
        write_output(path, &table.to_json())?;
    }
    if let Some(path) = &outputs.csv {
        write_output(path, &table.to_csv())?;
    }
    let plot_path = outputs
        .plot
        .clone()
        .or_else(|| common_run_dir(specs).map(|dir| dir.join("elo.png")));
    if let Some(path) = plot_path {
        let (points, refs) = plot_data(table);
        if points.is_empty() {
            if outputs.plot.is_some() {
                return Err(RatingError::Nothing(
                    "--plot: no rated player has known training steps (only checkpoints do)".into(),
                ));
            }
        } else {
            let anchor = &table.anchor;
            let elo = table
                .players
                .iter()
                .find(|p| &p.name == anchor)
                .map_or(0.0, |p| p.elo);
            let title = format!("Elo vs training steps (anchor {anchor} = {elo})");
            write_elo_plot(&path, &title, &points, &refs)?;
            log.progress(&format!("plot {}", path.display()));
        }
    }
    Ok(())
}

fn write_output(path: &Path, text: &str) -> Result<(), RatingError> {
    write_atomic(path, text.as_bytes()).map_err(|source| RatingError::Output {
        path: path.to_path_buf(),
        source,
    })
}
