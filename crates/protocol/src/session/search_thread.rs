//! The engine lent to one search at a time on a scoped thread, so the
//! command loop keeps reading (`stop` ends a search at once) and gets the
//! engine back when it joins.

use shashki_search::{Engine, StopHandle};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{Scope, ScopedJoinHandle};

/// A search running on its own thread; it gives the engine back when joined.
type Running<'scope, 'e> = ScopedJoinHandle<'scope, (&'e mut dyn Engine, io::Result<()>)>;

/// Set by a search just before it writes its final answer: from then on
/// the session treats it as over, though its thread may still be ending
/// (a GUI that got the answer sends its next position at once, and that
/// must not be refused as arriving "during a search").
#[derive(Clone, Default)]
pub(super) struct Answered(Arc<AtomicBool>);

impl Answered {
    /// The search is about to answer.
    pub(super) fn mark(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// The engine of a session and the search it may be running.
pub(super) struct SearchThread<'scope, 'e> {
    /// The engine while no search holds it.
    engine: Option<&'e mut dyn Engine>,
    stop: Option<StopHandle>,
    running: Option<Running<'scope, 'e>>,
    answered: Answered,
}

impl<'scope, 'e: 'scope> SearchThread<'scope, 'e> {
    pub(super) fn new(engine: &'e mut dyn Engine) -> SearchThread<'scope, 'e> {
        SearchThread {
            stop: engine.stop_handle(),
            engine: Some(engine),
            running: None,
            answered: Answered::default(),
        }
    }

    /// Whether the engine can be stopped (an engine without a stop handle
    /// only ends at its limits).
    pub(super) fn can_stop(&self) -> bool {
        self.stop.is_some()
    }

    /// Whether `stop` has been asked since the search started.
    pub(super) fn stop_handle(&self) -> Option<StopHandle> {
        self.stop.clone()
    }

    /// Whether a search is under way (it has not begun its answer).
    pub(super) fn searching(&self) -> bool {
        self.running.as_ref().is_some_and(|r| !r.is_finished()) && !self.answered.is_set()
    }

    /// Asks the running search, if any, to stop.
    pub(super) fn stop(&self) {
        if let Some(stop) = &self.stop {
            stop.stop();
        }
    }

    /// Waits for the running search, if any, and takes the engine back;
    /// the search's own result (a write error) is returned.
    pub(super) fn join(&mut self) -> io::Result<()> {
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
    pub(super) fn engine(&mut self) -> io::Result<&mut dyn Engine> {
        self.join()?;
        Ok(self
            .engine
            .as_deref_mut()
            .expect("the engine is back after join"))
    }

    /// Joins the previous search, then runs `search` with the engine on a
    /// thread of `scope`, its stop handle reset; `search` marks the
    /// [`Answered`] it is given just before writing its answer.
    pub(super) fn start(
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
