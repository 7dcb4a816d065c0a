//! The journal of a rating run: each pair of games, as it ends, appended to
//! the PDN file and added to the ratings file, both written atomically, so
//! an interrupted run keeps every finished game. Resuming, pairs already in
//! the PDN file (same players, same round) are not played again and not
//! added to the ratings again; the match counts them as recorded, so
//! rerunning an interrupted command goes on from where it stopped and
//! reports on every game of the pairing.

use crate::matches::{GameRecord, today};
use crate::ratings_file::{RatingsError, RatingsFile};
use crate::score::{Pentanomial, Wdl};
use shashki_atomic::write_atomic;
use shashki_rules::{DrawRules, PdnGame, read_pdn, write_pdn};
use std::collections::HashMap;
use std::path::PathBuf;
use thiserror::Error;

/// Why the journal could not be read or written.
#[derive(Debug, Error)]
pub enum JournalError {
    /// Resuming without a PDN file: nothing says which games were played.
    #[error("resuming needs the PDN file: the games already played are read from it")]
    ResumeWithoutPdn,
    /// The PDN file could not be read or written.
    #[error("{action} {}: {source}", path.display())]
    Pdn {
        /// `reading` or `writing`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The ratings file could not be read or written.
    #[error(transparent)]
    Ratings(#[from] RatingsError),
}

/// A game's identity in a PDN file: White, Black, Round (`pair.leg`).
type GameKey = (String, String, String);

/// Where finished games go.
pub struct Journal {
    ratings_path: Option<PathBuf>,
    /// Every result so far: the file's earlier ones and this run's.
    pub ratings: RatingsFile,
    pdn: Option<PdnLog>,
    event: String,
    date: String,
}

/// The `--pdn` file: its text so far and the games it holds.
struct PdnLog {
    path: PathBuf,
    text: String,
    recorded: HashMap<GameKey, PdnGame>,
}

fn key(white: &str, black: &str, pair: usize, leg: usize) -> GameKey {
    (
        white.to_string(),
        black.to_string(),
        format!("{}.{}", pair + 1, leg + 1),
    )
}

impl Journal {
    /// Loads the ratings file and the PDN file (if given; missing ones
    /// start empty). `resume` takes the games of the PDN file as played.
    pub fn open(
        ratings: Option<PathBuf>,
        pdn: Option<PathBuf>,
        resume: bool,
        event: &str,
    ) -> Result<Journal, JournalError> {
        if resume && pdn.is_none() {
            return Err(JournalError::ResumeWithoutPdn);
        }
        let file = match &ratings {
            Some(path) => RatingsFile::load(path)?,
            None => RatingsFile::default(),
        };
        let pdn = match pdn {
            None => None,
            Some(path) => {
                let text = match std::fs::read_to_string(&path) {
                    Ok(text) => text,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
                    Err(source) => {
                        return Err(JournalError::Pdn {
                            action: "reading",
                            path,
                            source,
                        });
                    }
                };
                let recorded = if resume {
                    read_pdn(&text)
                        .into_iter()
                        .flatten()
                        .filter_map(|g| {
                            let key = (
                                g.tag("White")?.to_string(),
                                g.tag("Black")?.to_string(),
                                g.tag("Round")?.to_string(),
                            );
                            Some((key, g))
                        })
                        .collect()
                } else {
                    HashMap::new()
                };
                Some(PdnLog {
                    path,
                    text,
                    recorded,
                })
            }
        };
        Ok(Journal {
            ratings_path: ratings,
            ratings: file,
            pdn,
            event: event.to_string(),
            date: today(),
        })
    }

    /// A journal without files: results are kept in memory only.
    pub fn in_memory(event: &str) -> Journal {
        Journal {
            ratings_path: None,
            ratings: RatingsFile::default(),
            pdn: None,
            event: event.to_string(),
            date: today(),
        }
    }

    /// How many of the pairs `pairs` (indices; `first` White in the first
    /// leg) have both games in the PDN file (by their tags alone).
    pub fn recorded_count(&self, first: &str, second: &str, pairs: &[usize]) -> usize {
        self.pdn.as_ref().map_or(0, |log| {
            pairs
                .iter()
                .filter(|&&p| {
                    log.recorded.contains_key(&key(first, second, p, 0))
                        && log.recorded.contains_key(&key(second, first, p, 1))
                })
                .count()
        })
    }

    /// The pairs of a pairing of `pairs` pairs (`first` White in the first
    /// leg) already in the PDN file, by pair index, as games under `rules`;
    /// a pair missing a game or with a game that does not read back is left
    /// out (and played again).
    pub fn recorded_pairs(
        &self,
        first: &str,
        second: &str,
        pairs: usize,
        rules: DrawRules,
    ) -> HashMap<usize, [GameRecord; 2]> {
        let Some(log) = &self.pdn else {
            return HashMap::new();
        };
        let read = |white: &str, black: &str, p: usize, leg: usize| {
            let pdn = log.recorded.get(&key(white, black, p, leg))?;
            GameRecord::from_pdn(pdn, p, leg, rules)
        };
        (0..pairs)
            .filter_map(|p| {
                let games = [read(first, second, p, 0)?, read(second, first, p, 1)?];
                Some((p, games))
            })
            .collect()
    }

    /// Records a finished pair: PDN, then ratings, each written at once.
    /// A pair already in the PDN file (resumed) is not written again, and is
    /// counted only in a run without a ratings file (whose ratings start
    /// empty; a ratings file holds it already). The PDN
    /// file is the journal `--resume` reads, so it is written first: a kill
    /// between the two writes can leave the ratings one pair short, never
    /// count a pair twice.
    pub fn record_pair(&mut self, pair: &[GameRecord; 2]) -> Result<(), JournalError> {
        let keys = pair
            .each_ref()
            .map(|g| key(&g.white, &g.black, g.pair, g.leg));
        let already = self
            .pdn
            .as_ref()
            .is_some_and(|log| keys.iter().all(|k| log.recorded.contains_key(k)));
        if already && self.ratings_path.is_some() {
            return Ok(());
        }
        let [a, b] = pair;
        let (first, second) = if a.first_is_white() {
            (&a.white, &a.black)
        } else {
            (&a.black, &a.white)
        };
        let (p0, p1) = (a.points_for_first(), b.points_for_first());
        let mut wdl = Wdl::default();
        wdl.add_points(p0);
        wdl.add_points(p1);
        let mut penta = Pentanomial::default();
        penta.add_pair(p0, p1);
        if let Some(log) = &mut self.pdn
            && !already
        {
            let games: Vec<_> = pair
                .iter()
                .map(|g| g.to_pdn(&self.event, &self.date))
                .collect();
            if !log.text.is_empty() && !log.text.ends_with('\n') {
                log.text.push('\n');
            }
            log.text.push_str(&write_pdn(&games));
            write_atomic(&log.path, log.text.as_bytes()).map_err(|source| JournalError::Pdn {
                action: "writing",
                path: log.path.clone(),
                source,
            })?;
            log.recorded.extend(keys.into_iter().zip(games));
        }
        self.ratings.add(first, second, wdl, penta);
        self.save_ratings()
    }

    /// Writes the ratings file (if one is kept).
    pub fn save_ratings(&self) -> Result<(), JournalError> {
        if let Some(path) = &self.ratings_path {
            self.ratings.save(path)?;
        }
        Ok(())
    }

    /// The ratings file's path and the PDN file's path, for the summary.
    pub fn paths(&self) -> (Option<&PathBuf>, Option<&PathBuf>) {
        (
            self.ratings_path.as_ref(),
            self.pdn.as_ref().map(|l| &l.path),
        )
    }
}
