//! `nnue:models/x@depth=6`, `@movetime=100[,threads=2]`, `@nodes=N`:
//! alpha-beta with an NNUE model folder (or a training checkpoint) as its
//! evaluation (default depth 4, one thread). The network is loaded and
//! quantized once per match.

use super::ab::{AB_OPTIONS, ab_options};
use super::options::network_path_and_options;
use super::{EngineSetup, Kind};
use crate::player::{EnginePlayer, GameSetup, Player, PlayerFailure, PlayerMaker};
use crate::spec::{AbSearch, PlayerKind};
use shashki_nnue::{NnueEval, QuantNet};
use shashki_search::{Engine, SearchLimits};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `nnue:PATH[@options]`.
pub(crate) const KIND: Kind = Kind {
    prefix: "nnue",
    syntax: "nnue:PATH@...",
    example: "nnue:models/nnue-2h@depth=6,threads=2",
    takes_path: true,
    options: AB_OPTIONS,
    parse,
};

fn parse(rest: Option<&str>) -> Result<PlayerKind, String> {
    let (path, opts) = network_path_and_options(rest, "nnue")?;
    let (limits, search) = ab_options(opts, "nnue")?;
    Ok(PlayerKind::Nnue {
        path: PathBuf::from(path),
        limits,
        search,
    })
}

/// The standalone engine: alpha-beta with the network at `path`.
pub(crate) fn engine(
    path: &Path,
    search: AbSearch,
    setup: &EngineSetup,
) -> Result<Box<dyn Engine>, String> {
    let eval = shashki_nnue::load_evaluator(path).map_err(|e| e.to_string())?;
    Ok(super::ab::engine(search, Some(Box::new(eval)), setup))
}

/// Holds the quantized network the games of a match share.
pub(crate) struct Maker {
    net: Arc<QuantNet>,
    name: String,
    limits: SearchLimits,
    search: AbSearch,
}

impl Maker {
    /// Loads the network at `path` for the player called `name`.
    pub(crate) fn load(
        path: &Path,
        name: &str,
        limits: SearchLimits,
        search: AbSearch,
    ) -> Result<Maker, String> {
        let net = shashki_nnue::load_engine_net(path).map_err(|e| e.to_string())?;
        Ok(Maker::new(Arc::new(net), name, limits, search))
    }

    /// The player called `name` with `net` at `limits` (as its spec gives
    /// them) searching as `search` says.
    pub(crate) fn new(
        net: Arc<QuantNet>,
        name: &str,
        limits: SearchLimits,
        search: AbSearch,
    ) -> Maker {
        Maker {
            net,
            name: name.to_string(),
            limits,
            search,
        }
    }
}

impl PlayerMaker for Maker {
    fn create(&self, setup: &GameSetup<'_>) -> Result<Box<dyn Player>, PlayerFailure> {
        let eval = NnueEval::new(Arc::clone(&self.net), self.name.clone());
        Ok(Box::new(EnginePlayer::alpha_beta(
            self.limits,
            self.search,
            Some(Box::new(eval)),
            setup.tablebases,
        )))
    }

    fn is_timed(&self) -> bool {
        self.limits.movetime.is_some()
    }
}
