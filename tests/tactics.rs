//! No lost tactics (issue 52): the suite `tests/data/tactics.txt` (105
//! single winning moves of 7+ pieces whose best move changes between depth
//! 4 and 8, each move's reply searched to depth 14 by the built-in net at
//! full width; `shashki tactics make`) solved by the built-in engine at a
//! node budget the full-width search alone chooses: the smallest of 1,000 /
//! 3,000 / 10,000 nodes where it (`sel=none`, the search of commit 3029653)
//! solves 40-80 % of the suite (57 of 105 at 1,000). The default,
//! selective search must solve at least as many (it solves 68). At larger
//! budgets it does not (3,000 nodes: 87 against 91; 10,000: 96
//! against 103; docs/RESULTS.md): the pruning trades some shots at equal
//! nodes for depth, and wins at equal time. One thread, no tables: the same
//! on every machine.

use shashki_arena::PlayerSpec;
use shashki_arena::kinds::{EngineSetup, build_engine};
use shashki_arena::tactics::{Solved, Tactic, read_suite, solve};
use shashki_search::SearchLimits;
use std::path::Path;

/// Nodes per position, fixed in advance (docs/RESULTS.md, "No lost tactics").
const NODES: u64 = 1_000;

fn suite() -> Vec<Tactic> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/tactics.txt");
    let text = std::fs::read_to_string(&path).expect("the tactics suite");
    read_suite(&text).expect("a readable suite")
}

fn solved_by(spec: &str, suite: &[Tactic], nodes: u64) -> Solved {
    let spec: PlayerSpec = spec.parse().expect("a valid spec");
    let setup = EngineSetup {
        seed: 1,
        tablebases: None,
    };
    let mut engine = build_engine(&spec, &setup).expect("the built-in engine");
    let limits = SearchLimits {
        nodes: Some(nodes),
        ..SearchLimits::default()
    };
    solve(&mut *engine, suite, &limits)
}

#[test]
fn the_selective_search_solves_at_least_as_many_tactics_as_the_full_width_one() {
    let suite = suite();
    assert!(suite.len() >= 50, "{} positions", suite.len());
    let full = solved_by("builtin:sel=none", &suite, NODES).count();
    let selective = solved_by("builtin", &suite, NODES).count();
    eprintln!(
        "of {}: full width {full}, selective {selective}",
        suite.len()
    );
    let share = full as f64 / suite.len() as f64;
    assert!(
        (0.4..=0.8).contains(&share),
        "full width solves {full} of {}",
        suite.len()
    );
    assert!(
        selective >= full,
        "selective {selective} < full width {full}"
    );
}

/// Issue 70: the pruning with its shot guard (`shots`) gives up no shot the
/// full-width search finds, at every budget; today's default does at 3,000
/// and 10,000 nodes (87 against 91, 96 against 103). The full-width counts
/// are held too, so the comparison cannot pass by weakening it.
#[test]
fn the_shot_guard_solves_as_many_tactics_as_the_full_width_search_at_every_budget() {
    let suite = suite();
    for (nodes, full_width_floor) in [(1_000, 57), (3_000, 91), (10_000, 103)] {
        let full = solved_by("builtin:sel=none", &suite, nodes).count();
        let guarded = solved_by("builtin:sel=prune+lmr+shots", &suite, nodes).count();
        eprintln!("{nodes} nodes: full width {full}, shots {guarded}");
        assert!(full >= full_width_floor, "{nodes} nodes: full width {full}");
        assert!(
            guarded >= full,
            "{nodes} nodes: shots {guarded} < full width {full}"
        );
    }
}
