//! The scored pool: a journal of every search result of a book run, one
//! JSON object a line, appended and synced as results arrive, so a run
//! killed at any moment (even `kill -9`) keeps every finished search and
//! resumes without repeating one.
//!
//! The first line is the header: the engine and the limits of both
//! searches ([`PoolSettings`]); a pool is resumed only with the same. Then
//! one line per searched position, `"kind":"screen"` (the cheap search) or
//! `"kind":"deep"` (the deep one), with the position, how it was reached,
//! its source and the search's score, depth, nodes and time
//! ([`Scored`]). A line cut short by a kill (no newline at its end) is
//! dropped on resume; any other line that does not read is an error naming
//! the file and the line. One run at a time holds the pool (a file lock).

use super::{BookError, book_key};
use crate::openings::Opening;
use serde::{Deserialize, Serialize};
use shashki_rules::{Color, Position};
use shashki_search::{Score, SearchReport};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What the searches of a pool are: a pool is resumed only with the same.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolSettings {
    /// The engine's description (`alpha-beta with built-in nnue ...`).
    pub engine: String,
    /// The cheap search's limits, e.g. `depth 6`.
    pub screen: String,
    /// The deep search's limits, e.g. `depth 15`.
    pub deep: String,
}

/// Which search a pool line records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The cheap search that screens every candidate.
    Screen,
    /// The deep search of the candidates the screen kept.
    Deep,
}

/// One searched position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// The position's [`book_key`] hash, 16 hex digits (for people and grep).
    pub key: String,
    /// Where the candidate came from: `line ply 6`, `FILE game 12 ply 10`,
    /// `CHUNK record 17 ply 9`.
    pub source: String,
    /// The start of the line that reaches the position (PDN FEN).
    pub start: String,
    /// The moves from `start` to the position (numbered), empty if none.
    pub moves: String,
    /// The position searched (PDN FEN).
    pub fen: String,
    /// The engine's score as it gave it, from the side to move's view:
    /// `cp 112`, `mate 7`, `tb win 12`, `tb draw`, ...
    pub score: String,
    /// The score in centi-men from White's view (a man is 100; a proven
    /// draw is 0); `None` when the position is won or lost.
    pub white_cp: Option<i32>,
    /// `white`, `black` or `neither`: the side the score favours (for a
    /// won or lost position, the winner).
    pub favours: String,
    /// The depth the search completed.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds spent.
    pub millis: u64,
}

impl Scored {
    /// The record of `report`, the search of `opening`'s position. An
    /// engine whose score is not in centi-men (MCTS values) cannot rank
    /// positions by advantage: an error.
    pub fn new(opening: &Opening, report: &SearchReport) -> Result<Scored, String> {
        let position = opening.position();
        let side = position.side_to_move();
        let white = |v: i32| if side == Color::White { v } else { -v };
        // (White's centi-men, or the winner's sign when the game is decided)
        let (white_cp, sign) = match report.score {
            Score::Centi(cp) => (Some(white(cp)), white(cp).signum()),
            Score::ProvenDraw | Score::TbDraw => (Some(0), 0),
            Score::Mate(plies) => (None, white(plies.signum())),
            Score::TbWin(_) => (None, white(1)),
            Score::TbLoss(_) => (None, white(-1)),
            Score::Value(_) => {
                return Err(format!(
                    "the engine scores {} as {}: a book needs an engine that scores in \
                     centi-men (an alpha-beta engine)",
                    position.to_fen(),
                    report.score
                ));
            }
        };
        let favours = match sign {
            1 => "white",
            -1 => "black",
            _ => "neither",
        };
        Ok(Scored {
            key: format!("{:016x}", book_key(&position).hash()),
            source: opening.name.clone(),
            start: opening.start.to_fen(),
            moves: opening.moves_text(),
            fen: position.to_fen(),
            score: report.score.to_string(),
            white_cp,
            favours: favours.into(),
            depth: report.depth,
            nodes: report.nodes,
            millis: report.elapsed.as_millis() as u64,
        })
    }

    /// True if the search found the position won or lost.
    pub fn is_decided(&self) -> bool {
        self.white_cp.is_none()
    }

    /// The position searched.
    pub fn position(&self) -> Result<Position, String> {
        Position::from_fen(&self.fen).map_err(|e| format!("bad FEN {:?}: {e}", self.fen))
    }

    /// The line that reaches the position, as a book opening named `name`.
    pub fn opening(&self, name: String) -> Result<Opening, String> {
        let start = (self.start != Position::startpos().to_fen()).then_some(self.start.as_str());
        Opening::from_fields(name, start, &self.moves)
    }
}

/// One line of the pool file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum PoolLine {
    Header(PoolSettings),
    Screen(Scored),
    Deep(Scored),
}

