//! Self-play settings (the `[selfplay]` section of a run config).

use serde::{Deserialize, Serialize};
use shashki_search::ranges::{self, KeyRange};

/// Games in flight per worker thread of alpha-beta self-play when
/// `games_in_flight = 0`: a wave ends with its longest game, so a worker
/// needs several games per wave to stay busy.
pub const AB_GAMES_PER_THREAD: usize = 32;

/// Cores of this machine (1 when the OS does not say).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Every knob of self-play. Missing keys take their default; unknown keys
/// are errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlayConfig {
    /// Worker threads (a rayon pool): they step the game searches, and run
    /// network calls concurrently when the games in flight fill more than one
    /// batch (`games_in_flight > batch_size`). 0: one per core of the
    /// machine (see [`SelfPlayConfig::resolved`]).
    pub threads: usize,
    /// Games played at the same time. More games keep the evaluator's batches
    /// full: each game contributes at most one position per batch. 0: enough
    /// to keep every worker busy, `batch_size` per thread for MCTS self-play
    /// (one full network call per worker each round) and
    /// [`AB_GAMES_PER_THREAD`] per thread for alpha-beta self-play.
    pub games_in_flight: usize,
    /// Most positions per network call. Each round, the leaves of all games in
    /// flight are cut into calls of this size (the last one may be partial).
    pub batch_size: usize,
    /// Evaluations kept in a cache shared by every game in flight (about
    /// 150 bytes each), so a position reached again (the openings of many
    /// games, transpositions, lines searched at an earlier move) costs no
    /// network call; emptied whenever the network may change (each
    /// generation). 0 switches it off.
    pub cache_entries: usize,
    /// Games per generation of `shashki train` (and per `shashki selfplay`
    /// round).
    pub games_per_generation: usize,
    /// Finished games gathered into one chunk file.
    pub games_per_chunk: usize,
    /// Temperature for the move played at the first ply (PUCT: visit counts
    /// to the power 1/T; Gumbel samples by itself and ignores it).
    pub temperature_start: f32,
    /// Temperature once `temperature_plies` half-moves have been played.
    pub temperature_end: f32,
    /// Half-moves over which the temperature decays linearly from start to end.
    pub temperature_plies: u32,
    /// Upper bound of uniformly random half-moves played at the start of a
    /// game (each game draws 0..=N), before any search; these positions give
    /// no samples.
    pub random_opening_plies: u32,
    /// A side resigns when its root value (win - loss) stays below this for
    /// `resign_consecutive` of its moves. -1 or lower disables resignation.
    pub resign_threshold: f32,
    /// Consecutive own moves below the threshold before resigning.
    pub resign_consecutive: u32,
    /// Share of games where resignation is only recorded, not carried out,
    /// to measure how often a resignation would have been wrong.
    pub resign_playthrough: f32,
    /// Games longer than this many half-moves are adjudicated drawn.
    pub max_plies: u32,
    /// Folder of endgame tablebases (docs/TABLEBASES.md). When set, a game
    /// that reaches a position in them ends at once with its exact result
    /// under the official draw rules (its samples get that value target),
    /// and tables missing there are generated on first use (seconds for 4
    /// pieces). `None` (default): no tablebase adjudication.
    pub tablebase_dir: Option<String>,
    /// Most pieces of the tables used (and generated) in `tablebase_dir`.
    pub tablebase_pieces: u8,
    /// With `tablebase_dir` set: the searches probe the tables too (a
    /// position in them is a solved node, so the root value and the move
    /// choice near the end are exact), besides ending games that reach them.
    pub tablebase_search: bool,
    /// A start book of self-play's own (the arena's book formats: PDN or
    /// lines of `Name | moves` / FEN, `shashki_rules::book`): each game
    /// starts from an opening drawn from it by the game's seed, then plays
    /// its `random_opening_plies`. Keep it disjoint from the books that
    /// measure the nets. Read by alpha-beta (NNUE) self-play; `None`
    /// (default): every game starts from the standard position.
    pub openings: Option<String>,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            threads: 2,
            games_in_flight: 64,
            batch_size: 64,
            cache_entries: 1 << 18,
            games_per_generation: 64,
            games_per_chunk: 16,
            temperature_start: 1.0,
            temperature_end: 0.1,
            temperature_plies: 20,
            random_opening_plies: 4,
            resign_threshold: -0.9,
            resign_consecutive: 3,
            resign_playthrough: 0.1,
            max_plies: 300,
            tablebase_dir: None,
            tablebase_pieces: 4,
            tablebase_search: true,
            openings: None,
        }
    }
}

