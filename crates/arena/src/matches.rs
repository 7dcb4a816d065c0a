//! Matches: games between two players from balloted openings, each opening
//! played twice with colours swapped, judged by the arbiter with the
//! official draw rules (plus a maximum length), run in parallel on a rayon
//! pool, recorded as PDN.
//!
//! A player that fails to move (an external engine's illegal move, crash or
//! time-out) loses that game; the reason is recorded and the match goes on.
//! With a time control ([`MatchSettings::time_control`]) the arena keeps
//! both clocks, sends them with every move, and a side whose clock runs out
//! loses on time ("time forfeit"). With endgame tables
//! ([`MatchSettings::tablebases`]) a game that reaches them is adjudicated
//! with their exact result (`Termination` "tablebase adjudication").

use crate::clock::{DEFAULT_TIME_MARGIN, GameClock, TimeControl};
use crate::factory::PlayerFactory;
use crate::figures::{OpeningUse, PairingFigures};
use crate::openings::{Opening, OpeningBook, OpeningError};
use crate::player::{GameSetup, Player, PlayerFailure};
use crate::score::PairingSummary;
use crate::sprt::SprtStatus;
use shashki_rules::pdn::{TERMINATION_TAG, write_pdn_file};
use shashki_rules::{Color, DrawRules, EndReason, Game, GameResult, PdnGame};
use shashki_search::tablebase::{self, Tablebases, TbWdl};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

/// Default adjudication length in half-moves (a draw if reached): far
/// beyond any real game, it only ends aimless shuffling between weak
/// players that the counting rules do not catch.
pub const DEFAULT_MAX_PLIES: u32 = 400;

/// How a match is played.
#[derive(Clone, Debug)]
pub struct MatchSettings {
    /// Number of games (rounded up to whole pairs).
    pub games: usize,
    /// The openings the pairs are balloted from.
    pub book: OpeningBook,
    /// Seed of the ballot and of every player's randomness.
    pub seed: u64,
    /// Games played at once (0: one per CPU core).
    pub concurrency: usize,
    /// Draw rules, with `max_plies` as the adjudication length.
    pub rules: DrawRules,
    /// The PDN `Event` tag.
    pub event: String,
    /// A game clock for both sides (`None`: each player's own limits).
    pub time_control: Option<TimeControl>,
    /// Latency tolerated past a clock's zero before the side loses on time.
    pub time_margin: Duration,
    /// Endgame tables: a game reaching a position in them ends at once with
    /// their exact result under the draw rules ([`EndCause::Tablebase`]),
    /// and the players whose search can probe them do
    /// ([`GameSetup::tablebases`](crate::GameSetup)). `None`: games are
    /// played to their end.
    pub tablebases: Option<Arc<Tablebases>>,
    /// Only these pairs of the ballot (0-based): one machine's share of a
    /// match spread over a cluster. Pair `k` plays the same opening with
    /// the same seeds either way, so the shares together are the whole
    /// match game for game. `None`: every pair.
    pub only_pairs: Option<Vec<usize>>,
}

impl MatchSettings {
    /// `games` games from the default book ([`OpeningBook::default_book`]), seed 1, official draw rules
    /// with adjudication at [`DEFAULT_MAX_PLIES`].
    pub fn new(games: usize) -> MatchSettings {
        MatchSettings {
            games,
            book: OpeningBook::default_book(),
            seed: 1,
            concurrency: 0,
            rules: DrawRules {
                max_plies: Some(DEFAULT_MAX_PLIES),
                ..DrawRules::default()
            },
            event: "Shashki Zero arena".into(),
            time_control: None,
            time_margin: DEFAULT_TIME_MARGIN,
            tablebases: None,
            only_pairs: None,
        }
    }

