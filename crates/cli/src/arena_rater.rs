//! A run's rater (the `Rater` trait of shashki-train), played by the arena:
//! each checkpoint, as its gate would play it (`checkpoint_players`),
//! against one anchor prepared once, under fixed settings whose seed each
//! checkpoint's step varies; the games kept as PDN in `<run>/rating-games/`.

use crate::arena_gate::checkpoint_players;
use anyhow::{Result, anyhow};
use shashki_arena::{Control, Journal, MatchSettings, PlayerFactory, play_pairing};
use shashki_train::config::RunMode;
use shashki_train::{AnchorResult, Rater, RunConfig};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The PDN `Event` of rating games.
pub(crate) const RATING_EVENT: &str = "Shashki Zero rating";

/// Rates with arena matches against `anchor`.
pub(crate) struct ArenaRater {
    pub(crate) anchor: PlayerFactory,
    /// Games, book, concurrency, draw rules, tables (the seed is set per
    /// checkpoint).
    pub(crate) settings: MatchSettings,
    /// Device of an MCTS net.
    pub(crate) device: String,
}

impl ArenaRater {
    /// The rater of a concurrent run's evaluator (`[evaluator]`: anchor,
    /// games; the gate's draw-rule length) on `threads` (the run's core
    /// split), `None` when the run has none (sequential, or the evaluator
    /// off).
    pub(crate) fn for_run(
        config: &RunConfig,
        threads: usize,
        device: &str,
    ) -> Result<Option<ArenaRater>> {
        if config.run.mode != RunMode::Concurrent || threads == 0 {
            return Ok(None);
        }
        let e = &config.evaluator;
        let anchor = PlayerFactory::from_text(&e.anchor)
            .map_err(|err| anyhow!("[evaluator] anchor: {err}"))?;
        let settings = MatchSettings::with_options(
            e.games as usize,
            None,
            config.run.seed,
            threads,
            config.max_plies(),
            RATING_EVENT,
        )?;
        Ok(Some(ArenaRater {
            anchor,
            settings,
            device: device.to_string(),
        }))
    }
}

impl Rater for ArenaRater {
    fn rate(
        &mut self,
        config: &RunConfig,
        checkpoint: &Path,
        seed: u64,
        stop: &AtomicBool,
        log: &mut dyn FnMut(&str),
    ) -> Result<Option<AnchorResult>, String> {
        let candidate = checkpoint_players(config, &self.device).player(checkpoint)?;
        let settings = MatchSettings {
            seed,
            ..self.settings.clone()
        };
        let mut journal = Journal::in_memory(RATING_EVENT);
        let name = candidate.name().to_string();
        let report = play_pairing(
            &candidate,
            &self.anchor,
            &settings,
            None,
            &mut journal,
            &mut |_, _, _| {
                if stop.load(Ordering::SeqCst) {
                    Control::Stop
                } else {
                    Control::Continue
                }
            },
        )
        .map_err(|e| e.to_string())?;
        if report.stopped_early || stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let dir = checkpoint
            .parent()
            .and_then(Path::parent)
            .map(|run| run.join("rating-games"));
        if let Some(dir) = dir {
            let pdn = dir.join(format!("{name}.pdn"));
            if let Err(e) =
                std::fs::create_dir_all(&dir).and_then(|()| report.write_pdn(&pdn, RATING_EVENT))
            {
                log(&format!(
                    "warning: rating games not saved to {}: {e}",
                    pdn.display()
                ));
            }
        }
        let wdl = report.summary.wdl;
        let elo = report.summary.elo();
        Ok(Some(AnchorResult {
            anchor: self.anchor.name().to_string(),
            wdl: [wdl.wins, wdl.draws, wdl.losses],
            elo: [elo.elo, elo.lower, elo.upper],
        }))
    }
}
