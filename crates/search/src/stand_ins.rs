//! Stand-in evaluators: uniform priors with a fixed, pseudo-random or
//! rollout value. For tests, benchmarks and as a baseline before a network.
//!
//! Both are pure functions of the request (and their seed), so results do
//! not depend on batching, threading or call order.

use crate::evaluator::{EvalRequest, Evaluation, Evaluator, Wdl};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::splitmix::splitmix64;
use shashki_rules::{Color, DrawState, Game, GameResult};

/// A 64-bit key of a request: position hash, draw-rule state and a seed.
#[inline]
pub(crate) fn request_key(request: &EvalRequest<'_>, seed: u64) -> u64 {
    let draw = draw_state_word(request.draw_state);
    splitmix64(request.position.hash() ^ splitmix64(draw ^ splitmix64(seed)))
}

/// The draw-rule state packed in one word.
#[inline]
pub(crate) fn draw_state_word(state: DrawState) -> u64 {
    let plies = state.plies_to_draw.map_or(0xFFFF_FFFF, u64::from);
    (u64::from(state.repetitions) << 32) | plies
}

/// How [`UniformEvaluator`] values a position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UniformValue {
    /// The same W/D/L everywhere.
    Fixed(Wdl),
    /// A pseudo-random value per position, fixed by the position, its
    /// draw-rule state and the seed.
    Random {
        /// The seed.
        seed: u64,
    },
}

/// Uniform priors and a fixed or pseudo-random value: the cheapest possible
/// evaluator (the search's own overhead is what remains).
#[derive(Clone, Debug, PartialEq)]
pub struct UniformEvaluator {
    value: UniformValue,
}

impl UniformEvaluator {
    /// Uniform priors, every position a draw.
    pub fn draw() -> UniformEvaluator {
        UniformEvaluator {
            value: UniformValue::Fixed(Wdl::DRAW),
        }
    }

    /// Uniform priors, this W/D/L everywhere.
    pub fn fixed(wdl: Wdl) -> UniformEvaluator {
        UniformEvaluator {
            value: UniformValue::Fixed(wdl),
        }
    }

    /// Uniform priors, a pseudo-random value per position.
    pub fn random(seed: u64) -> UniformEvaluator {
        UniformEvaluator {
            value: UniformValue::Random { seed },
        }
    }

    fn wdl(&self, request: &EvalRequest<'_>) -> Wdl {
        match self.value {
            UniformValue::Fixed(wdl) => wdl,
            UniformValue::Random { seed } => {
                let bits = request_key(request, seed);
                // v uniform in [-1, 1]; the rest of the mass is a draw.
                let v = (bits >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
                Wdl {
                    win: v.max(0.0),
                    draw: 1.0 - v.abs(),
                    loss: (-v).max(0.0),
                }
            }
        }
    }
}

impl Evaluator for UniformEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        for (request, eval) in batch.iter().zip(out.iter_mut()) {
            eval.set_uniform(request.moves.len(), self.wdl(request));
        }
    }
}

/// Uniform priors and the mean result of random playouts to the end of the
/// game, judged by the [`Game`] arbiter (official draw rules).
///
/// Playouts start a fresh [`Game`] at the position, so repetitions and
/// draw counts from before the leaf are not seen. A playout longer than
/// `max_plies` counts as a draw. Each position's playouts use their own
/// ChaCha8 stream seeded by the position, its draw state and the seed.
#[derive(Clone, Debug, PartialEq)]
pub struct RolloutEvaluator {
    rollouts: u32,
    max_plies: u32,
    seed: u64,
}

impl RolloutEvaluator {
    /// Default playout cap in half-moves.
    pub const DEFAULT_MAX_PLIES: u32 = 200;

    /// `rollouts` playouts per position (at least 1), with `seed`.
    pub fn new(rollouts: u32, seed: u64) -> RolloutEvaluator {
        RolloutEvaluator {
            rollouts: rollouts.max(1),
            max_plies: Self::DEFAULT_MAX_PLIES,
            seed,
        }
    }

    /// The W/D/L of one request from its side to move's view.
    pub fn rollout_wdl(&self, request: &EvalRequest<'_>) -> Wdl {
        let mut rng = ChaCha8Rng::seed_from_u64(request_key(request, self.seed));
        let me = request.position.side_to_move();
        let mut wdl = [0u32; 3];
        for _ in 0..self.rollouts {
            let result = self.playout(request, &mut rng);
            let slot = match (result, me) {
                (GameResult::Draw, _) => 1,
                (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => 0,
                _ => 2,
            };
            wdl[slot] += 1;
        }
        let n = self.rollouts as f32;
        Wdl {
            win: wdl[0] as f32 / n,
            draw: wdl[1] as f32 / n,
            loss: wdl[2] as f32 / n,
        }
    }

    fn playout(&self, request: &EvalRequest<'_>, rng: &mut ChaCha8Rng) -> GameResult {
        let mut game = Game::new(*request.position);
        for _ in 0..self.max_plies {
            if let Some(outcome) = game.outcome() {
                return outcome.result;
            }
            let moves = game.legal_moves();
            let mv = moves[rng.random_range(0..moves.len())];
            game.play(&mv);
        }
        game.outcome().map_or(GameResult::Draw, |o| o.result)
    }
}

impl Evaluator for RolloutEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        for (request, eval) in batch.iter().zip(out.iter_mut()) {
            eval.set_uniform(request.moves.len(), self.rollout_wdl(request));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_rules::Position;

    fn request<'a>(pos: &'a Position, moves: &'a [shashki_rules::Move]) -> EvalRequest<'a> {
        EvalRequest {
            position: pos,
            draw_state: DrawState::default(),
            moves,
        }
    }

    #[test]
    fn uniform_random_is_a_function_of_the_position() {
        let pos = Position::startpos();
        let moves: Vec<_> = pos.legal_moves().iter().copied().collect();
        let eval = UniformEvaluator::random(3);
        let mut out = vec![Evaluation::default(); 2];
        eval.evaluate(&[request(&pos, &moves), request(&pos, &moves)], &mut out);
        assert_eq!(out[0], out[1]);
        assert_eq!(out[0].priors, vec![1.0 / 7.0; 7]);
        let w = out[0].wdl;
        assert!((w.win + w.draw + w.loss - 1.0).abs() < 1e-6);
        let other = pos.make_move(&moves[0]);
        let other_moves: Vec<_> = other.legal_moves().iter().copied().collect();
        eval.evaluate(&[request(&other, &other_moves)], &mut out[..1]);
        assert_ne!(out[0].wdl, w);
    }

    #[test]
    fn rollouts_see_a_won_position() {
        // White king against a lone black man that White captures at once.
        let pos = Position::from_fen("W:WKa1:Bb2").unwrap();
        let moves: Vec<_> = pos.legal_moves().iter().copied().collect();
        let eval = RolloutEvaluator::new(4, 1);
        let wdl = eval.rollout_wdl(&request(&pos, &moves));
        assert_eq!(wdl, Wdl::WIN);
    }
}
