//! The options `shashki match` and `shashki rate` share (how the games are
//! played, where the results go) and the console the arena's rating run
//! reports to.

use anyhow::{Result, anyhow};
use shashki_arena::clock::{DEFAULT_TIME_MARGIN, TimeControl};
use shashki_arena::matches::{DEFAULT_MAX_PLIES, MatchSettings};
use shashki_arena::sprt::DEFAULT_MIN_GAMES;
use shashki_arena::{
    EloModel, Journal, Pairing, PlayerSpec, RatingLog, RatingOutputs, Sprt, SprtConfig,
    rate_players,
};
use shashki_search::tablebase::{self, MAX_TABLEBASE_PIECES};
use std::path::PathBuf;
use std::time::Duration;

/// How the games are played.
#[derive(clap::Args)]
pub struct PlayOptions {
    /// Opening book: a PDN file, lines of `Name | moves` / FEN, or a
    /// built-in book, `builtin:unbalanced` (the default: positions a deep
    /// search scores 80..139 centi-men for one side, most games decided)
    /// or `builtin:usual` (the 17 usual openings, mostly drawn).
    #[arg(long, value_name = "FILE|builtin:NAME")]
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
    /// recorded as `Termination "tablebase adjudication"`; the players'
    /// searches (ab, nnue, mcts, net) probe the tables too, so a capture
    /// into them is seen exactly before the game gets there.
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

/// A test that stops a match at its decision (`shashki match --sprt`).
#[derive(clap::Args)]
pub struct SprtOptions {
    /// Stop at the decision of a GSPRT of H0: Elo = ELO0 against H1: Elo =
    /// ELO1 (e.g. `0,10`; the unit is --sprt-model), as the training gate
    /// does: no new pair starts, the pairs under way are not counted, and
    /// the report gives the decision, the LLR, its bounds and the games;
    /// `--games` is then the most games played.
    #[arg(long, value_name = "ELO0,ELO1", allow_hyphen_values = true, value_parser = parse_bounds)]
    pub sprt: Option<(f64, f64)>,
    /// Unit of the --sprt bounds: `logistic` or `normalized` (fishtest's
    /// nElo, independent of the draw rate).
    #[arg(long, value_name = "MODEL", default_value_t = EloModel::Logistic, requires = "sprt")]
    pub sprt_model: EloModel,
    /// Probability of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    pub sprt_alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    pub sprt_beta: f64,
    /// No decision before this many games (a few identical pairs would
    /// otherwise decide on a tiny variance).
    #[arg(long, value_name = "GAMES", default_value_t = DEFAULT_MIN_GAMES, requires = "sprt")]
    pub sprt_min_games: u64,
}

impl SprtOptions {
    /// The fresh test asked for, if any (no upper limit: the match's games
    /// are).
    pub fn test(&self) -> Result<Option<Sprt>> {
        let Some((elo0, elo1)) = self.sprt else {
            return Ok(None);
        };
        let config = SprtConfig {
            elo0,
            elo1,
            alpha: self.sprt_alpha,
            beta: self.sprt_beta,
            model: self.sprt_model,
        };
        config.validate().map_err(|e| anyhow!("--sprt: {e}"))?;
        Ok(Some(Sprt::new(config, self.sprt_min_games, u64::MAX)))
    }
}

/// Parses `ELO0,ELO1`.
fn parse_bounds(text: &str) -> Result<(f64, f64), String> {
    let (a, b) = text
        .split_once(',')
        .ok_or_else(|| format!("{text:?}: expected ELO0,ELO1 (e.g. 0,10)"))?;
    let number = |t: &str| {
        t.trim()
            .parse::<f64>()
            .map_err(|_| format!("{text:?}: {t:?} is not a number"))
    };
    Ok((number(a)?, number(b)?))
}

/// Where results go.
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
    /// Go on with an interrupted run of the same command: pairs already in
    /// the `--pdn` file (same players and round) are not played again but
    /// counted as recorded (the report covers every game of the pairing),
    /// and not added to `--ratings` twice.
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

impl OutputOptions {
    /// Plays `pairings` between `specs` and rates them at `anchor`
    /// ([`rate_players`]): every pair of games recorded in these outputs as
    /// it ends, progress on stderr, results on stdout.
    pub fn rate(
        &self,
        specs: &[PlayerSpec],
        pairings: &[Pairing],
        anchor: Option<(String, f64)>,
    ) -> Result<()> {
        let event = pairings.first().map_or("", |p| p.settings.event.as_str());
        let mut journal =
            Journal::open(self.ratings.clone(), self.pdn.clone(), self.resume, event)?;
        let outputs = RatingOutputs {
            json: self.json.clone(),
            csv: self.csv.clone(),
            plot: self.plot.clone(),
            prior_draws: self.prior_draws,
        };
        rate_players(
            specs,
            pairings,
            &mut journal,
            anchor,
            &outputs,
            &mut Console,
        )?;
        Ok(())
    }
}

/// Parses `--anchor NAME=ELO`.
pub fn anchor(text: Option<&str>) -> Result<Option<(String, f64)>> {
    text.map(shashki_arena::tournament::parse_anchor)
        .transpose()
        .map_err(|e| anyhow!(e))
}

/// A rating run's progress on stderr, its results on stdout.
struct Console;

impl RatingLog for Console {
    fn progress(&mut self, line: &str) {
        eprintln!("{line}");
    }

    fn result(&mut self, text: &str) {
        print!("{text}");
    }
}
