//! Many self-play games at once, driven from one loop.
//!
//! Every game slot owns a resumable [`Search`]. One round of the loop
//! (1) evaluates the leaves every game is waiting for in network calls of
//! up to `batch_size` positions, several calls at once on a rayon pool of
//! `threads` workers (burn's CPU backend keeps about one core busy per call
//! at these sizes, so two calls on two cores nearly double throughput), then
//! (2) on the same pool, hands each game its evaluations and steps its
//! search until it waits for the network again (playing moves, recording
//! samples, ending games). Each game's search is single-threaded.
//!
//! Why this shape rather than one thread per game blocking on a batching
//! evaluator: every game in flight contributes its leaves to every batch, so
//! batches are as full as the number of games allows, no thread ever waits
//! on a condition variable, and the order of everything is fixed. A run is
//! reproducible from its seed whatever the thread count: each game draws
//! from its own ChaCha8 stream (seed, game number), and game numbers are
//! handed out in slot order between rounds.
//!
//! Games carry over between calls of [`SelfPlayer::play`]: a call returns as
//! soon as the requested number of games has finished, and the games still
//! in flight continue in the next call (with whatever network the caller
//! passes then), so batches stay full at generation boundaries.

use crate::config::SelfPlayConfig;
use crate::error::SelfPlayError;
use crate::finished::{FinishedGame, final_outcome, label_samples};
use crate::pool::thread_pool;
use crate::round::{NetworkRound, RoundBuffers};
use crate::sample::{FLAG_FULL_SEARCH, Sample};
use crate::stats::SelfPlayStats;
use crate::tablebases::{configured_tablebases, tablebase_result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use shashki_rules::{Color, DrawRules, Game, GameResult, Position};
use shashki_search::cache::EvalCache;
use shashki_search::{
    Algorithm, EvalRequest, Evaluation, Evaluator, Search, SearchConfig, SearchError,
};
use shashki_tablebase::Tablebases;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// One game in flight.
struct Slot {
    index: u64,
    rng: ChaCha8Rng,
    search: Search,
    searching: bool,
    samples: Vec<Sample>,
    opening_plies: u32,
    resign_allowed: bool,
    /// Consecutive own moves with the root value under the threshold, per colour.
    low_streak: [u32; 2],
    would_resign: Option<Color>,
    resigned: Option<Color>,
    /// The exact result once the game reached the tablebases.
    tablebase: Option<GameResult>,
    /// Positions of this game waiting in the current batch.
    waiting: usize,
    done: bool,
}

/// Settings a slot needs while stepping (shared read-only by the workers).
struct StepContext<'a> {
    selfplay: &'a SelfPlayConfig,
    search: &'a SearchConfig,
    leaves_per_game: usize,
    tablebases: Option<&'a Tablebases>,
}

/// Plays self-play games over an [`Evaluator`].
pub struct SelfPlayer {
    config: SelfPlayConfig,
    search_config: SearchConfig,
    rules: DrawRules,
    seed: u64,
    next_game: u64,
    slots: Vec<Option<Slot>>,
    pool: Option<rayon::ThreadPool>,
    evals: Vec<Evaluation>,
    /// Evaluations of the current network (`[selfplay] cache_entries`).
    cache: Option<EvalCache>,
    round_buffers: RoundBuffers,
    stop: Option<Arc<AtomicBool>>,
    tablebases: Option<Arc<Tablebases>>,
}

impl SelfPlayer {
    /// A player whose game `i` draws from ChaCha8 stream `i` of `seed`.
    /// `rules.max_plies` bounds game length (set it: self-play needs a bound).
    pub fn new(
        config: SelfPlayConfig,
        search_config: SearchConfig,
        rules: DrawRules,
        seed: u64,
    ) -> Result<SelfPlayer, SelfPlayError> {
        SelfPlayer::with_progress(config, search_config, rules, seed, &mut |_| {})
    }

