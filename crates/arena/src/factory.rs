//! [`PlayerFactory`]: a player prepared for a match from its spec (what
//! its games share is made once, by its kind), making a fresh player for
//! every game.

use crate::kinds::{self, net};
use crate::player::{GameSetup, Player, PlayerError, PlayerFailure, PlayerMaker};
use crate::spec::{MctsSettings, PlayerKind, PlayerSpec, SpecError};
use shashki_search::Evaluator;
use shashki_search::batching::BatchStats;
use std::fmt;
use std::sync::Arc;

/// Makes a fresh player for each game of a match; holds what the games
/// share (a network behind one batching service).
pub struct PlayerFactory {
    spec: PlayerSpec,
    maker: Box<dyn PlayerMaker>,
}

impl fmt::Debug for PlayerFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlayerFactory")
            .field("spec", &self.spec)
            .finish()
    }
}

impl PlayerFactory {
    /// Prepares `spec`: a network player loads its network here, once; an
    /// external engine must pass its handshake.
    pub fn new(spec: PlayerSpec) -> Result<PlayerFactory, PlayerError> {
        let maker = kinds::prepare(&spec).map_err(|reason| PlayerError {
            name: spec.name.clone(),
            reason,
        })?;
        Ok(PlayerFactory { spec, maker })
    }

    /// A network player from an evaluator already in memory (what the
    /// training loop uses to gate its latest network).
    pub fn with_evaluator(
        name: &str,
        evaluator: Arc<dyn Evaluator>,
        search: MctsSettings,
        batch: usize,
    ) -> PlayerFactory {
        PlayerFactory {
            spec: PlayerSpec {
                name: name.to_string(),
                kind: PlayerKind::Net {
                    path: name.into(),
                    search,
                    device: "memory".into(),
                    kernels: shashki_net::InferenceKernels::Burn,
                    batch,
                },
            },
            maker: Box::new(net::Maker::new(evaluator, search, batch)),
        }
    }

    /// Parses and prepares a spec string.
    pub fn from_text(text: &str) -> Result<PlayerFactory, PlayerError> {
        let spec: PlayerSpec = text.parse().map_err(|e: SpecError| PlayerError {
            name: text.trim().to_string(),
            reason: e.reason,
        })?;
        PlayerFactory::new(spec)
    }

    /// The player's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The spec.
    pub fn spec(&self) -> &PlayerSpec {
        &self.spec
    }

    /// Batching statistics of a network player (batches, positions).
    pub fn batch_stats(&self) -> Option<BatchStats> {
        self.maker.batch_stats()
    }

    /// True if the player thinks for a time per move (`movetime`) rather
    /// than a fixed amount of work.
    pub fn is_timed(&self) -> bool {
        self.maker.is_timed()
    }

    /// A fresh player for one game, seeded with `seed`. An external engine
    /// that cannot start fails here, which forfeits that game only.
    pub fn create(&self, seed: u64) -> Result<Box<dyn Player>, PlayerFailure> {
        self.create_for_game(&GameSetup {
            seed,
            ..GameSetup::default()
        })
    }

    /// Like [`PlayerFactory::create`], for the game `setup` describes (on a
    /// clock, with the match's tablebases).
    pub fn create_for_game(&self, setup: &GameSetup<'_>) -> Result<Box<dyn Player>, PlayerFailure> {
        self.maker.create(setup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::Player;
    use shashki_rules::{Game, Position};
    use shashki_search::Evaluator;

    fn play_out(white: &mut dyn Player, black: &mut dyn Player, max_plies: usize) -> Game {
        let mut game = Game::new(Position::startpos());
        while !game.is_over() && game.ply() < max_plies {
            let mover: &mut dyn Player = if game.ply().is_multiple_of(2) {
                &mut *white
            } else {
                &mut *black
            };
            let mv = mover.choose_move(&game).unwrap();
            assert!(game.legal_moves().iter().any(|m| m.key() == mv.key()));
            game.play(&mv);
        }
        game
    }

    #[test]
    fn built_in_players_play_legal_moves_reproducibly() {
        let specs = [
            "random",
            "ab:depth=2",
            "mcts:sims=16",
            "mcts:sims=16,gumbel",
        ];
        for spec in specs {
            let f = PlayerFactory::from_text(spec).unwrap();
            let r = PlayerFactory::from_text("random").unwrap();
            let a = play_out(&mut *f.create(1).unwrap(), &mut *r.create(2).unwrap(), 40);
            let b = play_out(&mut *f.create(1).unwrap(), &mut *r.create(2).unwrap(), 40);
            assert_eq!(a.moves(), b.moves(), "{spec} is reproducible from its seed");
        }
    }

    #[test]
    fn in_memory_evaluators_play_through_the_batching_service() {
        let eval: Arc<dyn Evaluator> =
            Arc::new(shashki_search::stand_ins::UniformEvaluator::draw());
        let f = PlayerFactory::with_evaluator(
            "uniform",
            eval,
            MctsSettings {
                simulations: Some(8),
                ..MctsSettings::default()
            },
            4,
        );
        let r = PlayerFactory::from_text("random").unwrap();
        let g = play_out(&mut *f.create(3).unwrap(), &mut *r.create(4).unwrap(), 20);
        assert_eq!(g.ply(), 20);
        assert!(f.batch_stats().unwrap().positions > 0);
    }
}
