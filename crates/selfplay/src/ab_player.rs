//! Self-play by the alpha-beta engine (the data of an NNUE run): every
//! move is a fixed-depth (or fixed-node) search with the current static
//! evaluation; each searched position becomes a [`Sample`] whose search
//! score is kept as its root W/D/L (see [`score_to_wdl`]) beside the game
//! result, so the learner can blend the two (Stockfish's lambda).
//!
//! Games run in parallel on a rayon pool, one single-threaded search per
//! game; each game draws its random opening from its own ChaCha8 stream
//! (seed, game number), so a run is reproducible from its seed whatever
//! the thread count. Games are handed out in waves of `games_in_flight`
//! and reported in game-number order; a stop request ends the call after
//! the current wave.

use crate::config::SelfPlayConfig;
use crate::error::SelfPlayError;
use crate::finished::FinishedGame;
use crate::pool::thread_pool;
use crate::sample::{FLAG_ADJUDICATED, FLAG_FULL_SEARCH, FLAG_TABLEBASE, Sample};
use crate::stats::SelfPlayStats;
use crate::tablebases::{configured_tablebases, tablebase_result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use shashki_rules::{DrawRules, EndReason, Game, GameResult, Outcome, Position};
use shashki_search::alphabeta::{AbConfig, AlphaBeta, MATE_BOUND, StaticEval};
use shashki_search::limits::SearchLimits;
use shashki_tablebase::Tablebases;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Transposition table of each self-play search, in MiB. Small on purpose:
/// the table is cleared before every move, and a depth-6 search fills a
/// fraction of it.
const SELFPLAY_TT_MEGABYTES: usize = 2;

/// Centi-men per logit unit used to turn a search score into an expected
/// score (the NNUE output's scale: `shashki_nnue::EVAL_CP_PER_UNIT`).
pub const SCORE_CP_PER_UNIT: f32 = 200.0;

/// How deep each self-play move searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbSelfPlayLimits {
    /// Nominal depth in plies.
    pub depth: u32,
    /// Node budget per move (0: depth only).
    pub nodes: u64,
    /// Record no sample of positions where a capture is due (the search
    /// never evaluates them statically: quiescence resolves captures).
    pub skip_captures: bool,
}

/// The search score (centi-men, side to move's view) as a root W/D/L:
/// a forced game end is certain, otherwise the expected score
/// `s = sigmoid(score / 200)` is written as `[s, 0, 1 - s]` (its
/// `W + D/2` is `s`); a score of exactly 0 with nothing on the board
/// deciding it stays `[0.5, 0, 0.5]`.
pub fn score_to_wdl(score: i32) -> [f32; 3] {
    if score > MATE_BOUND {
        return [1.0, 0.0, 0.0];
    }
    if score < -MATE_BOUND {
        return [0.0, 0.0, 1.0];
    }
    let s = 1.0 / (1.0 + (-(score as f32) / SCORE_CP_PER_UNIT).exp());
    [s, 0.0, 1.0 - s]
}

/// Plays self-play games with the alpha-beta engine.
pub struct AbSelfPlayer {
    config: SelfPlayConfig,
    limits: AbSelfPlayLimits,
    rules: DrawRules,
    seed: u64,
    next_game: u64,
    pool: rayon::ThreadPool,
    stop: Option<Arc<AtomicBool>>,
    tablebases: Option<Arc<Tablebases>>,
}

impl AbSelfPlayer {
    /// A player whose game `i` draws from ChaCha8 stream `i` of `seed`;
    /// `[selfplay] threads` games are searched at once. `rules.max_plies`
    /// bounds game length.
    pub fn new(
        config: SelfPlayConfig,
        limits: AbSelfPlayLimits,
        rules: DrawRules,
        seed: u64,
    ) -> Result<AbSelfPlayer, SelfPlayError> {
        config.validate().map_err(SelfPlayError::Config)?;
        if limits.depth == 0 {
            return Err(SelfPlayError::Config(
                "search depth must be at least 1".into(),
            ));
        }
        let pool = thread_pool(config.threads, "ab-selfplay")?;
        // Missing tables are generated silently here; `shashki tb generate`
        // shows their progress.
        let tablebases = configured_tablebases(&config, &rules, &mut |_| {})?;
        Ok(AbSelfPlayer {
            config,
            limits,
            rules,
            seed,
            next_game: 0,
            pool,
            stop: None,
            tablebases,
        })
    }