/// A pool as read: its settings and its positions, each once per stage
/// (the first record of a position wins), in file order.
#[derive(Clone, Debug, Default)]
pub struct PoolContents {
    /// The header (`None` for an empty file).
    pub settings: Option<PoolSettings>,
    /// The cheap search's records.
    pub screen: Vec<Scored>,
    /// The deep search's records.
    pub deep: Vec<Scored>,
    /// Bytes of whole lines; past them a line was cut short.
    whole_bytes: u64,
}

impl PoolContents {
    /// Reads the pool file `path`.
    pub fn read(path: &Path) -> Result<PoolContents, BookError> {
        let bytes = std::fs::read(path).map_err(|e| BookError::io(path, e))?;
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let text = std::str::from_utf8(&bytes[..whole]).map_err(|e| BookError::Input {
            path: path.to_path_buf(),
            reason: format!("not UTF-8 text: {e}"),
        })?;
        let mut contents = PoolContents {
            whole_bytes: whole as u64,
            ..PoolContents::default()
        };
        let (mut screened, mut deep) = (HashSet::new(), HashSet::new());
        for (i, line) in text.lines().enumerate() {
            let bad = |reason: String| BookError::Input {
                path: path.to_path_buf(),
                reason: format!("line {}: {reason}", i + 1),
            };
            if line.trim().is_empty() {
                continue;
            }
            let parsed: PoolLine = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
            let (record, seen, list) = match parsed {
                PoolLine::Header(settings) if i == 0 => {
                    contents.settings = Some(settings);
                    continue;
                }
                PoolLine::Header(_) => return Err(bad("a header after the first line".into())),
                _ if contents.settings.is_none() => {
                    return Err(bad("no header line first: not a book pool".into()));
                }
                PoolLine::Screen(r) => (r, &mut screened, &mut contents.screen),
                PoolLine::Deep(r) => (r, &mut deep, &mut contents.deep),
            };
            let key = book_key(&record.position().map_err(bad)?);
            if seen.insert(key) {
                list.push(record);
            }
        }
        Ok(contents)
    }

    /// Bytes at the end of the file that do not form a whole line (a write
    /// cut short), dropped when the pool is resumed.
    pub fn torn_bytes(&self, path: &Path) -> u64 {
        std::fs::metadata(path).map_or(0, |m| m.len().saturating_sub(self.whole_bytes))
    }
}

/// A pool open for appending, with what it already holds.
pub struct Pool {
    path: PathBuf,
    file: File,
    /// What the pool held when opened, and every record appended since.
    pub contents: PoolContents,
    screened: HashSet<Position>,
    deep: HashSet<Position>,
}

impl Pool {
    /// Opens the pool `path` for a run with `settings`: a new file gets
    /// the header; an existing one must have been made with the same
    /// settings, and a line cut short at its end is dropped. Fails if
    /// another run holds the pool.
    pub fn open(path: &Path, settings: &PoolSettings) -> Result<Pool, BookError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| BookError::io(parent, e))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| BookError::io(path, e))?;
        file.try_lock().map_err(|_| BookError::Input {
            path: path.to_path_buf(),
            reason: "another run is writing this pool".into(),
        })?;
        let contents = PoolContents::read(path)?;
        if contents.torn_bytes(path) > 0 {
            file.set_len(contents.whole_bytes)
                .map_err(|e| BookError::io(path, e))?;
        }
        let mut pool = Pool {
            path: path.to_path_buf(),
            file,
            screened: keys(&contents.screen),
            deep: keys(&contents.deep),
            contents,
        };
        match &pool.contents.settings {
            None => pool.write(&[PoolLine::Header(settings.clone())])?,
            Some(found) if found == settings => {}
            Some(found) => {
                return Err(BookError::Input {
                    path: path.to_path_buf(),
                    reason: format!(
                        "the pool was made with {found:?}, this run asks for {settings:?}: \
                         resume it with the same engine and limits, or write another pool"
                    ),
                });
            }
        }
        pool.contents.settings = Some(settings.clone());
        Ok(pool)
    }

    /// True if the pool holds `key`'s result of `stage`.
    pub fn has(&self, stage: Stage, key: &Position) -> bool {
        match stage {
            Stage::Screen => self.screened.contains(key),
            Stage::Deep => self.deep.contains(key),
        }
    }

    /// Appends `records` of `stage` (one write, then synced to disk);
    /// positions the pool holds for that stage already are skipped.
    pub fn append(&mut self, stage: Stage, records: Vec<Scored>) -> Result<(), BookError> {
        let mut lines = Vec::new();
        for record in records {
            let key = book_key(&record.position().map_err(|reason| BookError::Input {
                path: self.path.clone(),
                reason,
            })?);
            let (seen, list) = match stage {
                Stage::Screen => (&mut self.screened, &mut self.contents.screen),
                Stage::Deep => (&mut self.deep, &mut self.contents.deep),
            };
            if seen.insert(key) {
                list.push(record.clone());
                lines.push(match stage {
                    Stage::Screen => PoolLine::Screen(record),
                    Stage::Deep => PoolLine::Deep(record),
                });
            }
        }
        self.write(&lines)
    }

    fn write(&mut self, lines: &[PoolLine]) -> Result<(), BookError> {
        if lines.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for line in lines {
            // A plain struct of strings and numbers always serializes.
            text.push_str(&serde_json::to_string(line).unwrap_or_default());
            text.push('\n');
        }
        let io = |e| BookError::io(&self.path, e);
        self.file.write_all(text.as_bytes()).map_err(io)?;
        self.file.sync_data().map_err(io)
    }
}

