//! The ratings file: results per pair of players, accumulated across runs
//! so new matches add to old ones, and the rating tables computed from it
//! (plain text, CSV, JSON).
//!
//! File format (JSON, written atomically):
//! `{"version": 1, "pairs": [{"a", "b", "wins", "draws", "losses",
//! "pentanomial"}], "players": {"NAME": {"steps": N}}}` with `a < b` and the
//! counts from `a`'s point of view.

use crate::elo::{self, EloError, FitOptions, PairResults};
use crate::figures::PairingFigures;
use crate::score::{Pentanomial, Wdl};
use serde::{Deserialize, Serialize};
use shashki_atomic::write_atomic;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use thiserror::Error;

/// Version written into new ratings files.
pub const RATINGS_VERSION: u32 = 1;

/// Why a ratings file could not be read, written or rated.
#[derive(Debug, Error)]
pub enum RatingsError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a ratings file.
    #[error("{path}: not a ratings file: {reason}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The anchor is unknown.
    #[error("anchor {0:?} has played no game in these results")]
    UnknownAnchor(String),
    /// The Elo fit failed.
    #[error("{0}")]
    Fit(String),
}

/// Accumulated results of one pair (`a < b` by name), from `a`'s view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairRecord {
    /// First player (alphabetically smaller name).
    pub a: String,
    /// Second player.
    pub b: String,
    /// `a`'s wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// `a`'s losses.
    pub losses: u64,
    /// Pentanomial counts of complete pairs, from `a`'s view.
    #[serde(default)]
    pub pentanomial: [u64; 5],
}

impl PairRecord {
    /// The W/D/L counts from `a`'s view.
    pub fn wdl(&self) -> Wdl {
        Wdl::new(self.wins, self.draws, self.losses)
    }
}

/// What is known about a player beyond its results.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerInfo {
    /// Training steps of a checkpoint (for the Elo-against-steps plot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<u64>,
}

/// The whole ratings file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingsFile {
    /// Format version.
    pub version: u32,
    /// Results per pair.
    pub pairs: Vec<PairRecord>,
    /// Per-player information.
    #[serde(default)]
    pub players: BTreeMap<String, PlayerInfo>,
}

impl Default for RatingsFile {
    fn default() -> Self {
        RatingsFile {
            version: RATINGS_VERSION,
            pairs: Vec::new(),
            players: BTreeMap::new(),
        }
    }
}

