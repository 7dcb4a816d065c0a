//! PDN: round trip of random games, the reader's syntax, broken games among
//! good ones, and property tests that the PDN and FEN readers never panic.

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::pdn::{MoveNumber, write_pdn_file};
use shashki_rules::{
    Color, DrawRules, EndReason, Game, GameResult, PdnGame, Position, read_pdn, write_pdn,
};

/// A random game from `start`, played to its end under the default rules.
/// King moves that leave nothing to capture are preferred half the time, so
/// some games reach long king endings (and the counting rules).
fn random_game(start: Position, seed: u64) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(start);
    while game.outcome().is_none() {
        let pos = *game.position();
        let moves = game.legal_moves();
        let calm: Vec<_> = moves
            .iter()
            .filter(|m| pos.kings() & m.from().bit() != 0 && !pos.make_move(m).has_capture())
            .copied()
            .collect();
        let mv = if !calm.is_empty() && rng.random_bool(0.5) {
            calm[rng.random_range(0..calm.len())]
        } else {
            moves[rng.random_range(0..moves.len())]
        };
        game.play(&mv);
    }
    game
}

/// Generated games: from the start, and from positions with White or Black
/// to move (so the `FEN` tag and `1...` numbering are exercised).
fn generated_games() -> Vec<Game> {
    let starts = [
        Position::startpos(),
        Position::from_fen("B:WKc1,a3,e3,g3,h2:BKf8,b6,d6,h6,a7").unwrap(),
        Position::from_fen("W:WKa1,c3,e3:BKh8,Kb8,f6").unwrap(),
    ];
    (0..45)
        .map(|i| random_game(starts[i % starts.len()], 500 + i as u64))
        .collect()
}

#[test]
fn round_trip_of_random_games() {
    let games = generated_games();
    let mut records: Vec<PdnGame> = games.iter().map(PdnGame::from_game).collect();
    for (i, record) in records.iter_mut().enumerate() {
        record.set_tag("Event", "Round \"trip\" \\ test");
        record.set_tag("Round", &(i + 1).to_string());
        record.set_tag("White", "Рандом");
    }
    let text = write_pdn(&records);
    let read = read_pdn(&text);
    assert_eq!(read.len(), games.len());
    let mut reasons = std::collections::HashSet::new();
    for ((game, written), read) in games.iter().zip(&records).zip(read) {
        let read = read.expect("a written game reads back");
        assert_eq!(&read, written);
        assert_eq!(read.moves, game.moves());
        assert_eq!(read.start, *game.start());
        let outcome = game.outcome().unwrap();
        assert_eq!(read.result, Some(outcome.result));
        assert_eq!(read.termination(), Some(outcome.reason));
        let replayed = read.replay(DrawRules::default()).unwrap();
        assert_eq!(replayed.outcome(), Some(outcome));
        reasons.insert(outcome.reason);
    }
    assert!(
        reasons.len() >= 3,
        "the sample should end in varied ways: {reasons:?}"
    );
}