    /// [`SelfPlayer::new`], telling `progress` one line per table pair
    /// while it generates the tablebases `config` asks for on first use.
    pub fn with_progress(
        config: SelfPlayConfig,
        search_config: SearchConfig,
        rules: DrawRules,
        seed: u64,
        progress: &mut dyn FnMut(&str),
    ) -> Result<SelfPlayer, SelfPlayError> {
        config.validate().map_err(SelfPlayError::Config)?;
        if config.openings.is_some() {
            return Err(SelfPlayError::Config(
                "[selfplay] openings: read by alpha-beta (NNUE) self-play only; MCTS self-play starts from the standard position".into(),
            ));
        }
        // `threads = 0` and `games_in_flight = 0`: every core, a full
        // network call per worker each round.
        let config = config.resolved(config.batch_size);
        search_config
            .validate()
            .map_err(|e| SelfPlayError::Config(format!("[search] {e}")))?;
        let pool = if config.threads > 1 {
            Some(thread_pool(config.threads, "selfplay")?)
        } else {
            None
        };
        let slots = (0..config.games_in_flight).map(|_| None).collect();
        let tablebases = configured_tablebases(&config, &rules, progress)?;
        let cache = (config.cache_entries > 0).then(|| EvalCache::new(config.cache_entries));
        Ok(SelfPlayer {
            config,
            search_config,
            rules,
            seed,
            next_game: 0,
            slots,
            pool,
            evals: Vec::new(),
            cache,
            round_buffers: RoundBuffers::default(),
            stop: None,
            tablebases,
        })
    }

    /// Uses `tablebases` to end games that reach them (replaces what
    /// `tablebase_dir` loaded; `None` switches adjudication off). Tables
    /// made for other draw rules than the games' are refused.
    pub fn set_tablebases(
        &mut self,
        tablebases: Option<Arc<Tablebases>>,
    ) -> Result<(), SelfPlayError> {
        if let Some(tb) = &tablebases
            && !tb.follows(&self.rules)
        {
            return Err(SelfPlayError::Tablebase(
                "the tables follow other draw rules than these games".into(),
            ));
        }
        self.tablebases = tablebases;
        Ok(())
    }

    /// Number of the next game to start (continue a run's numbering after a
    /// restart so no game repeats an earlier one's random stream).
    pub fn set_next_game(&mut self, index: u64) {
        self.next_game = index;
    }

    /// Most positions per network call (`[selfplay] batch_size`).
    pub fn batch_size(&self) -> usize {
        self.config.batch_size
    }

    /// Number of the next game to start.
    pub fn next_game(&self) -> u64 {
        self.next_game
    }

