//! `shashki relabel`: deeper labels on a budget (issue 36). A self-play
//! sample's label is a shallow search; where the static evaluation and a
//! cheap look at the position disagree, that label is the least to be
//! trusted and a deep search pays most. So:
//!
//! 1. **Screen** every sample of a chunk folder with what is free: the
//!    static value of the position against the sample's stored search
//!    score (`screen_depth = 0`), or against a search at `screen_depth`
//!    plies. A sample is a candidate when the two differ by more than
//!    `margin` centi-men. Samples the tablebases cover are always
//!    candidates (their exact value costs a probe); already exact
//!    samples are left alone.
//! 2. **Relabel** the candidates by an alpha-beta search at `depth` plies
//!    (the tables' exact value where they cover the position), one
//!    single-threaded search per position on `threads` threads, so a label
//!    does not depend on the thread count; the label is the search score
//!    as an expected score, exactly as self-play stores it.
//! 3. Write each chunk, with its relabelled samples ([`FLAG_RELABELLED`]),
//!    under the same name into the output folder (atomically): the folder
//!    is a chunk folder the NNUE learner reads (`shashki learn`).
//!
//! **Resumable.** Every finished label is appended at once to a journal
//! (`relabel-journal[-SHARD].tsv` in the output folder, one line per
//! position: chunk name, record index, kind, value), so a run
//! killed at any moment (kill -9 included) loses at most the searches in
//! flight; run again, it reads the journal, skips the output chunks
//! already written and the positions already labelled, and writes no
//! label twice. A line cut short by the kill is dropped.
//!
//! **At scale.** `--threads` uses every core of a machine; `--shard I/N`
//! splits the chunks among N processes (machines, or the Ray actors of
//! `scripts/ray/relabel.py`) that share nothing but the output folder
//! (each its own journal); `--budget` stops after that many deep searches.

use crate::diagnose::held_out::LabelSource;
use crate::diagnose::label::Labeller;
use crate::diagnose::sources::Candidate;
use crate::errors::FileError;
use crate::nnue_targets::sample_cp;
use rayon::prelude::*;
use shashki_atomic::write_atomic;
use shashki_rules::Position;
use shashki_search::alphabeta::{Selectivity, StaticEval};
use shashki_search::tablebase::Tablebases;
use shashki_selfplay::chunk::encode_chunk;
use shashki_selfplay::sample::{FLAG_EXACT, FLAG_RELABELLED};
use shashki_selfplay::{Sample, list_chunks, read_chunk, score_to_wdl};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What a relabelling run can fail on.
#[derive(Debug, thiserror::Error)]
pub enum RelabelError {
    /// A chunk or the label journal.
    #[error(transparent)]
    File(#[from] FileError),
    /// Settings that cannot work.
    #[error("relabel: {0}")]
    Settings(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RelabelError + '_ {
    move |error| RelabelError::File(FileError::io(path, error))
}

/// Which processes share the chunks: this one takes chunk `k` (in name
/// order) when `k % count == index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This process's share, `0..count`.
    pub index: usize,
    /// Processes sharing the chunks.
    pub count: usize,
}

impl Shard {
    /// The whole folder.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| format!("--shard {text:?}: expected I/N, e.g. 0/4"))?;
        let parse = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|e| format!("--shard {text:?}: {e}"))
        };
        let shard = Shard {
            index: parse(i)?,
            count: parse(n)?,
        };
        if shard.count == 0 || shard.index >= shard.count {
            return Err(format!("--shard {text:?}: needs 0 <= I < N"));
        }
        Ok(shard)
    }

    fn journal_name(&self) -> String {
        if self.count == 1 {
            "relabel-journal.tsv".into()
        } else {
            format!("relabel-journal-{}-of-{}.tsv", self.index, self.count)
        }
    }
}

/// The settings of a run.
pub struct RelabelSettings<'a> {
    /// The evaluation of the screen and the deep search.
    pub eval: &'a dyn StaticEval,
    /// Depth of the deep search.
    pub depth: u32,
    /// 0: screen against the stored score; else a search of this depth.
    pub screen_depth: u32,
    /// Candidates differ from the static value by more than this (cp).
    pub margin: i32,
    /// Tablebases: exact labels where they cover a position.
    pub tablebases: Option<&'a Tablebases>,
    /// Positions searched at once.
    pub threads: usize,
    /// This process's share of the chunks.
    pub shard: Shard,
    /// Deep searches this call may run at most (`None`: all).
    pub budget: Option<u64>,
}

