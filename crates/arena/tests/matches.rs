//! Match runner tests with real players: colours per opening pair, external
//! engines that misbehave, PDN round trips, gating.

use shashki_arena::gate::{GateConfig, GateMethod, gate};
use shashki_arena::matches::{Control, EndCause, MatchSettings, run_match};
use shashki_arena::{GameSetup, OpeningBook, PlayerFactory, PlayerFailure};
use shashki_rules::{Color, DrawRules, GameResult, read_pdn};
use std::path::PathBuf;

fn factory(spec: &str) -> PlayerFactory {
    PlayerFactory::from_text(spec).unwrap()
}

use shashki_atomic::testing::temp_dir;

fn settings(games: usize, seed: u64) -> MatchSettings {
    MatchSettings {
        seed,
        concurrency: 2,
        ..MatchSettings::new(games)
    }
}

#[test]
fn colours_alternate_within_each_opening_pair() {
    let first = factory("ab:depth=1");
    let second = factory("random");
    let report = run_match(&first, &second, &settings(8, 3), &mut |_, _| {
        Control::Continue
    });
    assert_eq!(report.games.len(), 8);
    let book = OpeningBook::default_book();
    for pair in report.games.chunks(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert_eq!((a.pair, a.leg, b.pair, b.leg), (a.pair, 0, a.pair, 1));
        assert_eq!(
            (a.white.as_str(), a.black.as_str()),
            ("ab:depth=1", "random")
        );
        assert_eq!(
            (b.white.as_str(), b.black.as_str()),
            ("random", "ab:depth=1")
        );
        assert_eq!(a.opening, b.opening);
        // Both games start with the opening's moves.
        let opening = book.openings.iter().find(|o| o.name == a.opening).unwrap();
        let n = opening.moves.len();
        assert_eq!(&a.game.moves()[..n], &opening.moves[..]);
        assert_eq!(&b.game.moves()[..n], &opening.moves[..]);
        for g in pair {
            assert!(matches!(g.cause, EndCause::Rules(_)), "{:?}", g.cause);
            assert_eq!(Some(g.result), g.game.outcome().map(|o| o.result));
        }
    }
    // 4 distinct openings were balloted for 4 pairs.
    let mut names: Vec<&str> = report.games.iter().map(|g| g.opening.as_str()).collect();
    names.dedup();
    assert_eq!(names.len(), 4);
    // The summary is the first player's view of the same games.
    let points: f64 = report.games.iter().map(|g| g.points_for_first()).sum();
    assert_eq!(report.summary.wdl.points(), points);
    assert_eq!(report.summary.pentanomial.pairs(), 4);
}

#[test]
fn matches_are_reproducible_from_the_seed() {
    let run = |seed| {
        run_match(
            &factory("random"),
            &factory("mcts:sims=8"),
            &settings(4, seed),
            &mut |_, _| Control::Continue,
        )
    };
    let (a, b, c) = (run(5), run(5), run(6));
    let moves = |r: &shashki_arena::MatchReport| {
        r.games
            .iter()
            .map(|g| g.game.moves().to_vec())
            .collect::<Vec<_>>()
    };
    assert_eq!(moves(&a), moves(&b));
    assert_ne!(moves(&a), moves(&c));
}

#[test]
fn shares_of_a_ballot_together_are_the_whole_match_game_for_game() {
    let run = |only: Option<Vec<usize>>| {
        let settings = MatchSettings {
            only_pairs: only,
            ..settings(10, 9)
        };
        run_match(
            &factory("random"),
            &factory("mcts:sims=8"),
            &settings,
            &mut |_, _| Control::Continue,
        )
    };
    let games = |r: &shashki_arena::MatchReport| {
        r.games
            .iter()
            .map(|g| (g.pair, g.leg, g.opening.clone(), g.game.moves().to_vec()))
            .collect::<Vec<_>>()
    };
    let whole = games(&run(None));
    // Out of order, repeated and past the ballot's end: pairs 4, 2 and 0.
    let mut shares = games(&run(Some(vec![4, 2, 2, 0, 7])));
    assert_eq!(
        shares.iter().map(|g| g.0).collect::<Vec<_>>(),
        [0, 0, 2, 2, 4, 4]
    );
    shares.extend(games(&run(Some(vec![1, 3]))));
    shares.sort_by_key(|g| (g.0, g.1));
    assert_eq!(shares, whole);
}