impl RatingsFile {
    /// Loads `path`; a missing file is an empty one.
    pub fn load(path: &Path) -> Result<RatingsFile, RatingsError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(RatingsFile::default()),
            Err(source) => {
                return Err(RatingsError::Io {
                    path: path.display().to_string(),
                    source,
                });
            }
        };
        Self::parse(&text).map_err(|reason| RatingsError::Format {
            path: path.display().to_string(),
            reason,
        })
    }

    /// Parses the JSON text of a ratings file.
    pub fn parse(text: &str) -> Result<RatingsFile, String> {
        let file: RatingsFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if file.version != RATINGS_VERSION {
            return Err(format!(
                "version {} (this program reads {RATINGS_VERSION})",
                file.version
            ));
        }
        for p in &file.pairs {
            if p.a == p.b {
                return Err(format!("pair of {:?} with itself", p.a));
            }
        }
        Ok(file)
    }

    /// Writes the file atomically.
    pub fn save(&self, path: &Path) -> Result<(), RatingsError> {
        let text = serde_json::to_string_pretty(self).map_err(|e| RatingsError::Format {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        write_atomic(path, text.as_bytes()).map_err(|source| RatingsError::Io {
            path: path.display().to_string(),
            source,
        })
    }

    /// Adds results of `first` against `second` (counts from `first`'s view).
    /// No games, no entry (so `--games 0` only re-rates the file).
    pub fn add(&mut self, first: &str, second: &str, wdl: Wdl, pentanomial: Pentanomial) {
        if wdl.games() == 0 {
            return;
        }
        let (a, b, wdl, penta) = if first <= second {
            (first, second, wdl, pentanomial)
        } else {
            (second, first, wdl.flipped(), pentanomial.flipped())
        };
        let idx = match self.pairs.iter().position(|p| p.a == a && p.b == b) {
            Some(i) => i,
            None => {
                self.pairs.push(PairRecord {
                    a: a.to_string(),
                    b: b.to_string(),
                    wins: 0,
                    draws: 0,
                    losses: 0,
                    pentanomial: [0; 5],
                });
                self.pairs.sort_by(|x, y| (&x.a, &x.b).cmp(&(&y.a, &y.b)));
                self.pairs
                    .iter()
                    .position(|p| p.a == a && p.b == b)
                    .unwrap_or(0)
            }
        };
        let rec = &mut self.pairs[idx];
        rec.wins += wdl.wins;
        rec.draws += wdl.draws;
        rec.losses += wdl.losses;
        for k in 0..5 {
            rec.pentanomial[k] += penta.0[k];
        }
        for name in [first, second] {
            self.players.entry(name.to_string()).or_default();
        }
    }

    /// Adds every pair of another file (for merging runs).
    pub fn merge(&mut self, other: &RatingsFile) {
        for p in &other.pairs {
            self.add(&p.a, &p.b, p.wdl(), Pentanomial(p.pentanomial));
        }
        for (name, info) in &other.players {
            let entry = self.players.entry(name.clone()).or_default();
            if info.steps.is_some() {
                entry.steps = info.steps;
            }
        }
    }

    /// Every player that has played, sorted by name.
    pub fn player_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .pairs
            .iter()
            .flat_map(|p| [p.a.clone(), p.b.clone()])
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Fits Elo ratings anchored at `anchor` = `anchor_elo`.
    pub fn rate(
        &self,
        anchor: &str,
        anchor_elo: f64,
        prior_draws: f64,
    ) -> Result<RatingsTable, RatingsError> {
        let names = self.player_names();
        let anchor_index = names
            .iter()
            .position(|n| n == anchor)
            .ok_or_else(|| RatingsError::UnknownAnchor(anchor.to_string()))?;
        let index = |name: &str| names.iter().position(|n| n == name).unwrap_or(0);
        let results: Vec<PairResults> = self
            .pairs
            .iter()
            .map(|p| PairResults {
                a: index(&p.a),
                b: index(&p.b),
                wdl: p.wdl(),
            })
            .collect();
        let opts = FitOptions {
            anchor: anchor_index,
            anchor_elo,
            prior_draws,
        };
        let fit = elo::fit(names.len(), &results, &opts).map_err(|e| match e {
            EloError::Disconnected(list) => RatingsError::Fit(format!(
                "players {:?} have no chain of games to the anchor {anchor:?}",
                list.iter().map(|&i| names[i].as_str()).collect::<Vec<_>>()
            )),
            other => RatingsError::Fit(other.to_string()),
        })?;
        let mut totals = vec![Wdl::default(); names.len()];
        for (r, p) in results.iter().zip(&self.pairs) {
            totals[r.a] += p.wdl();
            totals[r.b] += p.wdl().flipped();
        }
        let mut players: Vec<PlayerRating> = names
            .iter()
            .enumerate()
            .map(|(i, name)| PlayerRating {
                name: name.clone(),
                elo: fit.elo[i],
                ci95: fit.ci95[i],
                games: totals[i].games(),
                score: totals[i].score(),
                steps: self.players.get(name).and_then(|p| p.steps),
            })
            .collect();
        players.sort_by(|x, y| y.elo.total_cmp(&x.elo).then(x.name.cmp(&y.name)));
        let pairs = self
            .pairs
            .iter()
            .map(|p| PairRow {
                a: p.a.clone(),
                b: p.b.clone(),
                wins: p.wins,
                draws: p.draws,
                losses: p.losses,
            })
            .collect();
        Ok(RatingsTable {
            players,
            pairs,
            anchor: anchor.to_string(),
            matches: Vec::new(),
        })
    }
}

/// One player's rating.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerRating {
    /// Player name (its spec string).
    pub name: String,
    /// Rating.
    pub elo: f64,
    /// Half-width of the 95 % interval, relative to the anchor.
    pub ci95: f64,
    /// Games played.
    pub games: u64,
    /// Points per game in `[0, 1]`.
    pub score: f64,
    /// Training steps, when known (not part of the JSON output).
    #[serde(skip)]
    pub steps: Option<u64>,
}

/// One pair's results, from `a`'s view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairRow {
    /// First player.
    pub a: String,
    /// Second player.
    pub b: String,
    /// `a`'s wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// `a`'s losses.
    pub losses: u64,
}

/// Ratings of every player and the pair results they rest on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingsTable {
    /// Players, strongest first.
    pub players: Vec<PlayerRating>,
    /// Results per pair.
    pub pairs: Vec<PairRow>,
    /// The anchored player (not part of the JSON output).
    #[serde(skip)]
    pub anchor: String,
    /// The figures of each pairing this run played (`rate` and `match`
    /// fill it; not read back).
    #[serde(skip_deserializing)]
    pub matches: Vec<PairingFigures>,
}