/// What a call did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelabelReport {
    /// Chunks of this shard.
    pub chunks: usize,
    /// ... already written by an earlier call.
    pub chunks_done_before: usize,
    /// Output chunks written by this call.
    pub chunks_written: usize,
    /// Samples screened by this call.
    pub screened: u64,
    /// Candidates found by this call's screens.
    pub candidates: u64,
    /// Labels taken from the journal (done by an earlier call).
    pub from_journal: u64,
    /// Deep searches (or probes) run by this call.
    pub relabelled: u64,
    /// True if the budget ran out (or a stop came) before the end.
    pub stopped: bool,
}

/// One finished label, as the journal keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// A search score, centi-men.
    Search(i32),
    /// The tables' value: +1, 0, -1 for the side to move.
    Exact(i8),
}

impl Label {
    /// Writes the label into `sample`.
    pub fn apply(&self, sample: &mut Sample) {
        match *self {
            Label::Search(cp) => sample.root_wdl = score_to_wdl(cp),
            Label::Exact(result) => {
                sample.root_wdl = match result {
                    1 => [1.0, 0.0, 0.0],
                    -1 => [0.0, 0.0, 1.0],
                    _ => [0.0, 1.0, 0.0],
                };
                sample.flags |= FLAG_EXACT;
            }
        }
        sample.flags |= FLAG_RELABELLED;
    }

    fn line(&self, chunk: &str, index: usize) -> String {
        match self {
            Label::Search(cp) => format!("{chunk}\t{index}\ts\t{cp}\n"),
            Label::Exact(r) => format!("{chunk}\t{index}\tt\t{r}\n"),
        }
    }

    fn parse(line: &str) -> Option<(String, usize, Label)> {
        let mut f = line.split('\t');
        let (chunk, index, kind, value) = (f.next()?, f.next()?, f.next()?, f.next()?);
        if f.next().is_some() {
            return None;
        }
        let index = index.parse().ok()?;
        let label = match kind {
            "s" => Label::Search(value.parse().ok()?),
            "t" => Label::Exact(value.parse().ok()?),
            _ => return None,
        };
        Some((chunk.to_string(), index, label))
    }
}

/// The append-only journal of finished labels.
#[derive(Debug)]
struct Journal {
    path: PathBuf,
    file: Mutex<File>,
    done: HashMap<(String, usize), Label>,
}

impl Journal {
    /// Opens (or creates) the journal, reading what it holds; a last line
    /// cut short by a kill is cut off the file.
    fn open(path: PathBuf) -> Result<Journal, RelabelError> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(io(&path))?;
        let mut text = String::new();
        file.read_to_string(&mut text).map_err(io(&path))?;
        let whole = text.rfind('\n').map_or(0, |i| i + 1);
        if whole < text.len() {
            file.set_len(whole as u64).map_err(io(&path))?;
            file.seek(SeekFrom::End(0)).map_err(io(&path))?;
        }
        let mut done = HashMap::new();
        for (n, line) in text[..whole].lines().enumerate() {
            let (chunk, index, label) = Label::parse(line).ok_or_else(|| FileError::Format {
                path: path.clone(),
                reason: format!("line {}: not a journal line: {line:?}", n + 1),
            })?;
            done.insert((chunk, index), label);
        }
        Ok(Journal {
            path,
            file: Mutex::new(file),
            done,
        })
    }

    /// Appends one label (one write call: a kill leaves whole lines or a
    /// cut last line, which [`Journal::open`] drops).
    fn append(&self, chunk: &str, index: usize, label: Label) -> Result<(), RelabelError> {
        let mut file = self.file.lock().expect("no thread panics holding it");
        file.write_all(label.line(chunk, index).as_bytes())
            .map_err(io(&self.path))
    }

    fn sync(&self) -> Result<(), RelabelError> {
        let file = self.file.lock().expect("no thread panics holding it");
        file.sync_data().map_err(io(&self.path))
    }
}

/// The static value of `pos` (centi-men, side to move).
fn static_value(eval: &mut dyn StaticEval, pos: &Position) -> i32 {
    eval.reset(pos);
    eval.evaluate(pos)
}

fn candidate(sample: &Sample) -> Candidate {
    Candidate {
        position: sample.position,
        sample_score: None,
        sample_result: None,
    }
}