    /// Makes [`AbSelfPlayer::play`] return after the current wave once
    /// `stop` is set.
    pub fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// Number of the next game to start.
    pub fn next_game(&self) -> u64 {
        self.next_game
    }

    /// Continues a run's game numbering (so no game repeats a stream).
    pub fn set_next_game(&mut self, index: u64) {
        self.next_game = index;
    }

    /// Plays `games` games with (forks of) `eval`, handing each to
    /// `on_game` in game-number order as its wave ends.
    pub fn play(
        &mut self,
        eval: &dyn StaticEval,
        games: usize,
        mut on_game: impl FnMut(FinishedGame),
    ) -> Result<SelfPlayStats, SelfPlayError> {
        let start = Instant::now();
        let mut stats = SelfPlayStats::default();
        let wave = self.config.games_in_flight.max(1);
        let mut done = 0;
        while done < games && !self.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst)) {
            let count = wave.min(games - done);
            let first = self.next_game;
            let evals: Vec<Box<dyn StaticEval>> = (0..count).map(|_| eval.fork()).collect();
            let finished: Vec<(FinishedGame, u64, f64)> = self.pool.install(|| {
                evals
                    .into_par_iter()
                    .enumerate()
                    .map(|(i, eval)| self.play_one(first + i as u64, eval))
                    .collect()
            });
            self.next_game += count as u64;
            done += count;
            for (game, nodes, seconds) in finished {
                stats.add_game(&game);
                stats.evaluations += nodes;
                stats.step_seconds += seconds;
                on_game(game);
            }
        }
        stats.wall_seconds = start.elapsed().as_secs_f64();
        Ok(stats)
    }

    /// One whole game; returns it with the nodes searched and the seconds spent.
    fn play_one(&self, index: u64, eval: Box<dyn StaticEval>) -> (FinishedGame, u64, f64) {
        let started = Instant::now();
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(index);
        let mut game = Game::with_rules(Position::startpos(), self.rules);
        let opening = rng.random_range(0..=self.config.random_opening_plies);
        let mut opening_plies = 0;
        while opening_plies < opening && !game.is_over() {
            let moves = game.legal_moves();
            game.play(&moves[rng.random_range(0..moves.len())]);
            opening_plies += 1;
        }
        let config = AbConfig {
            tt_megabytes: SELFPLAY_TT_MEGABYTES,
            threads: 1,
            ..AbConfig::default()
        };
        let mut engine = AlphaBeta::with_eval(config, eval);
        let limits = SearchLimits {
            depth: Some(self.limits.depth),
            nodes: (self.limits.nodes > 0).then_some(self.limits.nodes),
            ..SearchLimits::default()
        };
        let mut samples = Vec::with_capacity(128);
        let mut nodes = 0;
        let mut tablebase = None;
        while !game.is_over() {
            if let Some(result) = self
                .tablebases
                .as_deref()
                .and_then(|tb| tablebase_result(tb, &game))
            {
                tablebase = Some(result);
                break;
            }
            let result = engine.search(&game, &limits);
            nodes += result.nodes;
            let Some(best) = result.best_move else { break };
            let moves = game.legal_moves();
            if !(self.limits.skip_captures && moves.iter().any(|m| m.is_capture())) {
                let mut sample = Sample::new(*game.position(), game.draw_state());
                sample.set_policy(&[best], &[1.0]);
                sample.flags = FLAG_FULL_SEARCH;
                sample.ply = game.ply().min(u16::MAX as usize) as u16;
                sample.legal_moves = moves.len().min(u16::MAX as usize) as u16;
                sample.root_wdl = score_to_wdl(result.score);
                samples.push(sample);
            }
            game.play(&best);
        }
        let finished = finish(index, game, samples, opening_plies, tablebase);
        (finished, nodes, started.elapsed().as_secs_f64())
    }
}

