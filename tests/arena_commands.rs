//! `shashki match` and `shashki rate` end to end: outputs, accumulation in
//! the ratings file, and our own engine driven as an external engine.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn shashki(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shashki"))
        .args(args)
        .output()
        .expect("shashki runs")
}

fn ok(args: &[&str]) -> String {
    let out = shashki(args);
    assert!(
        out.status.success(),
        "shashki {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shashki-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn match_reports_and_writes_every_output() {
    let dir = temp_dir("match");
    let (pdn, js, csv) = (dir.join("g.pdn"), dir.join("r.json"), dir.join("r.csv"));
    let stdout = ok(&[
        "match",
        "ab:depth=1",
        "random",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--pdn",
        s(&pdn),
        "--json",
        s(&js),
        "--csv",
        s(&csv),
    ]);
    assert!(stdout.contains("ab:depth=1 vs random: 4 games"), "{stdout}");
    assert!(
        stdout.contains("Elo difference") && stdout.contains("95% interval"),
        "{stdout}"
    );
    assert!(stdout.contains("Pentanomial"), "{stdout}");
    let text = std::fs::read_to_string(&pdn).unwrap();
    let games: Vec<_> = shashki_rules::read_pdn(&text)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(games.len(), 4);
    assert!(
        games
            .iter()
            .all(|g| g.tag("Opening").is_some() && g.tag("Termination").is_some())
    );
    let v = json(&js);
    assert_eq!(v["players"].as_array().unwrap().len(), 2);
    assert_eq!(v["pairs"][0]["a"], "ab:depth=1");
    let wdl: u64 = ["wins", "draws", "losses"]
        .iter()
        .map(|k| v["pairs"][0][k].as_u64().unwrap())
        .sum();
    assert_eq!(wdl, 4);
    let random = v["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "random")
        .unwrap();
    assert_eq!(
        random["elo"].as_f64(),
        Some(0.0),
        "random is the default anchor"
    );
    assert!(
        std::fs::read_to_string(&csv)
            .unwrap()
            .starts_with("name,elo,ci95,games,score\n")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rate_accumulates_results_in_the_ratings_file() {
    let dir = temp_dir("rate");
    let (ratings, js) = (dir.join("ratings.json"), dir.join("out.json"));
    let args = [
        "rate",
        "--players",
        "random,ab:depth=1,ab:depth=2",
        "--games",
        "2",
        "--concurrency",
        "2",
        "--ratings",
        s(&ratings),
        "--json",
        s(&js),
        "--anchor",
        "ab:depth=1=100",
    ];
    let first = ok(&args);
    assert!(first.contains("(anchor)"), "{first}");
    let games = |v: &Value| -> Vec<u64> {
        let mut g: Vec<u64> = v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["games"].as_u64().unwrap())
            .collect();
        g.sort();
        g
    };
    assert_eq!(games(&json(&js)), vec![4, 4, 4]);
    ok(&args);
    let v = json(&js);
    assert_eq!(games(&v), vec![8, 8, 8], "the second run adds to the first");
    let anchor = v["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "ab:depth=1")
        .unwrap();
    assert_eq!(anchor["elo"].as_f64(), Some(100.0));
    assert_eq!(anchor["ci95"].as_f64(), Some(0.0));
    // A gauntlet plays only the named player's pairings.
    let out = ok(&[
        "rate",
        "--players",
        "random,ab:depth=1,mcts:sims=4",
        "--games",
        "2",
        "--gauntlet",
        "mcts:sims=4",
    ]);
    assert!(
        out.contains("mcts:sims=4 vs random") && out.contains("mcts:sims=4 vs ab:depth=1"),
        "{out}"
    );
    assert!(!out.contains("random vs ab:depth=1"), "{out}");
    // Players from a TOML file, one with its own display name.
    let players = dir.join("players.toml");
    std::fs::write(
        &players,
        "players = [\"random\"]\n[[player]]\nname = \"shallow\"\nspec = \"ab:depth=1\"\n",
    )
    .unwrap();
    let out = ok(&["rate", "--players-file", s(&players), "--games", "2"]);
    assert!(out.contains("random vs shallow"), "{out}");
    // Bad input is an error that says what is wrong.
    let bad = shashki(&["rate", "--players", "random,ab:depth=x"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("ab:depth=x"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn our_engine_plays_as_an_external_engine() {
    let bin = env!("CARGO_BIN_EXE_shashki");
    let ext = format!("ext:\"{bin} engine --engine ab\"@depth=2,timeout=20000");
    let stdout = ok(&[
        "match",
        &ext,
        "random",
        "--games",
        "2",
        "--concurrency",
        "2",
    ]);
    assert!(!stdout.contains("forfeit"), "{stdout}");
    assert!(stdout.contains("2 games"), "{stdout}");
}

#[test]
fn rate_reads_an_nnue_player_after_an_ab_player() {
    // Once read as one ab spec: unknown ab option "nnue:models/nnue-2h@depth".
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/nnue-2h");
    let nnue = format!("nnue:{}@depth=2", model.display());
    let players = format!("ab:depth=2,{nnue}");
    let stdout = ok(&["rate", "--players", &players, "--games", "2"]);
    assert!(
        stdout.contains(&format!("ab:depth=2 vs {nnue}: 2 games")),
        "{stdout}"
    );
}
