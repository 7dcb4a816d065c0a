//! The searches with endgame tablebases: MCTS solves a root in the tables
//! (and roots whose lines enter them), alpha-beta scores them exactly and
//! reports `tb win|loss N`, and the tables agree with an exhaustive
//! alpha-beta search to the end of the game (no table inside).

mod common;

use shashki_rules::{DrawRules, Game, Move, Position};
use shashki_search::alphabeta::{MATE, MATE_BOUND, Selectivity, StaticEval};
use shashki_search::mcts::MctsEngine;
use shashki_search::mcts::tree::TABLEBASE_PLIES;
use shashki_search::mcts::{Proof, Search};
use shashki_search::stand_ins::UniformEvaluator;
use shashki_search::tablebase::{Tablebases, TbWdl};
use shashki_search::{AbConfig, AlphaBeta, Engine, Score, SearchConfig, SearchLimits};
use shashki_tablebase::{Indexer, Material};
use std::sync::{Arc, OnceLock};

/// Tables of up to 4 pieces, generated once per test binary (seconds).
fn tables() -> Arc<Tablebases> {
    static TABLES: OnceLock<Arc<Tablebases>> = OnceLock::new();
    TABLES
        .get_or_init(|| Arc::new(common::generate_tables(4, "search")))
        .clone()
}

/// Tablebase positions of every kind: wins, losses and draws, men and kings.
const IN_TABLES: [&str; 6] = [
    "W:WKa1,Kc3:Bh4",
    "W:Wc3:Bh8",
    "W:Wa3,c3:BKh8",
    "B:WKa1,Kc3:Bd6",
    "W:Wg3:Bb6",
    "W:WKa1,Kc1,Ke1:BKg1",
];

fn game(fen: &str) -> Game {
    Game::new(Position::from_fen(fen).unwrap())
}

/// The tables' verdict and best moves at the start of `game`.
fn tables_say(tb: &Tablebases, game: &Game) -> (TbWdl, u32, Vec<Move>) {
    let (probe, moves) = tb
        .best_moves(game.position(), game.counters())
        .expect("in the tables");
    (probe.wdl, probe.dtz.unwrap_or(0), moves)
}

fn expected_score(wdl: TbWdl, dtz: u32) -> Score {
    match wdl {
        TbWdl::Win => Score::TbWin(dtz),
        TbWdl::Loss => Score::TbLoss(dtz),
        TbWdl::Draw => Score::TbDraw,
    }
}

#[test]
fn mcts_solves_a_root_in_the_tables_at_once() {
    let tb = tables();
    for fen in IN_TABLES {
        let game = game(fen);
        let (wdl, dtz, best) = tables_say(&tb, &game);
        let mut search = Search::new(game.clone(), SearchConfig::default()).unwrap();
        search.set_tablebases(Some(tb.clone())).unwrap();
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        let result = search.run(&UniformEvaluator::draw(), &mut rng).unwrap();
        let expected = match wdl {
            TbWdl::Win => Proof::Win(TABLEBASE_PLIES + dtz),
            TbWdl::Loss => Proof::Loss(TABLEBASE_PLIES + dtz),
            TbWdl::Draw => Proof::Draw,
        };
        assert_eq!(result.proof, expected, "{fen}");
        assert!(
            best.contains(&result.best_move),
            "{fen}: {}",
            result.best_move
        );
        assert_eq!(result.simulations, 0, "{fen}: solved before any simulation");

        // The engine reports the tables' verdict, not a fake mate.
        let mut engine = MctsEngine::new(UniformEvaluator::draw(), SearchConfig::default(), 1, "u")
            .unwrap()
            .with_tablebases(Some(tb.clone()));
        let report = engine.go(&game, &SearchLimits::nodes(1000), &mut |_| {});
        assert_eq!(report.score, expected_score(wdl, dtz), "{fen}");
        assert!(best.contains(&report.best_move.unwrap()), "{fen}");
    }
}

