//! `net:runs/a/ckpt-120@sims=64[,gumbel][,device=cpu][,batch=64][,kernels=int8]`,
//! `net:models/cpu-2h@movetime=1000[,threads=2][,leaves=16][,cache=0][,evaluate_forced]`: MCTS with a
//! network checkpoint (file) or exported model (folder). The network is
//! loaded once per match and serves every game through one batching
//! service; a timed player (default 16 leaves per call) searches on the
//! network directly with its own threads.

use super::mcts::{
    EvalSource, MctsPlayer, SEARCH_OPTIONS, engine_config, is_timed, search_option, search_threads,
    timed_player,
};
use super::options::{joined, network_path_and_options, number, options};
use super::{EngineSetup, Kind};
use crate::player::{GameSetup, Player, PlayerFailure, PlayerMaker, SharedEvaluator};
use crate::spec::{MctsSettings, PlayerKind};
use shashki_net::InferenceKernels;
use shashki_search::batching::{BatchStats, BatchingEvaluator};
use shashki_search::cache::DEFAULT_CACHE_ENTRIES;
use shashki_search::mcts::MctsEngine;
use shashki_search::{Engine, Evaluator};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Leaves per thread and network call of a timed network player that does
/// not say (one would leave the network mostly idle).
const TIMED_LEAVES: u32 = 16;

/// `net:PATH[@options]`.
pub(crate) const KIND: Kind = Kind {
    prefix: "net",
    syntax: "net:PATH@...",
    example: "net:runs/a/ckpt-120@sims=64,gumbel,batch=8",
    takes_path: true,
    options: &joined::<8, 3, 11>(SEARCH_OPTIONS, ["device", "batch", "kernels"]),
    parse,
};

fn parse(rest: Option<&str>) -> Result<PlayerKind, String> {
    let (path, opts) = network_path_and_options(rest, "net")?;
    let mut search = MctsSettings::default();
    let mut device = "cpu".to_string();
    let mut batch = 64;
    let mut kernels = InferenceKernels::PLAY;
    for (key, value) in options(opts)? {
        match (key, value) {
            ("device", Some(v)) => device = v.to_string(),
            ("batch", Some(v)) => batch = number(key, v)?,
            ("kernels", Some(v)) => kernels = v.parse()?,
            _ => {
                if !search_option(&mut search, key, value)? {
                    return Err(super::unknown_option("net", key, KIND.options));
                }
            }
        }
    }
    Ok(PlayerKind::Net {
        path: PathBuf::from(path),
        search,
        device,
        kernels,
        batch: batch.max(1),
    })
}

/// The standalone engine: MCTS on the network at `path` (16 leaves per
/// thread and call unless the spec says), its cache shared by the threads
/// and kept from move to move.
pub(crate) fn engine(
    path: &Path,
    search: &MctsSettings,
    device: &str,
    kernels: InferenceKernels,
    setup: &EngineSetup,
) -> Result<Box<dyn Engine>, String> {
    let evaluator = crate::load_network::load_evaluator(path, device, kernels)?;
    let engine = MctsEngine::new(
        SharedEvaluator(evaluator),
        engine_config(search, TIMED_LEAVES),
        setup.seed,
        format!("mcts with the network {}", path.display()),
    )
    .map_err(|e| e.to_string())?
    .with_threads(search_threads(search))
    .with_tablebases(setup.tablebases.clone())
    .with_cache(search.cache_entries.unwrap_or(DEFAULT_CACHE_ENTRIES));
    Ok(Box::new(engine))
}

/// Holds the network the games of a match share, behind its batching
/// service.
pub(crate) struct Maker {
    /// The network itself, for timed players (which batch within their own
    /// search on several threads).
    network: SharedEvaluator,
    service: Arc<BatchingEvaluator<SharedEvaluator>>,
    search: MctsSettings,
}

impl Maker {
    /// `evaluator` served to every game in batches of about `batch`.
    pub(crate) fn new(evaluator: Arc<dyn Evaluator>, search: MctsSettings, batch: usize) -> Maker {
        let network = SharedEvaluator(evaluator);
        Maker {
            service: Arc::new(BatchingEvaluator::new(network.clone(), Some(batch.max(1)))),
            network,
            search,
        }
    }
}

impl PlayerMaker for Maker {
    fn create(&self, setup: &GameSetup<'_>) -> Result<Box<dyn Player>, PlayerFailure> {
        if is_timed(&self.search, setup.clocked) {
            return timed_player(
                self.network.clone(),
                &self.search,
                TIMED_LEAVES,
                setup,
                "net",
            );
        }
        Ok(Box::new(MctsPlayer::new(
            self.search,
            EvalSource::Batched(Arc::clone(&self.service)),
            setup,
        )))
    }

    fn is_timed(&self) -> bool {
        self.search.movetime.is_some()
    }

    fn batch_stats(&self) -> Option<BatchStats> {
        Some(self.service.stats())
    }
}
