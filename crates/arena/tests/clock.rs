//! Clocked matches (`--tc BASE+INC`): the arena keeps both clocks and sends
//! them with every `go`; a side whose clock runs out loses on time, and
//! players that manage their time never do.

use shashki_arena::clock::TimeControl;
use shashki_arena::matches::{Control, EndCause, MatchSettings, run_match};
use shashki_arena::{PlayerFactory, PlayerFailure};
use shashki_rules::{Color, GameResult};
use std::path::PathBuf;
use std::time::Duration;

fn factory(spec: &str) -> PlayerFactory {
    PlayerFactory::from_text(spec).unwrap()
}

/// An engine that answers the handshake, then sleeps 3 s on every `go`.
fn sleepy_engine() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-clock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sleepy.sh");
    std::fs::write(
        &path,
        "while read -r line; do\n\
         case \"$line\" in\n\
         name) echo 'name Sleepy';;\n\
         isready) echo readyok;;\n\
         go*) sleep 3; echo 'bestmove none';;\n\
         quit) exit 0;;\n\
         esac\n\
         done\n",
    )
    .unwrap();
    path
}

fn clocked(games: usize, tc: &str) -> MatchSettings {
    MatchSettings {
        seed: 3,
        time_control: Some(tc.parse::<TimeControl>().unwrap()),
        ..MatchSettings::new(games)
    }
}

#[test]
fn an_engine_that_sleeps_past_its_clock_loses_on_time() {
    let sleepy = factory(&format!("ext:\"sh {}\"", sleepy_engine().display()));
    let ab = factory("ab:depth=3");
    let started = std::time::Instant::now();
    let report = run_match(&sleepy, &ab, &clocked(2, "0.3+0"), &mut |_, _| {
        Control::Continue
    });
    // Each game ends at the sleeper's first move, just after its 300 ms.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(report.games.len(), 2);
    for game in &report.games {
        let sleeper = if game.white.starts_with("ext:") {
            Color::White
        } else {
            Color::Black
        };
        assert_eq!(game.result, GameResult::win_for(sleeper.opponent()));
        match &game.cause {
            EndCause::Forfeit {
                loser,
                failure: PlayerFailure::TimeForfeit(text),
            } => {
                assert_eq!(*loser, sleeper);
                assert!(text.starts_with("time forfeit"), "{text}");
            }
            other => panic!("expected a time forfeit, got {other:?}"),
        }
        let pdn = game.to_pdn("test", "2026.11.30");
        let termination = pdn.tag("Termination").unwrap_or_default();
        assert!(termination.contains("time forfeit"), "{termination}");
    }
    assert_eq!(report.end_reasons().get("time forfeit"), Some(&2));
}

#[test]
fn players_that_manage_their_time_never_flag() {
    let mcts = factory("mcts:sims=64");
    let ab = factory("ab:depth=6");
    let report = run_match(&mcts, &ab, &clocked(2, "1+0.02"), &mut |_, _| {
        Control::Continue
    });
    assert_eq!(report.games.len(), 2);
    for game in &report.games {
        assert!(
            matches!(game.cause, EndCause::Rules(_)),
            "{}: {}",
            game.white,
            game.cause.label()
        );
    }
}