#[test]
fn mcts_proves_a_root_whose_lines_enter_the_tables() {
    let tb = tables();
    // Five pieces: outside the tables; every capture leads into them.
    let fen = "W:WKa1,Kc3,e3:Bd4,h4";
    let game = game(fen);
    assert!(tb.probe(game.position(), game.counters()).is_none());
    let mut search = Search::new(game.clone(), SearchConfig::default()).unwrap();
    search.set_tablebases(Some(tb.clone())).unwrap();
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(3);
    let result = search.run(&UniformEvaluator::draw(), &mut rng).unwrap();
    // Every move is a capture into the tables: the root's value is the best
    // of their verdicts, and the distance says "converted after one ply".
    let mut best = TbWdl::Loss;
    for mv in game.legal_moves().iter() {
        assert!(mv.is_capture());
        let mut after = game.clone();
        after.play(mv);
        let reply = tb.probe(after.position(), after.counters()).unwrap().wdl;
        if reply.flip().score() > best.score() {
            best = reply.flip();
        }
    }
    let expected = match best {
        TbWdl::Win => Proof::Win(TABLEBASE_PLIES + 1),
        TbWdl::Loss => Proof::Loss(TABLEBASE_PLIES + 1),
        TbWdl::Draw => Proof::Draw,
    };
    assert_eq!(result.proof, expected);
    // Without tables the same budget proves nothing.
    let mut plain = Search::new(game, SearchConfig::default().with_simulations(50)).unwrap();
    let result = plain.run(&UniformEvaluator::draw(), &mut rng).unwrap();
    assert_eq!(result.proof.tablebase_plies(), None);
}

#[test]
fn alpha_beta_scores_tablebase_positions_exactly() {
    let tb = tables();
    for fen in IN_TABLES {
        let game = game(fen);
        let (wdl, dtz, best) = tables_say(&tb, &game);
        let mut ab = AlphaBeta::new(AbConfig::default()).with_tablebases(Some(tb.clone()));
        let result = ab.search(&game, &SearchLimits::depth(6));
        let score = result.score_kind();
        // A capture that ends the game at once is a mate the search sees.
        if !matches!(score, Score::Mate(1)) {
            assert_eq!(score, expected_score(wdl, dtz), "{fen}");
        }
        let mv = result.best_move.unwrap();
        assert!(best.contains(&mv), "{fen}: {mv} not among {best:?}");
        // The line goes on through the tables at least to the conversion.
        if wdl != TbWdl::Draw {
            assert!(result.pv.len() >= dtz as usize, "{fen}: {:?}", result.pv);
        }
        // Switched off: an evaluation, never a tablebase score.
        let plain = AlphaBeta::new(AbConfig::default()).search(&game, &SearchLimits::depth(2));
        assert!(
            !matches!(
                plain.score_kind(),
                Score::TbWin(_) | Score::TbLoss(_) | Score::TbDraw
            ),
            "{fen}"
        );
    }
    // Outside the tables, lines that enter them get exact scores too.
    let game = game("W:WKa1,Kc3,e3:Bd4,h4");
    let mut ab = AlphaBeta::new(AbConfig::default()).with_tablebases(Some(tb));
    let score = ab.search(&game, &SearchLimits::depth(3)).score_kind();
    assert!(
        matches!(score, Score::TbWin(1) | Score::TbDraw | Score::Mate(_))
            || score == Score::Centi(0),
        "{score:?}"
    );
}

/// A leaf evaluation that counts every unfinished line as won (`optimist`)
/// or lost for the root's side: the search's score is then an upper or a
/// lower bound of the true value, and where the two meet it is exact.
struct Bound {
    root: shashki_rules::Color,
    optimist: bool,
}

const UNKNOWN: i32 = 5_000;

impl StaticEval for Bound {
    fn name(&self) -> String {
        "bound".into()
    }
    fn reset(&mut self, _: &Position) {}
    fn push(&mut self, _: &Position, _: &Move, _: &Position) {}
    fn pop(&mut self) {}
    fn evaluate(&mut self, pos: &Position) -> i32 {
        let good = (pos.side_to_move() == self.root) == self.optimist;
        if good { UNKNOWN } else { -UNKNOWN }
    }
    fn fork(&self) -> Box<dyn StaticEval> {
        Box::new(Bound { ..*self })
    }
}