    /// Makes [`SelfPlayer::play`] return early, after the games finished so
    /// far, once `stop` is set (Ctrl-C); the games in flight stay in flight.
    pub fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    fn stop_requested(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst))
    }

    /// Games currently in flight.
    pub fn in_flight(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Plays until `games` games have finished, handing each to `on_game` as
    /// it ends (in a fixed order). Every free slot starts a new game at once,
    /// so batches stay full; games still in flight carry over to the next
    /// call.
    pub fn play(
        &mut self,
        evaluator: &dyn Evaluator,
        games: usize,
        on_game: impl FnMut(FinishedGame),
    ) -> Result<SelfPlayStats, SelfPlayError> {
        self.run(evaluator, games, false, on_game)
    }

    /// Like [`SelfPlayer::play`] for a last round: starts only as many new
    /// games as are needed to reach `games`, so no work is left unfinished
    /// (batches thin out towards the end). Games carried over from earlier
    /// calls count towards `games`.
    pub fn play_last(
        &mut self,
        evaluator: &dyn Evaluator,
        games: usize,
        on_game: impl FnMut(FinishedGame),
    ) -> Result<SelfPlayStats, SelfPlayError> {
        self.run(evaluator, games, true, on_game)
    }

    fn run(
        &mut self,
        evaluator: &dyn Evaluator,
        games: usize,
        drain: bool,
        mut on_game: impl FnMut(FinishedGame),
    ) -> Result<SelfPlayStats, SelfPlayError> {
        let start = Instant::now();
        let mut stats = SelfPlayStats::default();
        if let Some(cache) = &self.cache {
            // Each call may bring another network: its answers start afresh.
            cache.clear();
        }
        let mut finished = 0usize;
        while finished < games && !self.stop_requested() {
            let wanted = if drain { games - finished } else { usize::MAX };
            self.fill_slots(wanted);
            let t_net = Instant::now();
            self.evaluate_pending(evaluator, &mut stats);
            stats.net_seconds += t_net.elapsed().as_secs_f64();
            let t_step = Instant::now();
            self.step_games()?;
            stats.step_seconds += t_step.elapsed().as_secs_f64();

            // Collect finished games in slot order (fixed, for reproducibility).
            for slot in &mut self.slots {
                if !slot.as_ref().is_some_and(|s| s.done) {
                    continue;
                }
                let slot = slot.take().expect("checked above");
                stats.search += slot.search.counters();
                let game = finish_game(slot);
                stats.add_game(&game);
                finished += 1;
                on_game(game);
            }
        }
        stats.wall_seconds = start.elapsed().as_secs_f64();
        Ok(stats)
    }

    /// (1) Evaluates what every game waits for, into `self.evals` in slot
    /// order.
    fn evaluate_pending(&mut self, evaluator: &dyn Evaluator, stats: &mut SelfPlayStats) {
        let mut requests: Vec<EvalRequest<'_>> = Vec::new();
        for slot in self.slots.iter_mut().flatten() {
            let pending = slot.search.pending();
            slot.waiting = pending.len();
            requests.extend(pending.iter().map(|leaf| leaf.eval_request()));
        }
        if self.evals.len() < requests.len() {
            self.evals.resize_with(requests.len(), Evaluation::default);
        }
        let round = NetworkRound {
            evaluator,
            pool: self.pool.as_ref(),
            batch_size: self.config.batch_size.max(1),
            cache: self.cache.as_ref(),
        };
        round.evaluate(
            &requests,
            &mut self.evals[..requests.len()],
            &mut self.round_buffers,
            stats,
        );
    }

    /// (2) Steps every game with its evaluations until it waits for the
    /// network again, on the pool's threads when there is one.
    fn step_games(&mut self) -> Result<(), SelfPlayError> {
        let mut slices: Vec<&[Evaluation]> = Vec::with_capacity(self.slots.len());
        let mut at = 0;
        for slot in &self.slots {
            let n = slot.as_ref().map_or(0, |s| s.waiting);
            slices.push(&self.evals[at..at + n]);
            at += n;
        }
        let ctx = StepContext {
            selfplay: &self.config,
            search: &self.search_config,
            leaves_per_game: self.search_config.leaves_per_batch.max(1) as usize,
            tablebases: self.tablebases.as_deref(),
        };
        let step_slot = |slot: &mut Option<Slot>, evals: &&[Evaluation]| match slot {
            Some(slot) => step(slot, evals, &ctx).map_err(|error| SelfPlayError::Search {
                game: slot.index,
                error,
            }),
            None => Ok(()),
        };
        let slots = &mut self.slots;
        match &self.pool {
            Some(pool) => pool.install(|| {
                slots
                    .par_iter_mut()
                    .zip(slices.par_iter())
                    .try_for_each(|(slot, evals)| step_slot(slot, evals))
            }),
            // One thread: no pool, no hand-offs.
            None => slots
                .iter_mut()
                .zip(&slices)
                .try_for_each(|(slot, evals)| step_slot(slot, evals)),
        }
    }

    /// Starts games in empty slots until `wanted` games are in flight (or
    /// every slot is busy).
    fn fill_slots(&mut self, wanted: usize) {
        let mut busy = self.in_flight();
        for i in 0..self.slots.len() {
            if busy >= wanted {
                return;
            }
            if self.slots[i].is_none() {
                let index = self.next_game;
                self.next_game += 1;
                self.slots[i] = Some(self.new_slot(index));
                busy += 1;
            }
        }
    }

    fn new_slot(&self, index: u64) -> Slot {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(index);
        let mut game = Game::with_rules(Position::startpos(), self.rules);
        let opening = rng.random_range(0..=self.config.random_opening_plies);
        let mut opening_plies = 0;
        for _ in 0..opening {
            if game.is_over() {
                break;
            }
            let moves = game.legal_moves();
            let mv = moves[rng.random_range(0..moves.len())];
            game.play(&mv);
            opening_plies += 1;
        }
        let resign_allowed = rng.random::<f32>() >= self.config.resign_playthrough;
        let mut search = Search::new(game, self.search_config.clone())
            .expect("the search config was validated in SelfPlayer::new");
        if self.config.tablebase_search {
            // The tables follow the games' rules (checked when they were set).
            let _ = search.set_tablebases(self.tablebases.clone());
        }
        Slot {
            index,
            rng,
            search,
            searching: false,
            samples: Vec::with_capacity(128),
            opening_plies,
            resign_allowed,
            low_streak: [0; 2],
            would_resign: None,
            resigned: None,
            tablebase: None,
            waiting: 0,
            done: false,
        }
    }
}

