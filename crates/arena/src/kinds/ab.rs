//! `ab:depth=4`, `ab:movetime=100[,threads=2]`, `ab:nodes=20000`: the
//! reference alpha-beta engine with the hand evaluation (default depth 4;
//! `threads`: Lazy SMP, default 1). Its options serve `nnue:` too.

use super::Kind;
use super::options::{number, options};
use crate::player::{EnginePlayer, GameSetup, Player, PlayerFailure, PlayerMaker};
use crate::spec::PlayerKind;
use shashki_search::alphabeta::StaticEval;
use shashki_search::tablebase::Tablebases;
use shashki_search::{AbConfig, AlphaBeta, SearchLimits};
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
    parse,
};

fn parse(rest: Option<&str>) -> Result<PlayerKind, String> {
    let (limits, threads) = ab_options(rest.unwrap_or(""), "ab")?;
    Ok(PlayerKind::AlphaBeta { limits, threads })
}

/// The limits (`depth`, `nodes`, `movetime`; [`DEFAULT_AB_DEPTH`] when none
/// is given) and Lazy SMP `threads` of an alpha-beta player's options.
/// `kind` names the player in errors.
pub(crate) fn ab_options(text: &str, kind: &str) -> Result<(SearchLimits, usize), String> {
    let mut limits = SearchLimits::default();
    let mut threads = 1;
    for (key, value) in options(text)? {
        match (key, value) {
            ("depth", Some(v)) => limits.depth = Some(number(key, v)?),
            ("nodes", Some(v)) => limits.nodes = Some(number(key, v)?),
            ("movetime", Some(v)) => limits.movetime = Some(Duration::from_millis(number(key, v)?)),
            ("threads", Some(v)) => threads = number::<usize>(key, v)?.clamp(1, 256),
            _ => {
                return Err(format!(
                    "unknown {kind} option {key:?} (depth, nodes, movetime, threads)"
                ));
            }
        }
    }
    if limits.is_unlimited() {
        limits.depth = Some(DEFAULT_AB_DEPTH);
    }
    Ok((limits, threads))
}

/// Makes an alpha-beta player with the hand evaluation per game.
pub(crate) struct Maker {
    pub(crate) limits: SearchLimits,
    pub(crate) threads: usize,
}

impl PlayerMaker for Maker {
    fn create(&self, setup: &GameSetup<'_>) -> Result<Box<dyn Player>, PlayerFailure> {
        Ok(Box::new(EnginePlayer::alpha_beta(
            self.limits,
            self.threads,
            None,
            setup.tablebases,
        )))
    }

    fn is_timed(&self) -> bool {
        self.limits.movetime.is_some()
    }
}

impl EnginePlayer {
    /// The alpha-beta engine at `limits` on `threads` Lazy SMP threads,
    /// with the hand evaluation or `eval` (an NNUE network's), probing
    /// `tablebases` in its search.
    pub fn alpha_beta(
        limits: SearchLimits,
        threads: usize,
        eval: Option<Box<dyn StaticEval>>,
        tablebases: Option<&Arc<Tablebases>>,
    ) -> EnginePlayer {
        let config = AbConfig {
            tt_megabytes: PLAYER_TT_MEGABYTES,
            threads,
            ..AbConfig::default()
        };
        let engine = match eval {
            Some(eval) => AlphaBeta::with_eval(config, eval),
            None => AlphaBeta::new(config),
        };
        let engine = engine.with_tablebases(tablebases.cloned());
        EnginePlayer::new(Box::new(engine), limits)
    }
}
