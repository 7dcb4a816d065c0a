//! `shashki book` end to end with the real built-in engine on a tiny
//! budget: the pool it scores, the books it cuts from it (valid, each
//! position once, won and lost positions left out, held-out parts
//! disjoint), a match played from such a book, and a run killed with
//! `kill -9` that resumes without searching a position twice.

#[path = "support/cli.rs"]
mod cli;

use cli::{ok, s, shashki, temp_dir};
use serde_json::Value;
use shashki_rules::Position;
use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The pool's records of one kind (`screen` or `deep`).
fn records(pool: &Path, kind: &str) -> Vec<Value> {
    std::fs::read_to_string(pool)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] == kind)
        .collect()
}

/// The position each opening of a book file leads to.
fn book_positions(book: &Path) -> Vec<Position> {
    let book = shashki_arena::OpeningBook::load(book).unwrap();
    book.openings.iter().map(|o| o.position()).collect()
}

/// A position and its colour-flipped twin count as one.
fn distinct(positions: &[Position]) -> usize {
    let keys: HashSet<Position> = positions
        .iter()
        .map(shashki_arena::book::book_key)
        .collect();
    keys.len()
}

/// `book select` of `pool` in `band` and `part` into `out`.
fn select_args<'a>(pool: &'a Path, band: &'a str, part: &'a str, out: &'a Path) -> [&'a str; 10] {
    [
        "book",
        "select",
        "--pool",
        s(pool),
        "--band",
        band,
        "--part",
        part,
        "--out",
        s(out),
    ]
}

/// Runs `book select`, which must succeed.
fn select(pool: &Path, band: &str, part: &str, out: &Path) -> String {
    ok(&select_args(pool, band, part, out))
}