    /// `games` games from the book `openings` names (a file or
    /// `builtin:NAME`; the default book when `None`), official draw rules with adjudication at `max_plies`.
    pub fn with_options(
        games: usize,
        openings: Option<&Path>,
        seed: u64,
        concurrency: usize,
        max_plies: u32,
        event: &str,
    ) -> Result<MatchSettings, OpeningError> {
        let book = match openings {
            Some(source) => OpeningBook::open(source)?,
            None => OpeningBook::default_book(),
        };
        Ok(MatchSettings {
            games,
            book,
            seed,
            concurrency,
            rules: DrawRules {
                max_plies: Some(max_plies),
                ..DrawRules::default()
            },
            event: event.into(),
            time_control: None,
            time_margin: DEFAULT_TIME_MARGIN,
            tablebases: None,
            only_pairs: None,
        })
    }

    /// Number of opening pairs balloted (and played, without
    /// [`MatchSettings::only_pairs`]).
    pub fn pairs(&self) -> usize {
        self.games.div_ceil(2)
    }

    /// The pairs this match plays, in the order its observer sees them:
    /// every pair, or those of [`MatchSettings::only_pairs`] in the ballot,
    /// ascending and once each.
    pub fn pair_indices(&self) -> Vec<usize> {
        let pairs = self.pairs();
        match &self.only_pairs {
            None => (0..pairs).collect(),
            Some(only) => {
                let set: std::collections::BTreeSet<usize> =
                    only.iter().copied().filter(|&p| p < pairs).collect();
                set.into_iter().collect()
            }
        }
    }
}

/// The `Termination` tag of a game adjudicated by the tablebases.
pub const TABLEBASE_LABEL: &str = "tablebase adjudication";

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndCause {
    /// A rule of the game (including adjudication at the maximum length).
    Rules(EndReason),
    /// Adjudicated by the endgame tablebases: the position is in them and
    /// the result is their exact value under the draw rules.
    Tablebase,
    /// A player failed to move and lost.
    Forfeit {
        /// The side that failed.
        loser: Color,
        /// What happened.
        failure: PlayerFailure,
    },
}

impl EndCause {
    /// Short text for the PDN `Termination` tag and the report: a rule's
    /// label, or `forfeit by White: ...`.
    pub fn label(&self) -> String {
        match self {
            EndCause::Rules(reason) => reason.label().to_string(),
            EndCause::Tablebase => TABLEBASE_LABEL.to_string(),
            EndCause::Forfeit { loser, failure } => format!("forfeit by {loser}: {failure}"),
        }
    }

    /// The category for tallies (`time forfeit` for a flag fall, `forfeit`
    /// for every other forfeit).
    pub fn category(&self) -> String {
        match self {
            EndCause::Rules(reason) => reason.label().to_string(),
            EndCause::Tablebase => TABLEBASE_LABEL.to_string(),
            EndCause::Forfeit {
                failure: PlayerFailure::TimeForfeit(_),
                ..
            } => "time forfeit".to_string(),
            EndCause::Forfeit { .. } => "forfeit".to_string(),
        }
    }

    /// The cause a PDN `Termination` tag names ([`EndCause::label`] read
    /// back; a forfeit keeps its text, as a failure of the player's own);
    /// `None` for a text no cause writes.
    pub fn from_label(label: &str) -> Option<EndCause> {
        if label == TABLEBASE_LABEL {
            return Some(EndCause::Tablebase);
        }
        if let Some(reason) = EndReason::from_label(label) {
            return Some(EndCause::Rules(reason));
        }
        let rest = label.strip_prefix("forfeit by ")?;
        let (side, text) = rest.split_once(": ")?;
        let loser = [Color::White, Color::Black]
            .into_iter()
            .find(|c| c.to_string().eq_ignore_ascii_case(side))?;
        Some(EndCause::Forfeit {
            loser,
            failure: PlayerFailure::Internal(text.to_string()),
        })
    }
}

/// One finished game of a match.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Index of the opening pair (0-based).
    pub pair: usize,
    /// 0: the match's first player had White; 1: it had Black.
    pub leg: usize,
    /// The opening's name.
    pub opening: String,
    /// Who played White.
    pub white: String,
    /// Who played Black.
    pub black: String,
    /// The game, opening moves included.
    pub game: Game,
    /// The result.
    pub result: GameResult,
    /// Why it ended.
    pub cause: EndCause,
}