/// The keys of records read by [`PoolContents::read`], which checked that
/// every position reads.
fn keys(records: &[Scored]) -> HashSet<Position> {
    records
        .iter()
        .filter_map(|r| r.position().ok())
        .map(|p| book_key(&p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn record(moves: &str, score: Score) -> Scored {
        let opening = Opening::from_fields(format!("line {moves}"), None, moves).unwrap();
        let report = SearchReport {
            best_move: None,
            score,
            depth: 3,
            nodes: 10,
            elapsed: Duration::from_millis(5),
            pv: Vec::new(),
        };
        Scored::new(&opening, &report).unwrap()
    }

    fn settings() -> PoolSettings {
        PoolSettings {
            engine: "e".into(),
            screen: "depth 2".into(),
            deep: "depth 3".into(),
        }
    }

    #[test]
    fn scores_are_kept_from_whites_view_and_decided_ones_marked() {
        // Black to move after one move: Black's +50 is White's -50.
        let r = record("c3-d4", Score::Centi(50));
        assert_eq!((r.white_cp, r.favours.as_str()), (Some(-50), "black"));
        assert_eq!(r.score, "cp 50");
        let r = record("c3-d4 d6-c5", Score::Centi(50));
        assert_eq!((r.white_cp, r.favours.as_str()), (Some(50), "white"));
        let r = record("c3-d4", Score::Mate(-7));
        assert!(r.is_decided());
        assert_eq!(r.favours, "white");
        assert_eq!(record("c3-d4", Score::TbWin(3)).favours, "black");
        assert_eq!(record("c3-d4", Score::TbDraw).white_cp, Some(0));
        let opening = Opening::from_fields("x".into(), None, "c3-d4").unwrap();
        let mut report = SearchReport {
            best_move: None,
            score: Score::Value(0.5),
            depth: 1,
            nodes: 1,
            elapsed: Duration::ZERO,
            pv: Vec::new(),
        };
        assert!(
            Scored::new(&opening, &report)
                .unwrap_err()
                .contains("centi")
        );
        report.score = Score::Centi(0);
        let r = Scored::new(&opening, &report).unwrap();
        assert_eq!(r.opening("y".into()).unwrap().moves, opening.moves);
    }

    #[test]
    fn a_pool_resumes_drops_a_torn_line_and_refuses_other_settings() {
        let dir = std::env::temp_dir().join(format!("book-pool-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("pool.jsonl");
        {
            let mut pool = Pool::open(&path, &settings()).unwrap();
            let a = record("c3-d4", Score::Centi(10));
            pool.append(Stage::Screen, vec![a.clone(), a.clone()])
                .unwrap();
            pool.append(Stage::Deep, vec![a]).unwrap();
            // Another run cannot write the pool at the same time.
            let e = Pool::open(&path, &settings()).err().unwrap();
            assert!(e.to_string().contains("another run"), "{e}");
        }
        // A kill in the middle of a write leaves half a line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"kind\":\"screen\",\"key\":\"00").unwrap();
        drop(f);
        let pool = Pool::open(&path, &settings()).unwrap();
        assert_eq!(
            (pool.contents.screen.len(), pool.contents.deep.len()),
            (1, 1)
        );
        let key = book_key(&pool.contents.deep[0].position().unwrap());
        assert!(pool.has(Stage::Deep, &key));
        drop(pool);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(text.ends_with('\n'));
        let other = PoolSettings {
            deep: "depth 9".into(),
            ..settings()
        };
        let e = Pool::open(&path, &other).err().unwrap();
        assert!(e.to_string().contains("depth 9"), "{e}");
        // A broken line in the middle is an error naming it.
        std::fs::write(
            &path,
            format!("{}\nnot json\n", text.lines().next().unwrap()),
        )
        .unwrap();
        let e = PoolContents::read(&path).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
