//! The tables against the game's own rules.
//!
//! - Every position of every signature up to 3 pieces, under every
//!   counter value a game can reach there, equals one step of the game's
//!   recursion ([`Tablebases::check`]): with the counts making every line
//!   finite, that is the full exhaustive search, done bottom-up.
//! - 4 pieces: the same check on a sample of positions and counters per
//!   signature, and an independent memoised search to the end of the game
//!   (no table inside) from positions with counts already running.
//! - Endgame theory: rule 2's corner, three kings against a lone king on
//!   and off the main road, a win that the counting rules make a draw.
//!
//! The tables up to 4 pieces are generated once per test run into a
//! temporary folder (a few seconds in release).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shashki_rules::{DrawCounters, DrawRules, Game, Position};
use shashki_tablebase::{Material, Tablebases, Wdl, generate};
use std::collections::HashMap;
use std::sync::OnceLock;

fn tables() -> &'static Tablebases {
    static TB: OnceLock<Tablebases> = OnceLock::new();
    TB.get_or_init(|| {
        let dir = temp_dir("shared");
        let tb = generate(&dir, 4, &DrawRules::default(), &mut |_| {}).expect("generate");
        let _ = std::fs::remove_dir_all(&dir);
        tb
    })
}

use shashki_atomic::testing::temp_dir;

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap()
}

/// Every counter combination a game can have in `p`: balance up to one past
/// the signature's limit, 7.2.5's count equal to it without men and 0 or
/// equal with men, 7.2.7's count (where it runs) up to the balance count.
fn counter_grid(tb: &Tablebases, p: &Position, both_ends: bool) -> Vec<DrawCounters> {
    let canon = if p.side_to_move() == shashki_rules::Color::White {
        *p
    } else {
        p.flipped()
    };
    let table = tb.table(Material::of(&canon)).expect("table");
    let c = shashki_tablebase::Counting::of(table.material(), tb.rules());
    let limit = c.balance_limit.unwrap_or(4);
    let runs = DrawCounters::start(p).main_diagonal.is_some() && c.main_diagonal_limit.is_some();
    let mut out = Vec::new();
    for balance in 0..=limit + 1 {
        // 7.2.5's count equals the balance count without men; with men it
        // is anything up to it: try the end that presses hardest and 0.
        let reversibles = if table.material().men() == 0 || !both_ends {
            vec![balance]
        } else {
            vec![0, balance]
        };
        for reversible in reversibles {
            let diagonals: Vec<Option<u32>> = if runs {
                (0..=balance.min(11)).map(Some).collect()
            } else {
                vec![None]
            };
            for main_diagonal in diagonals {
                out.push(DrawCounters {
                    reversible,
                    balance,
                    main_diagonal,
                });
            }
        }
    }
    out
}

#[test]
fn every_position_up_to_3_pieces_follows_the_rules_under_every_count() {
    let tb = tables();
    let mut checked = 0u64;
    for table in tb.tables().filter(|t| t.material().pieces() <= 3) {
        let ix = shashki_tablebase::Indexer::new(table.material());
        for i in 0..ix.len() {
            let Some(p) = ix.position(i) else { continue };
            // White to move only: Black to move is the same entry, read
            // through the colour flip (checked with the 4-piece samples).
            for counters in counter_grid(tb, &p, false) {
                tb.check(&p, &counters).unwrap();
                checked += 1;
            }
        }
    }
    assert!(checked > 500_000, "checked {checked}");
}

#[test]
fn sampled_4_piece_positions_follow_the_rules_under_every_count() {
    let tb = tables();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let four: Vec<_> = tb.tables().filter(|t| t.material().pieces() == 4).collect();
    assert_eq!(four.len(), 25, "every 4-piece signature");
    for table in four {
        let ix = shashki_tablebase::Indexer::new(table.material());
        let mut done = 0;
        while done < 150 {
            let Some(p) = ix.position(rng.random_range(0..ix.len())) else {
                continue;
            };
            for q in [p, p.flipped()] {
                for counters in counter_grid(tb, &q, true) {
                    tb.check(&q, &counters).unwrap();
                }
            }
            done += 1;
        }
    }
}