impl GameRecord {
    /// True if the match's first player had White.
    pub fn first_is_white(&self) -> bool {
        self.leg == 0
    }

    /// Points (1, 0.5, 0) of the match's first player.
    pub fn points_for_first(&self) -> f64 {
        let color = if self.first_is_white() {
            Color::White
        } else {
            Color::Black
        };
        self.result.points_for(color)
    }

    /// The record of game `leg` of pair `pair` read back from its PDN
    /// record ([`GameRecord::to_pdn`]) under `rules`: `None` if it has no
    /// result, a move that is not legal or a cause no game ends with.
    pub fn from_pdn(
        pdn: &PdnGame,
        pair: usize,
        leg: usize,
        rules: DrawRules,
    ) -> Option<GameRecord> {
        Some(GameRecord {
            pair,
            leg,
            opening: pdn.tag("Opening").unwrap_or_default().to_string(),
            white: pdn.tag("White")?.to_string(),
            black: pdn.tag("Black")?.to_string(),
            game: pdn.replay(rules).ok()?,
            result: pdn.result?,
            cause: EndCause::from_label(pdn.tag(TERMINATION_TAG)?)?,
        })
    }

    /// The PDN record: roster tags, `Round` as `pair.leg`, the `Opening`
    /// and the `Termination` reason, the result and every move.
    pub fn to_pdn(&self, event: &str, date: &str) -> PdnGame {
        let mut pdn = PdnGame::from_game(&self.game);
        pdn.set_tag("Event", event);
        pdn.set_tag("Site", "Shashki Zero arena");
        pdn.set_tag("Date", date);
        pdn.set_tag("Round", &format!("{}.{}", self.pair + 1, self.leg + 1));
        pdn.set_tag("White", &self.white);
        pdn.set_tag("Black", &self.black);
        pdn.set_tag("Opening", &self.opening);
        pdn.set_tag(TERMINATION_TAG, &self.cause.label());
        pdn.result = Some(self.result);
        pdn
    }
}

/// The exact result of `game` from `tablebases`, if its position is in
/// them and they follow the game's draw rules.
fn tablebase_result(tablebases: Option<&Tablebases>, game: &Game) -> Option<GameResult> {
    let tb = tablebases.filter(|tb| tb.follows(game.rules()))?;
    let probe = tablebase::probe(tb, game)?;
    let side = game.side_to_move();
    Some(match probe.wdl {
        TbWdl::Win => GameResult::win_for(side),
        TbWdl::Loss => GameResult::win_for(side.opponent()),
        TbWdl::Draw => GameResult::Draw,
    })
}

/// Plays one game from `opening` to its end under `rules`, on `clock` if
/// one is given (a side whose clock runs out loses on time); with
/// `tablebases`, a game reaching them ends with their result.
pub fn play_game(
    opening: &Opening,
    rules: DrawRules,
    white: &mut dyn Player,
    black: &mut dyn Player,
    mut clock: Option<GameClock>,
    tablebases: Option<&Tablebases>,
) -> (Game, GameResult, EndCause) {
    let mut game = opening.game(rules);
    loop {
        if let Some(outcome) = game.outcome() {
            return (game, outcome.result, EndCause::Rules(outcome.reason));
        }
        if let Some(result) = tablebase_result(tablebases, &game) {
            return (game, result, EndCause::Tablebase);
        }
        let side = game.side_to_move();
        let player: &mut dyn Player = match side {
            Color::White => &mut *white,
            Color::Black => &mut *black,
        };
        let started = Instant::now();
        let chosen = match &clock {
            None => player.choose_move(&game),
            Some(clock) => {
                let allowance = clock.allowance(side);
                player
                    .choose_move_on_clock(&game, &clock.limits(), allowance)
                    .map_err(|failure| match failure {
                        PlayerFailure::TimedOut(_) => PlayerFailure::TimeForfeit(format!(
                            "time forfeit: no move with {} ms on the clock",
                            clock.left(side).as_millis()
                        )),
                        other => other,
                    })
            }
        };
        let chosen = chosen.and_then(|mv| match &mut clock {
            Some(clock) => clock
                .charge(side, started.elapsed())
                .map(|()| mv)
                .map_err(|flag| PlayerFailure::TimeForfeit(flag.to_string())),
            None => Ok(mv),
        });
        let chosen = chosen.and_then(|mv| {
            // Built-in players are trusted, but a wrong move must never
            // reach the game record.
            if game.legal_moves().iter().any(|m| m.key() == mv.key()) {
                Ok(mv)
            } else {
                Err(PlayerFailure::IllegalMove {
                    text: mv.to_string(),
                    reason: "not a legal move here".into(),
                })
            }
        });
        match chosen {
            Ok(mv) => game.play(&mv),
            Err(failure) => {
                return (
                    game,
                    GameResult::win_for(side.opponent()),
                    EndCause::Forfeit {
                        loser: side,
                        failure,
                    },
                );
            }
        }
    }
}

