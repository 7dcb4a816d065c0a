//! `ab:depth=4`, `ab:movetime=100[,threads=2]`, `ab:nodes=20000`: the
//! reference alpha-beta engine with the hand evaluation (default depth 4;
//! `threads`: Lazy SMP, default 1; `sel=none` or `sel=prune+lmr+...`: the
//! selectivity techniques searched with, default the built-in set;
//! `tm=plain|adaptive`: how a clock's time is spent). Its options, its
//! players and its engines serve `nnue:` and `builtin` too.

use super::options::{number, options};
use super::{EngineSetup, Kind};
use crate::player::{EnginePlayer, GameSetup, Player, PlayerFailure, PlayerMaker};
use crate::spec::{AbSearch, PlayerKind};
use shashki_search::alphabeta::{Selectivity, StaticEval, TimeUse};
use shashki_search::tablebase::Tablebases;
use shashki_search::{AbConfig, AlphaBeta, Engine, SearchLimits};
use std::sync::Arc;
use std::time::Duration;

/// Default depth of `ab` (and `nnue:`) without limits.
pub const DEFAULT_AB_DEPTH: u32 = 4;

/// A small table: many games run at once (one thread each).
const PLAYER_TT_MEGABYTES: usize = 8;

/// `ab[:options]`.
pub(crate) const KIND: Kind = Kind {
    prefix: "ab",
    syntax: "ab:...",
    example: "ab:depth=2,threads=2",
    takes_path: false,
    options: AB_OPTIONS,
    parse,
};

/// The options of the alpha-beta kinds.
pub(crate) const AB_OPTIONS: &[&str] = &["depth", "nodes", "movetime", "threads", "sel", "tm"];

fn parse(rest: Option<&str>) -> Result<PlayerKind, String> {
    let (limits, search) = ab_options(rest.unwrap_or(""), "ab")?;
    Ok(PlayerKind::AlphaBeta { limits, search })
}

/// The limits (`depth`, `nodes`, `movetime`, as given: a player without
/// any searches to [`DEFAULT_AB_DEPTH`]), Lazy SMP `threads` and `sel`ectivity
/// of an alpha-beta player's options. `kind` names the player in errors.
pub(crate) fn ab_options(text: &str, kind: &str) -> Result<(SearchLimits, AbSearch), String> {
    let mut limits = SearchLimits::default();
    let mut search = AbSearch::default();
    for (key, value) in options(text)? {
        match (key, value) {
            ("depth", Some(v)) => limits.depth = Some(number(key, v)?),
            ("nodes", Some(v)) => limits.nodes = Some(number(key, v)?),
            ("movetime", Some(v)) => limits.movetime = Some(Duration::from_millis(number(key, v)?)),
            ("threads", Some(v)) => search.threads = number::<usize>(key, v)?.clamp(1, 256),
            ("sel", Some(v)) => search.selectivity = Selectivity::parse(v)?,
            ("tm", Some(v)) => search.time_use = TimeUse::parse(v)?,
            _ => return Err(super::unknown_option(kind, key, AB_OPTIONS)),
        }
    }
    Ok((limits, search))
}

/// A player's limits: those given, or [`DEFAULT_AB_DEPTH`].
pub(crate) fn player_limits(limits: SearchLimits) -> SearchLimits {
    if limits.is_unlimited() {
        SearchLimits::depth(DEFAULT_AB_DEPTH)
    } else {
        limits
    }
}

/// The standalone engine of `ab` (and, with its network's `eval`, of
/// `nnue:` and `builtin`): the engine's own table size.
pub(crate) fn engine(
    search: AbSearch,
    eval: Option<Box<dyn StaticEval>>,
    setup: &EngineSetup,
) -> Box<dyn Engine> {
    let config = AbConfig {
        threads: search.threads,
        selectivity: search.selectivity,
        time_use: search.time_use,
        ..AbConfig::default()
    };
    Box::new(alpha_beta(config, eval, setup.tablebases.as_ref()))
}

/// Alpha-beta with `config`, the hand evaluation or `eval`, and the tables.
fn alpha_beta(
    config: AbConfig,
    eval: Option<Box<dyn StaticEval>>,
    tablebases: Option<&Arc<Tablebases>>,
) -> AlphaBeta {
    let engine = match eval {
        Some(eval) => AlphaBeta::with_eval(config, eval),
        None => AlphaBeta::new(config),
    };
    engine.with_tablebases(tablebases.cloned())
}

/// Makes an alpha-beta player with the hand evaluation per game.
pub(crate) struct Maker {
    /// As the spec states them.
    pub(crate) limits: SearchLimits,
    pub(crate) search: AbSearch,
}

impl PlayerMaker for Maker {
    fn create(&self, setup: &GameSetup<'_>) -> Result<Box<dyn Player>, PlayerFailure> {
        Ok(Box::new(EnginePlayer::alpha_beta(
            self.limits,
            self.search,
            None,
            setup.tablebases,
        )))
    }

    fn is_timed(&self) -> bool {
        self.limits.movetime.is_some()
    }
}

impl EnginePlayer {
    /// The alpha-beta engine at the limits its spec stated (none: the
    /// default depth, and the clock alone in a clocked game) searching as
    /// `search` says, with the hand evaluation or `eval` (an NNUE
    /// network's), probing `tablebases` in its search.
    pub fn alpha_beta(
        stated: SearchLimits,
        search: AbSearch,
        eval: Option<Box<dyn StaticEval>>,
        tablebases: Option<&Arc<Tablebases>>,
    ) -> EnginePlayer {
        let config = AbConfig {
            tt_megabytes: PLAYER_TT_MEGABYTES,
            threads: search.threads,
            selectivity: search.selectivity,
            time_use: search.time_use,
            ..AbConfig::default()
        };
        let engine = Box::new(alpha_beta(config, eval, tablebases));
        EnginePlayer::with_default(engine, player_limits(stated), stated)
    }
}
