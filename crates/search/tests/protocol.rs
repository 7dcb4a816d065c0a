//! The protocol server driven in memory, and its replies read back with the
//! client-side parser (what the arena's engine client uses).

use shashki_rules::{Game, Position};
use shashki_search::protocol::{Command, Reply, serve};
use shashki_search::{AlphaBeta, SearchLimits};
use std::io::Cursor;

fn session(input: &[u8]) -> Vec<Reply> {
    let mut engine = AlphaBeta::default();
    let mut output = Vec::new();
    serve(
        &mut engine,
        "Test Engine 1",
        Cursor::new(input.to_vec()),
        &mut output,
    )
    .unwrap();
    String::from_utf8(output)
        .unwrap()
        .lines()
        .map(|line| Reply::parse(line).unwrap_or_else(|e| panic!("{line:?}: {e}")))
        .collect()
}

fn bestmoves(replies: &[Reply]) -> Vec<Option<String>> {
    replies
        .iter()
        .filter_map(|r| match r {
            Reply::BestMove(mv) => Some(mv.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn answers_every_command_and_stops_at_quit() {
    let script = [
        Command::Name.to_string(),
        Command::IsReady.to_string(),
        Command::NewGame.to_string(),
        Command::position(&Position::startpos(), &[]).to_string(),
        Command::Go(SearchLimits::depth(3)).to_string(),
        Command::Quit.to_string(),
        "name".to_string(), // after quit: never read
    ]
    .join("\n");
    let replies = session(script.as_bytes());
    assert_eq!(replies[0], Reply::Name("Test Engine 1".into()));
    assert_eq!(replies[1], Reply::ReadyOk);
    let infos = replies
        .iter()
        .filter(|r| matches!(r, Reply::Info(_)))
        .count();
    assert_eq!(infos, 3, "one info line per depth: {replies:?}");
    let best = bestmoves(&replies);
    assert_eq!(best.len(), 1);
    Position::startpos()
        .parse_move(best[0].as_deref().unwrap())
        .unwrap();
    assert_eq!(replies.len(), 2 + infos + 1, "nothing after quit");
}

#[test]
fn errors_leave_the_position_unchanged() {
    let input = b"position fen W:Wc3,h2:Ba5\n\
        position fen W:Wc3,h2:Ba5 moves h2-g3 a5-a4\n\
        position fen W:Wc3\xff\n\
        go depth 2 nodes\n\
        position fen W:WKc1:BKh2 moves c1-b2\n\
        go depth 6\n";
    let replies = session(input);
    let errors: Vec<&str> = replies
        .iter()
        .filter_map(|r| match r {
            Reply::Error(message) => Some(message.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 4, "{replies:?}");
    assert!(
        errors[0].contains("move 2") && errors[0].contains("a5-a4"),
        "{}",
        errors[0]
    );
    assert!(errors[1].contains("UTF-8"));
    assert!(errors[2].contains("go nodes: missing number"));
    assert!(errors[3].contains("after the game ended"), "{}", errors[3]);
    // Still the first position: White wins with the waiting move.
    assert_eq!(bestmoves(&replies), vec![Some("h2-g3".to_string())]);
}

#[test]
fn bestmove_none_without_legal_moves_and_end_of_input_ends() {
    let replies = session(b"position fen W:Wa1:Bb2,c3\ngo movetime 10\n");
    assert_eq!(replies, vec![Reply::BestMove(None)]);
}

#[test]
fn a_game_replayed_through_position_commands_stays_legal() {
    let mut game = Game::new(Position::startpos());
    let mut script = String::new();
    let mut engine = AlphaBeta::default();
    for _ in 0..8 {
        let mv = engine
            .search(&game, &SearchLimits::depth(2))
            .best_move
            .unwrap();
        game.play(&mv);
    }
    script.push_str(&Command::position(game.start(), game.moves()).to_string());
    script.push_str("\ngo depth 2\n");
    let best = bestmoves(&session(script.as_bytes()));
    let expected = engine
        .search(&game, &SearchLimits::depth(2))
        .best_move
        .unwrap();
    assert_eq!(best, vec![Some(expected.to_string())]);
}