/// Fills in results, plies left and end flags.
fn finish(
    index: u64,
    game: Game,
    mut samples: Vec<Sample>,
    opening_plies: u32,
    tablebase: Option<GameResult>,
) -> FinishedGame {
    let outcome = tablebase
        .map(|result| Outcome {
            result,
            reason: EndReason::Adjudication,
        })
        .or(game.outcome())
        .unwrap_or(Outcome {
            // Unreachable: the loop ends only when the game is over.
            result: GameResult::Draw,
            reason: EndReason::Adjudication,
        });
    let extra_flags = match outcome.reason {
        _ if tablebase.is_some() => FLAG_TABLEBASE,
        EndReason::Adjudication => FLAG_ADJUDICATED,
        _ => 0,
    };
    let final_ply = game.ply();
    for s in &mut samples {
        s.result = match outcome.result.winner() {
            None => 0,
            Some(w) if w == s.position.side_to_move() => 1,
            Some(_) => -1,
        };
        s.plies_left = final_ply
            .saturating_sub(s.ply as usize)
            .min(u16::MAX as usize) as u16;
        s.flags |= extra_flags;
    }
    FinishedGame {
        index,
        game,
        outcome,
        samples,
        opening_plies,
        playthrough: false,
        would_resign: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_search::alphabeta::{EvalWeights, HandEval};

    fn player(threads: usize, seed: u64) -> AbSelfPlayer {
        let config = SelfPlayConfig {
            threads,
            games_in_flight: 3,
            random_opening_plies: 6,
            ..SelfPlayConfig::default()
        };
        let limits = AbSelfPlayLimits {
            depth: 2,
            nodes: 0,
            skip_captures: true,
        };
        let rules = DrawRules {
            max_plies: Some(80),
            ..DrawRules::default()
        };
        AbSelfPlayer::new(config, limits, rules, seed).unwrap()
    }

    fn play(threads: usize, seed: u64, games: usize) -> Vec<FinishedGame> {
        let eval = HandEval::new(&EvalWeights::default());
        let mut out = Vec::new();
        player(threads, seed)
            .play(&eval, games, |g| out.push(g))
            .unwrap();
        out
    }

    #[test]
    fn games_are_reproducible_from_the_seed_with_any_thread_count() {
        let a = play(1, 3, 4);
        let b = play(2, 3, 4);
        assert_eq!(a.len(), 4);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.index, y.index);
            assert_eq!(x.game.moves(), y.game.moves());
            assert_eq!(x.samples, y.samples);
        }
        let c = play(1, 4, 1);
        assert_ne!(a[0].game.moves(), c[0].game.moves());
    }

    #[test]
    fn samples_hold_result_score_and_no_capture_positions() {
        for g in play(2, 7, 4) {
            assert!(g.game.is_over() || g.outcome.reason == EndReason::Adjudication);
            assert!(!g.samples.is_empty());
            for s in &g.samples {
                assert!(!s.position.legal_moves().iter().any(|m| m.is_capture()));
                let expected = match g.outcome.result.winner() {
                    None => 0,
                    Some(w) if w == s.position.side_to_move() => 1,
                    Some(_) => -1,
                };
                assert_eq!(s.result, expected);
                let [w, d, l] = s.root_wdl;
                assert!((w + d + l - 1.0).abs() < 1e-5 && d == 0.0);
                assert_eq!(s.policy().len(), 1);
            }
        }
    }

    #[test]
    fn scores_map_to_expected_scores() {
        assert_eq!(score_to_wdl(0), [0.5, 0.0, 0.5]);
        assert_eq!(score_to_wdl(MATE_BOUND + 5), [1.0, 0.0, 0.0]);
        assert_eq!(score_to_wdl(-MATE_BOUND - 5), [0.0, 0.0, 1.0]);
        let [w, _, _] = score_to_wdl(200);
        assert!((w - 0.731_058_6).abs() < 1e-6);
    }
}
