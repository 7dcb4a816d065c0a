//! The HTTP API against a real server on a free 127.0.0.1 port: every
//! endpoint, bad inputs (each a 4xx with a clear message while the server
//! keeps serving), search limits and concurrent clients.

mod support;

use serde_json::{Value, json};
use shashki_rules::{DrawCounters, DrawRules, Game, Position, START_FEN};
use shashki_serve::Server;
use shashki_train::{RatingPoint, RatingsLog};
use std::time::{Duration, Instant};
use support::{Client, options, player, temp_dir};

fn start() -> (Server, Client) {
    let server = Server::start(options()).expect("server starts");
    let client = Client::new(&server);
    (server, client)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_page_and_its_assets_are_served_and_nothing_else() {
    let (_server, c) = start();
    let page = c.get("/");
    assert_eq!(page.status, 200);
    assert!(page.content_type.starts_with("text/html"));
    assert!(page.body.contains("/assets/app.js"));
    for (name, kind) in [
        ("app.js", "javascript"),
        ("board.js", "javascript"),
        ("app.css", "css"),
        ("favicon.svg", "svg"),
    ] {
        let a = c.get(&format!("/assets/{name}"));
        assert_eq!(a.status, 200, "{name}");
        assert!(a.content_type.contains(kind), "{name}: {}", a.content_type);
    }
    for path in [
        "/assets/..%2f..%2fCargo.toml",
        "/assets/../../Cargo.toml",
        "/assets/%2e%2e/src/lib.rs",
        "/Cargo.toml",
        "/etc/passwd",
        "/api/nothing",
    ] {
        let a = c.get(path);
        assert_eq!(a.status, 404, "{path}: {}", a.body);
        assert!(
            !a.body.contains("[package]") && !a.body.contains("root:"),
            "{path}"
        );
        assert!(!a.error().is_empty(), "{path}");
    }
    let info = c.get("/api/info").json();
    assert_eq!(info["engines"][0][0], "ab");
    assert_eq!(info["max_movetime_ms"], 300);
    assert_eq!(info["tablebase"], false);
}

#[test]
fn the_position_view_follows_the_rules() {
    let (_server, c) = start();
    let start = c.post_json("/api/position", &json!({})).json();
    assert_eq!(start["fen"], START_FEN);
    assert_eq!(start["side_to_move"], "white");
    let board = start["board"].as_array().unwrap();
    assert_eq!(board.iter().filter(|p| p == &"w").count(), 12);
    assert_eq!(board.iter().filter(|p| p == &"b").count(), 12);
    assert_eq!(start["squares"][0], "a1");
    let legal: Vec<&str> = start["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        legal,
        [
            "a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"
        ]
    );

    // After c3-d4 f6-e5 White must take: one legal move, with its path.
    let view = c
        .post_json("/api/position", &json!({"moves": ["c3-d4", "f6-e5"]}))
        .json();
    assert_eq!(view["legal"].as_array().unwrap().len(), 1);
    assert_eq!(view["legal"][0]["text"], "d4:f6");
    assert_eq!(view["legal"][0]["captured"], json!(["e5"]));
    // Numeric notation is read too, and the view answers in long notation.
    let numeric = c
        .post_json("/api/position", &json!({"moves": ["22-18"]}))
        .json();
    assert_eq!(strings(&numeric["moves"]), ["c3-d4"]);
    assert_eq!(numeric["side_to_move"], "black");

    // A finished game: Black has no piece left after White's capture.
    let fen = "W:Wc3:Bd4";
    let over = c
        .post_json("/api/position", &json!({"fen": fen, "moves": ["c3:e5"]}))
        .json();
    assert_eq!(over["outcome"]["result"], "2-0");
    assert!(
        over["outcome"]["text"]
            .as_str()
            .unwrap()
            .contains("no legal move")
    );
    assert!(over["legal"].as_array().unwrap().is_empty());

    // Kings only: the 7.2.5 count is shown in words.
    let kings = c
        .post_json(
            "/api/position",
            &json!({"fen": "W:WKa1,Kc1,e1:BKh8,Kf8,b8", "moves": ["a1-b2"]}),
        )
        .json();
    assert!(
        kings["draw"]["text"]
            .as_str()
            .unwrap()
            .contains("half-move"),
        "{kings}"
    );
}

#[test]
fn bad_requests_get_a_4xx_with_a_clear_message_and_the_server_keeps_serving() {
    let (_server, c) = start();
    let cases: Vec<(Value, &str)> = vec![
        (json!({"fen": "W:Wz9:B1"}), "bad FEN"),
        (
            json!({"moves": ["c3-d4", "c3-d4"]}),
            "half-move 2 (move 1...)",
        ),
        (json!({"moves": ["e3-f2"]}), "illegal move"),
        (json!({"moves": ["hello"]}), "cannot read move"),
        (json!({"moves": 5}), "bad JSON"),
        (json!({"fen": "W:Wa1:Bh8", "movez": []}), "unknown field"),
    ];
    for (body, expect) in cases {
        let a = c.post_json("/api/position", &body);
        assert_eq!(a.status, 400, "{body}: {}", a.body);
        assert!(a.error().contains(expect), "{body}: {}", a.error());
    }
    let garbage = c.post_raw("/api/position", "application/json", b"{not json".to_vec());
    assert_eq!(garbage.status, 400);
    assert!(garbage.error().contains("bad JSON"), "{}", garbage.error());
    let long = json!({"moves": vec!["c3-d4"; 2001]});
    assert_eq!(c.post_json("/api/position", &long).status, 400);
    // A body over the limit (256 kB in the tests) is refused as such.
    let huge = c.post_unread("/api/pdn", "text/plain", &vec![b' '; 1 << 20]);
    assert_eq!(huge.status, 413, "{}", huge.body);
    assert!(
        huge.error().to_lowercase().contains("length limit"),
        "{}",
        huge.error()
    );
    let wrong_method = c.get("/api/position");
    assert_eq!(wrong_method.status, 405);
    // Still serving.
    assert_eq!(c.post_json("/api/position", &json!({})).status, 200);
}

#[test]
fn the_engine_replies_with_a_legal_move_and_named_arena_players_play_too() {
    let server = Server::start(shashki_serve::ServeOptions {
        players: vec![player("random", "random"), player("quick", "ab:depth=2")],
        ..options()
    })
    .unwrap();
    let c = Client::new(&server);
    let info = c.get("/api/info").json();
    assert_eq!(info["players"][1][0], "quick");
    for (engine, extra) in [
        (Value::Null, json!({})),
        (json!("ab"), json!({"depth": 3, "threads": 1})),
        (json!("random"), json!({})),
        (json!("quick"), json!({})),
    ] {
        let mut body = json!({"moves": ["c3-d4"], "engine": engine, "movetime_ms": 100});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let a = c.post_json("/api/engine-move", &body);
        assert_eq!(a.status, 200, "{engine}: {}", a.body);
        let reply = a.json();
        let mut game = Game::new(Position::startpos());
        game.play_notation("c3-d4").unwrap();
        let mv = reply["move"]["text"].as_str().unwrap();
        game.play_notation(mv)
            .unwrap_or_else(|e| panic!("{engine}: {mv}: {e}"));
        assert_eq!(reply["position"]["fen"], game.position().to_fen());
        assert_eq!(reply["position"]["side_to_move"], "white");
    }
    // A spec is not a name, even one the server could play.
    let bad = c.post_json("/api/engine-move", &json!({"engine": "ab:depth=2"}));
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert!(bad.error().contains("ab, random, quick"), "{}", bad.error());
    let typo = c.post_json("/api/engine-move", &json!({"engine": "stockfish"}));
    assert!(
        typo.error().contains("unknown engine \"stockfish\""),
        "{}",
        typo.error()
    );
    for (extra, expect) in [
        (
            json!({"engine": "ab", "depth": 0}),
            "depth 0 is out of range",
        ),
        (
            json!({"engine": "ab", "depth": 65}),
            "depth 65 is out of range",
        ),
        (json!({"engine": "ab", "threads": 100000}), "threads 100000"),
        (json!({"engine": "quick", "depth": 4}), "arena player"),
        (
            json!({"engine": "ab", "program": "/bin/sh"}),
            "unknown field `program`",
        ),
    ] {
        let a = c.post_json("/api/engine-move", &extra);
        assert_eq!(a.status, 400, "{extra}: {}", a.body);
        assert!(a.error().contains(expect), "{extra}: {}", a.error());
    }
    let over = c.post_json(
        "/api/engine-move",
        &json!({"fen": "W:Wc3:Bd4", "moves": ["c3:e5"]}),
    );
    assert_eq!(over.status, 400);
    assert!(over.error().contains("over"), "{}", over.error());
}

#[test]
fn analysis_streams_reports_and_a_closed_stream_frees_its_search() {
    let server = Server::start(shashki_serve::ServeOptions {
        max_searches: 1,
        ..options()
    })
    .unwrap();
    let c = Client::new(&server);
    let mut events = c
        .events("/api/analyse?moves=c3-d4%20f6-g5&time_ms=150")
        .expect("a stream");
    let mut infos = 0;
    let done = loop {
        let (name, data) = events.next().expect("the stream ends with done");
        match name.as_str() {
            "info" => infos += 1,
            "done" => break data,
            other => panic!("unexpected event {other}"),
        }
    };
    assert!(infos > 0, "progress reports before the end");
    assert!(done["depth"].as_u64().unwrap() >= 1);
    let mut game = Game::new(Position::startpos());
    for mv in ["c3-d4", "f6-g5"] {
        game.play_notation(mv).unwrap();
    }
    let best = done["best"].as_str().unwrap();
    assert!(game.position().parse_move(best).is_ok(), "{best}");
    assert_eq!(done["pv"][0], best);
    assert!(done["score"]["display"].as_str().is_some());

    wait_until_idle(&c);
    // A long analysis holds the only slot: a second search is refused...
    let mut long = c.events("/api/analyse").expect("a stream");
    long.next().expect("a first report");
    let refused = c.post_json("/api/engine-move", &json!({"movetime_ms": 50}));
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert!(refused.error().contains("searches"), "{}", refused.error());
    assert_eq!(c.events("/api/analyse").err().unwrap().status, 429);
    // ...until the client goes away, which stops the search (30 s long).
    drop(long);
    wait_until_idle(&c);
    assert_eq!(
        c.post_json("/api/engine-move", &json!({"movetime_ms": 50}))
            .status,
        200
    );

    for (query, expect) in [
        ("fen=W:Wz9", "bad FEN"),
        ("moves=e3-f2", "illegal move"),
        ("engine=stockfish", "unknown engine"),
        ("engine=nnue:/etc/passwd", "not a spec or a path"),
        ("depth=1000", "depth 1000 is out of range"),
        ("token2=x", "unknown field"),
        ("time_ms=abc", "time_ms"),
        ("fen=W:Wc3:Bd4&moves=c3:e5", "over"),
    ] {
        let a = c
            .events(&format!("/api/analyse?{query}"))
            .err()
            .expect(query);
        assert_eq!(a.status, 400, "{query}: {}", a.body);
        assert!(a.error().contains(expect), "{query}: {}", a.error());
    }
}

/// Waits until no search runs (a search frees its slot just after its
/// last event); fails after 10 s (the long analysis runs 30 s).
fn wait_until_idle(c: &Client) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while c.get("/api/info").json()["searches_running"] != 0 {
        assert!(
            Instant::now() < deadline,
            "a search goes on after its stream closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

const TWO_GAMES: &str = r#"[Event "test"]
[White "Alice"]
[Black "Bob"]
[Result "2-0"]
[Termination "resignation"]
1. c3-d4 f6-g5 2. b2-c3 g5-h4 2-0

[Event "test"]
[White "Carol"]
[Black "Dan"]
[Result "1-1"]
1. c3-d4 c3-d4 1-1
"#;

#[test]
fn pdn_text_and_given_files_list_their_games() {
    let dir = temp_dir("pdn");
    let file = dir.join("games.pdn");
    std::fs::write(&file, TWO_GAMES).unwrap();
    let server = Server::start(shashki_serve::ServeOptions {
        pdn_files: vec![file],
        ..options()
    })
    .unwrap();
    let c = Client::new(&server);
    let list = c
        .post_raw("/api/pdn", "text/plain", TWO_GAMES.as_bytes().to_vec())
        .json();
    let games = list["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(
        (games[0]["white"].as_str(), games[0]["black"].as_str()),
        (Some("Alice"), Some("Bob"))
    );
    assert_eq!(games[0]["result"], "2-0");
    assert_eq!(games[0]["termination"], "resignation");
    assert_eq!(
        strings(&games[0]["moves"]),
        ["c3-d4", "f6-g5", "b2-c3", "g5-h4"]
    );
    let broken = games[1]["error"].as_str().unwrap();
    assert!(
        broken.contains("game 2") && broken.contains("c3-d4"),
        "{broken}"
    );

    let files = c.get("/api/pdn-files").json();
    assert_eq!(files, json!([{"index": 0, "name": "games.pdn"}]));
    let from_file = c.get("/api/pdn-files/0").json();
    assert_eq!(from_file["source"], "games.pdn");
    assert_eq!(from_file["games"], list["games"]);
    for path in [
        "/api/pdn-files/1",
        "/api/pdn-files/..%2Fgames.pdn",
        "/api/pdn-files/-1",
    ] {
        assert_eq!(c.get(path).status, 404, "{path}");
    }
    for text in ["", "hello world", "1. e2-e4 *"] {
        let a = c.post_raw("/api/pdn", "text/plain", text.as_bytes().to_vec());
        assert_eq!(a.status, 400, "{text:?}: {}", a.body);
        assert!(a.error().contains("pasted text"), "{}", a.error());
    }
    let binary = c.post_raw("/api/pdn", "text/plain", vec![0xff, 0xfe, 0x00]);
    assert_eq!(binary.status, 400);
    assert!(binary.error().contains("UTF-8"));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A run folder as `shashki train` and `shashki rate` leave it.
fn fake_run(root: &std::path::Path) {
    use shashki_arena::ratings_file::RatingsFile;
    use shashki_arena::{Pentanomial, Wdl};
    let run = root.join("alpha");
    let ckpt = run.join("checkpoints");
    std::fs::create_dir_all(&ckpt).unwrap();
    std::fs::write(run.join("config.toml"), "").unwrap();
    for (i, step) in [100u64, 200, 300].into_iter().enumerate() {
        let state = shashki_train::LearnerState {
            step,
            generation: i as u64 + 1,
            games: 50 * (i as u64 + 1),
            best_step: step,
            best_elo: 40.0 * i as f64,
            ..Default::default()
        };
        std::fs::write(
            ckpt.join(format!("ckpt-{step:09}.state.json")),
            serde_json::to_vec(&state).unwrap(),
        )
        .unwrap();
    }
    let mut log = shashki_train::TbLogger::open(run.join("tb")).unwrap();
    for step in 1..=600u64 {
        log.scalars(
            &[("loss/total", 3.0 - step as f64 / 300.0), ("lr", 0.1)],
            step,
        )
        .unwrap();
    }
    log.close().unwrap();
    let mut ratings = RatingsFile::default();
    ratings.add(
        "random",
        "net:ckpt-100",
        Wdl::new(2, 2, 6),
        Pentanomial::default(),
    );
    ratings.add(
        "random",
        "net:ckpt-300",
        Wdl::new(1, 1, 8),
        Pentanomial::default(),
    );
    ratings.players.get_mut("net:ckpt-100").unwrap().steps = Some(100);
    ratings.players.get_mut("net:ckpt-300").unwrap().steps = Some(300);
    ratings.save(&run.join("ratings.json")).unwrap();
    // The evaluator's curve, its last line torn by a kill.
    let point = |step: u64, elo: f64| RatingPoint {
        step,
        generation: step / 100,
        selfplay_games: step / 2,
        run_seconds: step as f64,
        anchor: "ab:depth=4".into(),
        games: 40,
        wdl: [10, 20, 10],
        elo,
        elo_low: elo - 50.0,
        elo_high: elo + 60.0,
        seconds: 12.0,
        gate: None,
    };
    let log = RatingsLog::of_run(&run);
    log.append(&point(100, -120.0)).unwrap();
    log.append(&point(200, -20.0)).unwrap();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(log.path())
        .unwrap();
    std::io::Write::write_all(&mut file, b"{\"step\": 300").unwrap();
    std::fs::create_dir_all(root.join("not-a-run")).unwrap();
}

#[test]
fn runs_show_progress_elo_and_losses_from_the_run_files() {
    let (_plain, plain) = start();
    assert_eq!(plain.get("/api/runs").status, 404);
    // A run folder that does not exist yet (a fresh clone) lists no runs.
    let not_yet = temp_dir("runs-not-yet").join("runs");
    let fresh = Server::start(shashki_serve::ServeOptions {
        runs: Some(not_yet.clone()),
        ..options()
    })
    .unwrap();
    let f = Client::new(&fresh);
    assert_eq!(f.get("/api/info").json()["runs"], true);
    assert_eq!(f.get("/api/runs").json(), json!([]));
    assert_eq!(f.get("/api/runs/alpha").status, 404);
    assert!(!not_yet.exists(), "listing creates nothing");
    let root = temp_dir("runs");
    fake_run(&root);
    let server = Server::start(shashki_serve::ServeOptions {
        runs: Some(root.clone()),
        ..options()
    })
    .unwrap();
    let c = Client::new(&server);
    let runs = c.get("/api/runs").json();
    assert_eq!(runs.as_array().unwrap().len(), 1, "{runs}");
    assert_eq!(runs[0]["name"], "alpha");
    assert_eq!(
        (
            runs[0]["generation"].as_u64(),
            runs[0]["step"].as_u64(),
            runs[0]["games"].as_u64()
        ),
        (Some(3), Some(300), Some(150))
    );
    let d = c.get("/api/runs/alpha").json();
    let gating: Vec<f64> = d["gating_elo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    assert_eq!(gating, [0.0, 40.0, 80.0]);
    let rated = d["rated_elo"].as_array().unwrap();
    assert_eq!(rated.len(), 2);
    assert_eq!(d["rated_anchor"], "random");
    assert!(rated[1]["value"].as_f64().unwrap() > rated[0]["value"].as_f64().unwrap());
    let curve = d["evaluator_elo"].as_array().unwrap();
    assert_eq!(d["evaluator_anchor"], "ab:depth=4");
    assert_eq!(curve.len(), 2, "{curve:?}");
    assert_eq!(
        (curve[1]["step"].as_u64(), curve[1]["value"].as_f64()),
        (Some(200), Some(-20.0))
    );
    assert_eq!(curve[1]["ci95"].as_f64(), Some(55.0));
    let loss = d["losses"]["loss/total"].as_array().unwrap();
    assert_eq!(loss.len(), 400, "thinned to 400 points");
    assert_eq!(loss[0]["step"], 1);
    assert_eq!(loss[399]["step"], 600);
    assert!(d["losses"].get("lr").is_none());
    for name in ["beta", "..", "not-a-run", "..%2Falpha", "alpha%2F..%2F.."] {
        let a = c.get(&format!("/api/runs/{name}"));
        assert_eq!(a.status, 404, "{name}: {}", a.body);
    }
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn the_tablebase_verdict_is_shown_for_positions_in_the_tables() {
    let dir = temp_dir("tb");
    let tables = std::sync::Arc::new(
        shashki_tablebase::generate(&dir, 3, &DrawRules::default(), &mut |_| {}).unwrap(),
    );
    let server = Server::start(shashki_serve::ServeOptions {
        tablebases: Some(std::sync::Arc::clone(&tables)),
        ..options()
    })
    .unwrap();
    let c = Client::new(&server);
    let fen = "W:WKa1,Kc1:BKh8";
    let pos = Position::from_fen(fen).unwrap();
    let probe = tables
        .probe(&pos, &DrawCounters::start(&pos))
        .expect("in the tables");
    let view = c.post_json("/api/position", &json!({"fen": fen})).json();
    let wdl = match probe.wdl {
        shashki_tablebase::Wdl::Win => "win",
        shashki_tablebase::Wdl::Draw => "draw",
        shashki_tablebase::Wdl::Loss => "loss",
    };
    assert_eq!(view["tablebase"]["wdl"], wdl, "{view}");
    assert!(
        view["tablebase"]["text"]
            .as_str()
            .unwrap()
            .starts_with("Tablebase:")
    );
    let start = c.post_json("/api/position", &json!({})).json();
    assert!(start["tablebase"].is_null());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn concurrent_clients_each_get_their_own_game() {
    let (_server, c) = start();
    let lines: [&[&str]; 4] = [
        &["c3-d4", "f6-g5", "b2-c3"],
        &["e3-f4", "b6-a5"],
        &["g3-h4", "h6-g5", "c3-d4", "g5-f4"],
        &["a3-b4"],
    ];
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let c = c.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    let line = lines[(t + i) % lines.len()];
                    let view = c.post_json("/api/position", &json!({"moves": line})).json();
                    let mut game = Game::new(Position::startpos());
                    for mv in line {
                        game.play_notation(mv).unwrap();
                    }
                    assert_eq!(view["fen"], game.position().to_fen());
                }
                // One engine reply each; two slots, so some wait their turn.
                loop {
                    let a = c.post_json("/api/engine-move", &json!({"movetime_ms": 30}));
                    match a.status {
                        200 => break,
                        429 => std::thread::sleep(Duration::from_millis(20)),
                        s => panic!("status {s}: {}", a.body),
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("client thread");
    }
    assert_eq!(c.get("/api/info").json()["searches_running"], 0);
}
