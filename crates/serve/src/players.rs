//! The one place where the server turns a request's engine name into
//! something that plays. The command line names everything that can play
//! (its engines, which also analyse, and arena players, which only play);
//! a request picks one of those names and may set only bounded parameters
//! ([`RequestLimits`]). A request never carries a program, a path or a
//! player spec: whatever it sends is looked up in the list, and a text that
//! is not a name is refused before anything is started, opened or read.

use shashki_arena::player::EnginePlayer;
use shashki_arena::{GameSetup, Player, PlayerFactory};
use shashki_rules::{Game, Move};
use shashki_search::tablebase::Tablebases;
use shashki_search::{Engine, SearchLimits};
use std::sync::Arc;
use std::time::Duration;

/// What a request may choose about an engine it names: its search threads
/// (within [`crate::ServeOptions::max_threads`]); `None` keeps the
/// engine's own default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineSettings {
    /// Search threads.
    pub threads: Option<usize>,
}

/// Builds a fresh engine (each search gets its own: searches run at once).
pub type EngineMaker =
    Arc<dyn Fn(&EngineSettings) -> Result<Box<dyn Engine>, String> + Send + Sync>;

/// An engine offered by name to the page: for analysis (live reports) and
/// as an opponent.
#[derive(Clone)]
pub struct NamedEngine {
    /// The name the page shows and sends, e.g. `builtin`.
    pub name: String,
    /// A line about it, e.g. `alpha-beta with the shipped NNUE nnue-data-2h`.
    pub description: String,
    /// Makes one.
    pub make: EngineMaker,
}

impl std::fmt::Debug for NamedEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NamedEngine({})", self.name)
    }
}

/// An arena player offered by name as an opponent (it plays at the
/// settings its spec gives, within the request's time per move; it cannot
/// analyse). Prepared once, when the server starts.
#[derive(Clone)]
pub struct NamedPlayer {
    /// The name the page shows and sends.
    pub name: String,
    /// A line about it.
    pub description: String,
    /// Makes one player per reply.
    pub factory: Arc<PlayerFactory>,
}

impl std::fmt::Debug for NamedPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NamedPlayer({})", self.name)
    }
}

/// The bounds on what a request may ask of a search.
#[derive(Clone, Copy, Debug)]
pub struct RequestLimits {
    /// Deepest search a request may ask for, in plies.
    pub max_depth: u32,
    /// Most search threads a request may ask for.
    pub max_threads: usize,
}

/// What a request asked of one search beside its time.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchAsk {
    /// A depth cap in plies.
    pub depth: Option<u32>,
    /// Search threads.
    pub threads: Option<usize>,
}

/// The engines and players the command line named, by name.
pub struct Opponents {
    engines: Vec<NamedEngine>,
    players: Vec<NamedPlayer>,
    /// The server's tables, probed by the arena players' searches.
    tablebases: Option<Arc<Tablebases>>,
    limits: RequestLimits,
}

/// What a request named: an engine (which can analyse and be stopped) or
/// an arena player.
#[derive(Clone)]
pub enum Choice {
    /// A named engine.
    Engine(NamedEngine),
    /// A named arena player.
    Player(NamedPlayer),
}

impl Opponents {
    /// The named engines (the first is the default) and players; every
    /// name must be unique.
    pub fn new(
        engines: Vec<NamedEngine>,
        players: Vec<NamedPlayer>,
        tablebases: Option<Arc<Tablebases>>,
        limits: RequestLimits,
    ) -> Result<Opponents, String> {
        let mut names: Vec<&str> = Vec::new();
        for name in engines
            .iter()
            .map(|e| e.name.as_str())
            .chain(players.iter().map(|p| p.name.as_str()))
        {
            if name.trim().is_empty() {
                return Err("an engine needs a name".into());
            }
            if names.contains(&name) {
                return Err(format!("two engines are named {name:?}"));
            }
            names.push(name);
        }
        Ok(Opponents {
            engines,
            players,
            tablebases,
            limits,
        })
    }

    /// The named engines.
    pub fn engines(&self) -> &[NamedEngine] {
        &self.engines
    }

    /// The named arena players.
    pub fn players(&self) -> &[NamedPlayer] {
        &self.players
    }

    /// The bounds on a request.
    pub fn limits(&self) -> RequestLimits {
        self.limits
    }