/// Exhaustive search to the end of the game under the full rules (the
/// arbiter's own pieces: no legal move loses, the counting verdict draws,
/// counters advance by `DrawCounters::after`), memoised on position and
/// counters. No table inside. Repetition is left out, as in the tables.
struct Search {
    rules: DrawRules,
    memo: HashMap<(Position, DrawCounters), i8>,
}

impl Search {
    fn new(rules: DrawRules) -> Search {
        Search {
            rules,
            memo: HashMap::new(),
        }
    }

    fn value(&mut self, p: &Position, c: &DrawCounters) -> i8 {
        if let Some(&v) = self.memo.get(&(*p, *c)) {
            return v;
        }
        let moves = p.legal_moves();
        let v = if moves.is_empty() {
            -1
        } else if self.rules.counting_verdict(p, c).is_some() {
            0
        } else {
            let mut best = -1;
            for mv in moves.iter() {
                let child = p.make_move(mv);
                let after = c.after(p, mv, &child);
                best = best.max(-self.value(&child, &after));
                if best == 1 {
                    break;
                }
            }
            best
        };
        self.memo.insert((*p, *c), v);
        v
    }
}

fn wdl_score(w: Wdl) -> i8 {
    w.score() as i8
}

#[test]
fn sampled_positions_equal_an_exhaustive_search() {
    // Every signature up to 3 pieces from fresh counts (a game starting
    // there), and the kings-only 4-piece signatures with counts already
    // running (the search stays small where captures lead to 3 pieces).
    let tb = tables();
    let mut rng = ChaCha8Rng::seed_from_u64(44);
    let mut search = Search::new(DrawRules::default());
    let mut decided = 0;
    let chosen: Vec<_> = tb
        .tables()
        .filter(|t| t.material().pieces() <= 3 || t.material().men() == 0)
        .collect();
    assert_eq!(chosen.len(), 16 + 3);
    for table in chosen {
        let c = shashki_tablebase::Counting::of(table.material(), tb.rules());
        let ix = shashki_tablebase::Indexer::new(table.material());
        let mut done = 0;
        while done < 60 {
            let Some(p) = ix.position(rng.random_range(0..ix.len())) else {
                continue;
            };
            let mut counters = DrawCounters::start(&p);
            if table.material().pieces() == 4 {
                let limit = c.balance_limit.expect("kings only");
                counters.balance = limit - rng.random_range(1..=6);
                counters.reversible = counters.balance;
                counters.main_diagonal = counters
                    .main_diagonal
                    .map(|_| rng.random_range(0..=counters.balance.min(9)));
            }
            let expected = search.value(&p, &counters);
            let got = tb.probe(&p, &counters).unwrap();
            assert_eq!(wdl_score(got.wdl), expected, "{} {counters:?}", p.to_fen());
            decided += i32::from(expected != 0);
            done += 1;
        }
    }
    assert!(decided > 150, "only {decided} decisive samples");
}

#[test]
fn positions_from_game_starts_equal_an_exhaustive_search_and_the_game() {
    // Fresh counts (a game started here): 3-piece material, where the
    // search to the end is small, through the real `Game` arbiter.
    let tb = tables();
    let mut search = Search::new(DrawRules::default());
    for fen in [
        "W:WKa1:BKh8",
        "B:WKa1:BKh8",
        "W:WKc1:BKh2",
        "W:Wc3,Kh2:BKa7",
        "W:We5,Ka1:BKh8",
        "B:Wg5,Ka1:BKc7",
        "W:WKa1,Kc3:BKh8",
        "W:Wb6:Bg7,h6",
        "W:Wc5,e5:BKh8",
    ] {
        let p = pos(fen);
        let game = Game::new(p);
        let counters = *game.counters();
        let expected = search.value(&p, &counters);
        let got = tb.probe(&p, &counters).unwrap();
        assert_eq!(wdl_score(got.wdl), expected, "{fen}");
        // Play the tables' best moves for both sides through `Game`: the
        // game must end with the probed result.
        let mut game = game;
        let mut steps = 0;
        while game.outcome().is_none() {
            let (_, best) = tb.best_moves(game.position(), game.counters()).unwrap();
            game.play(&best[0]);
            steps += 1;
            assert!(steps < 200, "{fen}: no end");
        }
        let result = game.outcome().unwrap().result;
        let score = result.score_for(p.side_to_move()) as i8;
        assert_eq!(score, expected, "{fen}: game ended {result:?}");
    }
}