fn color_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Applies a game's evaluations, then searches and plays until the game
/// waits for the network or ends.
fn step(slot: &mut Slot, evals: &[Evaluation], ctx: &StepContext<'_>) -> Result<(), SearchError> {
    if !evals.is_empty() {
        slot.search.apply(evals)?;
    }
    slot.waiting = 0;
    loop {
        if slot.done {
            return Ok(());
        }
        if !slot.searching {
            if slot.resigned.is_some() || slot.search.game().is_over() {
                slot.done = true;
                return Ok(());
            }
            if let Some(result) = ctx
                .tablebases
                .and_then(|tb| tablebase_result(tb, slot.search.game()))
            {
                slot.tablebase = Some(result);
                slot.done = true;
                return Ok(());
            }
            if ctx.search.algorithm == Algorithm::Puct {
                let temperature = ctx.selfplay.temperature_at(slot.search.game().ply() as u32);
                if slot.search.config().temperature != temperature {
                    let config = SearchConfig {
                        temperature,
                        ..slot.search.config().clone()
                    };
                    slot.search.set_config(config)?;
                }
            }
            slot.search.begin(&mut slot.rng)?;
            slot.searching = true;
        }
        if !slot.search.select_leaves(ctx.leaves_per_game).is_empty() {
            return Ok(());
        }
        if !slot.search.done() {
            // Every descent ended in a terminal node; keep going (each one
            // counts as a simulation, so the budget is reached).
            continue;
        }
        let result = slot.search.finish(&mut slot.rng)?;
        slot.searching = false;
        let game = slot.search.game();
        let side = game.side_to_move();
        let mut sample = Sample::new(*game.position(), game.draw_state());
        let (moves, probs): (Vec<_>, Vec<f32>) = result.policy.iter().copied().unzip();
        sample.set_policy(&moves, &probs);
        sample.flags = if result.full_search {
            FLAG_FULL_SEARCH
        } else {
            0
        };
        sample.ply = game.ply().min(u16::MAX as usize) as u16;
        sample.legal_moves = moves.len().min(u16::MAX as usize) as u16;
        sample.root_wdl = [result.wdl.win, result.wdl.draw, result.wdl.loss];
        slot.samples.push(sample);

        // Resignation: the side to move's root value stays hopeless.
        let threshold = ctx.selfplay.resign_threshold;
        if threshold > -1.0 {
            let streak = &mut slot.low_streak[color_index(side)];
            *streak = if result.value < threshold {
                *streak + 1
            } else {
                0
            };
            if *streak >= ctx.selfplay.resign_consecutive.max(1) {
                if slot.resign_allowed {
                    slot.resigned = Some(side);
                    slot.done = true;
                    return Ok(());
                }
                slot.would_resign.get_or_insert(side);
            }
        }
        slot.search.advance(&result.best_move)?;
    }
}