/// The value of `game` by alpha-beta to the end of the game (the arbiter
/// judges every node, counters included), if `depth` plies decide it.
fn exhaustive(game: &Game, depth: u32) -> Option<TbWdl> {
    let bound = |optimist| {
        let eval = Box::new(Bound {
            root: game.side_to_move(),
            optimist,
        });
        // Full width: a pruned search would not bound the value.
        let config = AbConfig {
            tt_megabytes: 4,
            selectivity: Selectivity::NONE,
            ..AbConfig::default()
        };
        AlphaBeta::with_eval(config, eval)
            .search(game, &SearchLimits::depth(depth))
            .score
    };
    let (high, low) = (bound(true), bound(false));
    if high < -MATE_BOUND {
        Some(TbWdl::Loss)
    } else if low > MATE_BOUND {
        Some(TbWdl::Win)
    } else if high == 0 && low == 0 {
        Some(TbWdl::Draw)
    } else {
        assert!(high.abs() < MATE, "{high} {low}");
        None
    }
}

/// Compares the probe of `pos` (fresh counters) with the exhaustive search
/// to `depth`: `None` if the game is already over, else whether the search
/// decided the value (the probe must then equal it).
fn probe_equals_search(
    tb: &Tablebases,
    pos: Position,
    material: Material,
    depth: u32,
) -> Option<bool> {
    let game = Game::new(pos);
    if game.outcome().is_some() {
        return None;
    }
    let probe = tb.probe(&pos, game.counters()).expect("in the tables");
    let Some(value) = exhaustive(&game, depth) else {
        return Some(false);
    };
    assert_eq!(
        probe.wdl,
        value,
        "{} ({})",
        pos.to_fen(),
        material.file_name()
    );
    Some(true)
}

#[test]
fn the_tables_equal_an_exhaustive_alpha_beta_on_every_signature_up_to_four() {
    let tb = tables();
    let mut next = common::sampler(0x5eed_u64);
    let (mut decided, mut total) = (0, 0);
    for material in Material::all_up_to(4) {
        let indexer = Indexer::new(material);
        let samples = if material.pieces() <= 3 { 12 } else { 4 };
        let depth = if material.pieces() <= 3 { 12 } else { 8 };
        let mut found = 0;
        for _ in 0..samples * 20 {
            if found == samples {
                break;
            }
            let Some(pos) = indexer.position(next() % indexer.len()) else {
                continue;
            };
            found += 1;
            for pos in [pos, pos.flipped()] {
                if let Some(was_decided) = probe_equals_search(&tb, pos, material, depth) {
                    total += 1;
                    decided += usize::from(was_decided);
                }
            }
        }
        assert!(
            found > 0,
            "no position sampled for {}",
            material.file_name()
        );
    }
    eprintln!("{decided} of {total} sampled positions decided by the exhaustive search");
    // Most sampled positions are decided within the depth.
    assert!(decided * 2 > total, "{decided} of {total} decided");
}

/// Random 5-piece positions against the exhaustive search. Needs the
/// 5-piece tables (minutes to make): run with
/// `SHASHKI_TB5_DIR=DIR cargo test --release --test tablebase -- --ignored`
/// after `shashki tb generate --pieces 5 --out DIR` (docs/TABLEBASES.md
/// records the last run).
#[test]
#[ignore = "needs SHASHKI_TB5_DIR with the 5-piece tables"]
fn the_tables_equal_an_exhaustive_alpha_beta_on_random_five_piece_positions() {
    let dir = std::env::var("SHASHKI_TB5_DIR").expect("SHASHKI_TB5_DIR");
    let (tb, errors) = Tablebases::load(std::path::Path::new(&dir), DrawRules::default(), 5);
    assert!(errors.is_empty(), "{errors:?}");
    let mut next = common::sampler(0x5_5eed_u64);
    let five: Vec<Material> = Material::all_up_to(5)
        .into_iter()
        .filter(|m| m.pieces() == 5)
        .collect();
    let (mut decided, mut total) = (0, 0);
    while total < 2000 {
        let material = five[(next() % five.len() as u64) as usize];
        let indexer = Indexer::new(material);
        let Some(pos) = indexer.position(next() % indexer.len()) else {
            continue;
        };
        if let Some(was_decided) = probe_equals_search(&tb, pos, material, 8) {
            total += 1;
            decided += usize::from(was_decided);
        }
    }
    eprintln!("{decided} of {total} random 5-piece positions decided by the exhaustive search");
    assert!(decided * 3 > total, "{decided} of {total} decided");
}