#[test]
fn king_in_the_corner_facing_the_long_diagonal_is_lost() {
    let tb = tables();
    let p = pos("W:WKa1:BKh8");
    let probe = tb.probe(&p, &DrawCounters::start(&p)).unwrap();
    assert_eq!(probe.wdl, Wdl::Loss);
    assert_eq!(probe.dtz, Some(2));
    // Stepping onto the long diagonal at b2 is no win here: h8 takes
    // first, landing on a1.
    let p = pos("W:WKc1:BKh8");
    let probe = tb.probe(&p, &DrawCounters::start(&p)).unwrap();
    assert_eq!(probe.wdl, Wdl::Draw);
    // A king that reaches the far corner wins: d4-h8, and every move of
    // the a1 king is taken.
    let p = pos("W:WKd4:BKa1");
    let probe = tb.probe(&p, &DrawCounters::start(&p)).unwrap();
    assert_eq!(probe.wdl, Wdl::Win);
    assert_eq!(probe.dtz, Some(3));
    // Out of the corners it is the ordinary draw.
    let p = pos("W:WKc1:BKh2");
    let probe = tb.probe(&p, &DrawCounters::start(&p)).unwrap();
    assert_eq!(probe.wdl, Wdl::Draw);
}

#[test]
fn three_kings_against_a_king_holding_the_main_road_draw() {
    let tb = tables();
    // The lone king to move, fresh counts: on the main road it holds most
    // positions (those it loses have a capture in a few half-moves); off
    // the road it loses most, unless it reaches the road in time.
    let m = Material {
        us: shashki_tablebase::Side { men: 0, kings: 1 },
        them: shashki_tablebase::Side { men: 0, kings: 3 },
    };
    let ix = shashki_tablebase::Indexer::new(m);
    let (mut road, mut road_draws, mut off, mut off_losses) = (0, 0, 0, 0);
    for p in (0..ix.len()).filter_map(|i| ix.position(i)) {
        let probe = tb.probe(&p, &DrawCounters::start(&p)).unwrap();
        if DrawCounters::start(&p).main_diagonal.is_some() {
            road += 1;
            road_draws += i32::from(probe.wdl == Wdl::Draw);
        } else {
            off += 1;
            off_losses += i32::from(probe.wdl == Wdl::Loss);
        }
    }
    assert!(
        road_draws * 10 > road * 8,
        "{road_draws}/{road} on the road"
    );
    assert!(off_losses * 10 < off * 6, "{off_losses}/{off} off the road");
    // A textbook defence: the king on the road, the kings far away.
    for fen in ["B:WKc1,Ke1,Kg1:BKa1", "W:WKc1,Ke1,Kg1:BKa1"] {
        let p = pos(fen);
        let probe = tb.probe(&p, &DrawCounters::start(&p)).unwrap();
        assert_eq!(probe.wdl, Wdl::Draw, "{fen}");
    }
}

#[test]
fn three_kings_holding_the_main_road_win_within_the_15_move_limit() {
    let tb = tables();
    // Petrov's triangle: with one king on a1-h8 and the lone king off it,
    // three kings win, and always within 7.2.4's 30 half-moves.
    let m = Material {
        us: shashki_tablebase::Side { men: 0, kings: 3 },
        them: shashki_tablebase::Side { men: 0, kings: 1 },
    };
    let ix = shashki_tablebase::Indexer::new(m);
    let road = shashki_rules::bitboard::MAIN_DIAGONAL;
    let (mut positions, mut wins) = (0, 0);
    let mut longest: Option<(u32, Position)> = None;
    for p in (0..ix.len()).filter_map(|i| ix.position(i)) {
        if p.white() & road == 0 || p.black() & road != 0 {
            continue;
        }
        positions += 1;
        let probe = tb.probe(&p, &DrawCounters::start(&p)).unwrap();
        assert!(!probe.cursed, "{}", p.to_fen());
        if probe.wdl == Wdl::Win {
            wins += 1;
            let d = probe.dtz.unwrap();
            assert!(d <= 30, "{} needs {d}", p.to_fen());
            if longest.is_none_or(|(best, _)| d > best) {
                longest = Some((d, p));
            }
        }
    }
    assert!(wins * 100 >= positions * 99, "{wins}/{positions} won");
    let (dtz, p) = longest.unwrap();
    assert!(dtz > 10, "the longest win takes {dtz} half-moves");
    // The same win is lost to the count once too few half-moves are left.
    let late = DrawCounters {
        reversible: 30 - dtz + 1,
        balance: 30 - dtz + 1,
        main_diagonal: None,
    };
    let probe = tb.probe(&p, &late).unwrap();
    assert_eq!(probe.wdl, Wdl::Draw);
    assert!(probe.cursed);
    // And the game confirms it: against the tables' best defence the
    // tables' moves reach the first capture at half-move `dtz` (here a
    // sacrifice that wins in smaller tables) and win the game.
    let mut game = Game::new(p);
    while game.outcome().is_none() {
        let (_, best) = tb.best_moves(game.position(), game.counters()).unwrap();
        game.play(&best[0]);
    }
    assert_eq!(
        game.outcome().unwrap().result,
        shashki_rules::GameResult::WhiteWins
    );
    let first_capture = game.moves().iter().position(|m| m.is_capture()).unwrap();
    assert_eq!(first_capture as u32 + 1, dtz, "{}", p.to_fen());
}