/// Fills in the game results of a slot's samples.
fn finish_game(slot: Slot) -> FinishedGame {
    let mut game = slot.search.game().clone();
    if let Some(side) = slot.resigned {
        game.resign(side);
    }
    let outcome = final_outcome(&game, slot.tablebase);
    let mut samples = slot.samples;
    label_samples(&mut samples, &outcome, slot.tablebase.is_some(), game.ply());
    FinishedGame {
        index: slot.index,
        game,
        outcome,
        samples,
        opening_plies: slot.opening_plies,
        playthrough: !slot.resign_allowed,
        would_resign: slot.would_resign,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shashki_rules::EndReason;
    use shashki_search::stand_ins::UniformEvaluator;

    fn configs(threads: usize, in_flight: usize) -> (SelfPlayConfig, SearchConfig, DrawRules) {
        let selfplay = SelfPlayConfig {
            threads,
            games_in_flight: in_flight,
            batch_size: 8,
            random_opening_plies: 3,
            ..SelfPlayConfig::default()
        };
        let search = SearchConfig {
            algorithm: Algorithm::Gumbel,
            full_simulations: 8,
            fast_simulations: 4,
            full_search_fraction: 0.5,
            gumbel_max_considered: 4,
            ..SearchConfig::default()
        };
        let rules = DrawRules {
            max_plies: Some(60),
            ..DrawRules::default()
        };
        (selfplay, search, rules)
    }

    fn play(threads: usize, in_flight: usize, games: usize, seed: u64) -> Vec<FinishedGame> {
        let (a, b, c) = configs(threads, in_flight);
        let mut player = SelfPlayer::new(a, b, c, seed).unwrap();
        let mut out = Vec::new();
        player
            .play(&UniformEvaluator::random(3), games, |g| out.push(g))
            .unwrap();
        out
    }

    #[test]
    fn fixed_seed_gives_the_same_games_with_one_or_two_threads() {
        let a = play(1, 4, 3, 11);
        let b = play(1, 4, 3, 11);
        let c = play(2, 4, 3, 11);
        for (x, y) in a.iter().zip(&b).chain(a.iter().zip(&c)) {
            assert_eq!(x.index, y.index);
            assert_eq!(x.game.moves(), y.game.moves());
            assert_eq!(x.outcome, y.outcome);
        }
        let d = play(1, 4, 1, 12);
        assert_ne!(
            a[0].game.moves(),
            d[0].game.moves(),
            "another seed, another game"
        );
    }

    #[test]
    fn the_cache_changes_no_game_and_saves_network_calls() {
        let run = |cache_entries: usize| {
            let (mut selfplay, search, rules) = configs(2, 4);
            selfplay.cache_entries = cache_entries;
            let mut player = SelfPlayer::new(selfplay, search, rules, 7).unwrap();
            let mut games = Vec::new();
            let stats = player
                .play(&UniformEvaluator::random(3), 4, |g| games.push(g))
                .unwrap();
            (games, stats)
        };
        let (cached, with) = run(1 << 12);
        let (plain, without) = run(0);
        assert_eq!(cached.len(), plain.len());
        for (x, y) in cached.iter().zip(&plain) {
            assert_eq!(x.game.moves(), y.game.moves());
            assert_eq!(x.samples, y.samples);
        }
        assert_eq!(with.requested, without.requested);
        assert_eq!(without.cache_hits, 0);
        assert_eq!(without.evaluations, without.requested);
        assert!(with.cache_hits > 0, "the games share their openings");
        assert_eq!(with.evaluations + with.cache_hits, with.requested);
        assert!(with.search.evaluations > 0 && with.search.passed_through > 0);
    }

    #[test]
    fn samples_carry_the_final_result_from_the_movers_view() {
        let games = play(1, 2, 4, 5);
        for g in &games {
            assert!(g.outcome.reason != EndReason::Agreed);
            // The resigning side's last search gives a sample but no move.
            let resigned = usize::from(g.outcome.reason == EndReason::Resignation);
            assert_eq!(
                g.samples.len(),
                g.game.ply() - g.opening_plies as usize + resigned
            );
            let final_ply = g.game.ply();
            for s in &g.samples {
                let expected = match g.outcome.result.winner() {
                    None => 0,
                    Some(w) if w == s.position.side_to_move() => 1,
                    Some(_) => -1,
                };
                assert_eq!(s.result, expected);
                assert_eq!(s.plies_left as usize, final_ply - s.ply as usize);
                let total: f32 = s.policy().iter().map(|e| e.prob).sum();
                assert!((total - 1.0).abs() < 1e-3, "policy sums to {total}");
            }
            assert!(g.samples.iter().any(|s| s.is_full_search()) || g.samples.len() < 4);
        }
    }

    #[test]
    fn games_carry_over_between_calls() {
        let (a, b, c) = configs(1, 3);
        let mut player = SelfPlayer::new(a, b, c, 9).unwrap();
        let eval = UniformEvaluator::random(1);
        let mut indices = Vec::new();
        let stats = player.play(&eval, 2, |g| indices.push(g.index)).unwrap();
        assert_eq!(stats.games, 2);
        assert!(player.in_flight() >= 1, "unfinished games stay in flight");
        assert_eq!(player.next_game() as usize, 2 + player.in_flight());
        player.play(&eval, 2, |g| indices.push(g.index)).unwrap();
        assert_eq!(player.next_game() as usize, 4 + player.in_flight());
        indices.sort();
        indices.dedup();
        assert_eq!(indices.len(), 4, "no game is lost or repeated");
        // A last round finishes what is in flight and starts only what is missing.
        let carried = player.in_flight();
        player
            .play_last(&eval, 5, |g| indices.push(g.index))
            .unwrap();
        assert_eq!(player.in_flight(), 0, "nothing left unfinished");
        assert_eq!(indices.len(), 9);
        assert_eq!(player.next_game() as usize, 4 + carried + (5 - carried));
        assert!(stats.mean_batch_fill() > 0.0 && stats.mean_batch_fill() <= 1.0);
    }
}

#[cfg(test)]
mod tablebase_tests {
    use super::*;
    use shashki_rules::EndReason;

    #[test]
    fn a_game_reaching_the_tablebases_ends_with_their_exact_result() {
        let dir = std::env::temp_dir().join(format!("shashki-selfplay-tb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let rules = DrawRules {
            max_plies: Some(60),
            ..DrawRules::default()
        };
        let config = SelfPlayConfig {
            threads: 1,
            games_in_flight: 1,
            tablebase_dir: Some(dir.to_string_lossy().into_owned()),
            tablebase_pieces: 3,
            ..SelfPlayConfig::default()
        };
        // First use generates the tables into the folder, saying so.
        let mut lines = Vec::new();
        let player = SelfPlayer::with_progress(
            config.clone(),
            SearchConfig::default(),
            rules,
            1,
            &mut |line| lines.push(line.to_string()),
        )
        .unwrap();
        assert!(dir.join("1K0M-1K0M.stb").exists());
        assert!(lines.iter().any(|l| l.contains("pair 1/")), "{lines:?}");
        assert!(lines.last().unwrap().contains("tables ready"), "{lines:?}");
        let tablebases = player.tablebases.clone();
        assert!(tablebases.is_some());
        let mut slot = player.new_slot(0);
        // The searches probe them too, unless switched off.
        assert!(slot.search.tablebases().is_some());
        let off = SelfPlayConfig {
            tablebase_search: false,
            ..config
        };
        let quiet = SelfPlayer::new(off, SearchConfig::default(), rules, 1).unwrap();
        assert!(quiet.new_slot(0).search.tablebases().is_none());
        // The a1 king facing h8 with White to move: lost (RULES.md rule 2).
        let game = Game::with_rules(Position::from_fen("W:WKa1:BKh8").unwrap(), rules);
        slot.search = Search::new(game, SearchConfig::default()).unwrap();
        let ctx = StepContext {
            selfplay: &player.config,
            search: &player.search_config,
            leaves_per_game: 1,
            tablebases: tablebases.as_deref(),
        };
        step(&mut slot, &[], &ctx).unwrap();
        assert!(slot.done);
        let finished = finish_game(slot);
        assert_eq!(finished.outcome.result, GameResult::BlackWins);
        assert_eq!(finished.outcome.reason, EndReason::Adjudication);
        // Switched off, the same game is searched instead.
        let mut player = player;
        player.set_tablebases(None).unwrap();
        assert!(player.tablebases.is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
