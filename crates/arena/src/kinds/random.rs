//! `random`: uniform random legal moves, each game on its own seeded stream.

use super::Kind;
use crate::player::{GameSetup, Player, PlayerFailure, PlayerMaker};
use crate::spec::PlayerKind;
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use shashki_rules::{Game, Move};

/// `random` (no options).
pub(crate) const KIND: Kind = Kind {
    prefix: "random",
    syntax: "random",
    example: "random",
    takes_path: false,
    options: &[],
    parse,
};

fn parse(rest: Option<&str>) -> Result<PlayerKind, String> {
    match rest {
        Some(_) => Err("random takes no options".into()),
        None => Ok(PlayerKind::Random),
    }
}

/// Makes a random player per game.
pub(crate) struct Maker;

impl PlayerMaker for Maker {
    fn create(&self, setup: &GameSetup<'_>) -> Result<Box<dyn Player>, PlayerFailure> {
        Ok(Box::new(RandomPlayer::new(setup.seed)))
    }

    fn is_timed(&self) -> bool {
        false
    }
}

/// Uniform random legal moves.
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    /// A random player with its own seeded stream.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn choose_move(&mut self, game: &Game) -> Result<Move, PlayerFailure> {
        let moves = game.legal_moves();
        moves
            .as_slice()
            .choose(&mut self.rng)
            .copied()
            .ok_or_else(|| PlayerFailure::Internal("no legal move".into()))
    }
}
