//! What both protocol sessions (the line protocol's and Hub's) share: the
//! input lines read on a thread of their own, and the engine lent to one
//! search at a time on a scoped thread, so the command loop keeps reading
//! (`stop` ends a search at once) and gets the engine back when it joins.

use crate::engine::Engine;
use crate::limits::StopHandle;
use std::io::{self, BufRead};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::{Scope, ScopedJoinHandle};

/// One input line as the reader thread passes it on.
pub(crate) enum Input {
    Line(String),
    NotUtf8,
}

/// The lines of `input`, read on their own thread until the end of input,
/// a read error or `quit`. The thread is detached: a reader blocked on an
/// open input must not keep a session from ending at `quit`.
pub(crate) fn spawn_line_reader(input: impl BufRead + Send + 'static) -> mpsc::Receiver<Input> {
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

/// A search running on its own thread; it gives the engine back when joined.
type Running<'scope, 'e> = ScopedJoinHandle<'scope, (&'e mut dyn Engine, io::Result<()>)>;

/// Set by a search just before it writes its final answer: from then on
/// the session treats it as over, though its thread may still be ending
/// (a GUI that got the answer sends its next position at once, and that
/// must not be refused as arriving "during a search").
#[derive(Clone, Default)]
pub(crate) struct Answered(Arc<AtomicBool>);

impl Answered {
    /// The search is about to answer.
    pub(crate) fn mark(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// The engine of a session and the search it may be running.
pub(crate) struct SearchThread<'scope, 'e> {
    /// The engine while no search holds it.
    engine: Option<&'e mut dyn Engine>,
    stop: Option<StopHandle>,
    running: Option<Running<'scope, 'e>>,
    answered: Answered,
}

impl<'scope, 'e: 'scope> SearchThread<'scope, 'e> {
    pub(crate) fn new(engine: &'e mut dyn Engine) -> SearchThread<'scope, 'e> {
        SearchThread {
            stop: engine.stop_handle(),
            engine: Some(engine),
            running: None,
            answered: Answered::default(),
        }
    }

    /// Whether the engine can be stopped (an engine without a stop handle
    /// only ends at its limits).
    pub(crate) fn can_stop(&self) -> bool {
        self.stop.is_some()
    }

    /// Whether `stop` has been asked since the search started.
    pub(crate) fn stop_handle(&self) -> Option<StopHandle> {
        self.stop.clone()
    }

    /// Whether a search is under way (it has not begun its answer).
    pub(crate) fn searching(&self) -> bool {
        self.running.as_ref().is_some_and(|r| !r.is_finished()) && !self.answered.is_set()
    }

    /// Asks the running search, if any, to stop.
    pub(crate) fn stop(&self) {
        if let Some(stop) = &self.stop {
            stop.stop();
        }
    }

    /// Waits for the running search, if any, and takes the engine back;
    /// the search's own result (a write error) is returned.
    pub(crate) fn join(&mut self) -> io::Result<()> {
        let Some(handle) = self.running.take() else {
            return Ok(());
        };
        match handle.join() {
            Ok((engine, result)) => {
                self.engine = Some(engine);
                result
            }
            Err(_) => Err(io::Error::other("the search thread panicked")),
        }
    }

    /// The engine, once any search has been joined.
    pub(crate) fn engine(&mut self) -> io::Result<&mut dyn Engine> {
        self.join()?;
        Ok(self
            .engine
            .as_deref_mut()
            .expect("the engine is back after join"))
    }

    /// Joins the previous search, then runs `search` with the engine on a
    /// thread of `scope`, its stop handle reset; `search` marks the
    /// [`Answered`] it is given just before writing its answer.
    pub(crate) fn start(
        &mut self,
        scope: &'scope Scope<'scope, '_>,
        search: impl FnOnce(&mut dyn Engine, &Answered) -> io::Result<()> + Send + 'scope,
    ) -> io::Result<()> {
        self.join()?;
        if let Some(stop) = &self.stop {
            stop.reset();
        }
        let engine = self.engine.take().expect("the engine is back after join");
        self.answered = Answered::default();
        let answered = self.answered.clone();
        self.running = Some(scope.spawn(move || {
            let result = search(&mut *engine, &answered);
            (engine, result)
        }));
        Ok(())
    }
}