/// Writes a bash engine that speaks the protocol's handshake and then
/// misbehaves at `go`, differently in each game it plays: its first
/// process answers an illegal move, the second exits, the third never
/// answers, and so on (a counter file tells them apart).
fn flaky_engine(dir: &std::path::Path) -> PathBuf {
    let script = dir.join("flaky.sh");
    let counter = dir.join("starts");
    std::fs::write(
        &script,
        format!(
            r#"#!/usr/bin/env bash
n=$(cat '{c}' 2>/dev/null || echo 0)
echo $((n + 1)) > '{c}'
mode=$((n % 3))
while read -r line; do
  case "$line" in
    name) echo "name flaky-$mode" ;;
    isready) echo readyok ;;
    go*)
      case $mode in
        0) echo "info depth 1"; echo "bestmove a3-b6" ;;
        1) exit 3 ;;
        2) : ;;
      esac ;;
    quit) exit 0 ;;
  esac
done
"#,
            c = counter.display()
        ),
    )
    .unwrap();
    script
}

#[test]
fn misbehaving_external_engine_loses_each_game_and_the_match_goes_on() {
    let dir = temp_dir("flaky");
    let script = flaky_engine(&dir);
    let ext = factory(&format!(
        "ext:\"bash {}\"@movetime=10,timeout=500",
        script.display()
    ));
    let random = factory("random");
    let mut settings = settings(6, 1);
    settings.concurrency = 1; // the engine's behaviour follows its start order
    let report = run_match(&ext, &random, &settings, &mut |_, _| Control::Continue);
    assert_eq!(report.games.len(), 6, "every game was played");
    let mut kinds = Vec::new();
    for g in &report.games {
        let ext_color = if g.first_is_white() {
            Color::White
        } else {
            Color::Black
        };
        match &g.cause {
            EndCause::Forfeit { loser, failure } => {
                assert_eq!(*loser, ext_color);
                assert_eq!(g.result, GameResult::win_for(ext_color.opponent()));
                kinds.push(match failure {
                    PlayerFailure::IllegalMove { text, .. } => {
                        assert_eq!(text, "a3-b6");
                        "illegal"
                    }
                    PlayerFailure::Crashed(why) => {
                        assert!(why.contains("output closed"), "{why}");
                        "crash"
                    }
                    PlayerFailure::TimedOut(_) => "timeout",
                    other => panic!("unexpected failure {other:?}"),
                });
            }
            other => panic!("game {}.{} ended by {other:?}", g.pair, g.leg),
        }
    }
    // The handshake before the match started the engine once (mode 0).
    assert_eq!(
        kinds,
        ["crash", "timeout", "illegal", "crash", "timeout", "illegal"]
    );
    assert_eq!((report.summary.wdl.wins, report.summary.wdl.losses), (0, 6));
    let table = report.result_table();
    assert!(table.contains("forfeit: 6"), "{table}");
    // An engine that cannot even start is refused before any game.
    let missing = format!("ext:\"{}\"", dir.join("no-such-engine").display());
    let err = PlayerFactory::from_text(&missing).unwrap_err();
    assert_eq!(err.name, missing);
    assert!(
        err.reason.contains("handshake") && err.reason.contains("cannot start"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn match_pdn_reads_back_with_the_same_games_and_results() {
    let dir = temp_dir("pdn");
    let script = flaky_engine(&dir);
    let path = dir.join("games.pdn");
    let mut all = Vec::new();
    for (a, b) in [("ab:depth=1", "random"), ("random", "ext-placeholder")] {
        let second = if b == "ext-placeholder" {
            factory(&format!(
                "ext:\"bash {}\"@movetime=10,timeout=500",
                script.display()
            ))
        } else {
            factory(b)
        };
        let mut s = settings(4, 9);
        s.concurrency = 1;
        let report = run_match(&factory(a), &second, &s, &mut |_, _| Control::Continue);
        all.extend(report.pdn_games("test"));
        if a == "ab:depth=1" {
            report.write_pdn(&path, "test").unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            let games: Vec<_> = read_pdn(&text).into_iter().map(Result::unwrap).collect();
            assert_eq!(games.len(), report.games.len());
            for (read, rec) in games.iter().zip(&report.games) {
                assert_eq!(read.moves, rec.game.moves());
                assert_eq!(read.result, Some(rec.result));
                assert_eq!(read.tag("White"), Some(rec.white.as_str()));
                assert_eq!(read.tag("Black"), Some(rec.black.as_str()));
                assert_eq!(read.tag("Opening"), Some(rec.opening.as_str()));
                assert_eq!(read.tag("Termination"), Some(rec.cause.label().as_str()));
                // Re-judged by the arbiter, the game ends the same way.
                let replayed = read.replay(s.rules).unwrap();
                assert_eq!(replayed.outcome().map(|o| o.result), Some(rec.result));
            }
        }
    }
    // Forfeited games keep their recorded result and reason.
    let text = shashki_rules::write_pdn(&all);
    let back: Vec<_> = read_pdn(&text).into_iter().map(Result::unwrap).collect();
    assert_eq!(back.len(), 8);
    for (read, written) in back.iter().zip(&all) {
        assert_eq!(read.moves, written.moves);
        assert_eq!(read.result, written.result);
        assert_eq!(read.tag("Termination"), written.tag("Termination"));
    }
    assert!(
        back[4..]
            .iter()
            .all(|g| g.tag("Termination").unwrap().starts_with("forfeit by"))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn alpha_beta_players_search_on_several_threads() {
    // Lazy SMP players (two threads each, two games at once) play whole
    // games under the rules, and beat a random mover.
    let report = run_match(
        &factory("ab:depth=4,threads=2"),
        &factory("random"),
        &settings(2, 5),
        &mut |_, _| Control::Continue,
    );
    assert_eq!(report.games.len(), 2);
    assert_eq!(report.summary.wdl.score(), 1.0, "{}", report.result_table());
}

#[test]
fn max_length_adjudication_draws_long_games() {
    let mut s = settings(2, 4);
    s.rules = DrawRules {
        max_plies: Some(12),
        ..DrawRules::default()
    };
    let report = run_match(&factory("random"), &factory("random"), &s, &mut |_, _| {
        Control::Continue
    });
    for g in &report.games {
        assert!(g.game.ply() <= 12);
        if g.game.ply() == 12 {
            assert_eq!(g.result, GameResult::Draw);
            assert!(matches!(
                g.cause,
                EndCause::Rules(shashki_rules::EndReason::Adjudication)
            ));
        }
    }
}

#[test]
fn sprt_gate_promotes_the_stronger_and_keeps_the_weaker_out() {
    let config = GateConfig {
        elo0: 0.0,
        elo1: 100.0,
        min_games: 10,
        max_games: 60,
        concurrency: 2,
        ..GateConfig::default()
    };
    let strong = factory("ab:depth=2");
    let weak = factory("random");
    let mut lines = Vec::new();
    let up = gate(&strong, &weak, &config, &mut |l| lines.push(l.to_string())).unwrap();
    assert!(up.passed, "{}", up.verdict);
    assert!(up.llr.unwrap() >= up.bounds.unwrap().1);
    assert!(
        lines.iter().any(|l| l.contains("LLR")),
        "LLR is reported as it goes"
    );
    assert!(
        up.report.games.len() < 60,
        "stopped early at the bound: {}",
        up.verdict
    );
    // The verdict falls on the same pair whatever the number of threads.
    let one_thread = GateConfig {
        concurrency: 1,
        ..config.clone()
    };
    let again = gate(&strong, &weak, &one_thread, &mut |_| {}).unwrap();
    assert_eq!(again.report.games.len(), up.report.games.len());
    assert_eq!(again.llr, up.llr);
    let down = gate(&weak, &strong, &config, &mut |_| {}).unwrap();
    assert!(!down.passed, "{}", down.verdict);
    let fixed = GateConfig {
        method: GateMethod::Fixed,
        games: 6,
        threshold: 0.6,
        concurrency: 2,
        ..GateConfig::default()
    };
    let f = gate(&strong, &weak, &fixed, &mut |_| {}).unwrap();
    assert_eq!(f.report.games.len(), 6);
    assert!(f.passed, "{}", f.verdict);
}

#[test]
fn games_that_reach_the_tablebases_are_adjudicated_with_their_result() {
    let dir = temp_dir("tablebase");
    let tb = shashki_tablebase::generate(&dir, 3, &DrawRules::default(), &mut |_| {}).unwrap();
    // White's only move, c3:e5, leaves three pieces: in the tables.
    let fen = "W:WKa1,Kc3:Bd4,h4";
    let book = OpeningBook::parse_lines(fen, "test").unwrap();
    let mut after = shashki_rules::Game::new(shashki_rules::Position::from_fen(fen).unwrap());
    after.play_notation("c3:e5").unwrap();
    let probe = tb.probe(after.position(), after.counters()).unwrap();
    let expected = match probe.wdl {
        shashki_tablebase::Wdl::Win => GameResult::BlackWins,
        shashki_tablebase::Wdl::Loss => GameResult::WhiteWins,
        shashki_tablebase::Wdl::Draw => GameResult::Draw,
    };
    let with_tables = MatchSettings {
        book: book.clone(),
        tablebases: Some(std::sync::Arc::new(tb)),
        ..settings(2, 5)
    };
    let report = run_match(
        &factory("ab:depth=1"),
        &factory("random"),
        &with_tables,
        &mut |_, _| Control::Continue,
    );
    assert_eq!(report.games.len(), 2);
    for g in &report.games {
        assert_eq!(g.cause, EndCause::Tablebase);
        assert_eq!(g.game.moves().len(), 1, "ended right after c3:e5");
        assert_eq!(g.result, expected);
        let pdn = g.to_pdn("test", "2026.12.01");
        assert_eq!(pdn.tag("Termination"), Some("tablebase adjudication"));
        assert_eq!(pdn.result, Some(expected));
    }
    // Without tables the same games are played on.
    let plain = MatchSettings {
        book,
        ..settings(2, 5)
    };
    let report = run_match(
        &factory("ab:depth=1"),
        &factory("random"),
        &plain,
        &mut |_, _| Control::Continue,
    );
    assert!(report.games.iter().all(|g| g.game.moves().len() > 1));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Positions where the hand evaluation at depth 1 picks a capture that the
/// 3-piece tables call worse than another: White to move, the best
/// capture, and the one `ab:depth=1` picks without tables.
const TABLES_DECIDE: [(&str, &str, &str); 3] = [
    ("W:We5,a3:BKd4,Kd6", "e5:c7", "e5:c3"),
    ("W:WKe5,Kb2:Bf6,g3", "e5:h2", "e5:g7"),
    ("W:WKh4,Ke3:Bh2,Kc5", "e3:a7", "e3:b6"),
];

#[test]
fn alpha_beta_players_probe_the_match_tablebases_in_their_search() {
    let dir = temp_dir("tablebase-search");
    let tb = shashki_tablebase::generate(&dir, 3, &DrawRules::default(), &mut |_| {}).unwrap();
    let tb = std::sync::Arc::new(tb);
    let ab = factory("ab:depth=1");
    for (fen, best, plain) in TABLES_DECIDE {
        let game = shashki_rules::Game::new(shashki_rules::Position::from_fen(fen).unwrap());
        let with_tables = GameSetup {
            seed: 1,
            clocked: false,
            tablebases: Some(&tb),
        };
        let chosen = ab.create_for_game(&with_tables).unwrap().choose_move(&game);
        assert_eq!(chosen.unwrap().to_string(), best, "{fen}");
        let chosen = ab.create(1).unwrap().choose_move(&game);
        assert_eq!(chosen.unwrap().to_string(), plain, "{fen} without tables");
    }
    // In a match with tables the player gets them: as White it draws or
    // wins every one of these at once (adjudicated after its capture).
    let lines: Vec<&str> = TABLES_DECIDE.iter().map(|t| t.0).collect();
    let book = OpeningBook::parse_lines(&lines.join("\n"), "test").unwrap();
    let report = run_match(
        &ab,
        &factory("random"),
        &MatchSettings {
            book,
            tablebases: Some(tb),
            concurrency: 1,
            ..settings(6, 7)
        },
        &mut |_, _| Control::Continue,
    );
    let as_white: Vec<_> = report
        .games
        .iter()
        .filter(|g| g.white == "ab:depth=1")
        .collect();
    assert_eq!(as_white.len(), 3);
    for g in as_white {
        let mv = g.game.moves()[0].to_string();
        assert!(TABLES_DECIDE.iter().any(|t| t.1 == mv), "{mv}");
        assert_ne!(g.result, GameResult::BlackWins, "{mv}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