/// What the observer of a running match tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Keep playing.
    Continue,
    /// Start no new pair. Pairs under way are finished but not recorded, so
    /// the match ends exactly where the observer said, whatever the threads.
    Stop,
}

/// Everything a match produced.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// The first player (whose view the summary takes).
    pub first: String,
    /// The second player.
    pub second: String,
    /// Every game, by pair then leg.
    pub games: Vec<GameRecord>,
    /// W/D/L and pentanomial counts from the first player's view.
    pub summary: PairingSummary,
    /// True if the observer stopped the match before all pairs were played.
    pub stopped_early: bool,
    /// The book and the distinct openings of the pairs counted.
    pub openings: OpeningUse,
    /// The SPRT that could stop the match, if one ran
    /// ([`play_pairing`](crate::rating_run::play_pairing) runs it).
    pub sprt: Option<SprtStatus>,
}

impl MatchReport {
    /// The PDN records of every game.
    pub fn pdn_games(&self, event: &str) -> Vec<PdnGame> {
        let date = today();
        self.games.iter().map(|g| g.to_pdn(event, &date)).collect()
    }

    /// Writes every game to `path` as PDN (atomically).
    pub fn write_pdn(&self, path: &Path, event: &str) -> std::io::Result<()> {
        write_pdn_file(path, &self.pdn_games(event))
    }

    /// How many games ended for each reason.
    pub fn end_reasons(&self) -> BTreeMap<String, usize> {
        let mut tally = BTreeMap::new();
        for g in &self.games {
            *tally.entry(g.cause.category()).or_insert(0) += 1;
        }
        tally
    }

    /// The pairing's figures ([`PairingFigures`]).
    pub fn figures(&self) -> PairingFigures {
        PairingFigures::new(
            &self.first,
            &self.second,
            &self.summary,
            &self.openings,
            self.sprt,
        )
    }

    /// The result table: the pairing's figures, then the end reasons and
    /// every forfeit.
    pub fn result_table(&self) -> String {
        let mut s = self.figures().to_string();
        s.push_str("\nEnd reasons:");
        for (reason, n) in self.end_reasons() {
            let _ = write!(s, " {reason}: {n};");
        }
        for g in &self.games {
            if let EndCause::Forfeit { .. } = g.cause {
                let _ = write!(
                    s,
                    "\n  game {}.{} ({} - {}): {}",
                    g.pair + 1,
                    g.leg + 1,
                    g.white,
                    g.black,
                    g.cause.label()
                );
            }
        }
        s.push('\n');
        s
    }
}

/// Pair indices as `--pairs` spells them: 1-based, runs joined
/// (`1-4,7,9-10`).
pub fn pair_list(indices: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &p in indices {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == p => *end = p,
            _ => runs.push((p, p)),
        }
    }
    let text: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                format!("{}", a + 1)
            } else {
                format!("{}-{}", a + 1, b + 1)
            }
        })
        .collect();
    text.join(",")
}

