//! Perft from the start position against the published counts (RULES.md).

use shashki_rules::perft::{perft, perft_make_all};
use shashki_rules::{PathMode, Position};

const DISTINCT: [u64; 9] = [7, 49, 302, 1469, 7482, 37986, 190146, 929899, 4570586];

#[test]
fn start_position_depths_1_to_9() {
    let start = Position::startpos();
    for (i, &expected) in DISTINCT.iter().enumerate() {
        let depth = i as u32 + 1;
        assert_eq!(
            perft(&start, depth, PathMode::Distinct),
            expected,
            "depth {depth}"
        );
    }
}

#[test]
fn making_every_leaf_gives_the_same_counts() {
    let start = Position::startpos();
    for (i, &expected) in DISTINCT.iter().take(8).enumerate() {
        assert_eq!(perft_make_all(&start, i as u32 + 1), expected);
    }
}

#[test]
fn path_counts_depths_8_and_9() {
    let start = Position::startpos();
    assert_eq!(perft(&start, 7, PathMode::AllPaths), 190146);
    assert_eq!(perft(&start, 8, PathMode::AllPaths), 929905);
    assert_eq!(perft(&start, 9, PathMode::AllPaths), 4570667);
}

/// Depths 10 and 11 take seconds in release; run with `--ignored`.
#[test]
#[ignore]
fn start_position_depths_10_and_11() {
    let start = Position::startpos();
    assert_eq!(perft(&start, 10, PathMode::Distinct), 22444032);
    assert_eq!(perft(&start, 11, PathMode::Distinct), 110917189);
    assert_eq!(perft(&start, 10, PathMode::AllPaths), 22450647);
    assert_eq!(perft(&start, 11, PathMode::AllPaths), 110961394);
}
