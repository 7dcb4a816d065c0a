//! `shashki match` and `shashki rate` end to end: outputs, accumulation in
//! the ratings file, and our own engine driven as an external engine.

#[path = "support/cli.rs"]
mod cli;

use cli::{ok, s, shashki, temp_dir};
use serde_json::Value;
use std::path::Path;

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

/// Counts of the games in a PDN file.
fn pdn_games(path: &Path) -> usize {
    shashki_rules::read_pdn(&std::fs::read_to_string(path).unwrap()).len()
}

/// An interrupted match goes on without playing its recorded pairs again:
/// they are counted as the PDN file holds them (here edited to draws, which
/// replaying could not give), and the report covers every game.
#[test]
fn a_resumed_match_counts_its_recorded_pairs_without_playing_them() {
    let dir = temp_dir("resume-count");
    let (pdn, js) = (dir.join("g.pdn"), dir.join("r.json"));
    let args = |games: &'static str| {
        vec![
            "match".to_string(),
            "ab:depth=2".into(),
            "random".into(),
            "--games".into(),
            games.into(),
            "--concurrency".into(),
            "1".into(),
            "--pdn".into(),
            s(&pdn).into(),
            "--json".into(),
            s(&js).into(),
            "--resume".into(),
        ]
    };
    let run = |games| {
        let owned = args(games);
        let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
        ok(&refs)
    };
    let first = run("4");
    assert!(first.contains("+4 =0 -0"), "ab beats random: {first}");
    let text = std::fs::read_to_string(&pdn).unwrap();
    let drawn = text
        .replace("[Result \"2-0\"]", "[Result \"1-1\"]")
        .replace("[Result \"0-2\"]", "[Result \"1-1\"]")
        .replace("\n2-0\n", "\n1-1\n")
        .replace(" 2-0\n", " 1-1\n")
        .replace(" 0-2\n", " 1-1\n");
    std::fs::write(&pdn, drawn).unwrap();
    let resumed = run("8");
    assert!(
        resumed.contains("+4 =4 -0"),
        "4 recorded draws, 4 new wins: {resumed}"
    );
    assert_eq!(pdn_games(&pdn), 8);
    let v = json(&js);
    assert_eq!(v["matches"][0]["games"], 8);
    assert_eq!(
        v["pairs"][0]["draws"], 4,
        "the ratings count the recorded pairs"
    );
    // Nothing left to play: the report is made from the record alone.
    let again = run("8");
    assert!(again.contains("+4 =4 -0"), "{again}");
    assert_eq!(pdn_games(&pdn), 8);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn match_sprt_stops_at_the_decision_and_resumes_to_the_same_one() {
    let dir = temp_dir("sprt");
    let (pdn, ratings, js) = (dir.join("g.pdn"), dir.join("r.json"), dir.join("o.json"));
    let args = [
        "match",
        "ab:depth=3",
        "random",
        "--games",
        "400",
        "--concurrency",
        "2",
        "--sprt",
        "0,50",
        "--pdn",
        s(&pdn),
        "--ratings",
        s(&ratings),
        "--json",
        s(&js),
    ];
    let stdout = ok(&args);
    // Random loses every pair: from 20 pairs [0, 0, 0, 0, 20] on, the LLR
    // (3.09 at 20 pairs) is past ln 19 = 2.944, and 40 games is the
    // default minimum.
    assert!(
        stdout.contains("SPRT [0, 50] logistic Elo, alpha 0.05 beta 0.05: LLR 3.")
            && stdout.contains("after 40 games: H1 accepted (stronger)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ab:depth=3 vs random: 40 games in 20 pairs"),
        "{stdout}"
    );
    let figures = &json(&js)["matches"][0];
    assert_eq!(figures["games"], 40);
    assert_eq!(figures["sprt"]["decision"], "AcceptH1");
    assert_eq!(figures["sprt"]["games"], 40);
    // The journal holds exactly the games the test counted.
    assert_eq!(pdn_games(&pdn), 40);
    let before = std::fs::read_to_string(&ratings).unwrap();
    let file: Value = serde_json::from_str(&before).unwrap();
    let counted: u64 = ["wins", "draws", "losses"]
        .iter()
        .map(|k| file["pairs"][0][k].as_u64().unwrap())
        .sum();
    assert_eq!(counted, 40);
    // Resumed, the same games reach the same decision and nothing is
    // counted twice.
    let mut resumed = args.to_vec();
    resumed.push("--resume");
    let again = ok(&resumed);
    assert!(again.contains("after 40 games: H1 accepted"), "{again}");
    assert_eq!(pdn_games(&pdn), 40);
    assert_eq!(std::fs::read_to_string(&ratings).unwrap(), before);
    // Bad bounds and models are refused with what is wrong.
    for (flag, value, says) in [
        ("--sprt", "10,0", "elo0 < elo1"),
        ("--sprt", "5", "ELO0,ELO1"),
    ] {
        let out = shashki(&["match", "random", "ab:depth=1", flag, value]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
    }
    let out = shashki(&[
        "match",
        "random",
        "ab:depth=1",
        "--sprt",
        "0,5",
        "--sprt-model",
        "bayes",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("logistic or normalized"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn match_and_rate_report_the_figures_a_tester_needs() {
    let dir = temp_dir("figures");
    // Three openings, two of them the same position: 2 distinct openings.
    let book = dir.join("book.txt");
    std::fs::write(
        &book,
        "A | 1. c3-d4 d6-c5\nB | 1. g3-h4 b6-a5\nA again | 1. c3-d4 d6-c5\n",
    )
    .unwrap();
    let js = dir.join("o.json");
    let stdout = ok(&[
        "match",
        "ab:depth=2",
        "ab:depth=1",
        "--games",
        "8",
        "--openings",
        s(&book),
        "--sprt",
        "-10,10",
        "--sprt-model",
        "normalized",
        "--json",
        s(&js),
    ]);
    assert!(
        stdout.contains("ab:depth=2 vs ab:depth=1: 8 games in 4 pairs"),
        "{stdout}"
    );
    assert!(stdout.contains("draws"), "{stdout}");
    assert!(
        stdout.contains("Elo difference ab:depth=2 - ab:depth=1 (95% intervals): logistic ")
            && stdout.contains(", normalized "),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "Openings: 2 distinct in 4 pairs, from {} (3 openings)",
            book.display()
        )),
        "{stdout}"
    );
    // Below the 40-game minimum: the match ran out of games first.
    assert!(
        stdout.contains("SPRT [-10, 10] normalized Elo")
            && stdout.contains("after 8 games: no decision (the games ran out first)"),
        "{stdout}"
    );
    let m = &json(&js)["matches"][0];
    for key in ["draw_ratio", "score", "pairs"] {
        assert!(m[key].is_number(), "{key}: {m}");
    }
    // A number, or null when unbounded (a sweep has no variance).
    let nelo = &m["normalized_elo"]["elo"];
    assert!(nelo.is_number() || nelo.is_null(), "{m}");
    assert!(
        m["elo"]["lower"].is_number() || m["elo"]["lower"].is_null(),
        "{m}"
    );
    assert_eq!(m["pentanomial"].as_array().unwrap().len(), 5);
    assert_eq!(m["distinct_openings"], 2);
    assert_eq!(m["book"], s(&book));
    // `rate` gives every pairing the same figures, from the default book.
    let out = ok(&[
        "rate",
        "--players",
        "random,ab:depth=1,ab:depth=2",
        "--games",
        "2",
        "--json",
        s(&js),
    ]);
    assert_eq!(
        out.matches("Openings: 1 distinct in 1 pairs, from builtin:unbalanced")
            .count(),
        3,
        "{out}"
    );
    assert_eq!(json(&js)["matches"].as_array().unwrap().len(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}
