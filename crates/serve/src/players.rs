//! The one place where the server turns a name into something that plays:
//! the engines the command line gave it by name (`builtin`, and its
//! `--engine` choice), or any player spec the arena accepts (`ab:depth=6`,
//! `nnue:models/x`, `net:runs/a/checkpoints/ckpt-000001000.shzk`, `ext:...`),
//! through `"spec".parse::<PlayerSpec>()` and [`PlayerFactory`].

use shashki_arena::spec::PlayerSpec;
use shashki_arena::{GameSetup, Player, PlayerFactory};
use shashki_rules::{Game, Move};
use shashki_search::tablebase::Tablebases;
use shashki_search::{Engine, SearchLimits, SearchReport, StopHandle};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Builds a fresh engine (each search gets its own: searches run at once).
pub type EngineMaker = Arc<dyn Fn() -> Result<Box<dyn Engine>, String> + Send + Sync>;

/// An engine offered by name to the page: for analysis (live reports) and
/// as an opponent.
#[derive(Clone)]
pub struct NamedEngine {
    /// The name the page shows and sends, e.g. `builtin`.
    pub name: String,
    /// A line about it, e.g. `alpha-beta with the shipped NNUE nnue-2h`.
    pub description: String,
    /// Makes one.
    pub make: EngineMaker,
}

impl std::fmt::Debug for NamedEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NamedEngine({})", self.name)
    }
}

/// How many arena players (their loaded networks) are kept for reuse.
const KEPT_FACTORIES: usize = 8;

/// Named engines and the arena's players, prepared once and kept.
pub struct Opponents {
    engines: Vec<NamedEngine>,
    /// The server's tables, probed by the arena players' searches.
    tablebases: Option<Arc<Tablebases>>,
    factories: Mutex<HashMap<String, Arc<PlayerFactory>>>,
}

/// Something that chooses one move: an engine (which can be stopped) or an
/// arena player (bounded by its time per move).
pub enum Mover {
    /// A named engine.
    Engine(Box<dyn Engine>),
    /// An arena player.
    Player(Box<dyn Player>),
}

impl Opponents {
    /// The named engines (the first is the default); arena players probe
    /// `tablebases` in their search.
    pub fn new(engines: Vec<NamedEngine>, tablebases: Option<Arc<Tablebases>>) -> Opponents {
        Opponents {
            engines,
            tablebases,
            factories: Mutex::new(HashMap::new()),
        }
    }

    /// The named engines.
    pub fn engines(&self) -> &[NamedEngine] {
        &self.engines
    }

    /// The named engine `name`, or the default one for `None`.
    pub fn engine(&self, name: Option<&str>) -> Result<&NamedEngine, String> {
        match name.map(str::trim).filter(|n| !n.is_empty()) {
            None => self
                .engines
                .first()
                .ok_or_else(|| "this server has no engine".to_string()),
            Some(name) => self.engines.iter().find(|e| e.name == name).ok_or_else(|| {
                format!(
                    "unknown engine {name:?}: this server analyses with {}",
                    self.engine_names().join(", ")
                )
            }),
        }
    }

    fn engine_names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name.clone()).collect()
    }

    /// A mover for `spec`: a named engine, else an arena player spec. A spec
    /// that does not parse or a player that cannot be prepared (a missing
    /// network) is an error for the user.
    pub fn mover(&self, spec: Option<&str>, seed: u64) -> Result<Mover, MoverError> {
        let spec = spec.map(str::trim).filter(|s| !s.is_empty());
        if spec.is_none() || self.engines.iter().any(|e| Some(e.name.as_str()) == spec) {
            let named = self.engine(spec).map_err(MoverError::Spec)?;
            return (named.make)()
                .map(Mover::Engine)
                .map_err(MoverError::Failed);
        }
        let spec = spec.unwrap_or_default();
        let factory = self.factory(spec)?;
        factory
            .create_for_game(&GameSetup {
                seed,
                clocked: true,
                tablebases: self.tablebases.as_ref(),
            })
            .map(Mover::Player)
            .map_err(|e| MoverError::Failed(format!("{spec}: {e}")))
    }

    fn factory(&self, text: &str) -> Result<Arc<PlayerFactory>, MoverError> {
        if let Some(f) = self.lock().get(text) {
            return Ok(Arc::clone(f));
        }
        let spec: PlayerSpec = text.parse().map_err(|e: shashki_arena::spec::SpecError| {
            MoverError::Spec(format!(
                "{e}; or one of this server's engines: {}",
                self.engine_names().join(", ")
            ))
        })?;
        let factory =
            Arc::new(PlayerFactory::new(spec).map_err(|e| MoverError::Spec(e.to_string()))?);
        let mut kept = self.lock();
        if kept.len() >= KEPT_FACTORIES {
            kept.clear();
        }
        kept.insert(text.to_string(), Arc::clone(&factory));
        Ok(factory)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<PlayerFactory>>> {
        self.factories.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Why no mover could be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoverError {
    /// The spec or name is wrong (the user's fault: a 400).
    Spec(String),
    /// It is right but could not be prepared (a 500).
    Failed(String),
}

impl Mover {
    /// A handle that stops the search at once, if this mover has one.
    pub fn stop_handle(&self) -> Option<StopHandle> {
        match self {
            Mover::Engine(e) => e.stop_handle(),
            Mover::Player(_) => None,
        }
    }

    /// The move to play in `game` (not over) within `movetime`; an arena
    /// player thinks on a clock of that time per move.
    pub fn choose(&mut self, game: &Game, movetime: Duration) -> Result<Move, String> {
        let limits = SearchLimits::movetime(movetime);
        match self {
            Mover::Engine(engine) => engine
                .go(game, &limits, &mut |_: &SearchReport| {})
                .best_move
                .ok_or_else(|| "the engine found no move".to_string()),
            Mover::Player(player) => player
                .choose_move_on_clock(game, &limits, movetime * 2 + Duration::from_secs(1))
                .map_err(|e| e.to_string()),
        }
    }
}