#[test]
fn a_book_is_scored_cut_by_band_and_part_and_played() {
    let dir = temp_dir("make");
    let pool = dir.join("pool.jsonl");
    // A recorded game whose start White wins at once (its one capture
    // takes Black's last piece): the screen must drop it.
    let won = "W:Wc3:Bd4";
    let pdn = dir.join("won.pdn");
    std::fs::write(&pdn, format!("[FEN \"{won}\"]\n\n1. c3:e5 1-0\n")).unwrap();
    let stdout = ok(&[
        "book",
        "score",
        "--out",
        s(&pool),
        "--plies",
        "2",
        "--pdn",
        s(&pdn),
        "--game-plies",
        "0",
        "--screen-depth",
        "2",
        "--window",
        "0..=10000",
        "--depth",
        "4",
        "--jobs",
        "2",
    ]);
    assert!(stdout.contains("deep scores"), "{stdout}");
    let screen = records(&pool, "screen");
    let deep = records(&pool, "deep");
    // 49 positions after two plies (fewer if some are colour-flipped twins)
    // and the recorded one.
    assert!(screen.len() > 40 && screen.len() <= 50, "{}", screen.len());
    let won_record = screen.iter().find(|r| r["fen"] == won).expect("screened");
    assert!(won_record["white_cp"].is_null(), "{won_record}");
    assert_eq!(won_record["favours"], "white");
    assert!(deep.iter().all(|r| r["fen"] != won));
    assert!(
        deep.iter()
            .all(|r| r["depth"] == 4 && r["white_cp"].is_i64())
    );
    assert_eq!(deep.len(), screen.len() - 1);

    // The whole pool as one book: every deep score, each position once.
    let all = dir.join("all.txt");
    select(&pool, "0..=10000", "all", &all);
    let positions = book_positions(&all);
    assert_eq!(positions.len(), deep.len());
    assert_eq!(distinct(&positions), positions.len());
    let won_position = Position::from_fen(won).unwrap();
    assert!(!positions.contains(&won_position));
    // Lines carry their score, side, depth and source.
    let text = std::fs::read_to_string(&all).unwrap();
    let line = text.lines().find(|l| !l.starts_with('#')).unwrap();
    assert!(line.contains(" d4 line ply 2 #"), "{line}");

    // The held-out parts split the pool and share no position.
    let (test, train) = (dir.join("test.txt"), dir.join("train.txt"));
    select(&pool, "0..=10000", "test", &test);
    select(&pool, "0..=10000", "train", &train);
    let (a, b) = (book_positions(&test), book_positions(&train));
    assert_eq!(a.len() + b.len(), positions.len());
    let a_keys: HashSet<_> = a.iter().map(shashki_arena::book::book_key).collect();
    assert!(
        b.iter()
            .all(|p| !a_keys.contains(&shashki_arena::book::book_key(p)))
    );

    // A band keeps only its scores.
    let band = dir.join("band.txt");
    let out = shashki(&select_args(&pool, "20..=10000", "all", &band));
    let in_band = deep
        .iter()
        .filter(|r| r["white_cp"].as_i64().unwrap().abs() >= 20)
        .count();
    if in_band == 0 {
        assert!(!out.status.success());
    } else {
        assert_eq!(book_positions(&band).len(), in_band);
    }

    // `match` plays from the book.
    let stdout = ok(&[
        "match",
        "ab:depth=1",
        "ab:depth=2",
        "--games",
        "2",
        "--openings",
        s(&all),
    ]);
    assert!(stdout.contains("2 games"), "{stdout}");
    let stats = ok(&["book", "stats", "--pool", s(&pool)]);
    assert!(
        stats.contains(&format!("{} deep scores", deep.len())),
        "{stats}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The deep scores of a pool by position: (key, White's score, depth).
fn deep_scores(pool: &Path) -> Vec<(String, i64, i64)> {
    let mut scores: Vec<_> = records(pool, "deep")
        .iter()
        .map(|r| {
            let cp = r["white_cp"].as_i64().unwrap_or(i64::MIN);
            (
                r["key"].as_str().unwrap().to_string(),
                cp,
                r["depth"].as_i64().unwrap(),
            )
        })
        .collect();
    scores.sort();
    scores
}

#[test]
fn a_killed_run_resumes_without_searching_a_position_twice() {
    let dir = temp_dir("resume");
    let (killed, fresh) = (dir.join("killed.jsonl"), dir.join("fresh.jsonl"));
    let args = |pool: &Path, jobs: &str| -> Vec<String> {
        [
            "book",
            "score",
            "--out",
            s(pool),
            "--plies",
            "3",
            "--screen-depth",
            "2",
            "--window",
            "0..=10000",
            "--depth",
            "5",
            "--jobs",
            jobs,
        ]
        .map(String::from)
        .to_vec()
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(args(&killed, "1"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once it has deep-scored some positions.
    let deadline = Instant::now() + Duration::from_secs(300);
    // (The last line may be half written while the run goes on.)
    let deep_so_far = |pool: &Path| {
        std::fs::read_to_string(pool)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("{\"kind\":\"deep\"") && l.ends_with('}'))
            .count()
    };
    while deep_so_far(&killed) < 3 && Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = deep_so_far(&killed);
    assert!(before >= 3, "the run was killed before its deep stage");
    // As if the kill had cut a write in half.
    let mut text = std::fs::read_to_string(&killed).unwrap();
    text.push_str("{\"kind\":\"deep\",\"key\":\"12");
    std::fs::write(&killed, text).unwrap();

    let strings = args(&killed, "2");
    let resumed = ok(&strings.iter().map(String::as_str).collect::<Vec<_>>());
    // The screen had finished before the kill: only deep searches remain.
    assert!(resumed.contains("candidates: 0 screened now"), "{resumed}");
    let strings = args(&fresh, "1");
    ok(&strings.iter().map(String::as_str).collect::<Vec<_>>());
    // No position twice, none lost, and the same scores as a run never
    // interrupted (with another number of workers): searches at a fixed
    // depth are reproducible.
    let (a, b) = (deep_scores(&killed), deep_scores(&fresh));
    let keys: HashSet<_> = a.iter().map(|r| r.0.clone()).collect();
    assert_eq!(keys.len(), a.len(), "a position scored twice");
    assert_eq!(a, b);
    assert!(a.len() > before);
    // Resuming a finished pool searches nothing.
    let strings = args(&killed, "2");
    let again = ok(&strings.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        again.contains("candidates: 0 screened now") && again.contains(", 0 deep-scored now"),
        "{again}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_shipped_test_and_start_books_share_no_position() {
    let books = cli::repo_root().join("books");
    let test = book_positions(&books.join("unbalanced.txt"));
    let starts = book_positions(&books.join("starts.txt"));
    assert!(test.len() >= 500 && starts.len() >= 500);
    assert_eq!(distinct(&test), test.len());
    assert_eq!(distinct(&starts), starts.len());
    let test_keys: HashSet<Position> = test.iter().map(shashki_arena::book::book_key).collect();
    let shared = starts
        .iter()
        .filter(|p| test_keys.contains(&shashki_arena::book::book_key(p)))
        .count();
    assert_eq!(
        shared, 0,
        "the self-play starts hold positions of the test book"
    );
    // The built-in default is the shipped test book.
    let default = shashki_arena::OpeningBook::default_book();
    let default: Vec<Position> = default.openings.iter().map(|o| o.position()).collect();
    assert_eq!(default, test);
}
