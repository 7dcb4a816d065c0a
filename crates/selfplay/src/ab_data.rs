//! What alpha-beta self-play adds to its data beyond the game line
//! (issue 36): random multi-PV moves within a margin early in the game,
//! samples drawn from inside the search tree, and exact tablebase labels.
//! Every option is off by default, and then the games and samples are
//! exactly what they were before these options existed.
//!
//! - **Multi-PV plies** (Stockfish's data generator): at `moves` plies
//!   drawn at the start of each game among its first `plies`, every legal
//!   move is searched and one is played at random among those within
//!   `margin` centi-men of the best. The position's sample keeps the best
//!   score as its label.
//! - **Tree samples** (nodchip's PR #264: positions from inside the search
//!   tree, labelled by a shallow search): from a game position, a random
//!   walk of 1..=`max_plies` legal moves (inside the full-width part of a
//!   search of at least that depth: every root move's child, and the
//!   lines alpha-beta must refute) reaches a position that the game line
//!   never holds; it is labelled by its own search at `depth` plies. Its
//!   result field is not a game result: it carries [`FLAG_TREE`] and the
//!   learner trains on its score alone.
//! - **Exact labels**: a sample whose position is in the tablebases gets
//!   the tables' value as its score and result ([`FLAG_EXACT`]); the
//!   position where a game is adjudicated by the tables becomes such a
//!   sample too.

use crate::sample::{FLAG_EXACT, FLAG_TREE, Sample};
use rand::Rng;
use rand::seq::index::sample as sample_indices;
use rand_chacha::ChaCha8Rng;
use shashki_rules::{Game, Move};
use shashki_search::alphabeta::{AlphaBeta, MATE, MATE_BOUND};
use shashki_search::limits::SearchLimits;
use shashki_tablebase::{Tablebases, Wdl};

/// Centi-men per logit unit used to turn a search score into an expected
/// score (the NNUE output's scale: `shashki_nnue::EVAL_CP_PER_UNIT`).
pub const SCORE_CP_PER_UNIT: f32 = 200.0;

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

/// Random multi-PV moves early in each game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MultiPv {
    /// Random multi-PV moves per game (0: off).
    pub moves: u32,
    /// They are drawn among the game's first `plies` plies.
    pub plies: u32,
    /// A move is a candidate when its score is within this many centi-men
    /// of the best move's.
    pub margin: i32,
}

/// Samples drawn from inside the search tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeSamples {
    /// Expected tree samples per searched game move (0: off; 0.5: one
    /// every other move on average; 2: two per move).
    pub rate: f32,
    /// Longest random walk from the game position, in plies.
    pub max_plies: u32,
    /// Depth of the search that labels a tree sample.
    pub depth: u32,
}

impl Default for TreeSamples {
    fn default() -> Self {
        TreeSamples {
            rate: 0.0,
            max_plies: 4,
            depth: 4,
        }
    }
}

/// The data options of alpha-beta self-play (all off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AbDataOptions {
    /// Random multi-PV moves early in each game.
    pub multipv: MultiPv,
    /// Samples from inside the search tree.
    pub tree: TreeSamples,
    /// Samples in the tablebases get their exact value.
    pub exact_labels: bool,
    /// The self-play searches probe the tablebases below the root.
    pub tablebase_search: bool,
    /// The static evaluation is scaled down in drawish material
    /// ([`crate::drawish`]).
    pub drawish_scale: bool,
    /// Share of each game's sample weight given by surprise
    /// ([`crate::surprise`]; 0: every sample written once).
    pub surprise_weight: f32,
}

impl AbDataOptions {
    /// Checks ranges; the error names the option.
    pub fn validate(&self) -> Result<(), String> {
        let m = &self.multipv;
        if m.moves > 0 && m.plies < m.moves {
            return Err(format!(
                "random_multipv_plies = {}: must be at least random_multipv_moves = {}",
                m.plies, m.moves
            ));
        }
        if m.margin < 0 {
            return Err("random_multipv_margin: must be >= 0".into());
        }
        let t = &self.tree;
        if !(t.rate.is_finite() && t.rate >= 0.0) {
            return Err("tree_sample_rate: must be finite and >= 0".into());
        }
        if !(0.0..=1.0).contains(&self.surprise_weight) {
            return Err("surprise_weight: must be in 0 ..= 1".into());
        }
        if t.rate > 0.0 && (t.max_plies == 0 || t.depth == 0) {
            return Err("tree_sample_plies and tree_sample_depth: must be at least 1".into());
        }
        Ok(())
    }
}

/// The plies of one game that play a random multi-PV move, drawn from
/// the game's own stream (none when the option is off: no draw is made,
/// so the stream is what it was without the option).
pub fn multipv_plies(options: &MultiPv, rng: &mut ChaCha8Rng) -> Vec<usize> {
    if options.moves == 0 {
        return Vec::new();
    }
    let plies = options.plies as usize;
    let mut chosen = sample_indices(rng, plies, (options.moves as usize).min(plies)).into_vec();
    chosen.sort_unstable();
    chosen
}

/// A multi-PV choice: the move played, and the best move and its score
/// (the position's label).
#[derive(Clone, Copy, Debug)]
pub struct MultiPvChoice {
    /// The move to play, drawn among those within the margin.
    pub played: Move,
    /// The best move.
    pub best: Move,
    /// The best move's score (side to move's view, centi-men).
    pub score: i32,
    /// Nodes searched.
    pub nodes: u64,
}

