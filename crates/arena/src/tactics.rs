//! Tactics suites: positions with a single winning move, found in game
//! records by searching every move of each position deeply, and solved by
//! an engine at a fixed budget. A selective search must solve at least as
//! many as the full-width one (issue 52: pruning that loses tactics does
//! not pay, whatever it buys elsewhere).
//!
//! A suite is a text file, one position a line: `FEN | move | note`
//! (`#` starts a comment line).

use shashki_rules::{Game, Move, Position, read_pdn};
use shashki_search::{Engine, Score, SearchLimits};
use std::collections::HashSet;
use thiserror::Error;

/// One position of a suite and its single winning move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tactic {
    /// The position.
    pub position: Position,
    /// The only move that wins.
    pub best: Move,
    /// How it was found (the values of the best and second move).
    pub note: String,
}

/// A line of a suite that does not read.
#[derive(Debug, Error)]
#[error("tactics suite, line {line}: {reason}")]
pub struct SuiteError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Reads a suite (see the module docs).
pub fn read_suite(text: &str) -> Result<Vec<Tactic>, SuiteError> {
    let mut suite = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fail = |reason: String| SuiteError {
            line: line_no,
            reason,
        };
        let mut fields = line.split('|').map(str::trim);
        let (Some(fen), Some(mv)) = (fields.next(), fields.next()) else {
            return Err(fail("expected `FEN | move | note`".into()));
        };
        let position = Position::from_fen(fen).map_err(|e| fail(format!("FEN {fen}: {e}")))?;
        let best = position
            .parse_move(mv)
            .map_err(|e| fail(format!("move {mv}: {e}")))?;
        let note = fields.next().unwrap_or("").to_string();
        suite.push(Tactic {
            position,
            best,
            note,
        });
    }
    Ok(suite)
}

/// The suite as text, with `header` as its leading comment lines.
pub fn write_suite(header: &str, suite: &[Tactic]) -> String {
    let mut text: String = header.lines().map(|l| format!("# {l}\n")).collect();
    for tactic in suite {
        text += &format!(
            "{} | {} | {}\n",
            tactic.position.to_fen(),
            tactic.best,
            tactic.note
        );
    }
    text
}

/// A score as one number in centi-men: game ends and table results lie
/// beyond every evaluation, nearer ones further out.
pub fn score_value(score: Score) -> i32 {
    const DECIDED: i32 = 20_000;
    match score {
        Score::Centi(c) => c,
        Score::Mate(plies) if plies >= 0 => DECIDED + 1_000 - plies,
        Score::Mate(plies) => -DECIDED - 1_000 - plies,
        Score::TbWin(dtz) => DECIDED - dtz as i32,
        Score::TbLoss(dtz) => -DECIDED + dtz as i32,
        Score::ProvenDraw | Score::TbDraw => 0,
        Score::Value(v) => (v * 1_000.0) as i32,
    }
}

/// Each legal move of `game` with its value for the side to move: the move
/// played and the reply searched by `engine` within `limits`.
pub fn move_values(
    engine: &mut dyn Engine,
    game: &Game,
    limits: &SearchLimits,
) -> Vec<(Move, i32)> {
    let mut values = Vec::new();
    for mv in game.legal_moves().iter() {
        let mut after = game.clone();
        after.play(mv);
        let value = match after.outcome() {
            Some(outcome) => match outcome.result.winner() {
                Some(winner) if winner == game.side_to_move() => score_value(Score::Mate(1)),
                Some(_) => score_value(Score::Mate(-1)),
                None => 0,
            },
            None => {
                engine.new_game();
                -score_value(engine.go(&after, limits, &mut |_| {}).score)
            }
        };
        values.push((*mv, value));
    }
    values
}

/// What makes a move the single winning one.
#[derive(Clone, Copy, Debug)]
pub struct Criteria {
    /// The best move's value is at least this (centi-men).
    pub win: i32,
    /// Every other move's value is at most this.
    pub others_at_most: i32,
}

impl Default for Criteria {
    /// A win of one and a half men or more, where every other move keeps
    /// at most half a man.
    fn default() -> Self {
        Criteria {
            win: 150,
            others_at_most: 50,
        }
    }
}

/// The single winning move among `values` with its value and the best
/// other value, if there is one.
pub fn single_win(values: &[(Move, i32)], criteria: Criteria) -> Option<(Move, i32, i32)> {
    let (best_index, &(best, value)) = values.iter().enumerate().max_by_key(|(_, (_, v))| *v)?;
    let second = values
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != best_index)
        .map(|(_, (_, v))| *v)
        .max()?;
    (value >= criteria.win && second <= criteria.others_at_most).then_some((best, value, second))
}