/// Parses `--pairs` (`1-4,7,9-10`, 1-based as PDN `Round` tags number
/// pairs) into ascending 0-based indices; every index must be below
/// `pairs`.
pub fn parse_pair_list(text: &str, pairs: usize) -> Result<Vec<usize>, String> {
    let mut out = std::collections::BTreeSet::new();
    for part in text.split(',').map(str::trim) {
        let number = |t: &str| {
            t.trim()
                .parse::<usize>()
                .ok()
                .filter(|&n| n >= 1 && n <= pairs)
                .ok_or_else(|| {
                    format!("--pairs {text:?}: {t:?} is not a pair number from 1 to {pairs}")
                })
        };
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(part)?, number(part)?),
        };
        if a > b {
            return Err(format!("--pairs {text:?}: {part:?} runs backwards"));
        }
        out.extend(a - 1..b);
    }
    Ok(out.into_iter().collect())
}

/// A 64-bit mix (splitmix64) to derive independent seeds.
pub fn mix_seed(seed: u64, a: u64, b: u64) -> u64 {
    use shashki_rules::splitmix::{GOLDEN_GAMMA, mix64};
    mix64(seed ^ a.wrapping_mul(GOLDEN_GAMMA) ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
}

/// Plays one leg of a pair. `leg` 0: `first` has White.
fn play_leg(
    pair: usize,
    leg: usize,
    opening: &Opening,
    first: &PlayerFactory,
    second: &PlayerFactory,
    settings: &MatchSettings,
) -> GameRecord {
    let (white_f, black_f) = if leg == 0 {
        (first, second)
    } else {
        (second, first)
    };
    let seed_of = |who: u64| mix_seed(settings.seed, (pair * 2 + leg) as u64, who);
    let setup = |seed| GameSetup {
        seed,
        clocked: settings.time_control.is_some(),
        tablebases: settings.tablebases.as_ref(),
    };
    let white = white_f.create_for_game(&setup(seed_of(1)));
    let black = black_f.create_for_game(&setup(seed_of(2)));
    let clock = settings
        .time_control
        .map(|tc| GameClock::new(tc, settings.time_margin));
    let (game, result, cause) = match (white, black) {
        (Ok(mut w), Ok(mut b)) => play_game(
            opening,
            settings.rules,
            &mut *w,
            &mut *b,
            clock,
            settings.tablebases.as_deref(),
        ),
        (Err(failure), _) => (
            opening.game(settings.rules),
            GameResult::BlackWins,
            EndCause::Forfeit {
                loser: Color::White,
                failure,
            },
        ),
        (_, Err(failure)) => (
            opening.game(settings.rules),
            GameResult::WhiteWins,
            EndCause::Forfeit {
                loser: Color::Black,
                failure,
            },
        ),
    };
    GameRecord {
        pair,
        leg,
        opening: opening.name.clone(),
        white: white_f.name().to_string(),
        black: black_f.name().to_string(),
        game,
        result,
        cause,
    }
}

/// Plays a match between `first` and `second`. `observer` sees each pair as
/// it completes (in completion order) with the running summary, and can
/// stop the match (SPRT gating does).
pub fn run_match(
    first: &PlayerFactory,
    second: &PlayerFactory,
    settings: &MatchSettings,
    observer: &mut dyn FnMut(&[GameRecord; 2], &PairingSummary) -> Control,
) -> MatchReport {
    run_match_resuming(first, second, settings, &HashMap::new(), observer)
}

/// [`run_match`] going on with an interrupted match: the pairs in
/// `recorded` (by pair index, from the journal) are not played again but
/// counted and shown to `observer` as they were played.
pub fn run_match_resuming(
    first: &PlayerFactory,
    second: &PlayerFactory,
    settings: &MatchSettings,
    recorded: &HashMap<usize, [GameRecord; 2]>,
    observer: &mut dyn FnMut(&[GameRecord; 2], &PairingSummary) -> Control,
) -> MatchReport {
    let pairs = settings.pairs();
    let openings = settings.book.ballot(pairs, settings.seed);
    let todo = settings.pair_indices();
    let timed = settings.time_control.is_some() || first.is_timed() || second.is_timed();
    let threads = if settings.concurrency == 0 && timed {
        // Timed players would take each other's cores: one game at a time,
        // and timed MCTS players search on every core.
        1
    } else if settings.concurrency == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        settings.concurrency
    }
    .clamp(1, todo.len().max(1));
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = channel::<[GameRecord; 2]>();
    let mut summary = PairingSummary::default();
    let mut games: Vec<GameRecord> = Vec::with_capacity(todo.len() * 2);
    let mut stopped_early = false;
    let mut distinct = HashSet::new();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("arena-game-{i}"))
        .build();
    let body = one_scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop, openings, todo) = (&next, &stop, &openings, &todo);
            scope.spawn(move |_| {
                loop {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let Some(&pair) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        return;
                    };
                    let games = match recorded.get(&pair) {
                        Some(games) => games.clone(),
                        None => {
                            let opening = openings[pair];
                            let a = play_leg(pair, 0, opening, first, second, settings);
                            let b = play_leg(pair, 1, opening, first, second, settings);
                            [a, b]
                        }
                    };
                    if tx.send(games).is_err() {
                        return;
                    }
                }
            });
        }
        // The workers hold the only senders now: the loop below ends when
        // the last of them is done.
        drop(tx);
        // Pairs finish out of order across threads; the observer sees them
        // in pair order, so a stop (an SPRT verdict) falls on the same pair
        // whatever the timing and the match is reproducible from its seed.
        let mut waiting: BTreeMap<usize, [GameRecord; 2]> = BTreeMap::new();
        let mut next_to_observe = 0;
        for pair in rx.iter() {
            waiting.insert(pair[0].pair, pair);
            while let Some(pair) = todo.get(next_to_observe).and_then(|k| waiting.remove(k)) {
                next_to_observe += 1;
                if stop.load(Ordering::Relaxed) {
                    continue;
                }
                let (p0, p1) = (pair[0].points_for_first(), pair[1].points_for_first());
                summary.wdl.add_points(p0);
                summary.wdl.add_points(p1);
                summary.pentanomial.add_pair(p0, p1);
                distinct.insert(openings[pair[0].pair].position());
                if observer(&pair, &summary) == Control::Stop {
                    stop.store(true, Ordering::Relaxed);
                    stopped_early = next_to_observe < todo.len();
                }
                let [a, b] = pair;
                games.push(a);
                games.push(b);
            }
        }
    });
    match pool {
        Ok(pool) => pool.in_place_scope(body),
        // No pool (thread creation refused): rayon's global pool.
        Err(_) => rayon::in_place_scope(body),
    }
    games.sort_by_key(|g| (g.pair, g.leg));
    MatchReport {
        first: first.name().to_string(),
        second: second.name().to_string(),
        games,
        summary,
        stopped_early,
        openings: OpeningUse {
            book: settings.book.name.clone(),
            book_openings: settings.book.len(),
            distinct: distinct.len(),
        },
        sprt: None,
    }
}

