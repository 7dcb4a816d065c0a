//! The input lines of a session, read on a thread of their own so the
//! command loop can wait on them and on a deadline at once.

use std::io::BufRead;
use std::sync::mpsc;

/// One input line as the reader thread passes it on.
pub(super) enum Input {
    Line(String),
    NotUtf8,
}

/// The lines of `input`, read on their own thread until the end of input,
/// a read error or `quit`. The thread is detached: a reader blocked on an
/// open input must not keep a session from ending at `quit`.
pub(super) fn spawn_line_reader(input: impl BufRead + Send + 'static) -> mpsc::Receiver<Input> {
    let (sender, lines) = mpsc::channel();
    std::thread::spawn(move || read_lines(input, sender));
    lines
}

/// Reads lines into `lines` until the end of input, a read error or `quit`
/// (after which nothing is read).
fn read_lines(mut input: impl BufRead, lines: mpsc::Sender<Input>) {
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match input.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let item = match std::str::from_utf8(&buffer) {
            Ok(line) => Input::Line(line.to_string()),
            Err(_) => Input::NotUtf8,
        };
        let quit = matches!(&item, Input::Line(l) if l.split_whitespace().next() == Some("quit"));
        if lines.send(item).is_err() || quit {
            return;
        }
    }
}