impl RatingsTable {
    /// A plain-text table.
    pub fn to_text(&self) -> String {
        let width = self
            .players
            .iter()
            .map(|p| p.name.chars().count())
            .max()
            .unwrap_or(4)
            .max(6);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:>3}  {:<width$}  {:>8}  {:>7}  {:>6}  {:>6}",
            "#", "player", "elo", "+-95%", "games", "score"
        );
        for (i, p) in self.players.iter().enumerate() {
            let mark = if p.name == self.anchor {
                " (anchor)"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "{:>3}  {:<width$}  {:>8.1}  {:>7.1}  {:>6}  {:>5.1}%{mark}",
                i + 1,
                p.name,
                p.elo,
                p.ci95,
                p.games,
                100.0 * p.score
            );
        }
        s
    }

    /// CSV: `name,elo,ci95,games,score` with a header line.
    pub fn to_csv(&self) -> String {
        let mut s = String::from("name,elo,ci95,games,score\n");
        for p in &self.players {
            let _ = writeln!(
                s,
                "{},{:.2},{:.2},{},{:.4}",
                csv_field(&p.name),
                p.elo,
                p.ci95,
                p.games,
                p.score
            );
        }
        s
    }

    /// JSON: `{"players": [{"name","elo","ci95","games","score"}], "pairs":
    /// [{"a","b","wins","draws","losses"}], "matches": [...]}`, `matches`
    /// holding this run's [`PairingFigures`].
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into())
    }
}

/// Quotes a CSV field when it holds a comma, quote or newline.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RatingsFile {
        let mut f = RatingsFile::default();
        f.add(
            "random",
            "ab:depth=1",
            Wdl::new(1, 2, 17),
            Pentanomial([8, 1, 1, 0, 0]),
        );
        f.add(
            "ab:depth=1",
            "ab:depth=2",
            Wdl::new(5, 5, 10),
            Pentanomial::default(),
        );
        f
    }

    #[test]
    fn results_accumulate_per_pair_in_either_order() {
        let mut f = sample();
        f.add(
            "ab:depth=1",
            "random",
            Wdl::new(3, 0, 1),
            Pentanomial([0, 0, 1, 0, 1]),
        );
        let p = f.pairs.iter().find(|p| p.b == "random").unwrap();
        assert_eq!(p.a, "ab:depth=1");
        assert_eq!((p.wins, p.draws, p.losses), (17 + 3, 2, 1 + 1));
        // [8, 1, 1, 0, 0] from random's view is [0, 0, 1, 1, 8] from a's.
        assert_eq!(p.pentanomial, [0, 0, 2, 1, 9]);
        assert_eq!(f.pairs.len(), 2);
        f.add("x", "y", Wdl::default(), Pentanomial::default());
        assert_eq!(f.pairs.len(), 2, "no games, no entry");
    }

    #[test]
    fn file_round_trips_and_rejects_garbage() {
        let dir = std::env::temp_dir().join(format!("arena-ratings-{}", std::process::id()));
        let path = dir.join("ratings.json");
        let mut f = sample();
        f.players.entry("ab:depth=2".into()).or_default().steps = Some(120);
        f.save(&path).unwrap();
        assert_eq!(RatingsFile::load(&path).unwrap(), f);
        assert_eq!(
            RatingsFile::load(&dir.join("missing.json")).unwrap(),
            RatingsFile::default()
        );
        std::fs::write(&path, "{\"version\": 1, \"pairs\": [{\"a\": 3}]}").unwrap();
        let err = RatingsFile::load(&path).unwrap_err().to_string();
        assert!(
            err.contains("ratings.json") && err.contains("not a ratings file"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn table_outputs_have_the_documented_shape() {
        let t = sample().rate("random", 0.0, 1.0).unwrap();
        assert_eq!(t.players.len(), 3);
        assert_eq!(t.players.last().unwrap().name, "random");
        let json: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
        let p0 = &json["players"][0];
        for key in ["name", "elo", "ci95", "games", "score"] {
            assert!(!p0[key].is_null(), "players[0].{key}");
        }
        assert_eq!(p0.as_object().unwrap().len(), 5);
        let pair = &json["pairs"][0];
        for key in ["a", "b", "wins", "draws", "losses"] {
            assert!(!pair[key].is_null(), "pairs[0].{key}");
        }
        let csv = t.to_csv();
        assert!(csv.starts_with("name,elo,ci95,games,score\n"));
        assert_eq!(csv.lines().count(), 4);
        let text = t.to_text();
        assert!(text.contains("(anchor)") && text.contains("ab:depth=2"));
        assert!(matches!(
            sample().rate("nobody", 0.0, 1.0),
            Err(RatingsError::UnknownAnchor(_))
        ));
    }
}