/// Searches every legal move of `game` to `depth - 1` plies after it and
/// draws the move to play among those within `margin` of the best.
/// `None` when the game has no move.
pub fn multipv_choice(
    engine: &mut AlphaBeta,
    game: &Game,
    depth: u32,
    margin: i32,
    rng: &mut ChaCha8Rng,
) -> Option<MultiPvChoice> {
    let limits = SearchLimits::depth(depth.saturating_sub(1).max(1));
    let mut nodes = 0;
    let mut scored: Vec<(Move, i32)> = Vec::new();
    for mv in game.legal_moves().iter() {
        let mut child = game.clone();
        child.play(mv);
        let score = match child.outcome() {
            Some(outcome) => match outcome.result.winner() {
                None => 0,
                Some(w) if w == game.side_to_move() => MATE - 1,
                Some(_) => -(MATE - 1),
            },
            None => {
                let result = engine.search(&child, &limits);
                nodes += result.nodes;
                -result.score
            }
        };
        scored.push((*mv, score));
    }
    let &(best, score) = scored.iter().max_by_key(|(_, s)| *s)?;
    let candidates: Vec<Move> = scored
        .iter()
        .filter(|(_, s)| *s >= score.saturating_sub(margin))
        .map(|(m, _)| *m)
        .collect();
    let played = candidates[rng.random_range(0..candidates.len())];
    Some(MultiPvChoice {
        played,
        best,
        score,
        nodes,
    })
}

/// The number of tree samples to draw at one game move: `floor(rate)`,
/// plus one more with probability `fract(rate)`.
pub fn tree_sample_count(rate: f32, rng: &mut ChaCha8Rng) -> usize {
    if rate <= 0.0 {
        return 0;
    }
    let whole = rate.floor();
    let extra = rng.random::<f32>() < rate - whole;
    whole as usize + usize::from(extra)
}

/// The exact value of the current position of `game` if the tables hold
/// it: (root W/D/L, result from the side to move's view).
pub fn exact_label(tb: &Tablebases, game: &Game) -> Option<([f32; 3], i8)> {
    let probe = tb.probe(game.position(), game.counters())?;
    Some(match probe.wdl {
        Wdl::Win => ([1.0, 0.0, 0.0], 1),
        Wdl::Draw => ([0.0, 1.0, 0.0], 0),
        Wdl::Loss => ([0.0, 0.0, 1.0], -1),
    })
}

/// A sample of the current position of `game` with the exact value of
/// the tables.
pub fn exact_sample(game: &Game, wdl: [f32; 3], result: i8) -> Sample {
    let mut sample = game_sample(game);
    sample.root_wdl = wdl;
    sample.result = result;
    sample.flags |= FLAG_EXACT;
    sample
}

/// A sample of the current position of `game` (no label yet).
pub fn game_sample(game: &Game) -> Sample {
    let mut sample = Sample::new(*game.position(), game.draw_state());
    sample.ply = game.ply().min(u16::MAX as usize) as u16;
    sample.legal_moves = game.legal_moves().len().min(u16::MAX as usize) as u16;
    sample
}

/// What labels a tree sample.
pub struct TreeLabeller<'a> {
    /// The searcher (the game's own engine).
    pub engine: &'a mut AlphaBeta,
    /// The tablebases, when exact labels are on.
    pub exact: Option<&'a Tablebases>,
    /// Record no position with a capture due.
    pub skip_captures: bool,
}

impl TreeLabeller<'_> {
    /// One tree sample from the current position of `game`: a random walk
    /// of 1..=`options.max_plies` plies (walking on through captures due,
    /// at most as many plies again, when such positions are skipped), then
    /// its label. `None` when the walk ends the game or finds no quiet
    /// position. Returns the nodes searched beside it.
    pub fn draw(
        &mut self,
        game: &Game,
        options: &TreeSamples,
        rng: &mut ChaCha8Rng,
    ) -> (Option<Sample>, u64) {
        let mut walk = game.clone();
        let plies = rng.random_range(1..=options.max_plies.max(1));
        let mut played = 0;
        loop {
            if walk.is_over() {
                return (None, 0);
            }
            let moves = walk.legal_moves();
            let capture_due = moves.iter().any(|m| m.is_capture());
            if played >= plies && !(self.skip_captures && capture_due) {
                break;
            }
            if played >= 2 * plies {
                return (None, 0);
            }
            walk.play(&moves[rng.random_range(0..moves.len())]);
            played += 1;
        }
        if let Some((wdl, result)) = self.exact.and_then(|tb| exact_label(tb, &walk)) {
            let mut sample = exact_sample(&walk, wdl, result);
            sample.flags |= FLAG_TREE;
            return (Some(sample), 0);
        }
        // Labelled as a position (the net sees no game history), as
        // `shashki relabel` labels: a repetition on the walk makes no draw.
        let fresh = Game::with_rules(*walk.position(), *walk.rules());
        let result = self
            .engine
            .search(&fresh, &SearchLimits::depth(options.depth));
        let Some(best) = result.best_move else {
            return (None, result.nodes);
        };
        let mut sample = game_sample(&walk);
        sample.set_policy(&[best], &[1.0]);
        sample.root_wdl = score_to_wdl(result.score);
        sample.flags |= FLAG_TREE;
        (Some(sample), result.nodes)
    }
}
