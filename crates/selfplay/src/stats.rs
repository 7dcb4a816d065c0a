//! Self-play counters and the rates derived from them.

use crate::finished::FinishedGame;
use shashki_rules::GameResult;
use shashki_search::mcts::SearchCounters;

/// Counters of one or more [`SelfPlayer::play`](crate::SelfPlayer::play) calls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfPlayStats {
    /// Games finished.
    pub games: u64,
    /// Half-moves played in them (random opening moves included).
    pub plies: u64,
    /// Training samples (searched moves).
    pub samples: u64,
    /// Samples from full searches (policy targets).
    pub full_searches: u64,
    /// Games won by White.
    pub white_wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games won by Black.
    pub black_wins: u64,
    /// Games ended by resignation.
    pub resignations: u64,
    /// Games adjudicated at the length limit.
    pub adjudications: u64,
    /// Play-through games where a side would have resigned.
    pub playthrough_would_resign: u64,
    /// ... and did not lose after all.
    pub false_resignations: u64,
    /// Positions evaluated by the network.
    pub evaluations: u64,
    /// Positions the searches asked to evaluate (network and cache).
    pub requested: u64,
    /// ... of which the evaluation cache answered.
    pub cache_hits: u64,
    /// What the searches of the finished games spent their evaluations on
    /// (forced moves passed through, captures due).
    pub search: SearchCounters,
    /// Network calls.
    pub batches: u64,
    /// Sum of the batch capacity over all calls (for the fill rate).
    pub batch_capacity: u64,
    /// Seconds inside the evaluator.
    pub net_seconds: f64,
    /// Seconds stepping searches (tree, rules, sample recording).
    pub step_seconds: f64,
    /// Wall-clock seconds.
    pub wall_seconds: f64,
    /// Sample positions never seen before by this player (alpha-beta
    /// self-play counts them; 0 where not counted).
    pub distinct_positions: u64,
}

impl SelfPlayStats {
    /// Counts a finished game.
    pub fn add_game(&mut self, game: &FinishedGame) {
        self.games += 1;
        self.plies += game.game.ply() as u64;
        self.samples += game.samples.len() as u64;
        self.full_searches += game.samples.iter().filter(|s| s.is_full_search()).count() as u64;
        match game.outcome.result {
            GameResult::WhiteWins => self.white_wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::BlackWins => self.black_wins += 1,
        }
        match game.outcome.reason {
            shashki_rules::EndReason::Resignation => self.resignations += 1,
            shashki_rules::EndReason::Adjudication => self.adjudications += 1,
            _ => {}
        }
        if game.would_resign.is_some() {
            self.playthrough_would_resign += 1;
        }
        if game.false_resignation() {
            self.false_resignations += 1;
        }
    }

    /// Adds another set of counters.
    pub fn merge(&mut self, other: &SelfPlayStats) {
        self.games += other.games;
        self.plies += other.plies;
        self.samples += other.samples;
        self.full_searches += other.full_searches;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.black_wins += other.black_wins;
        self.resignations += other.resignations;
        self.adjudications += other.adjudications;
        self.playthrough_would_resign += other.playthrough_would_resign;
        self.false_resignations += other.false_resignations;
        self.evaluations += other.evaluations;
        self.requested += other.requested;
        self.cache_hits += other.cache_hits;
        self.search += other.search;
        self.batches += other.batches;
        self.batch_capacity += other.batch_capacity;
        self.net_seconds += other.net_seconds;
        self.step_seconds += other.step_seconds;
        self.wall_seconds += other.wall_seconds;
        self.distinct_positions += other.distinct_positions;
    }

    fn per_second(&self, n: u64) -> f64 {
        if self.wall_seconds > 0.0 {
            n as f64 / self.wall_seconds
        } else {
            0.0
        }
    }

    fn share(n: u64, of: u64) -> f64 {
        if of > 0 { n as f64 / of as f64 } else { 0.0 }
    }

    /// Games finished per second.
    pub fn games_per_second(&self) -> f64 {
        self.per_second(self.games)
    }

    /// Searched positions (samples) per second.
    pub fn positions_per_second(&self) -> f64 {
        self.per_second(self.samples)
    }

    /// New distinct sample positions per hour of self-play (how much the
    /// data widens: issue 36 measures it before and after).
    pub fn distinct_positions_per_hour(&self) -> f64 {
        3600.0 * self.per_second(self.distinct_positions)
    }

    /// Network evaluations per second.
    pub fn evaluations_per_second(&self) -> f64 {
        self.per_second(self.evaluations)
    }

    /// Share of the requested evaluations that the cache answered.
    pub fn cache_hit_rate(&self) -> f64 {
        Self::share(self.cache_hits, self.requested)
    }

    /// Mean share of each network call's capacity that was used.
    pub fn mean_batch_fill(&self) -> f64 {
        Self::share(self.evaluations, self.batch_capacity)
    }

    /// Mean positions per network call.
    pub fn mean_batch_size(&self) -> f64 {
        Self::share(self.evaluations, self.batches)
    }

    /// Mean game length in half-moves.
    pub fn mean_game_length(&self) -> f64 {
        Self::share(self.plies, self.games)
    }

    /// Shares of White wins, draws and Black wins.
    pub fn result_shares(&self) -> [f64; 3] {
        [
            Self::share(self.white_wins, self.games),
            Self::share(self.draws, self.games),
            Self::share(self.black_wins, self.games),
        ]
    }

    /// Share of play-through games with a would-be resignation in which the
    /// resigning side did not lose.
    pub fn false_resignation_rate(&self) -> f64 {
        Self::share(self.false_resignations, self.playthrough_would_resign)
    }

    /// Share of the wall time spent inside the network.
    pub fn network_time_share(&self) -> f64 {
        if self.wall_seconds > 0.0 {
            self.net_seconds / self.wall_seconds
        } else {
            0.0
        }
    }

    /// Share of the wall time spent stepping searches (tree, rules, samples).
    pub fn search_time_share(&self) -> f64 {
        if self.wall_seconds > 0.0 {
            self.step_seconds / self.wall_seconds
        } else {
            0.0
        }
    }

    /// One line for logs.
    pub fn summary(&self) -> String {
        let [w, d, b] = self.result_shares();
        let distinct = if self.distinct_positions > 0 {
            format!(
                ", {} new distinct positions ({:.0}/h)",
                self.distinct_positions,
                self.distinct_positions_per_hour()
            )
        } else {
            String::new()
        };
        format!(
            "{} games, {} positions in {:.1}s: {:.2} games/s, {:.1} pos/s, {:.0} evals/s, batch fill {:.0}%, \
             cache hits {:.1}%, forced passed {}, avg length {:.1}, W/D/B {:.0}/{:.0}/{:.0}%, resigned {}, false resign {:.0}% ({}/{}), time: net {:.0}%, search+rules {:.0}%{distinct}",
            self.games,
            self.samples,
            self.wall_seconds,
            self.games_per_second(),
            self.positions_per_second(),
            self.evaluations_per_second(),
            100.0 * self.mean_batch_fill(),
            100.0 * self.cache_hit_rate(),
            self.search.passed_through,
            self.mean_game_length(),
            100.0 * w,
            100.0 * d,
            100.0 * b,
            self.resignations,
            100.0 * self.false_resignation_rate(),
            self.false_resignations,
            self.playthrough_would_resign,
            100.0 * self.network_time_share(),
            100.0 * self.search_time_share(),
        )
    }
}