    fn all_names(&self) -> String {
        self.engines
            .iter()
            .map(|e| e.name.as_str())
            .chain(self.players.iter().map(|p| p.name.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// What `name` names, with the request's depth and threads checked
    /// against the bounds.
    pub fn choose_for(&self, name: Option<&str>, ask: &SearchAsk) -> Result<Choice, String> {
        let choice = self.choose(name)?;
        self.check_ask(&choice, ask)?;
        Ok(choice)
    }

    /// What `name` names (the default engine for `None` or an empty name);
    /// anything else is refused with the choices, and the text asked for is
    /// repeated only when it looks like a name (never a path or a spec).
    fn choose(&self, name: Option<&str>) -> Result<Choice, String> {
        let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else {
            return self
                .engines
                .first()
                .cloned()
                .map(Choice::Engine)
                .ok_or_else(|| "this server has no engine".to_string());
        };
        if let Some(engine) = self.engines.iter().find(|e| e.name == name) {
            return Ok(Choice::Engine(engine.clone()));
        }
        if let Some(player) = self.players.iter().find(|p| p.name == name) {
            return Ok(Choice::Player(player.clone()));
        }
        let asked = if looks_like_a_name(name) {
            format!("unknown engine {name:?}")
        } else {
            "\"engine\" takes the name of one of this server's engines, not a spec or a path"
                .to_string()
        };
        Err(format!(
            "{asked}: this server plays {} (its owner names them with --engine or \
             --players-file when starting it)",
            self.all_names()
        ))
    }

    /// The named engine for an analysis (an arena player cannot analyse),
    /// the request's depth and threads checked against the bounds.
    pub fn analysis_engine(
        &self,
        name: Option<&str>,
        ask: &SearchAsk,
    ) -> Result<NamedEngine, String> {
        match self.choose_for(name, ask)? {
            Choice::Engine(engine) => Ok(engine),
            Choice::Player(player) => Err(format!(
                "{:?} is an arena player: it plays but cannot analyse; this server analyses \
                 with {}",
                player.name,
                self.engines
                    .iter()
                    .map(|e| e.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Checks a request's depth and threads against the bounds; both apply
    /// to engines only (an arena player plays at its spec's settings).
    fn check_ask(&self, choice: &Choice, ask: &SearchAsk) -> Result<(), String> {
        if let Choice::Player(p) = choice
            && (ask.depth.is_some() || ask.threads.is_some())
        {
            return Err(format!(
                "{:?} is an arena player: it plays at the settings its owner gave it; a \
                 request may set only its time per move",
                p.name
            ));
        }
        let limits = self.limits;
        if let Some(depth) = ask.depth
            && !(1..=limits.max_depth).contains(&depth)
        {
            return Err(format!(
                "depth {depth} is out of range (1 to {} plies on this server)",
                limits.max_depth
            ));
        }
        if let Some(threads) = ask.threads
            && !(1..=limits.max_threads).contains(&threads)
        {
            return Err(format!(
                "threads {threads} is out of range (1 to {} on this server)",
                limits.max_threads
            ));
        }
        Ok(())
    }

    /// A player for `choice` (from [`Opponents::choose_for`]): every
    /// opponent plays by the one route of the arena's players, a named
    /// engine as an [`EnginePlayer`] at the request's depth cap. A failure
    /// here is the server's (an engine that could not be made).
    pub fn mover(
        &self,
        choice: &Choice,
        ask: &SearchAsk,
        seed: u64,
    ) -> Result<Box<dyn Player>, String> {
        match choice {
            Choice::Engine(engine) => {
                let engine = (engine.make)(&EngineSettings {
                    threads: ask.threads,
                })?;
                let cap = SearchLimits {
                    depth: ask.depth,
                    ..SearchLimits::default()
                };
                Ok(Box::new(EnginePlayer::new(engine, cap)))
            }
            Choice::Player(player) => player
                .factory
                .create_for_game(&GameSetup {
                    seed,
                    clocked: true,
                    tablebases: self.tablebases.as_ref(),
                })
                .map_err(|e| format!("{}: {e}", player.name)),
        }
    }
}

/// Letters, digits and `_ . + -`, at most 64: a text the error may repeat
/// without echoing a path or a command.
fn looks_like_a_name(text: &str) -> bool {
    text.len() <= 64
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-'))
}

/// The move `player` plays in `game` (not over) on a clock of `movetime`
/// per move: an engine searches for that time (within its depth cap), an
/// arena player thinks on the clock.
pub fn choose_move(
    player: &mut dyn Player,
    game: &Game,
    movetime: Duration,
) -> Result<Move, String> {
    player
        .choose_move_on_clock(
            game,
            &SearchLimits::movetime(movetime),
            movetime * 2 + Duration::from_secs(1),
        )
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_are_repeated_in_errors() {
        assert!(looks_like_a_name("stockfish"));
        assert!(looks_like_a_name("nnue-2h.v1"));
        for text in ["nnue:/etc/passwd", "net:../../x", "ext:/bin/sh -c x", "a b"] {
            assert!(!looks_like_a_name(text), "{text}");
        }
    }
}