#[test]
fn written_text_looks_like_pdn() {
    let mut game = Game::new(Position::startpos());
    for mv in ["c3-d4", "f6-e5", "d4:f6", "g7:e5"] {
        game.play_notation(mv).unwrap();
    }
    let text = write_pdn(&[PdnGame::from_game(&game)]);
    let expected = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
        [White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n[GameType \"25\"]\n\n\
        1. c3-d4 f6-e5 2. d4:f6 g7:e5 *\n\n";
    assert_eq!(text, expected);

    // Black to move at the start: a FEN tag and `1...`; a finished game gets
    // its result and a Termination tag.
    let mut game = Game::new(Position::from_fen("B:WKa1:BKh8,b6").unwrap());
    game.play_notation("b6-a5").unwrap();
    game.play_notation("a1-b2").unwrap();
    assert!(game.resign(Color::Black));
    let text = PdnGame::from_game(&game).to_string();
    assert!(text.contains("[Result \"2-0\"]\n"), "{text}");
    assert!(text.contains("[FEN \"B:WKa1:Bb6,Kh8\"]\n"), "{text}");
    assert!(text.contains("[Termination \"resignation\"]\n"), "{text}");
    assert!(text.contains("\n1... b6-a5 2. a1-b2 2-0\n"), "{text}");

    // A tag holds one line: line breaks in a value become spaces.
    let mut record = PdnGame::from_game(&game);
    record.set_tag("Annotator", "two\nlines");
    let read = read_pdn(&record.to_string()).remove(0).unwrap();
    assert_eq!(read.tag("Annotator"), Some("two lines"));
    assert_eq!(read.moves, record.moves);
}

#[test]
fn long_games_wrap_their_movetext() {
    let game = random_game(Position::startpos(), 3);
    let text = PdnGame::from_game(&game).to_string();
    assert!(text.lines().all(|l| l.chars().count() < 80), "{text}");
    assert_eq!(read_pdn(&text)[0].as_ref().unwrap().moves, game.moves());
}

#[test]
fn reader_accepts_the_pdn_syntax() {
    let text = "\u{feff}% an escape line, ignored\n\
        [Event \"features \\\"quoted\\\"\"]  [Site \"here\"]\n\
        [Result \"2-0\"]\n\
        1. C3-D4 {a comment (with brackets)} f6-e5 (1... d6-c5 (1... b6-a5) 2. b2-c3 {inner}) \
        2.d4:f6 $2 g7:e5! ; the rest of this line is a comment ( [ {\n\
        3. 21-17?! 3. ... 10-14 *\n";
    let games = read_pdn(text);
    assert_eq!(games.len(), 1);
    let game = games[0].as_ref().unwrap();
    let moves: Vec<String> = game.moves.iter().map(|m| m.to_string()).collect();
    assert_eq!(
        moves,
        ["c3-d4", "f6-e5", "d4:f6", "g7:e5", "a3-b4", "d6-c5"]
    );
    assert_eq!(game.tag("Event"), Some("features \"quoted\""));
    assert_eq!(game.tag("site"), Some("here"));
    assert_eq!(
        game.result,
        Some(GameResult::WhiteWins),
        "the tag wins over `*`"
    );
    assert_eq!(game.start, Position::startpos());
}

#[test]
fn reader_takes_short_capture_notation_and_numeric_fen() {
    // The worked example of RULES.md: `e1:a1` names a single capture path;
    // `e1:h8` fits two (different pieces taken) and is rejected.
    let text = "[FEN \"W:Wc1,Ke1:Bb6,e5,e7,g7,Kd2\"]\n1. e1:a1 *\n\
        [FEN \"W:Wc1,Ke1:Bb6,e5,e7,g7,Kd2\"]\n1. e1:h8 *\n\
        [FEN \"W:W21,22,K31:B1-4\"]\n1. 22-18 *\n";
    let games = read_pdn(text);
    assert_eq!(games.len(), 3);
    let first = games[0].as_ref().unwrap();
    assert_eq!(first.moves[0].to_string(), "e1:a5:d8:f6:a1");
    let err = games[1].as_ref().unwrap_err();
    assert_eq!(err.game, 2);
    assert_eq!(err.text, "e1:h8");
    assert!(err.reason.contains("ambiguous"), "{err}");
    let third = games[2].as_ref().unwrap();
    assert_eq!(third.start.to_fen(), "W:WKe1,a3,c3:Bb8,d8,f8,h8");
    assert_eq!(third.moves[0].to_string(), "c3-d4");
}

#[test]
fn games_without_tags_split_at_their_results() {
    let games = read_pdn("1. c3-d4 d6-c5 1-1\n1. a3-b4 0-2\n1. c3-b4 2-0 1. e3-f4 *");
    let results: Vec<_> = games.iter().map(|g| g.as_ref().unwrap().result).collect();
    assert_eq!(
        results,
        [
            Some(GameResult::Draw),
            Some(GameResult::BlackWins),
            Some(GameResult::WhiteWins),
            None
        ]
    );
    assert_eq!(games[1].as_ref().unwrap().moves[0].to_string(), "a3-b4");
}

#[test]
fn broken_games_are_reported_and_the_good_ones_load() {
    let text = "\
[Event \"good 1\"]
1. c3-d4 d6-c5 2. b2-c3 1-1

[Event \"illegal move\"]
1. c3-d4 d6-c5
2. c3-e5 f6-e5 2-0

[Event \"not a move\"]
1. c3-d4 hello 0-2

[Event \"bad FEN\"]
[FEN \"W:Wz9:B1\"]
1. c3-d4 *

[Event \"international\"]
[GameType \"20\"]
1. 32-28 *

[Event \"good 2\"]
[FEN \"B:WKa1:BKh8,b6\"]
1... b6-a5 2. a1-b2 *

[Event \"never closed\"]
1. c3-d4 { this comment runs to the end
";
    let games = read_pdn(text);
    assert_eq!(games.len(), 7);
    let good: Vec<usize> = (0..7).filter(|&i| games[i].is_ok()).collect();
    assert_eq!(good, [0, 5]);
    assert_eq!(games[0].as_ref().unwrap().moves.len(), 3);
    assert_eq!(games[5].as_ref().unwrap().moves.len(), 2);

    let err = games[1].as_ref().unwrap_err();
    assert_eq!((err.game, err.line), (2, 6));
    assert_eq!(
        err.move_number,
        Some(MoveNumber {
            number: 2,
            side: Color::White
        })
    );
    assert_eq!(err.text, "c3-e5");
    assert!(
        err.to_string()
            .contains("game 2, line 6, move 2.: \"c3-e5\""),
        "{err}"
    );

    let err = games[2].as_ref().unwrap_err();
    assert_eq!((err.game, err.line, err.text.as_str()), (3, 9, "hello"));
    assert_eq!(
        err.move_number,
        Some(MoveNumber {
            number: 1,
            side: Color::Black
        })
    );
    assert!(err.to_string().contains("move 1..."), "{err}");

    let err = games[3].as_ref().unwrap_err();
    assert_eq!((err.game, err.line, err.move_number), (4, 12, None));
    assert!(err.reason.contains("FEN"), "{err}");

    let err = games[4].as_ref().unwrap_err();
    assert_eq!(err.game, 5);
    assert!(err.reason.contains("GameType"), "{err}");

    let err = games[6].as_ref().unwrap_err();
    assert_eq!((err.game, err.line), (7, 24));
    assert!(err.reason.contains("never closed"), "{err}");
}

#[test]
fn replay_judges_by_our_rules_not_the_record() {
    // Agreed as a win in the record, but the position is king against king:
    // our arbiter says draw (rule 2) after the last move.
    let text = "[Result \"2-0\"]\n[FEN \"W:WKa1:BKh2,c3\"]\n1. a1:d4 2-0\n";
    let record = read_pdn(text).remove(0).unwrap();
    assert_eq!(record.result, Some(GameResult::WhiteWins));
    let game = record.replay(DrawRules::default()).unwrap();
    assert_eq!(
        game.outcome().map(|o| o.reason),
        Some(EndReason::InsufficientMaterial)
    );
    // A hand-edited record with a move that is not legal is refused.
    let mut edited = record.clone();
    edited.moves.push(edited.moves[0]);
    assert_eq!(edited.replay(DrawRules::default()).unwrap_err().ply, 1);
}

#[test]
fn files_are_written_whole() {
    let dir = std::env::temp_dir().join(format!("shashki-pdn-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("games.pdn");
    let records: Vec<PdnGame> = generated_games()[..5]
        .iter()
        .map(PdnGame::from_game)
        .collect();
    write_pdn_file(&path, &records).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let read: Vec<PdnGame> = read_pdn(&text).into_iter().map(Result::unwrap).collect();
    assert_eq!(read, records);
    let leftovers = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(leftovers, 1, "no temporary file left behind");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Text made of PDN's own characters, so the fuzzer reaches deep states.
fn pdn_like() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "[",
        "]",
        "\"",
        "\\",
        "{",
        "}",
        "(",
        ")",
        ";",
        "%",
        "$",
        "1.",
        "2...",
        "*",
        "2-0",
        "1-1",
        "c3-d4",
        "d6-c5",
        "22-18",
        "x",
        ":",
        "-",
        " ",
        "\n",
        "Event",
        "FEN",
        "GameType",
        "W:Wa1:Bh8",
        "25",
        "!",
        "?",
        "…",
        "é",
        "a1",
        "h8",
        "e3:c5",
    ]);
    prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

/// Text made of FEN's own characters.
fn fen_like() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "W", "B", "K", ":", ",", "-", ".", "\"", " ", "a1", "c3", "h8", "b2", "1", "12", "32",
        "33", "0", "-12", "w", "k", "é",
    ]);
    prop::collection::vec(pieces, 0..30).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn pdn_reader_never_panics_on_any_text(text in any::<String>()) {
        let _ = read_pdn(&text);
    }

    #[test]
    fn pdn_reader_never_panics_on_pdn_like_text(text in pdn_like()) {
        for game in read_pdn(&text) {
            if let Err(err) = game {
                prop_assert!(err.game >= 1 && err.line >= 1);
            }
        }
    }

    #[test]
    fn pdn_reader_never_panics_on_damaged_files(cuts in prop::collection::vec((0usize..4000, 0usize..8, any::<char>()), 1..8)) {
        let mut text: Vec<char> = write_pdn(&[PdnGame::from_game(&random_game(Position::startpos(), 11))])
            .chars()
            .collect();
        for (at, len, insert) in cuts {
            let at = at % (text.len() + 1);
            let end = (at + len).min(text.len());
            text.splice(at..end, [insert]);
        }
        let _ = read_pdn(&text.into_iter().collect::<String>());
    }

    #[test]
    fn fen_reader_never_panics(text in any::<String>(), fen_text in fen_like()) {
        let _ = Position::from_fen(&text);
        if let Ok(pos) = Position::from_fen(&fen_text) {
            prop_assert_eq!(Position::from_fen(&pos.to_fen()), Ok(pos));
        }
    }
}