#[test]
fn a_win_without_the_counting_rules_is_a_draw_with_them() {
    let tb = tables();
    // King and two men against a king (7.2.6: 30 half-moves to capture or
    // promote): the men are too far back to make progress in time.
    let p = pos("W:WKa1,c1,e1:BKg1");
    let probe = tb.probe(&p, &DrawCounters::start(&p)).unwrap();
    assert_eq!(probe.wdl, Wdl::Draw);
    assert!(probe.cursed, "a win only without the count");
    // Tables made with every counting rule off (rule 2 kept) call it a win.
    let no_counts = DrawRules {
        insufficient_material: true,
        ..DrawRules::none()
    };
    let dir = temp_dir("no-counts");
    let free = generate(&dir, 4, &no_counts, &mut |_| {}).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let probe = free.probe(&p, &DrawCounters::start(&p)).unwrap();
    assert_eq!(probe.wdl, Wdl::Win);
    assert!(probe.dtz.unwrap() > 30, "dtz {:?}", probe.dtz);
    // The search to the end under the official rules agrees on the draw.
    let late = DrawCounters {
        reversible: 0,
        balance: 24,
        main_diagonal: None,
    };
    assert_eq!(Search::new(DrawRules::default()).value(&p, &late), 0);
}

#[test]
fn the_draw_state_alone_gives_the_same_result_where_it_answers() {
    // Random games from random 4-piece positions, judged by `Game`: the
    // probe from `DrawState` (what the search sees) agrees with the probe
    // from the full counters whenever it answers, and answers almost always.
    let tb = tables();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let four: Vec<_> = tb.tables().filter(|t| t.material().pieces() == 4).collect();
    let (mut asked, mut answered) = (0, 0);
    for _ in 0..400 {
        let table = four[rng.random_range(0..four.len())];
        let ix = shashki_tablebase::Indexer::new(table.material());
        let Some(start) = ix.position(rng.random_range(0..ix.len())) else {
            continue;
        };
        let mut game = Game::new(start);
        while game.outcome().is_none() && game.ply() < 40 {
            let pos = *game.position();
            if let Some(full) = tb.probe(&pos, game.counters()) {
                asked += 1;
                if let Some(wdl) = tb.probe_draw_state(&pos, &game.draw_state()) {
                    answered += 1;
                    assert_eq!(wdl, full.wdl, "{} {:?}", pos.to_fen(), game.counters());
                }
            }
            let moves = game.legal_moves();
            game.play(&moves[rng.random_range(0..moves.len())]);
        }
    }
    assert!(asked > 2000, "{asked}");
    assert!(answered * 100 >= asked * 95, "{answered}/{asked}");
}

#[test]
fn a_side_with_no_legal_move_has_lost_and_no_best_move() {
    let tb = tables();
    // Black's man on h2 is blocked by White's man on g1 and cannot take it
    // (no square behind it): Black, to move, has lost.
    let p = pos("B:Wg1:Bh2");
    assert!(p.legal_moves().is_empty());
    let counters = DrawCounters::start(&p);
    let (probe, best) = tb.best_moves(&p, &counters).unwrap();
    assert_eq!(probe.wdl, Wdl::Loss);
    assert!(best.is_empty());
}