/// Pins a scope closure to one scope lifetime (a closure written in place
/// would be inferred for every lifetime and demand `'static` borrows).
fn one_scope<'s, F: FnOnce(&rayon::Scope<'s>)>(f: F) -> F {
    f
}

/// Today's date (UTC) as PDN writes it: `YYYY.MM.DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_gregorian() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(today().len(), 10);
    }

    #[test]
    fn pair_lists_read_and_write_runs() {
        assert_eq!(parse_pair_list("1-3, 7,5-5", 10), Ok(vec![0, 1, 2, 4, 6]));
        assert_eq!(pair_list(&[0, 1, 2, 4, 6]), "1-3,5,7");
        assert!(
            parse_pair_list("0", 10)
                .unwrap_err()
                .contains("from 1 to 10")
        );
        assert!(parse_pair_list("11", 10).is_err());
        assert!(
            parse_pair_list("4-2", 10)
                .unwrap_err()
                .contains("backwards")
        );
        assert!(parse_pair_list("", 10).is_err());
    }

    #[test]
    fn seeds_differ_per_game_and_player() {
        let a = mix_seed(1, 0, 1);
        assert_ne!(a, mix_seed(1, 0, 2));
        assert_ne!(a, mix_seed(1, 1, 1));
        assert_ne!(a, mix_seed(2, 0, 1));
        assert_eq!(a, mix_seed(1, 0, 1));
    }
}