/// The range of every numeric key, both ends included, stated once
/// ([`SelfPlayConfig::validate`] and a run config's `[selfplay]` use it).
/// Zero where it cannot work and absurd sizes are refused.
pub const SELFPLAY_RANGES: &[KeyRange] = &[
    ("threads", 0.0, 1024.0),
    ("games_in_flight", 0.0, 1e6),
    ("batch_size", 1.0, 65536.0),
    ("cache_entries", 0.0, 1e9),
    ("games_per_generation", 1.0, 1e8),
    ("games_per_chunk", 1.0, 1e6),
    ("temperature_start", 0.0, 100.0),
    ("temperature_end", 0.0, 100.0),
    ("temperature_plies", 0.0, 10_000.0),
    ("random_opening_plies", 0.0, 1000.0),
    ("resign_threshold", -10.0, 1.0),
    ("resign_consecutive", 1.0, 1000.0),
    ("resign_playthrough", 0.0, 1.0),
    ("max_plies", 1.0, 100_000.0),
    ("tablebase_pieces", 2.0, 5.0),
];

impl SelfPlayConfig {
    /// Checks every value against [`SELFPLAY_RANGES`]; the error names
    /// the section and the key.
    pub fn validate(&self) -> Result<(), String> {
        let values = shashki_search::range_fields!(self;
            threads, games_in_flight, batch_size, cache_entries, games_per_generation,
            games_per_chunk, temperature_start, temperature_end, temperature_plies,
            random_opening_plies, resign_threshold, resign_consecutive, resign_playthrough,
            max_plies, tablebase_pieces,
        );
        ranges::check(SELFPLAY_RANGES, &values).map_err(|e| format!("[selfplay] {e}"))
    }

    /// Worker threads on this machine: `threads`, or one per core when 0.
    pub fn worker_threads(&self) -> usize {
        match self.threads {
            0 => available_cores(),
            n => n,
        }
    }

    /// The worker threads in words, for banners: "16 threads (one per
    /// core)" or "2 threads".
    pub fn threads_line(&self) -> String {
        let n = self.worker_threads();
        let plural = if n == 1 { "" } else { "s" };
        match self.threads {
            0 => format!("{n} thread{plural} (one per core)"),
            _ => format!("{n} thread{plural}"),
        }
    }

    /// This configuration as it runs here: `threads = 0` becomes the
    /// number of cores and `games_in_flight = 0` becomes `games_per_thread`
    /// games for each worker. Explicit values are kept as they are, so a
    /// run is reproducible from its seed for a given thread count.
    pub fn resolved(&self, games_per_thread: usize) -> SelfPlayConfig {
        let threads = self.worker_threads();
        let games_in_flight = match self.games_in_flight {
            0 => threads.saturating_mul(games_per_thread.max(1)),
            n => n,
        };
        SelfPlayConfig {
            threads,
            games_in_flight,
            ..self.clone()
        }
    }

    /// The move-choice temperature at half-move `ply`.
    pub fn temperature_at(&self, ply: u32) -> f32 {
        if self.temperature_plies == 0 || ply >= self.temperature_plies {
            return self.temperature_end;
        }
        let t = ply as f32 / self.temperature_plies as f32;
        self.temperature_start + (self.temperature_end - self.temperature_start) * t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temperature_decays_linearly_then_stays() {
        let c = SelfPlayConfig {
            temperature_start: 1.0,
            temperature_end: 0.0,
            temperature_plies: 10,
            ..SelfPlayConfig::default()
        };
        assert_eq!(c.temperature_at(0), 1.0);
        assert!((c.temperature_at(5) - 0.5).abs() < 1e-6);
        assert_eq!(c.temperature_at(10), 0.0);
        assert_eq!(c.temperature_at(99), 0.0);
    }

    #[test]
    fn defaults_are_valid_and_bad_values_name_the_key() {
        SelfPlayConfig::default().validate().unwrap();
        let c = SelfPlayConfig {
            resign_playthrough: 2.0,
            ..SelfPlayConfig::default()
        };
        assert!(c.validate().unwrap_err().contains("resign_playthrough"));
    }

    #[test]
    fn zero_threads_and_games_in_flight_scale_with_the_cores() {
        let auto = SelfPlayConfig {
            threads: 0,
            games_in_flight: 0,
            batch_size: 64,
            ..SelfPlayConfig::default()
        };
        auto.validate().unwrap();
        let cores = available_cores();
        let mcts = auto.resolved(auto.batch_size);
        assert_eq!(mcts.threads, cores);
        assert_eq!(mcts.games_in_flight, 64 * cores);
        let ab = auto.resolved(AB_GAMES_PER_THREAD);
        assert_eq!(ab.games_in_flight, AB_GAMES_PER_THREAD * cores);
        let fixed = SelfPlayConfig {
            threads: 3,
            games_in_flight: 10,
            ..SelfPlayConfig::default()
        };
        assert_eq!(fixed.resolved(64), fixed, "explicit values stay");
        let per_thread = SelfPlayConfig {
            threads: 3,
            games_in_flight: 0,
            ..SelfPlayConfig::default()
        };
        assert_eq!(per_thread.resolved(8).games_in_flight, 24);
    }
}