/// How a suite is made from game records.
#[derive(Clone, Debug)]
pub struct MakeSettings {
    /// Positions with fewer pieces are skipped (the tables would decide them).
    pub min_pieces: u32,
    /// Only positions whose best move at the root changes between a search
    /// at these limits and one at `screen`'s are looked at: a move a
    /// shallow search already plays is no test of the search.
    pub shallow: SearchLimits,
    /// The cheap first look at every move of every position.
    pub screen: SearchLimits,
    /// The deep search that confirms a candidate.
    pub confirm: SearchLimits,
    /// What a single winning move is.
    pub criteria: Criteria,
    /// Stop after this many tactics.
    pub max: usize,
}

/// Tactics from the games of `pdn_texts` (each a PDN file's text): every
/// position of `min_pieces` or more with two or more moves, screened and
/// then confirmed by `engine`; each position once. `progress` is told of
/// each tactic found.
pub fn make_suite(
    engine: &mut dyn Engine,
    pdn_texts: &[String],
    settings: &MakeSettings,
    progress: &mut dyn FnMut(&Tactic),
) -> Vec<Tactic> {
    let mut seen = HashSet::new();
    let mut suite = Vec::new();
    for text in pdn_texts {
        for record in read_pdn(text).into_iter().flatten() {
            let mut game = Game::new(record.start);
            for mv in &record.moves {
                if suite.len() >= settings.max {
                    return suite;
                }
                let pos = *game.position();
                let fresh = seen.insert(pos.hash());
                if fresh
                    && pos.occupied().count_ones() >= settings.min_pieces
                    && game.legal_moves().len() > 1
                {
                    let candidate = Game::new(pos);
                    if let Some(tactic) = changes_with_depth(engine, &candidate, settings)
                        .then(|| confirm(engine, &candidate, settings))
                        .flatten()
                    {
                        progress(&tactic);
                        suite.push(tactic);
                    }
                }
                game.play(mv);
            }
        }
    }
    suite
}

/// True if the root's best move at `settings.shallow` differs from the one
/// at `settings.screen`.
fn changes_with_depth(engine: &mut dyn Engine, game: &Game, settings: &MakeSettings) -> bool {
    let mut best = |limits: &SearchLimits| {
        engine.new_game();
        engine.go(game, limits, &mut |_| {}).best_move
    };
    best(&settings.shallow) != best(&settings.screen)
}

/// The position's tactic if both the screen and the deep search find the
/// same single winning move.
fn confirm(engine: &mut dyn Engine, game: &Game, settings: &MakeSettings) -> Option<Tactic> {
    let (screened, ..) = single_win(
        &move_values(engine, game, &settings.screen),
        settings.criteria,
    )?;
    let (best, value, second) = single_win(
        &move_values(engine, game, &settings.confirm),
        settings.criteria,
    )?;
    (best == screened).then(|| Tactic {
        position: *game.position(),
        best,
        note: format!("best {value}, next {second}"),
    })
}

/// Which tactics of a suite an engine solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    /// For each tactic in order, whether the engine played the winning move.
    pub hits: Vec<bool>,
}

impl Solved {
    /// How many were solved.
    pub fn count(&self) -> usize {
        self.hits.iter().filter(|&&h| h).count()
    }
}

/// Searches each tactic with `engine` within `limits` (a new game each, so
/// no table carries over) and checks its move.
pub fn solve(engine: &mut dyn Engine, suite: &[Tactic], limits: &SearchLimits) -> Solved {
    let hits = suite
        .iter()
        .map(|tactic| {
            engine.new_game();
            let game = Game::new(tactic.position);
            engine.go(&game, limits, &mut |_| {}).best_move == Some(tactic.best)
        })
        .collect();
    Solved { hits }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suite_reads_back_what_was_written() {
        let position = Position::from_fen("W:Wc3,e3:Bd4,f6").unwrap();
        let best = position.legal_moves()[0];
        let suite = vec![Tactic {
            position,
            best,
            note: "best 300, next 0".into(),
        }];
        let text = write_suite("a test\nsecond line", &suite);
        assert!(text.starts_with("# a test\n# second line\n"));
        assert_eq!(read_suite(&text).unwrap(), suite);
        let err = read_suite("# c\nW:Wc3:Bd4 | a1-b2").unwrap_err();
        assert_eq!(err.line, 2, "{err}");
    }

    #[test]
    fn a_single_win_needs_one_winning_move_and_no_other() {
        let moves = Position::startpos().legal_moves();
        let (a, b, c) = (moves[0], moves[1], moves[2]);
        let criteria = Criteria::default();
        assert_eq!(
            single_win(&[(a, 10), (b, 200), (c, 40)], criteria),
            Some((b, 200, 40))
        );
        assert_eq!(
            single_win(&[(a, 60), (b, 200)], criteria),
            None,
            "two good moves"
        );
        assert_eq!(
            single_win(&[(a, 10), (b, 140)], criteria),
            None,
            "not a win"
        );
        assert_eq!(single_win(&[(b, 900)], criteria), None, "a forced move");
    }
}
