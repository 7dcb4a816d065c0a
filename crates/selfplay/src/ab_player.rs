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
//!
//! [`AbDataOptions`] (set with [`AbSelfPlayer::set_data_options`]) widen
//! the data: games start from `[selfplay] openings`, multi-PV plies, tree
//! samples, exact tablebase labels ([`crate::ab_data`]); the player counts
//! the distinct sample positions it has produced.

use crate::ab_data::{
    AbDataOptions, TreeLabeller, exact_label, exact_sample, game_sample, multipv_choice,
    multipv_plies, tree_sample_count,
};
use crate::config::{AB_GAMES_PER_THREAD, SelfPlayConfig};
use crate::drawish::DrawishEval;
use crate::error::SelfPlayError;
use crate::finished::{FinishedGame, final_outcome, label_samples};
use crate::pool::thread_pool;
use crate::sample::{FLAG_FULL_SEARCH, Sample};
use crate::stats::SelfPlayStats;
use crate::surprise::{surprise, weight_by_surprise};
use crate::tablebases::{configured_tablebases, tablebase_result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use shashki_rules::book::{Opening, read_book};
use shashki_rules::{DrawRules, Game, GameResult, Position};
use shashki_search::alphabeta::{AbConfig, AlphaBeta, Selectivity, StaticEval};
use shashki_search::limits::SearchLimits;
use shashki_tablebase::Tablebases;
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Transposition table of each self-play search, in MiB. Small on purpose:
/// the table is cleared before every move, and a depth-6 search fills a
/// fraction of it.
const SELFPLAY_TT_MEGABYTES: usize = 2;

pub use crate::ab_data::{SCORE_CP_PER_UNIT, score_to_wdl};

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
    /// Which moves the search looks at less deeply: a recipe names it, so
    /// that a change of the engine's default search does not change what
    /// a depth means in its data ([`Selectivity::NONE`]: full width).
    pub selectivity: Selectivity,
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
    /// `[selfplay] openings`, when given.
    book: Vec<Opening>,
    data: AbDataOptions,
    /// Hashes of every sample position produced so far.
    seen: HashSet<u64>,
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
        let config = config.resolved(AB_GAMES_PER_THREAD);
        if limits.depth == 0 {
            return Err(SelfPlayError::Config(
                "search depth must be at least 1".into(),
            ));
        }
        let pool = thread_pool(config.threads, "ab-selfplay")?;
        // Missing tables are generated silently here; `shashki tb generate`
        // shows their progress.
        let tablebases = configured_tablebases(&config, &rules, &mut |_| {})?;
        let book = match &config.openings {
            Some(path) => read_book(std::path::Path::new(path))
                .map_err(|e| SelfPlayError::Config(format!("[selfplay] openings: {e}")))?,
            None => Vec::new(),
        };
        Ok(AbSelfPlayer {
            config,
            limits,
            rules,
            seed,
            next_game: 0,
            pool,
            stop: None,
            tablebases,
            book,
            data: AbDataOptions::default(),
            seen: HashSet::new(),
        })
    }

    /// Widens the data ([`crate::ab_data`]); exact labels and tablebase
    /// searches need `[selfplay] tablebase_dir`.
    pub fn set_data_options(&mut self, data: AbDataOptions) -> Result<(), SelfPlayError> {
        data.validate().map_err(SelfPlayError::Config)?;
        if (data.exact_labels || data.tablebase_search) && self.tablebases.is_none() {
            return Err(SelfPlayError::Config(
                "exact_labels and tablebase_search need [selfplay] tablebase_dir".into(),
            ));
        }
        self.data = data;
        Ok(())
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
                for sample in &game.samples {
                    if self.seen.insert(sample.position.hash()) {
                        stats.distinct_positions += 1;
                    }
                }
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
        let (mut game, opening_plies) = self.opening(&mut rng);
        let random_plies = multipv_plies(&self.data.multipv, &mut rng);
        let mut engine = self.engine(eval);
        let limits = SearchLimits {
            depth: Some(self.limits.depth),
            nodes: (self.limits.nodes > 0).then_some(self.limits.nodes),
            ..SearchLimits::default()
        };
        let exact_tables = self
            .tablebases
            .as_deref()
            .filter(|_| self.data.exact_labels);
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
                if let Some((wdl, result)) = exact_tables.and_then(|tb| exact_label(tb, &game))
                    && self.records(&game)
                {
                    samples.push(exact_sample(&game, wdl, result));
                }
                break;
            }
            let (played, best, score) = if random_plies.binary_search(&game.ply()).is_ok() {
                let margin = self.data.multipv.margin;
                let Some(choice) =
                    multipv_choice(&mut engine, &game, self.limits.depth, margin, &mut rng)
                else {
                    break;
                };
                nodes += choice.nodes;
                (choice.played, choice.best, choice.score)
            } else {
                let result = engine.search(&game, &limits);
                nodes += result.nodes;
                let Some(best) = result.best_move else { break };
                (best, best, result.score)
            };
            if self.records(&game) {
                let mut sample = game_sample(&game);
                sample.set_policy(&[best], &[1.0]);
                sample.flags = FLAG_FULL_SEARCH;
                sample.root_wdl = score_to_wdl(score);
                samples.push(sample);
            }
            for _ in 0..tree_sample_count(self.data.tree.rate, &mut rng) {
                let mut labeller = TreeLabeller {
                    engine: &mut engine,
                    exact: exact_tables,
                    skip_captures: self.limits.skip_captures,
                };
                let (sample, searched) = labeller.draw(&game, &self.data.tree, &mut rng);
                nodes += searched;
                samples.extend(sample);
            }
            game.play(&played);
        }
        let mut finished = finish(index, game, samples, opening_plies, tablebase);
        if self.data.surprise_weight > 0.0 {
            let surprises: Vec<f32> = finished
                .samples
                .iter()
                .map(|s| {
                    let cp = engine.evaluate(&Game::with_rules(s.position, self.rules));
                    let [w, d, _] = score_to_wdl(cp);
                    surprise(s, w + 0.5 * d)
                })
                .collect();
            let samples = std::mem::take(&mut finished.samples);
            let share = self.data.surprise_weight;
            finished.samples = weight_by_surprise(samples, &surprises, share, &mut rng);
        }
        (finished, nodes, started.elapsed().as_secs_f64())
    }

    /// The game's start: a book opening when `[selfplay] openings` is set,
    /// then 0..=`random_opening_plies` random moves; returns the plies
    /// played before the first search.
    fn opening(&self, rng: &mut ChaCha8Rng) -> (Game, u32) {
        let mut game = match self.book.len() {
            0 => Game::with_rules(Position::startpos(), self.rules),
            n => self.book[rng.random_range(0..n)].game(self.rules),
        };
        let mut opening_plies = game.ply() as u32;
        let opening = rng.random_range(0..=self.config.random_opening_plies);
        let mut random = 0;
        while random < opening && !game.is_over() {
            let moves = game.legal_moves();
            game.play(&moves[rng.random_range(0..moves.len())]);
            random += 1;
        }
        opening_plies += random;
        (game, opening_plies)
    }

    /// The game's searcher: `eval` (scaled in drawish material when asked),
    /// probing the tablebases when asked.
    fn engine(&self, eval: Box<dyn StaticEval>) -> AlphaBeta {
        let config = AbConfig {
            tt_megabytes: SELFPLAY_TT_MEGABYTES,
            threads: 1,
            selectivity: self.limits.selectivity,
            ..AbConfig::default()
        };
        let eval: Box<dyn StaticEval> = if self.data.drawish_scale {
            Box::new(DrawishEval::new(eval))
        } else {
            eval
        };
        let tablebases = self
            .tablebases
            .clone()
            .filter(|_| self.data.tablebase_search);
        AlphaBeta::with_eval(config, eval).with_tablebases(tablebases)
    }

    /// True if the current position of `game` gives a sample.
    fn records(&self, game: &Game) -> bool {
        !(self.limits.skip_captures && game.legal_moves().iter().any(|m| m.is_capture()))
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
    let outcome = final_outcome(&game, tablebase);
    label_samples(&mut samples, &outcome, tablebase.is_some(), game.ply());
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
    use crate::sample::FLAG_TREE;
    use shashki_rules::EndReason;
    use shashki_search::alphabeta::{EvalWeights, HandEval, MATE_BOUND};

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
            selectivity: Selectivity::NONE,
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

    fn player_with(seed: u64, config: SelfPlayConfig, data: AbDataOptions) -> AbSelfPlayer {
        let limits = AbSelfPlayLimits {
            depth: 2,
            nodes: 0,
            skip_captures: true,
            selectivity: Selectivity::NONE,
        };
        let rules = DrawRules {
            max_plies: Some(60),
            ..DrawRules::default()
        };
        let mut player = AbSelfPlayer::new(config, limits, rules, seed).unwrap();
        player.set_data_options(data).unwrap();
        player
    }

    fn play_with(player: &mut AbSelfPlayer, games: usize) -> (Vec<FinishedGame>, SelfPlayStats) {
        let eval = HandEval::new(&EvalWeights::default());
        let mut out = Vec::new();
        let stats = player.play(&eval, games, |g| out.push(g)).unwrap();
        (out, stats)
    }

    fn no_random_openings(threads: usize) -> SelfPlayConfig {
        SelfPlayConfig {
            threads,
            games_in_flight: 4,
            random_opening_plies: 0,
            ..SelfPlayConfig::default()
        }
    }

    fn multipv(moves: u32) -> AbDataOptions {
        AbDataOptions {
            multipv: crate::MultiPv {
                moves,
                plies: 8,
                margin: 10_000,
            },
            ..AbDataOptions::default()
        }
    }

    /// The distinct positions of the games after `ply` plies.
    fn distinct_at(games: &[FinishedGame], ply: usize) -> usize {
        let set: HashSet<u64> = games
            .iter()
            .map(|g| g.game.position_at(ply).unwrap().hash())
            .collect();
        set.len()
    }

    #[test]
    fn multipv_plies_widen_the_openings_and_stay_reproducible() {
        let (plain, _) = play_with(&mut player_with(5, no_random_openings(1), multipv(0)), 8);
        // Without randomness every game is the same deterministic search.
        assert_eq!(distinct_at(&plain, 8), 1);
        let (wide, _) = play_with(&mut player_with(5, no_random_openings(1), multipv(3)), 8);
        assert!(distinct_at(&wide, 8) >= 6, "{}", distinct_at(&wide, 8));
        let (again, _) = play_with(&mut player_with(5, no_random_openings(2), multipv(3)), 8);
        for (a, b) in wide.iter().zip(&again) {
            assert_eq!(a.game.moves(), b.game.moves());
            assert_eq!(a.samples, b.samples);
        }
        // Another seed, other openings.
        let (other, _) = play_with(&mut player_with(6, no_random_openings(1), multipv(3)), 8);
        assert!(
            other
                .iter()
                .zip(&wide)
                .any(|(a, b)| a.game.moves() != b.game.moves())
        );
    }

    #[test]
    fn surprise_weighting_repeats_samples_and_stays_reproducible() {
        let config = |threads| SelfPlayConfig {
            random_opening_plies: 4,
            ..no_random_openings(threads)
        };
        let plain = play_with(&mut player_with(5, config(2), AbDataOptions::default()), 4).0;
        let data = AbDataOptions {
            surprise_weight: 0.8,
            ..AbDataOptions::default()
        };
        let (weighted, _) = play_with(&mut player_with(5, config(2), data), 4);
        let (again, _) = play_with(&mut player_with(5, config(1), data), 4);
        for ((p, w), a) in plain.iter().zip(&weighted).zip(&again) {
            assert_eq!(p.game.moves(), w.game.moves(), "the games are the same");
            assert_eq!(
                w.samples, a.samples,
                "and so are their weights, on any thread count"
            );
        }
        let repeated = weighted
            .iter()
            .flat_map(|g| g.samples.windows(2))
            .filter(|pair| pair[0] == pair[1])
            .count();
        assert!(repeated > 0, "some surprising samples are written twice");
        let before: usize = plain.iter().map(|g| g.samples.len()).sum();
        let after: usize = weighted.iter().map(|g| g.samples.len()).sum();
        assert_ne!(before, after);
        assert!(
            after * 10 > before * 7 && after * 10 < before * 13,
            "{before} -> {after}"
        );
    }

    #[test]
    fn tree_samples_carry_their_own_search_score_and_no_game_result() {
        let data = AbDataOptions {
            tree: crate::TreeSamples {
                rate: 0.5,
                max_plies: 3,
                depth: 3,
            },
            ..AbDataOptions::default()
        };
        let (games, stats) = play_with(&mut player_with(9, no_random_openings(2), data), 4);
        let config = AbConfig {
            tt_megabytes: SELFPLAY_TT_MEGABYTES,
            threads: 1,
            selectivity: Selectivity::NONE,
            ..AbConfig::default()
        };
        let mut direct = AlphaBeta::new(config);
        let (mut tree, mut line, mut off_line) = (0, 0, 0);
        for g in &games {
            let line_positions: HashSet<u64> = (0..=g.game.ply())
                .map(|p| g.game.position_at(p).unwrap().hash())
                .collect();
            for s in &g.samples {
                if s.flags & FLAG_TREE == 0 {
                    line += 1;
                    continue;
                }
                tree += 1;
                assert_eq!(s.result, 0);
                assert!(!s.position.legal_moves().iter().any(|m| m.is_capture()));
                let game = Game::with_rules(s.position, *g.game.rules());
                let result = direct.search(&game, &SearchLimits::depth(3));
                assert_eq!(s.root_wdl, score_to_wdl(result.score));
                off_line += usize::from(!line_positions.contains(&s.position.hash()));
            }
        }
        assert!(
            tree > line / 5 && tree < 2 * line,
            "{tree} tree, {line} line samples"
        );
        assert!(
            off_line * 4 >= tree * 3,
            "{off_line} of {tree} off the game line"
        );
        assert_eq!(stats.samples as usize, tree + line);
    }

    #[test]
    fn games_start_from_the_book_and_distinct_positions_are_counted() {
        let dir = std::env::temp_dir().join(format!("shashki-ab-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let book = dir.join("book.txt");
        std::fs::write(&book, "A | 1. c3-d4 f6-g5\nB | 1. g3-h4 b6-a5 2. h4-g5\n").unwrap();
        let config = SelfPlayConfig {
            openings: Some(book.display().to_string()),
            ..no_random_openings(1)
        };
        let mut player = player_with(2, config, AbDataOptions::default());
        let (games, stats) = play_with(&mut player, 6);
        let firsts: HashSet<String> = games
            .iter()
            .map(|g| g.game.moves()[0].to_string())
            .collect();
        assert_eq!(
            firsts,
            HashSet::from(["c3-d4".to_string(), "g3-h4".to_string()])
        );
        for g in &games {
            assert_eq!(
                g.opening_plies as usize,
                if g.game.moves()[0].to_string() == "c3-d4" {
                    2
                } else {
                    3
                }
            );
        }
        let distinct: HashSet<u64> = games
            .iter()
            .flat_map(|g| g.samples.iter().map(|s| s.position.hash()))
            .collect();
        assert_eq!(stats.distinct_positions as usize, distinct.len());
        // A second call counts only positions not seen before.
        let (_, again) = play_with(&mut player, 2);
        assert!(again.distinct_positions < again.samples, "{again:?}");
        let bad = SelfPlayConfig {
            openings: Some(dir.join("missing.txt").display().to_string()),
            ..no_random_openings(1)
        };
        let limits = AbSelfPlayLimits {
            depth: 2,
            nodes: 0,
            skip_captures: true,
            selectivity: Selectivity::NONE,
        };
        let err = AbSelfPlayer::new(bad, limits, DrawRules::default(), 1)
            .err()
            .unwrap();
        assert!(err.to_string().contains("missing.txt"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn exact_labels_come_from_the_tables() {
        let dir = std::env::temp_dir().join(format!("shashki-ab-exact-{}", std::process::id()));
        let config = SelfPlayConfig {
            tablebase_dir: Some(dir.display().to_string()),
            tablebase_pieces: 3,
            ..no_random_openings(2)
        };
        let data = AbDataOptions {
            exact_labels: true,
            tablebase_search: true,
            tree: crate::TreeSamples {
                rate: 1.0,
                max_plies: 4,
                depth: 2,
            },
            ..AbDataOptions::default()
        };
        // Four pieces: the first capture enters the 3-piece tables.
        let book = dir.with_extension("txt");
        std::fs::write(&book, "W:WKc3,e3:BKh8,Kb8\nW:Wc3,g3:Bf6,Kd8\n").unwrap();
        let config = SelfPlayConfig {
            openings: Some(book.display().to_string()),
            ..config
        };
        let mut player = player_with(4, config, data);
        let (games, _) = play_with(&mut player, 6);
        let tb = player.tablebases.clone().unwrap();
        let mut exact = 0;
        for g in &games {
            for s in &g.samples {
                if s.flags & crate::sample::FLAG_EXACT != 0 {
                    exact += 1;
                    assert!(s.position.white().count_ones() + s.position.black().count_ones() <= 3);
                    // (None: the draw state alone cannot tell; the game's counters did.)
                    let Some(wdl) = tb.probe_draw_state(&s.position, &s.draw_state) else {
                        continue;
                    };
                    let expected = match wdl {
                        shashki_tablebase::Wdl::Win => ([1.0, 0.0, 0.0], 1),
                        shashki_tablebase::Wdl::Draw => ([0.0, 1.0, 0.0], 0),
                        shashki_tablebase::Wdl::Loss => ([0.0, 0.0, 1.0], -1),
                    };
                    assert_eq!((s.root_wdl, s.result), expected);
                }
            }
        }
        assert!(exact > 0, "no exact sample in {} games", games.len());
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_file(book).unwrap();
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
