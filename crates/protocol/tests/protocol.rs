//! The protocol server driven in memory, and its replies read back with the
//! client-side parser (what the arena's engine client uses).

use shashki_protocol::line::{Command, Reply, serve};
use shashki_rules::{Game, Position};
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

#[test]
fn a_clock_is_shared_out_and_the_answer_comes_in_time() {
    // One second on the clock: the time manager plans about 1/30 of it.
    let start = std::time::Instant::now();
    let replies = session(b"position startpos\ngo wtime 1000 btime 1000 winc 0 binc 0\n");
    let took = start.elapsed();
    assert!(took < std::time::Duration::from_millis(800), "{took:?}");
    let best = bestmoves(&replies);
    assert_eq!(best.len(), 1);
    Position::startpos()
        .parse_move(best[0].as_deref().unwrap())
        .unwrap();
}

/// A writer whose bytes another thread can read while the session runs.
#[derive(Clone, Default)]
struct SharedOutput(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for SharedOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SharedOutput {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }

    /// Waits up to `limit` for a line starting with `prefix`.
    fn wait_for(&self, prefix: &str, limit: std::time::Duration) -> bool {
        let start = std::time::Instant::now();
        while start.elapsed() < limit {
            if self.text().lines().any(|l| l.starts_with(prefix)) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        false
    }
}

/// A session of the alpha-beta engine on a pipe, its output readable
/// while it runs.
fn live_session() -> (
    std::io::PipeWriter,
    SharedOutput,
    std::thread::JoinHandle<std::io::Result<()>>,
) {
    let (reader, writer) = std::io::pipe().unwrap();
    let output = SharedOutput::default();
    let out = output.clone();
    let session = std::thread::spawn(move || {
        let mut engine = AlphaBeta::default();
        serve(&mut engine, "t", std::io::BufReader::new(reader), out)
    });
    (writer, output, session)
}

#[test]
fn go_infinite_runs_until_stop_and_isready_is_answered_meanwhile() {
    use std::io::Write;
    use std::time::Duration;
    let (mut writer, output, session) = live_session();
    writeln!(writer, "position startpos\ngo infinite").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(!output.text().contains("bestmove"), "no answer before stop");
    writeln!(writer, "isready").unwrap();
    assert!(
        output.wait_for("readyok", Duration::from_secs(2)),
        "readyok while searching"
    );
    assert!(!output.text().contains("bestmove"));
    let stopped = std::time::Instant::now();
    writeln!(writer, "stop").unwrap();
    assert!(output.wait_for("bestmove", Duration::from_secs(5)));
    assert!(
        stopped.elapsed() < Duration::from_millis(500),
        "{:?}",
        stopped.elapsed()
    );
    writeln!(writer, "quit").unwrap();
    session.join().unwrap().unwrap();
    let text = output.text();
    let best = text.lines().find(|l| l.starts_with("bestmove")).unwrap();
    Position::startpos()
        .parse_move(best.trim_start_matches("bestmove ").trim())
        .unwrap();
}

#[test]
fn go_infinite_waits_for_stop_even_when_the_answer_is_forced() {
    use std::io::Write;
    use std::time::Duration;
    let (mut writer, output, session) = live_session();
    // One legal move: the search ends at once, the answer waits for stop.
    writeln!(writer, "position fen W:Wc3:Bd4\ngo infinite").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(!output.text().contains("bestmove"));
    drop(writer); // the end of input stops an infinite search
    session.join().unwrap().unwrap();
    assert!(
        output.text().contains("bestmove c3:e5"),
        "{}",
        output.text()
    );
}