/// The settings the worker threads share (the evaluation, which is not
/// `Sync`, is forked from a lock).
#[derive(Clone, Copy)]
struct Params<'a> {
    depth: u32,
    screen_depth: u32,
    margin: i32,
    tablebases: Option<&'a Tablebases>,
    budget: Option<u64>,
}

/// The evaluation, forked per position under a lock.
struct SharedEval(Mutex<Box<dyn StaticEval>>);

impl SharedEval {
    fn fork(&self) -> Box<dyn StaticEval> {
        self.0.lock().expect("no thread panics holding it").fork()
    }
}

impl RelabelSettings<'_> {
    fn params(&self) -> Params<'_> {
        Params {
            depth: self.depth,
            screen_depth: self.screen_depth,
            margin: self.margin,
            tablebases: self.tablebases,
            budget: self.budget,
        }
    }

    /// Checks the settings.
    fn validate(&self) -> Result<(), RelabelError> {
        if self.depth == 0 {
            return Err(RelabelError::Settings("--depth must be at least 1".into()));
        }
        if self.margin < 0 {
            return Err(RelabelError::Settings("--margin must be >= 0".into()));
        }
        if self.threads == 0 {
            return Err(RelabelError::Settings(
                "--threads must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

impl Params<'_> {
    /// True if the tables cover `sample`'s position.
    fn in_tables(&self, sample: &Sample) -> bool {
        let pieces = (sample.position.white() | sample.position.black()).count_ones();
        self.tablebases
            .is_some_and(|tb| pieces <= u32::from(tb.max_pieces()))
    }

    /// The record indices of `samples` that need a deep label.
    fn screen(&self, shared: &SharedEval, samples: &[Sample]) -> Vec<usize> {
        samples
            .par_iter()
            .enumerate()
            .filter(|(_, s)| s.flags & FLAG_EXACT == 0)
            .filter(|(_, s)| {
                if self.in_tables(s) {
                    return true;
                }
                let mut eval = shared.fork();
                let value = static_value(eval.as_mut(), &s.position);
                let screen = if self.screen_depth == 0 {
                    sample_cp(s).round() as i32
                } else {
                    let labeller = Labeller {
                        eval: eval.as_ref(),
                        depth: self.screen_depth,
                        selectivity: Selectivity::NONE,
                        tablebases: None,
                    };
                    match labeller.label(&candidate(s)).0.score_cp {
                        Some(cp) => cp,
                        None => return true,
                    }
                };
                (value - screen).abs() > self.margin
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The deep label of one sample.
    fn label(&self, eval: &dyn StaticEval, sample: &Sample) -> Label {
        let labeller = Labeller {
            eval,
            depth: self.depth,
            selectivity: Selectivity::NONE,
            tablebases: self.tablebases,
        };
        let (labelled, _) = labeller.label(&candidate(sample));
        match (labelled.source, labelled.score_cp) {
            (LabelSource::Search, Some(cp)) => Label::Search(cp),
            _ => Label::Exact(((labelled.label * 2.0).round() as i8) - 1),
        }
    }
}

/// Relabels the chunks of `input` into `output` (see the module docs).
/// `stop` ends the call between positions (what is done stays journalled).
pub fn relabel(
    input: &Path,
    output: &Path,
    settings: &RelabelSettings<'_>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&str),
) -> Result<RelabelReport, RelabelError> {
    settings.validate()?;
    if input == output {
        return Err(RelabelError::Settings(
            "--out must differ from --chunks (the input is never rewritten)".into(),
        ));
    }
    std::fs::create_dir_all(output).map_err(io(output))?;
    let chunks: Vec<PathBuf> = list_chunks(input)
        .map_err(io(input))?
        .into_iter()
        .enumerate()
        .filter(|(k, _)| k % settings.shard.count == settings.shard.index)
        .map(|(_, p)| p)
        .collect();
    let journal = Journal::open(output.join(settings.shard.journal_name()))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads)
        .build()
        .map_err(|e| RelabelError::Settings(format!("thread pool: {e}")))?;
    let mut report = RelabelReport {
        chunks: chunks.len(),
        ..RelabelReport::default()
    };
    let searched = AtomicU64::new(0);
    let params = settings.params();
    let shared = SharedEval(Mutex::new(settings.eval.fork()));
    for path in &chunks {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let out_path = output.join(&name);
        if out_path.exists() {
            report.chunks_done_before += 1;
            continue;
        }
        let chunk = read_chunk(path).map_err(|e| FileError::Format {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        let mut samples = chunk.samples().map_err(|reason| FileError::Format {
            path: path.clone(),
            reason,
        })?;
        let todo = pool.install(|| params.screen(&shared, &samples));
        report.screened += samples.len() as u64;
        report.candidates += todo.len() as u64;
        let finished = pool.install(|| {
            label_chunk(
                params, &shared, &journal, &name, &samples, &todo, &searched, stop,
            )
        })?;
        report.relabelled = searched.load(Ordering::Relaxed);
        let mut complete = true;
        for &i in &todo {
            match finished
                .get(&i)
                .or_else(|| journal.done.get(&(name.clone(), i)))
            {
                Some(label) => label.apply(&mut samples[i]),
                None => complete = false,
            }
        }
        report.from_journal += todo
            .iter()
            .filter(|&&i| journal.done.contains_key(&(name.clone(), i)))
            .count() as u64;
        if !complete {
            report.stopped = true;
            journal.sync()?;
            progress(&format!(
                "{name}: stopped with {} of {} candidates labelled (resume to finish)",
                finished.len(),
                todo.len()
            ));
            break;
        }
        write_atomic(&out_path, &encode_chunk(&samples, chunk.header.net_step))
            .map_err(io(&out_path))?;
        journal.sync()?;
        report.chunks_written += 1;
        progress(&format!(
            "{name}: {} samples, {} candidates (|static - screen| > {} cp or in the tables), relabelled at depth {}",
            samples.len(),
            todo.len(),
            settings.margin,
            settings.depth
        ));
    }
    report.relabelled = searched.load(Ordering::Relaxed);
    Ok(report)
}

/// Labels the candidates `todo` of one chunk not yet in the journal,
/// appending each to it as it finishes; returns the new labels. Stops
/// taking new positions once the budget is spent or `stop` is set.
#[allow(clippy::too_many_arguments)]
fn label_chunk(
    params: Params<'_>,
    shared: &SharedEval,
    journal: &Journal,
    name: &str,
    samples: &[Sample],
    todo: &[usize],
    searched: &AtomicU64,
    stop: &AtomicBool,
) -> Result<HashMap<usize, Label>, RelabelError> {
    let results: Vec<Option<Result<(usize, Label), RelabelError>>> = todo
        .par_iter()
        .filter(|&&i| !journal.done.contains_key(&(name.to_string(), i)))
        .map(|&i| {
            if stop.load(Ordering::SeqCst) {
                return None;
            }
            let allowed = searched.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                params.budget.is_none_or(|b| n < b).then_some(n + 1)
            });
            allowed.ok()?;
            let eval = shared.fork();
            let label = params.label(eval.as_ref(), &samples[i]);
            Some(journal.append(name, i, label).map(|()| (i, label)))
        })
        .collect();
    results.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_lines_round_trip_and_shards_parse() {
        for label in [Label::Search(-137), Label::Exact(1), Label::Exact(0)] {
            let line = label.line("chunk-1.shzc", 42);
            let back = Label::parse(line.trim_end()).unwrap();
            assert_eq!(back, ("chunk-1.shzc".to_string(), 42, label));
        }
        assert!(Label::parse("chunk\t1\ts").is_none());
        assert!(Label::parse("chunk\tx\ts\t5").is_none());
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
        assert!(Shard::parse("4/4").is_err());
        assert!(Shard::parse("1").is_err());
    }

    #[test]
    fn a_journal_cut_mid_line_keeps_its_whole_lines() {
        let dir = std::env::temp_dir().join(format!("shashki-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("j.tsv");
        std::fs::write(&path, "a\t1\ts\t10\na\t2\tt\t-1\na\t3\ts\t4").unwrap();
        let journal = Journal::open(path.clone()).unwrap();
        assert_eq!(journal.done.len(), 2);
        assert_eq!(journal.done[&("a".to_string(), 2)], Label::Exact(-1));
        journal.append("a", 3, Label::Search(5)).unwrap();
        drop(journal);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "a\t1\ts\t10\na\t2\tt\t-1\na\t3\ts\t5\n");
        std::fs::write(&path, "garbage\n").unwrap();
        assert!(
            Journal::open(path)
                .unwrap_err()
                .to_string()
                .contains("line 1")
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
